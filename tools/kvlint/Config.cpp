//===- Config.cpp - configuration files and their discovery ---------------===//
#include "Config.h"
#include "SafeWrite.h"
#include "Yaml.h"

#include "kvlint/Envelope.h"
#include "kvlint/OptionCheck.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace kvlint {

std::string trim(const std::string &S) {
  size_t B = S.find_first_not_of(" \t\r\n");
  size_t E = S.find_last_not_of(" \t\r\n");
  return B == std::string::npos ? "" : S.substr(B, E - B + 1);
}

std::vector<std::string> splitList(const std::string &S) {
  std::vector<std::string> Out;
  std::string Item;
  for (size_t I = 0; I <= S.size(); ++I) {
    if (I == S.size() || S[I] == ',' || S[I] == '\n') {
      Item = trim(Item);
      if (!Item.empty())
        Out.push_back(Item);
      Item.clear();
    } else {
      Item += S[I];
    }
  }
  return Out;
}

bool readRegularFile(const std::string &Path, const std::string &What, std::string &Out,
                     std::string &Err) {
  // SafeWrite's reader: never blocks on a FIFO, never reads a device.
  std::string E;
  if (kvlint::readRegularFile(Path, Out, E, MaxConfigBytes))
    return true;
  const std::string Cannot = "cannot read ";
  Err = E.rfind(Cannot, 0) == 0 ? Cannot + What + " " + E.substr(Cannot.size()) : What + " " + E;
  return false;
}

namespace {

/// True when a Checks item is about kvlint: `kvlint-*`, `-kvlint-foo`,
/// `KV001`, `kv*`, `all`. `*` and `-*` alone are not: a .clang-tidy that
/// only names other checks leaves kvlint's default (all rules) alone.
bool aboutKvlint(std::string P) {
  if (!P.empty() && P[0] == '-')
    P = P.substr(1);
  if (P.empty() || P == "*")
    return false;
  if (P == "all")
    return true;
  std::string Low = P;
  std::transform(Low.begin(), Low.end(), Low.begin(), ::tolower);
  size_t Star = Low.find('*');
  std::string Head = Low.substr(0, Star);
  if (Star != std::string::npos)
    return !Head.empty() && std::string("kvlint-").compare(0, Head.size(), Head) == 0;
  return Low.rfind("kvlint", 0) == 0 || (Low.size() > 2 && Low.rfind("kv", 0) == 0 &&
                                         std::isdigit((unsigned char)Low[2]));
}

std::string where(const std::string &Path, const yaml::Node &N) {
  return Path + ":" + std::to_string(N.Line ? N.Line : 1) + ": ";
}

bool scalarText(const yaml::Node &N, std::string &Out) {
  if (N.K == yaml::Node::Null) {
    Out.clear();
    return true;
  }
  if (N.K != yaml::Node::Scalar)
    return false;
  Out = N.Text;
  return true;
}

/// A scalar, or a sequence of scalars joined by commas.
bool listText(const yaml::Node &N, std::vector<std::string> &Out) {
  std::string S;
  if (scalarText(N, S)) {
    Out = splitList(S);
    return true;
  }
  if (N.K != yaml::Node::Seq)
    return false;
  Out.clear();
  for (const yaml::Node &E : N.Elems) {
    if (!scalarText(E, S))
      return false;
    for (const std::string &I : splitList(S))
      Out.push_back(I);
  }
  return true;
}

std::string besideConfig(const std::string &ConfigPath, const std::string &P) {
  if (P.empty() || fs::path(P).is_absolute())
    return P;
  return (fs::absolute(fs::path(ConfigPath)).parent_path() / P).lexically_normal().string();
}

/// The top-level keys of a .kvlint.yaml that are not options.
const std::vector<std::string> &fileKeys() {
  static const std::vector<std::string> K = {"Checks",  "CheckOptions", "InheritParentConfig",
                                             "Exclude", "Baseline",     "Envelope"};
  return K;
}

/// An option key kvlint answers for in a .clang-tidy's CheckOptions (other
/// keys are clang-tidy's own checks' and pass through unread).
bool kvlintKey(const std::string &Key) {
  OptionType T;
  return Key.rfind("kvlint-", 0) == 0 || Key.rfind("Envelope.", 0) == 0 ||
         Key.rfind("triton.", 0) == 0 || optionType(Key, T);
}

/// Checks one option (OptionCheck.h) and adds it; Err is "file:line: ...".
bool addOption(const std::string &Key, const std::string &Value, const yaml::Node &At,
               const std::string &Path, ConfigFile &Out, std::string &Err) {
  std::string Problem = checkOption(Key, Value);
  if (!Problem.empty()) {
    OptionType T;
    std::string Near = closestName(Key, fileKeys());
    if (!optionType(Key, T) && Key.find('.') == std::string::npos && !Near.empty())
      Problem = "unknown key '" + Key + "' (did you mean '" + Near + "'?)";
    Err = where(Path, At) + Problem;
    return false;
  }
  Out.Options.emplace_back(Key, Value);
  return true;
}

} // namespace

