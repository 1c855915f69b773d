//===- ShowConfig.cpp - --show-config and `kvlint rule` --------------------===//
//
// --show-config replays the layers ConfigResolver applies (Config.h: the
// .clang-tidy chain, the .kvlint.yaml files root first, then the command
// line) and remembers which layer set each value; the values printed are the
// resolver's own, so the two cannot disagree silently.
//
//===----------------------------------------------------------------------===//
#include "ShowConfig.h"
#include "RuleDocs.h"

#include "kvlint/Rule.h"

#include <filesystem>
#include <map>

namespace fs = std::filesystem;

namespace kvlint {

int showRule(const std::vector<std::string> &Args, std::ostream &OS, std::ostream &Err) {
  if (Args.empty()) {
    for (const RuleInfo &I : ruleRegistry())
      OS << I.Code << "  " << I.Check << "\n";
    return 0;
  }
  if (Args.size() > 1) {
    Err << "kvlint: error: 'kvlint rule' takes one code or check name\n";
    return 2;
  }
  for (const RuleInfo &I : ruleRegistry())
    if (Args[0] == I.Code || Args[0] == I.Check) {
      std::string Doc = ruleDoc(I.Code);
      if (Doc.empty()) {
        OS << I.Code << "  " << I.Check << "  " << I.Make()->summary() << "\n";
        return 0;
      }
      OS << Doc;
      if (Doc.back() != '\n')
        OS << "\n";
      OS << "\n(" << kvlintDocsUrl() << "rules/" << I.Code << ".md)\n";
      return 0;
    }
  Err << "kvlint: error: no rule '" << Args[0] << "' (kvlint rule lists them)\n";
  return 2;
}

int showConfig(const std::string &File, const std::vector<ConfigFile> &Overrides,
               std::ostream &OS, std::ostream &Err) {
  std::error_code EC;
  fs::path Abs = fs::absolute(File, EC).lexically_normal();
  fs::path Dir = fs::is_directory(Abs, EC) ? Abs : Abs.parent_path();
  ConfigResolver Resolver(Overrides);
  std::string E;
  auto Cfg = Resolver.forDir(Dir.string(), E);
  if (!Cfg) {
    Err << "kvlint: error: " << E << "\n";
    return 2;
  }
  // The layers, outermost first, as ConfigResolver applies them.
  std::vector<fs::path> Dirs;
  for (fs::path P = Dir;; P = P.parent_path()) {
    Dirs.insert(Dirs.begin(), P);
    if (!P.has_parent_path() || P.parent_path() == P)
      break;
  }
  std::vector<ConfigFile> Layers;
  // .clang-tidy: the nearest, and its parents while it inherits.
  std::vector<ConfigFile> Tidy;
  for (auto It = Dirs.rbegin(); It != Dirs.rend(); ++It) {
    fs::path T = *It / ".clang-tidy";
    if (!fs::is_regular_file(T, EC))
      continue;
    ConfigFile F;
    if (!readConfigFile(T.string(), ConfigKind::ClangTidy, F, E)) {
      Err << "kvlint: error: " << E << "\n";
      return 2;
    }
    bool Inherit = F.InheritParent;
    Tidy.insert(Tidy.begin(), F);
    if (!Inherit)
      break;
  }
  Layers = Tidy;
  for (const fs::path &D : Dirs) {
    fs::path K = D / ".kvlint.yaml";
    if (!fs::is_regular_file(K, EC))
      continue;
    ConfigFile F;
    if (!readConfigFile(K.string(), ConfigKind::Kvlint, F, E)) {
      Err << "kvlint: error: " << E << "\n";
      return 2;
    }
    F.InheritParent = false;
    Layers.push_back(F);
  }
  Layers.insert(Layers.end(), Overrides.begin(), Overrides.end());

  std::vector<std::string> ChecksFrom;
  std::map<std::string, std::string> OptFrom;
  std::vector<std::pair<std::string, std::string>> ExcludeFrom;
  std::string BaselineFrom;
  for (size_t L = 0; L < Layers.size(); ++L) {
    const ConfigFile &F = Layers[L];
    std::string Name = F.Path.empty() ? "(command line)" : F.Path;
    if (F.Checks) {
      if (!F.InheritParent) // as EffectiveConfig::apply: replace, or append
        ChecksFrom.clear();
      ChecksFrom.push_back(Name);
    }
    for (const auto &[K, V] : F.Options)
      OptFrom[K] = Name;
    for (const std::string &X : F.Exclude)
      ExcludeFrom.emplace_back(X, Name);
    if (!F.Baseline.empty())
      BaselineFrom = Name;
  }

  OS << "# kvlint configuration for " << File << "\n";
  OS << "Checks: '";
  for (size_t I = 0; I < Cfg->Checks.size(); ++I)
    OS << (I ? "," : "") << Cfg->Checks[I];
  OS << "'";
  if (ChecksFrom.empty())
    OS << "    # (default)";
  else {
    OS << "    # from ";
    for (size_t I = 0; I < ChecksFrom.size(); ++I)
      OS << (I ? ", " : "") << ChecksFrom[I];
  }
  OS << "\n# rules enabled:";
  auto Rules = makeRules(Cfg->Checks, Cfg->Opts);
  if (Rules.empty())
    OS << " none";
  for (const auto &R : Rules)
    OS << " " << R->code();
  OS << "\nOptions:\n";
  std::map<std::string, std::string> Shown;
  auto Line = [&](const std::string &K, const std::string &V, const std::string &From) {
    OS << "  " << K << ": '" << V << "'    # " << From << "\n";
  };
  for (const auto &[K, V] : Cfg->Opts.all()) {
    auto It = OptFrom.find(K);
    Line(K, V, It == OptFrom.end() ? "(default)" : "from " + It->second);
    Shown[K] = V;
  }
  for (const OptionSpec &O : Rule::sharedOptions())
    if (!Shown.count(O.Name))
      Line(O.Name, O.Default, "(default)");
  for (const auto &R : Rules)
    for (const OptionSpec &O : R->options()) {
      std::string K = std::string(R->check()) + "." + O.Name;
      if (!Shown.count(K) && !Cfg->Opts.has(O.Name))
        Line(K, O.Default, "(default)");
    }
  OS << "Exclude: [";
  for (size_t I = 0; I < ExcludeFrom.size(); ++I)
    OS << (I ? ", " : "") << ExcludeFrom[I].first;
  OS << "]\n";
  for (const auto &[X, From] : ExcludeFrom)
    OS << "  # '" << X << "' from " << From << "\n";
  OS << "Baseline: '" << Cfg->Baseline << "'    # "
     << (BaselineFrom.empty() ? "(none)" : "from " + BaselineFrom) << "\n";
  return 0;
}

} // namespace kvlint
