//===- Rule.cpp - options, registry, fix-it spelling ----------------------===//
#include "kvlint/Rule.h"

#include "kvlint/Envelope.h"
#include "kvlint/OptionCheck.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <tuple>

namespace kvlint {

std::string Options::get(const std::string &Key, const std::string &Default) const {
  auto It = Map.find(Key);
  return It == Map.end() ? Default : It->second;
}

int64_t Options::getInt(const std::string &Key, int64_t Default) const {
  auto It = Map.find(Key);
  if (It == Map.end())
    return Default;
  int64_t V;
  return parseInteger(It->second, V) ? V : Default; // never octal: 010 is not 8
}

bool Options::getBool(const std::string &Key, bool Default) const {
  auto It = Map.find(Key);
  if (It == Map.end())
    return Default;
  std::string V = It->second;
  std::transform(V.begin(), V.end(), V.begin(), [](unsigned char C) { return std::tolower(C); });
  if (V == "true" || V == "1" || V == "yes" || V == "on")
    return true;
  if (V == "false" || V == "0" || V == "no" || V == "off")
    return false;
  return Default;
}

std::vector<OptionSpec> Rule::sharedOptions() {
  std::vector<OptionSpec> S = {
      {"Level", "default",
       "default: report what wraps or reads out of bounds inside the deployment envelope; "
       "latent: also report what does so only beyond it (larger pools, contexts, batches)"},
  };
  for (const OptionSpec &O : Envelope::optionSpecs())
    S.push_back(O);
  return S;
}

std::string Rule::optDefault(const char *Name) const {
  for (const OptionSpec &S : options())
    if (S.Name == Name)
      return S.Default;
  for (const OptionSpec &S : sharedOptions())
    if (S.Name == Name)
      return S.Default;
  return "";
}

// Local key first ("<check>.<Name>"), then the global one ("<Name>").
std::string Rule::opt(const Options &O, const char *Name) const {
  std::string Local = std::string(check()) + "." + Name;
  if (O.has(Local))
    return O.get(Local, "");
  return O.get(Name, optDefault(Name));
}

bool Rule::optLatent(const Options &O) const {
  std::string V = opt(O, "Level");
  std::transform(V.begin(), V.end(), V.begin(), [](unsigned char C) { return std::tolower(C); });
  return V == "latent";
}

// A malformed value falls back to the option's default.
int64_t Rule::optInt(const Options &O, const char *Name) const {
  Options D;
  D.set("d", optDefault(Name));
  D.set("v", opt(O, Name));
  return D.getInt("v", D.getInt("d", 0));
}

bool Rule::optBool(const Options &O, const char *Name) const {
  Options D;
  D.set("d", optDefault(Name));
  D.set("v", opt(O, Name));
  return D.getBool("v", D.getBool("d", false));
}

// Case-insensitive; a pattern that does not compile matches nothing rather
// than everything.
Pattern Rule::optRegex(const Options &O, const char *Name) const {
  Pattern P;
  std::string Err;
  Pattern::compile(opt(O, Name), P, Err);
  return P;
}

std::vector<RuleInfo> &ruleRegistry() {
  static std::vector<RuleInfo> R;
  return R;
}

RuleRegistrar::RuleRegistrar(const char *Code, const char *Check,
                             std::function<std::unique_ptr<Rule>()> Make) {
  ruleRegistry().push_back({Code, Check, std::move(Make)});
  std::sort(ruleRegistry().begin(), ruleRegistry().end(),
            [](const RuleInfo &A, const RuleInfo &B) { return std::string(A.Code) < B.Code; });
}

static bool globMatch(const std::string &Pat, const std::string &S) {
  // '*' only, as clang-tidy's -checks globs.
  size_t P = 0, I = 0, Star = std::string::npos, Mark = 0;
  while (I < S.size()) {
    if (P < Pat.size() && (Pat[P] == S[I])) { ++P; ++I; }
    else if (P < Pat.size() && Pat[P] == '*') { Star = P++; Mark = I; }
    else if (Star != std::string::npos) { P = Star + 1; I = ++Mark; }
    else return false;
  }
  while (P < Pat.size() && Pat[P] == '*') ++P;
  return P == Pat.size();
}

std::vector<std::unique_ptr<Rule>> makeRules(const std::vector<std::string> &Enabled,
                                             const Options &Opts) {
  std::vector<std::unique_ptr<Rule>> Out;
  for (const RuleInfo &I : ruleRegistry()) {
    bool On = false;
    for (const std::string &E : Enabled) {
      bool Neg = !E.empty() && E[0] == '-';
      std::string P = Neg ? E.substr(1) : E;
      if (P == "all" || globMatch(P, I.Code) || globMatch(P, I.Check))
        On = !Neg;
    }
    if (!On)
      continue;
    auto R = I.Make();
    R->configure(Opts);
    Out.push_back(std::move(R));
  }
  return Out;
}

void runRules(const std::vector<std::unique_ptr<Rule>> &Rules, const Function &F,
              std::vector<Finding> &Out) {
  for (const auto &R : Rules) {
    size_t Before = Out.size();
    R->run(F, Out);
    for (size_t I = Before; I < Out.size(); ++I)
      if (Out[I].Function.empty())
        Out[I].Function = F.Name;
  }
  Out.erase(std::remove_if(Out.begin(), Out.end(),
                           [](const Finding &X) { return !X.Range.Begin.valid(); }),
            Out.end());
}

void dedupeAndSort(std::vector<Finding> &Fs) {
  auto Key = [](const Finding &F) { // references: no string copy per comparison
    return std::tie(F.Range.Begin.File, F.Range.Begin.Line, F.Range.Begin.Col, F.Code);
  };
  std::stable_sort(Fs.begin(), Fs.end(),
                   [&](const Finding &A, const Finding &B) { return Key(A) < Key(B); });
  Fs.erase(std::unique(Fs.begin(), Fs.end(),
                       [&](const Finding &A, const Finding &B) { return Key(A) == Key(B); }),
           Fs.end());
}

unsigned groupSites(std::vector<Finding> &Fs, std::vector<std::string> *Keys) {
  std::map<std::tuple<std::string, std::string, std::string, std::string, bool>, size_t> First;
  // The fix-its each kept finding already has: a group of k sites costs
  // k log k, not k^2 comparisons.
  std::map<size_t, std::set<std::tuple<unsigned, unsigned, std::string>>> HasFix;
  std::vector<Finding> Out;
  std::vector<std::string> OutKeys;
  std::vector<unsigned> Extra;
  unsigned Folded = 0;
  for (size_t I = 0; I < Fs.size(); ++I) {
    Finding &F = Fs[I];
    if (!F.Group.empty()) {
      auto K = std::make_tuple(F.Code, F.Range.Begin.File, F.Function, F.Group, F.Latent);
      auto It = First.find(K);
      if (It != First.end()) {
        Finding &P = Out[It->second];
        P.Notes.push_back({F.Range, "and here: " + F.Message});
        for (const Note &N : F.Notes)
          P.Notes.push_back(N);
        auto &Have = HasFix[It->second];
        if (Have.empty())
          for (const FixIt &Y : P.Fixes)
            Have.insert({Y.Begin.Offset, Y.Length, Y.Text});
        for (const FixIt &X : F.Fixes)
          if (Have.insert({X.Begin.Offset, X.Length, X.Text}).second)
            P.Fixes.push_back(X);
        ++Extra[It->second];
        ++Folded;
        continue;
      }
      First[K] = Out.size();
    }
    Out.push_back(std::move(F));
    Extra.push_back(0);
    if (Keys)
      OutKeys.push_back((*Keys)[I]);
  }
  for (size_t I = 0; I < Out.size(); ++I) {
    if (!Extra[I])
      continue;
    bool Many = Extra[I] > 1;
    if (Out[I].Code == "KV001")
      Out[I].Message += "; " + std::to_string(Extra[I]) + " more offset" + (Many ? "s" : "") +
                        " in this function multipl" + (Many ? "y" : "ies") + " '" +
                        Out[I].Group + "' the same way (notes)";
    else // a table load: the group is its column
      Out[I].Message += "; " + std::to_string(Extra[I]) + " more load" + (Many ? "s" : "") +
                        " in this function read" + (Many ? "" : "s") + " column '" +
                        Out[I].Group + "' the same way (notes)";
  }
  Fs.swap(Out);
  if (Keys)
    Keys->swap(OutKeys);
  return Folded;
}

bool widenFix(Language L, const Node *Index, std::vector<FixIt> &Out) {
  if (!Index || !Index->Range.valid() || Index->Range.InMacro ||
      Index->Range.End.Offset <= Index->Range.Begin.Offset)
    return false;
  FixIt Open, Close;
  Open.Begin = Index->Range.Begin;
  Close.Begin = Index->Range.End;
  if (L == Language::Triton) {
    bool Postfix = Index->K == Kind::Var || Index->K == Kind::Param ||
                   Index->K == Kind::Load || Index->K == Kind::Call ||
                   Index->K == Kind::LaunchIdx || Index->K == Kind::Symbolic ||
                   (Index->K == Kind::Cast && Index->Explicit);
    if (Postfix) {
      Close.Text = ".to(tl.int64)";
      Out.push_back(Close);
      return true;
    }
    Open.Text = "(";
    Close.Text = ").to(tl.int64)";
  } else {
    Open.Text = "static_cast<int64_t>(";
    Close.Text = ")";
  }
  Out.push_back(Open);
  Out.push_back(Close);
  return true;
}

} // namespace kvlint