bool checkChecks(const std::vector<std::string> &Items, ConfigKind Kind, const std::string &What,
                 std::string &Err) {
  for (const std::string &I : Items) {
    std::string P = !I.empty() && I[0] == '-' ? I.substr(1) : I;
    if (P == "*" || P == "all" || (Kind == ConfigKind::ClangTidy && !aboutKvlint(I)))
      continue;
    if (!makeRules({P}, Options()).empty())
      continue;
    std::vector<std::string> Names;
    for (const RuleInfo &R : ruleRegistry())
      Names.push_back(R.Code), Names.push_back(R.Check);
    std::string Near = closestName(P, Names);
    Err = What + "'" + I + "' names no kvlint rule" +
          (Near.empty() ? " (kvlint --list-rules prints them)" : " (did you mean '" + Near + "'?)");
    return false;
  }
  return true;
}

namespace {

/// `A: {B: v}` in a kvlint file is the option `A.B: v`.
bool flattenOptions(const std::string &Prefix, const yaml::Node &N, const std::string &Path,
                    ConfigFile &Out, std::string &Err) {
  std::string V;
  if (scalarText(N, V))
    return addOption(Prefix, V, N, Path, Out, Err);
  if (N.K == yaml::Node::Map) {
    for (const auto &[K, Sub] : N.Items)
      if (!flattenOptions(Prefix + "." + K, Sub, Path, Out, Err))
        return false;
    return true;
  }
  Err = where(Path, N) + "'" + Prefix + "' wants a value, not a list";
  return false;
}

/// The entries of an envelope mapping: `Tokens: 262144`, `KvSlots.Names:
/// regex`, `LatentScale: 8` (an `Envelope.` prefix is allowed). Unknown
/// dimensions are errors, so that a typo never silently keeps a default.
bool envelopeEntries(const yaml::Node &Map, const std::string &Path, ConfigFile &Out,
                     std::string &Err) {
  if (Map.K == yaml::Node::Null)
    return true;
  if (Map.K != yaml::Node::Map) {
    Err = where(Path, Map) + "an envelope is a mapping of dimensions to bounds (Tokens: 262144)";
    return false;
  }
  std::vector<std::string> Known;
  for (const OptionSpec &O : Envelope::optionSpecs())
    Known.push_back(O.Name);
  for (const auto &[K, V] : Map.Items) {
    std::string Key = K.rfind("Envelope.", 0) == 0 ? K : "Envelope." + K;
    std::string Val;
    if (std::find(Known.begin(), Known.end(), Key) == Known.end()) {
      std::string List;
      const Envelope Defaults; // a named object: the loop must not outlive it
      for (const Dimension &D : Defaults.dimensions())
        List += (List.empty() ? "" : ", ") + D.Key;
      Err = where(Path, V) + "unknown envelope dimension '" + K + "' (known: " + List +
            "; LatentScale; <Dimension>.Names)";
      return false;
    }
    if (!scalarText(V, Val)) {
      Err = where(Path, V) + "'" + K + "' wants a number (or a regex for .Names)";
      return false;
    }
    if (!addOption(Key, Val, V, Path, Out, Err))
      return false;
  }
  return true;
}

} // namespace

bool readEnvelopeFile(const std::string &Path, ConfigFile &Out, std::string &Err) {
  std::string Text;
  if (!readRegularFile(Path, "envelope file", Text, Err))
    return false;
  yaml::Node Root;
  if (!yaml::parse(Text, Path, Root, Err))
    return false;
  // A file may hold the mapping itself or an `Envelope:` key around it.
  const yaml::Node *M = Root.K == yaml::Node::Map ? Root.get("Envelope") : nullptr;
  if (!Out.Path.size())
    Out.Path = Path;
  return envelopeEntries(M && M->K == yaml::Node::Map ? *M : Root, Path, Out, Err);
}

