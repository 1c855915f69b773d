//===- Selection.cpp - which files a run analyses and reports -------------===//
#include "Selection.h"
#include "IncludeScan.h"

#include <filesystem>
#include <map>

namespace fs = std::filesystem;

namespace kvlint {

std::string canonicalPath(const std::string &P) {
  std::error_code EC;
  // absolute first: weakly_canonical leaves a relative path that does not
  // exist yet relative ('r.json' and './r.json' would differ).
  std::string C = fs::weakly_canonical(fs::absolute(P, EC), EC).string();
  return EC ? P : C;
}

FileSelection selectFiles(const CliOptions &C, const std::vector<std::string> &Eligible,
                          size_t Scanned, const ChangedLines &Changed,
                          std::vector<FileNote> &Notes) {
  FileSelection S;
  bool Diff = !C.Diff.empty(), Shard = C.ShardN > 1;
  if (!Diff && !Shard) {
    for (size_t I = 0; I < Eligible.size(); ++I) {
      S.Analyse.push_back(I);
      S.Scanned.insert(canonicalPath(Eligible[I]));
    }
    S.ReportFiles = Eligible;
    return S;
  }
  IncludeGraph G = scanIncludes(Eligible, includeDirs(C.Extra));
  std::vector<bool> Selected(Eligible.size(), !Diff);
  if (Diff && !Changed.Untracked.empty()) {
    std::set<std::string> Untracked(Changed.Untracked.begin(), Changed.Untracked.end());
    for (size_t I = 0; I < Scanned && I < Eligible.size(); ++I)
      S.Untracked += Untracked.count(normalPath(Eligible[I])) != 0;
  }
  if (Diff)
    for (size_t H = 0; H < Scanned && H < Eligible.size(); ++H) {
      if (!Changed.hasFile(Eligible[H]))
        continue;
      Selected[H] = true;
      for (size_t X : G.Includers[H])
        if (!Changed.hasFile(Eligible[X])) {
          if (!Selected[X] && (C.Verbose || X >= Scanned))
            Notes.push_back({Eligible[X], "analysed for --diff: it includes the changed " +
                                              Eligible[H], false});
          Selected[X] = true;
        }
    }
  // The selected files, and the include graph among them.
  std::vector<size_t> Pos(Eligible.size(), ~size_t(0)), Chosen;
  for (size_t I = 0; I < Eligible.size(); ++I) {
    if (!Selected[I]) {
      S.Unselected += I < Scanned;
      continue;
    }
    Pos[I] = Chosen.size();
    Chosen.push_back(I);
    S.Scanned.insert(canonicalPath(Eligible[I]));
  }
  IncludeGraph Sub;
  Sub.Includers.resize(Chosen.size());
  for (size_t P = 0; P < Chosen.size(); ++P)
    for (size_t X : G.Includers[Chosen[P]])
      if (Pos[X] != ~size_t(0))
        Sub.Includers[P].push_back(Pos[X]);
  ShardPlan Plan = planShard(Sub, Chosen.size(), C.ShardI, C.ShardN);
  for (size_t P : Plan.Analyse)
    S.Analyse.push_back(Chosen[P]);
  for (size_t P = 0; P < Chosen.size(); ++P)
    if (Plan.Reports[P]) {
      S.ReportFiles.push_back(Eligible[Chosen[P]]);
      if (Shard)
        S.ReportOnly.insert(canonicalPath(Eligible[Chosen[P]]));
    }
  return S;
}

} // namespace kvlint
