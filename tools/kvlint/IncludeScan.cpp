//===- IncludeScan.cpp - which scanned files include which ----------------===//
#include "IncludeScan.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace kvlint {
namespace {

std::string canon(const fs::path &P) {
  std::error_code EC;
  fs::path A = fs::absolute(P, EC).lexically_normal();
  fs::path C = fs::weakly_canonical(A, EC);
  return (EC ? A : C).generic_string();
}

/// The names in `#include "x"` / `#include <x>` lines.
std::vector<std::string> includedNames(const std::string &Text) {
  std::vector<std::string> Out;
  size_t P = 0;
  while (P < Text.size()) {
    size_t E = Text.find('\n', P);
    if (E == std::string::npos)
      E = Text.size();
    size_t K = P;
    auto Skip = [&] {
      while (K < E && (Text[K] == ' ' || Text[K] == '\t'))
        ++K;
    };
    Skip();
    if (K < E && Text[K] == '#') {
      ++K;
      Skip();
      if (Text.compare(K, 7, "include") == 0) {
        K += 7;
        Skip();
        if (K < E && (Text[K] == '"' || Text[K] == '<')) {
          char Close = Text[K] == '"' ? '"' : '>';
          size_t End = Text.find(Close, K + 1);
          if (End != std::string::npos && End < E && End > K + 1)
            Out.push_back(Text.substr(K + 1, End - K - 1));
        }
      }
    }
    P = E + 1;
  }
  return Out;
}

} // namespace

std::vector<std::string> includeDirs(const std::vector<std::string> &Flags) {
  std::vector<std::string> Dirs;
  for (size_t I = 0; I < Flags.size(); ++I)
    for (const char *F : {"-I", "-isystem", "-iquote", "-idirafter"}) {
      std::string Flag = F;
      if (Flags[I] == Flag && I + 1 < Flags.size()) {
        Dirs.push_back(Flags[++I]);
        break;
      }
      if (Flags[I].size() > Flag.size() && Flags[I].compare(0, Flag.size(), Flag) == 0) {
        Dirs.push_back(Flags[I].substr(Flag.size()));
        break;
      }
    }
  return Dirs;
}

IncludeGraph scanIncludes(const std::vector<std::string> &Files,
                          const std::vector<std::string> &IDirs) {
  std::map<std::string, size_t> Index;
  std::vector<std::string> Canon;
  for (size_t I = 0; I < Files.size(); ++I) {
    Canon.push_back(canon(Files[I]));
    Index.emplace(Canon.back(), I);
  }
  std::vector<std::string> Dirs;
  for (const std::string &D : IDirs)
    Dirs.push_back(canon(D));
  std::map<std::string, std::vector<size_t>> ByName; // file name -> files
  for (size_t I = 0; I < Canon.size(); ++I)
    ByName[fs::path(Canon[I]).filename().string()].push_back(I);
  // Direct includes, as edges includer -> included.
  std::vector<std::set<size_t>> Includes(Files.size());
  for (size_t I = 0; I < Files.size(); ++I) {
    std::ifstream In(Files[I], std::ios::binary);
    if (!In)
      continue;
    std::ostringstream SS;
    SS << In.rdbuf();
    fs::path Here = fs::path(Canon[I]).parent_path();
    for (const std::string &Name : includedNames(SS.str())) {
      bool Found = false;
      std::vector<fs::path> Candidates = {Here / Name};
      for (const std::string &D : Dirs)
        Candidates.push_back(fs::path(D) / Name);
      for (const fs::path &C : Candidates) {
        auto It = Index.find(fs::path(C).lexically_normal().generic_string());
        if (It == Index.end())
          It = Index.find(canon(C));
        if (It != Index.end() && It->second != I) {
          Includes[I].insert(It->second);
          Found = true;
          break;
        }
      }
      if (Found)
        continue;
      // Unresolved: every scanned file whose path ends in "/<name>".
      std::string Tail = "/" + fs::path(Name).lexically_normal().generic_string();
      if (Tail.find("..") != std::string::npos)
        Tail = "/" + fs::path(Name).filename().generic_string();
      auto Same = ByName.find(fs::path(Name).filename().string());
      if (Same == ByName.end())
        continue;
      for (size_t J : Same->second)
        if (J != I && Canon[J].size() > Tail.size() &&
            Canon[J].compare(Canon[J].size() - Tail.size(), Tail.size(), Tail) == 0)
          Includes[I].insert(J);
    }
  }
  // Transitive includers: walk the reverse edges from each file.
  std::vector<std::vector<size_t>> Rev(Files.size());
  for (size_t I = 0; I < Files.size(); ++I)
    for (size_t J : Includes[I])
      Rev[J].push_back(I);
  IncludeGraph G;
  G.Includers.resize(Files.size());
  for (size_t H = 0; H < Files.size(); ++H) {
    if (Rev[H].empty())
      continue;
    std::vector<bool> Seen(Files.size(), false);
    std::vector<size_t> Work = Rev[H];
    Seen[H] = true;
    while (!Work.empty()) {
      size_t X = Work.back();
      Work.pop_back();
      if (Seen[X])
        continue;
      Seen[X] = true;
      G.Includers[H].push_back(X);
      for (size_t Y : Rev[X])
        if (!Seen[Y])
          Work.push_back(Y);
    }
    std::sort(G.Includers[H].begin(), G.Includers[H].end());
  }
  return G;
}

ShardPlan planShard(const IncludeGraph &G, size_t NumFiles, unsigned I, unsigned N) {
  ShardPlan P;
  P.Reports.assign(NumFiles, false);
  std::vector<bool> Analyse(NumFiles, false);
  for (size_t F = 0; F < NumFiles; ++F) {
    const std::vector<size_t> &Inc = F < G.Includers.size() ? G.Includers[F]
                                                            : std::vector<size_t>();
    size_t Owner = Inc.empty() ? F : Inc.front();
    if (N > 1 && Owner % N != I)
      continue;
    P.Reports[F] = true;
    Analyse[F] = true;
    for (size_t X : Inc)
      Analyse[X] = true;
  }
  for (size_t F = 0; F < NumFiles; ++F)
    if (Analyse[F])
      P.Analyse.push_back(F);
  return P;
}

} // namespace kvlint