bool parseConfig(const std::string &Text, const std::string &Path, ConfigKind Kind,
                 ConfigFile &Out, std::string &Err) {
  Out = ConfigFile();
  Out.Path = Path;
  yaml::Node Root;
  if (!yaml::parse(Text, Path, Root, Err))
    return false;
  if (Root.K == yaml::Node::Null)
    return true;
  if (Root.K != yaml::Node::Map) {
    Err = where(Path, Root) + "expected 'key: value' lines (a mapping) at the top";
    return false;
  }
  for (const auto &[Key, N] : Root.Items) {
    if (Key == "Checks" || Key == "checks") {
      std::vector<std::string> Items;
      if (!listText(N, Items)) {
        Err = where(Path, N) + "Checks wants a comma-separated list";
        return false;
      }
      if (!checkChecks(Items, Kind, where(Path, N), Err))
        return false;
      bool Mine = Kind == ConfigKind::Kvlint ||
                  std::any_of(Items.begin(), Items.end(), aboutKvlint);
      if (Mine)
        Out.Checks = Items;
    } else if (Key == "CheckOptions") {
      if (N.K == yaml::Node::Map) {
        for (const auto &[K, V] : N.Items) {
          std::string S;
          if (!scalarText(V, S)) {
            Err = where(Path, V) + "CheckOptions: '" + K + "' wants a value";
            return false;
          }
          if (Kind == ConfigKind::ClangTidy && !kvlintKey(K))
            Out.Options.emplace_back(K, S); // another check's: clang-tidy's business
          else if (!addOption(K, S, V, Path, Out, Err))
            return false;
        }
      } else if (N.K == yaml::Node::Seq) {
        for (const yaml::Node &E : N.Elems) {
          const yaml::Node *K = E.K == yaml::Node::Map ? E.get("key") : nullptr;
          const yaml::Node *V = E.K == yaml::Node::Map ? E.get("value") : nullptr;
          std::string KS, VS;
          if (!K || !V || E.Items.size() != 2 || !scalarText(*K, KS) || !scalarText(*V, VS) ||
              KS.empty()) {
            Err = where(Path, E) + "CheckOptions entries are '- key: NAME' and 'value: VALUE'";
            return false;
          }
          if (Kind == ConfigKind::ClangTidy && !kvlintKey(KS))
            Out.Options.emplace_back(KS, VS);
          else if (!addOption(KS, VS, *V, Path, Out, Err))
            return false;
        }
      } else if (N.K != yaml::Node::Null) {
        Err = where(Path, N) + "CheckOptions wants a mapping or a list of key/value pairs";
        return false;
      }
    } else if (Key == "InheritParentConfig") {
      std::string S;
      scalarText(N, S);
      std::string Low = S;
      std::transform(Low.begin(), Low.end(), Low.begin(), ::tolower);
      if (Low == "true")
        Out.InheritParent = true;
      else if (Low == "false")
        Out.InheritParent = false;
      else {
        Err = where(Path, N) + "InheritParentConfig wants true or false, got '" + S + "'";
        return false;
      }
    } else if (Kind == ConfigKind::ClangTidy) {
      continue; // clang-tidy's own keys (HeaderFilterRegex, WarningsAsErrors, ...)
    } else if (Key == "Exclude") {
      if (!listText(N, Out.Exclude)) {
        Err = where(Path, N) + "Exclude wants a list of path substrings";
        return false;
      }
    } else if (Key == "Baseline") {
      std::string S;
      if (!scalarText(N, S)) {
        Err = where(Path, N) + "Baseline wants a file name";
        return false;
      }
      if (S.empty()) {
        Err = where(Path, N) + "Baseline wants a file name";
        return false;
      }
      Out.Baseline = besideConfig(Path, S);
      std::error_code EC;
      fs::file_status St = fs::status(Out.Baseline, EC);
      if (fs::exists(St) && !fs::is_regular_file(St)) {
        Err = where(Path, N) + "Baseline '" + S + "' is " +
              (fs::is_directory(St) ? "a directory"
                                    : "not a regular file (a FIFO, device or socket)");
        return false;
      }
    } else if (Key == "Envelope" && N.K != yaml::Node::Map) {
      std::string S;
      if (!scalarText(N, S) || S.empty()) {
        Err = where(Path, N) + "Envelope wants a file name (or a mapping of dimensions)";
        return false;
      }
      // Errors name this file and line first: the envelope file's own
      // errors follow (a missing file, an unknown dimension in it).
      if (!readEnvelopeFile(besideConfig(Path, S), Out, Err)) {
        Err = where(Path, N) + "Envelope: " + Err;
        return false;
      }
    } else if (Key == "Envelope") {
      if (!envelopeEntries(N, Path, Out, Err))
        return false;
    } else if (!flattenOptions(Key, N, Path, Out, Err)) {
      return false;
    }
  }
  return true;
}

