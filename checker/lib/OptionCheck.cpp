//===- OptionCheck.cpp - what each option key accepts ----------------------===//
#include "kvlint/OptionCheck.h"

#include "kvlint/Pattern.h"
#include "kvlint/Rule.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <map>

namespace kvlint {

namespace {

std::string lower(std::string S) {
  std::transform(S.begin(), S.end(), S.begin(), [](unsigned char C) { return std::tolower(C); });
  return S;
}

constexpr int64_t Huge = int64_t(1) << 62; // Envelope::bound's ceiling

/// What the defaults do not say. Keys are local names (without the
/// "<check>." prefix) or global keys; each row is one option.
struct Special {
  const char *Name;
  OptionType::Kind K;
  int64_t Min, Max;
  std::vector<std::string> Choices;
};
const std::vector<Special> &specials() {
  static const std::vector<Special> S = {
      {"Level", OptionType::Choice, 0, 0, {"default", "latent"}},
      {"Envelope.LatentScale", OptionType::Integer, 1, 1 << 20, {}},
      {"DependentLoadBits", OptionType::Choice, 0, 0, {"0", "8", "16", "32", "64"}},
      {"DependentMemberBits", OptionType::Choice, 0, 0, {"0", "8", "16", "32", "64"}},
      {"PadValue", OptionType::Integer, INT64_MIN, INT64_MAX, {}},
      // Read by the Triton frontend, not by a rule: the width of a load whose
      // element type it cannot see.
      {"triton.UnknownLoadBits", OptionType::Choice, 0, 0, {"8", "16", "32", "64"}},
  };
  return S;
}

/// Options without a check prefix that something reads.
std::vector<OptionSpec> globalSpecs() {
  std::vector<OptionSpec> G = Rule::sharedOptions();
  G.push_back({"triton.UnknownLoadBits", "32", ""});
  return G;
}

/// The type of a known option from its spec: the table first, then the
/// default and the help text.
OptionType typeOf(const OptionSpec &S) {
  OptionType T;
  for (const Special &X : specials())
    if (S.Name == X.Name) {
      T.K = X.K, T.Min = X.Min, T.Max = X.Max, T.Choices = X.Choices;
      return T;
    }
  if (S.Name.rfind("Envelope.Inference.", 0) == 0 || S.Name.rfind("Envelope.Training.", 0) == 0) {
    T.K = OptionType::Integer; // unset by default: the shared bound applies
    T.Min = 1, T.Max = Huge;
    return T;
  }
  int64_t V;
  bool Names = S.Name.size() > 6 && S.Name.compare(S.Name.size() - 6, 6, ".Names") == 0;
  if (Names || S.Help.rfind("regex", 0) == 0) {
    T.K = OptionType::Regex;
    // An envelope dimension's Names: empty would make every name that
    // dimension; '$^' matches none.
    T.EmptyOk = !Names;
  } else if (parseInteger(S.Default, V)) {
    T.K = OptionType::Integer;
    T.Min = 1, T.Max = Huge; // sizes and bounds: zero or negative means nothing
  }
  return T;
}

std::string withCommas(int64_t V) {
  if (V == INT64_MIN)
    return "-2^63";
  if (V == INT64_MAX)
    return "2^63-1";
  if (V == Huge)
    return "2^62";
  bool Neg = V < 0;
  std::string D = std::to_string(Neg ? -V : V), Out;
  for (size_t I = 0; I < D.size(); ++I) {
    if (I && (D.size() - I) % 3 == 0)
      Out += ',';
    Out += D[I];
  }
  return (Neg ? "-" : "") + Out;
}

size_t editDistance(const std::string &A, const std::string &B) {
  std::vector<size_t> Row(B.size() + 1);
  for (size_t J = 0; J <= B.size(); ++J)
    Row[J] = J;
  for (size_t I = 1; I <= A.size(); ++I) {
    size_t Diag = Row[0];
    Row[0] = I;
    for (size_t J = 1; J <= B.size(); ++J) {
      size_t Up = Row[J];
      bool Same = std::tolower((unsigned char)A[I - 1]) == std::tolower((unsigned char)B[J - 1]);
      Row[J] = std::min({Row[J] + 1, Row[J - 1] + 1, Diag + (Same ? 0 : 1)});
      Diag = Up;
    }
  }
  return Row[B.size()];
}

} // namespace

bool parseInteger(const std::string &S, int64_t &V) {
  size_t I = 0;
  bool Neg = I < S.size() && S[I] == '-';
  if (Neg)
    ++I;
  if (I >= S.size())
    return false;
  unsigned __int128 X = 0;
  const unsigned __int128 Limit = Neg ? (unsigned __int128)INT64_MAX + 1 : INT64_MAX;
  if (S.compare(I, 2, "0x") == 0 || S.compare(I, 2, "0X") == 0) {
    I += 2;
    if (I >= S.size())
      return false;
    for (; I < S.size(); ++I) {
      int D = std::isdigit((unsigned char)S[I])               ? S[I] - '0'
              : (S[I] >= 'a' && S[I] <= 'f')                   ? S[I] - 'a' + 10
              : (S[I] >= 'A' && S[I] <= 'F')                   ? S[I] - 'A' + 10
                                                               : -1;
      if (D < 0 || (X = X * 16 + unsigned(D)) > Limit)
        return false;
    }
  } else {
    if (S[I] == '0' && I + 1 < S.size())
      return false; // 010: octal elsewhere, a typo here
    bool LastDigit = false;
    for (; I < S.size(); ++I) {
      char C = S[I];
      if (std::isdigit((unsigned char)C)) {
        if ((X = X * 10 + unsigned(C - '0')) > Limit)
          return false;
        LastDigit = true;
      } else if ((C == ',' || C == '_' || C == '\'') && LastDigit && I + 1 < S.size()) {
        LastDigit = false; // a group separator between digits
      } else {
        return false;
      }
    }
    if (!LastDigit)
      return false;
  }
  V = Neg ? int64_t(-(__int128)X) : int64_t(X);
  return true;
}

/// Every known key and its type, built once (the registry is complete
/// before main runs): a lookup per configured key, whatever the file's size.
static const std::map<std::string, OptionType> &table() {
  static const std::map<std::string, OptionType> T = [] {
    std::map<std::string, OptionType> M;
    for (const OptionSpec &S : globalSpecs())
      M[S.Name] = typeOf(S);
    for (const RuleInfo &I : ruleRegistry()) {
      for (const OptionSpec &S : I.Make()->options())
        M[std::string(I.Check) + "." + S.Name] = typeOf(S);
      for (const OptionSpec &S : Rule::sharedOptions())
        M[std::string(I.Check) + "." + S.Name] = typeOf(S);
    }
    return M;
  }();
  return T;
}

bool optionType(const std::string &Key, OptionType &Out) {
  auto It = table().find(Key);
  if (It == table().end())
    return false;
  Out = It->second;
  return true;
}

std::vector<std::string> knownOptionKeys() {
  std::vector<std::string> K;
  for (const auto &[Name, T] : table())
    K.push_back(Name);
  return K;
}

std::string closestName(const std::string &Name, const std::vector<std::string> &Known) {
  std::string Best;
  size_t BestD = 3;
  for (const std::string &K : Known) {
    size_t D = editDistance(Name, K);
    if (D < BestD)
      Best = K, BestD = D;
  }
  return Best;
}

std::string checkOption(const std::string &Key, const std::string &Value) {
  OptionType T;
  if (!optionType(Key, T)) {
    std::string Near = closestName(Key, knownOptionKeys());
    return "unknown option '" + Key + "'" +
           (Near.empty() ? " (kvlint --list-rules prints every option)"
                         : " (did you mean '" + Near + "'?)");
  }
  switch (T.K) {
  case OptionType::Integer: {
    int64_t V;
    if (parseInteger(Value, V) && V >= T.Min && V <= T.Max)
      return "";
    std::string Range = T.Min == INT64_MIN ? "an integer"
                        : "an integer from " + withCommas(T.Min) + " to " + withCommas(T.Max);
    return "'" + Key + "' wants " + Range + " (digits, optionally grouped: 262,144), got '" +
           Value + "'";
  }
  case OptionType::Choice: {
    std::string List;
    for (const std::string &C : T.Choices) {
      if (lower(Value) == lower(C))
        return "";
      List += (List.empty() ? "" : ", ") + C;
    }
    return "'" + Key + "' wants one of " + List + ", got '" + Value + "'";
  }
  case OptionType::Regex: {
    if (Value.empty() && !T.EmptyOk)
      return "'" + Key + "' is empty: that would match every name (use '$^' to match none)";
    Pattern P;
    std::string Err;
    if (!Pattern::compile(Value, P, Err))
      return "'" + Key + "' is not a valid pattern: " + Err;
    return "";
  }
  case OptionType::Text:
    return "";
  }
  return "";
}

} // namespace kvlint
