//===- Suppress.cpp - suppression comments, one syntax everywhere ---------===//
#include "kvlint/Suppress.h"
#include "kvlint/Report.h"

#include <atomic>
#include <cctype>
#include <sstream>

namespace kvlint {
namespace {

std::atomic<bool> Deferred{false};

std::string trimmed(const std::string &S) {
  size_t B = S.find_first_not_of(" \t"), E = S.find_last_not_of(" \t");
  return B == std::string::npos ? "" : S.substr(B, E - B + 1);
}

/// Simple glob: '*' matches any run of characters.
bool glob(const std::string &P, const std::string &S) {
  size_t PI = 0, SI = 0, Star = std::string::npos, Mark = 0;
  while (SI < S.size()) {
    if (PI < P.size() && P[PI] == S[SI]) {
      ++PI, ++SI;
    } else if (PI < P.size() && P[PI] == '*') {
      Star = PI++, Mark = SI;
    } else if (Star != std::string::npos) {
      PI = Star + 1, SI = ++Mark;
    } else {
      return false;
    }
  }
  while (PI < P.size() && P[PI] == '*')
    ++PI;
  return PI == P.size();
}

bool looksLikeKvlint(const std::string &Item) {
  if (Item.rfind("kvlint-", 0) == 0)
    return true;
  if (Item.size() >= 3 && Item[0] == 'K' && Item[1] == 'V') {
    for (size_t I = 2; I < Item.size(); ++I)
      if (!std::isdigit((unsigned char)Item[I]))
        return false;
    return true;
  }
  return false;
}

bool knownKvlint(const std::string &Item) {
  for (const RuleInfo &R : ruleRegistry())
    if (suppressionNames(Item, R.Code, R.Check))
      return true;
  return false;
}

std::vector<std::string> splitItems(const std::string &List, const char *Seps) {
  std::vector<std::string> Out;
  std::string Cur;
  for (char C : List) {
    if (std::string(Seps).find(C) != std::string::npos) {
      if (!trimmed(Cur).empty())
        Out.push_back(trimmed(Cur));
      Cur.clear();
    } else {
      Cur += C;
    }
  }
  if (!trimmed(Cur).empty())
    Out.push_back(trimmed(Cur));
  return Out;
}

/// True when a comment starts before Pos on this line ("//", "/*", "#").
bool inComment(const std::string &Line, size_t Pos) {
  std::string Before = Line.substr(0, Pos);
  return Before.find("//") != std::string::npos || Before.find("/*") != std::string::npos ||
         Before.find('#') != std::string::npos;
}

std::string lower(std::string S) {
  for (char &C : S)
    C = char(std::tolower((unsigned char)C));
  return S;
}

} // namespace

bool suppressionNames(const std::string &Item, const std::string &Code,
                      const std::string &Check) {
  if (Item == Code || Item == Check)
    return true;
  if (Item.find('*') != std::string::npos)
    return glob(Item, Check) || glob(Item, Code);
  return false;
}

void setDeferSuppressions(bool Defer) { Deferred = Defer; }
bool deferSuppressions() { return Deferred; }

SuppressionMap::SuppressionMap(const std::string &Text) {
  std::istringstream In(Text);
  std::string Line;
  unsigned N = 0;
  struct Open {
    size_t Index;
    std::string List;
  };
  std::vector<Open> Begins;
  auto Add = [&](Suppression S, const std::string &List, bool HasList, const char *Seps) {
    if (HasList) {
      S.Items = splitItems(List, Seps);
      for (const std::string &I : S.Items) {
        if (!looksLikeKvlint(I))
          continue;
        S.NamesKvlint = true;
        if (!knownKvlint(I))
          Problems.push_back({S.Line, S.Col,
                              "unknown kvlint rule '" + I + "' in " + S.Kind +
                                  " (kvlint rule lists them)"});
      }
    }
    All.push_back(S);
    return All.size() - 1;
  };
  while (std::getline(In, Line)) {
    ++N;
    if (!Line.empty() && Line.back() == '\r')
      Line.pop_back();
    // NOLINT, NOLINTNEXTLINE, NOLINTBEGIN, NOLINTEND (clang-tidy's syntax).
    for (size_t P = Line.find("NOLINT"); P != std::string::npos;
         P = Line.find("NOLINT", P + 6)) {
      if (!inComment(Line, P))
        continue;
      size_t After = P + 6;
      std::string Kind = "NOLINT";
      for (const char *Suffix : {"NEXTLINE", "BEGIN", "END"})
        if (Line.compare(After, std::string(Suffix).size(), Suffix) == 0) {
          Kind += Suffix;
          After += std::string(Suffix).size();
          break;
        }
      bool HasList = After < Line.size() && Line[After] == '(';
      std::string List;
      size_t End = After;
      if (HasList) {
        size_t Close = Line.find(')', After);
        List = Line.substr(After + 1, Close == std::string::npos ? std::string::npos
                                                                 : Close - After - 1);
        End = Close == std::string::npos ? Line.size() : Close + 1;
      }
      Suppression S;
      S.Kind = Kind;
      S.Text = Line.substr(P, End - P);
      S.Line = N, S.Col = unsigned(P + 1);
      if (Kind == "NOLINTEND") {
        // Closes the latest NOLINTBEGIN with the same list.
        std::string Key = trimmed(List);
        bool Closed = false;
        for (auto It = Begins.rbegin(); It != Begins.rend(); ++It)
          if (It->List == Key) {
            All[It->Index].Last = N;
            Begins.erase(std::next(It).base());
            Closed = true;
            break;
          }
        if (!Closed)
          Problems.push_back({N, S.Col, "NOLINTEND without a matching NOLINTBEGIN"});
        continue;
      }
      if (Kind == "NOLINT")
        S.First = S.Last = N;
      else if (Kind == "NOLINTNEXTLINE")
        S.First = S.Last = N + 1;
      else
        S.First = N, S.Last = ~0u; // until its NOLINTEND
      size_t I = Add(S, List, HasList, ",");
      if (Kind == "NOLINTBEGIN")
        Begins.push_back({I, trimmed(List)});
    }
    // kvlint: ignore[...] (kvlint's own).
    for (size_t P = Line.find("kvlint: ignore"); P != std::string::npos;
         P = Line.find("kvlint: ignore", P + 14)) {
      size_t After = P + 14;
      bool HasList = After < Line.size() && Line[After] == '[';
      std::string List;
      size_t End = After;
      if (HasList) {
        size_t Close = Line.find(']', After);
        List = Line.substr(After + 1, Close == std::string::npos ? std::string::npos
                                                                 : Close - After - 1);
        End = Close == std::string::npos ? Line.size() : Close + 1;
      }
      Suppression S;
      S.Kind = "kvlint: ignore";
      S.Text = Line.substr(P, End - P);
      S.Line = N, S.Col = unsigned(P + 1);
      S.First = S.Last = N;
      size_t I = Add(S, List, HasList, ", ");
      All[I].NamesKvlint = true;
    }
    // # noqa / # noqa: KV001, KV002 (ruff's and flake8's; any case).
    std::string Low = lower(Line);
    for (size_t P = Low.find("noqa"); P != std::string::npos; P = Low.find("noqa", P + 4)) {
      size_t Hash = Low.find_last_not_of(" \t", P ? P - 1 : 0);
      bool AfterComment = P > 0 && Hash != std::string::npos &&
                          (Low[Hash] == '#' || (Hash > 0 && Low.compare(Hash - 1, 2, "//") == 0));
      if (!AfterComment)
        continue;
      size_t After = P + 4;
      bool HasList = After < Line.size() && Line[After] == ':';
      std::string List;
      size_t End = After;
      if (HasList) {
        // Codes after ':', separated by commas or spaces, up to anything else.
        size_t K = After + 1;
        while (K < Line.size() && (std::isalnum((unsigned char)Line[K]) || Line[K] == ',' ||
                                   Line[K] == ' ' || Line[K] == '-' || Line[K] == '*'))
          ++K;
        List = Line.substr(After + 1, K - After - 1);
        End = K;
      }
      // The comment starts at '#', or at the first '/' of '//'.
      size_t Start = Low[Hash] == '#' ? Hash : Hash - 1;
      Suppression S;
      S.Kind = "noqa";
      S.Text = Line.substr(Start, End - Start);
      while (!S.Text.empty() && S.Text.back() == ' ')
        S.Text.pop_back();
      S.Line = N, S.Col = unsigned(Start + 1);
      S.First = S.Last = N;
      Add(S, List, HasList, ", ");
    }
  }
  for (const Open &O : Begins)
    Problems.push_back({All[O.Index].Line, All[O.Index].Col,
                        "NOLINTBEGIN without a matching NOLINTEND (it covers the rest of the "
                        "file)"});
}

bool SuppressionMap::suppresses(const Finding &F) {
  unsigned L = F.Range.Begin.Line;
  bool Hit = false;
  for (Suppression &S : All) {
    if (L < S.First || L > S.Last)
      continue;
    bool Names = S.Items.empty();
    for (const std::string &I : S.Items)
      Names = Names || I == "*" || suppressionNames(I, F.Code, F.Check);
    if (Names) {
      S.Used = true;
      Hit = true;
    }
  }
  return Hit;
}

Suppressions::Suppressions(SourceCache &Src) : Src(Src) {}
Suppressions::~Suppressions() = default;

bool Suppressions::operator()(const Finding &F) {
  if (deferSuppressions())
    return false;
  auto It = ByFile.find(F.Range.Begin.File);
  if (It == ByFile.end()) {
    const std::string *T = Src.get(F.Range.Begin.File);
    It = ByFile.emplace(F.Range.Begin.File, T ? std::make_unique<SuppressionMap>(*T) : nullptr)
             .first;
  }
  return It->second && It->second->suppresses(F);
}

} // namespace kvlint