bool readConfigFile(const std::string &Path, ConfigKind Kind, ConfigFile &Out,
                    std::string &Err) {
  std::string Text;
  if (!readRegularFile(Path, "config file", Text, Err))
    return false;
  return parseConfig(Text, Path, Kind, Out, Err);
}

void EffectiveConfig::apply(const ConfigFile &F) {
  CachedKey.clear();
  if (F.Checks) {
    if (!F.InheritParent)
      Checks.clear(), ChecksFrom.clear();
    ChecksFrom.push_back(F.Path);
    Checks.insert(Checks.end(), F.Checks->begin(), F.Checks->end());
  }
  for (const auto &[K, V] : F.Options)
    Opts.set(K, V);
  Exclude.insert(Exclude.end(), F.Exclude.begin(), F.Exclude.end());
  if (!F.Baseline.empty())
    Baseline = F.Baseline;
  if (!F.Path.empty())
    Sources.push_back(F.Path);
}

const std::string &EffectiveConfig::key() const {
  if (!CachedKey.empty())
    return CachedKey;
  std::string &K = CachedKey;
  for (const std::string &C : Checks)
    K += C + ",";
  K += "\n";
  for (const auto &[N, V] : Opts.all())
    K += N + "=" + V + "\n";
  return K;
}

const ConfigResolver::Dir *ConfigResolver::dir(const std::string &AbsDir, std::string &Err) {
  auto It = Cache.find(AbsDir);
  if (It != Cache.end())
    return It->second.get();
  auto D = std::make_unique<Dir>();
  fs::path P(AbsDir);
  const Dir *Parent = nullptr;
  if (P.has_parent_path() && P.parent_path() != P) {
    Parent = dir(P.parent_path().string(), Err);
    if (!Parent)
      return nullptr;
  }
  static const auto Default = std::make_shared<const EffectiveConfig>();
  D->Tidy = Parent ? Parent->Tidy : Default;
  if (Parent)
    D->Kvlint = Parent->Kvlint;
  std::error_code EC;
  // A config file that is there but not a regular file (a directory, a FIFO,
  // a dangling link) is an error, as it would be given on the command line.
  auto Present = [&](const fs::path &F) { return fs::exists(fs::symlink_status(F, EC)); };
  if (Discover) {
    fs::path Tidy = P / ".clang-tidy";
    if (Present(Tidy)) {
      ConfigFile F;
      if (!readConfigFile(Tidy.string(), ConfigKind::ClangTidy, F, Err))
        return nullptr;
      auto E = std::make_shared<EffectiveConfig>(F.InheritParent ? *D->Tidy : *Default);
      E->apply(F);
      D->Tidy = E;
    }
    fs::path Kv = P / ".kvlint.yaml";
    if (Present(Kv)) {
      ConfigFile F;
      if (!readConfigFile(Kv.string(), ConfigKind::Kvlint, F, Err))
        return nullptr;
      F.InheritParent = false; // Checks in .kvlint.yaml replace, as in --config
      D->Kvlint.push_back(std::make_shared<const ConfigFile>(std::move(F)));
    }
  }
  auto R = std::make_shared<EffectiveConfig>(*D->Tidy);
  for (const auto &F : D->Kvlint)
    R->apply(*F);
  for (const ConfigFile &F : Overrides)
    R->apply(F);
  R->key(); // once, here, under the resolver's lock
  D->Result = R;
  return (Cache[AbsDir] = std::move(D)).get();
}

std::shared_ptr<const EffectiveConfig> ConfigResolver::forDir(const std::string &Path,
                                                             std::string &Err) {
  std::lock_guard<std::mutex> Lock(M);
  std::error_code EC;
  fs::path Abs = fs::absolute(fs::path(Path), EC).lexically_normal();
  std::string S = Abs.string();
  while (S.size() > 1 && S.back() == '/')
    S.pop_back();
  const Dir *D = dir(S, Err);
  return D ? D->Result : nullptr;
}

std::shared_ptr<const EffectiveConfig> ConfigResolver::forFile(const std::string &Path,
                                                              std::string &Err) {
  std::error_code EC;
  fs::path Abs = fs::absolute(fs::path(Path), EC).lexically_normal();
  return forDir(Abs.parent_path().string(), Err);
}

} // namespace kvlint
