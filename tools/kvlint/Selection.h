//===- Selection.h - which files a run analyses and reports -----*- C++ -*-===//
//
// After the walk and the configurations' Exclude: --diff keeps the changed
// files and every file that includes one (a header-only change is analysed
// through its includers), --shard keeps this shard's part so that the union
// of all shards is the full scan (IncludeScan.h's planShard).
//
//===----------------------------------------------------------------------===//
#ifndef KVLINT_TOOLS_SELECTION_H
#define KVLINT_TOOLS_SELECTION_H

#include "Args.h"
#include "Diff.h"
#include "kvlint/Report.h"

#include <set>
#include <string>
#include <vector>

namespace kvlint {

struct FileSelection {
  std::vector<size_t> Analyse; ///< indices into the eligible files, in order
  unsigned Unselected = 0;     ///< left out by --diff
  unsigned Untracked = 0;      ///< selected because git does not track them
  /// Canonical paths of every selected file, all shards: a finding in one of
  /// them reached from an analysed file is kept.
  std::set<std::string> Scanned;
  std::vector<std::string> ReportFiles; ///< the files this run reports on
  /// Canonical paths; findings elsewhere are another shard's. Empty: all.
  std::set<std::string> ReportOnly;
};

/// Eligible's first Scanned files are the scan's; the rest (--diff: the
/// repository's other sources) are chosen only as includers of a changed one.
FileSelection selectFiles(const CliOptions &C, const std::vector<std::string> &Eligible,
                          size_t Scanned, const ChangedLines &Changed,
                          std::vector<FileNote> &Notes);

/// weakly_canonical of the absolute path, or the path itself when that fails.
std::string canonicalPath(const std::string &P);

} // namespace kvlint

#endif
