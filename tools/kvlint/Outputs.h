//===- Outputs.h - after the scan: baseline, --diff, reports ----*- C++ -*-===//
//
// What the driver does once every file is analysed: write or apply the
// baseline, keep the findings on changed lines, fold sites, and write each
// requested output (--format to stdout, --output FORMAT=FILE), the summary
// lines on stderr, and --fix. Returns the exit status.
//
//===----------------------------------------------------------------------===//
#ifndef KVLINT_TOOLS_OUTPUTS_H
#define KVLINT_TOOLS_OUTPUTS_H

#include "Args.h"
#include "Baseline.h"
#include "Config.h"
#include "Diff.h"
#include "FileWalk.h"
#include "kvlint/Report.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace kvlint {

/// What the per-file analysis gave.
struct ScanOutcome {
  std::vector<Finding> All; ///< deduped and sorted
  std::vector<FileNote> Notes, Loud;
  RunSummary Sum;
  unsigned Skipped = 0;
  WalkSkips Walk;
  bool WholeTree = false;
  std::vector<std::string> Files; ///< the files this run reports on
  /// Canonical paths: with --shard, findings in other files are another
  /// shard's (Selection.h). Empty: every finding is this run's.
  std::set<std::string> ReportOnly;
  /// Canonical paths of the analysed files (--write-baseline refuses them).
  std::set<std::string> Scanned;
  /// The bytes each fix-it was computed from (FileResult::Hashes, merged).
  std::map<std::string, std::string> Hashes;
  /// Source files found before the excludes and --shard/--diff selection.
  size_t FoundAnywhere = 0;
  /// Findings dropped at the default level: in kernels no root reaches.
  unsigned Unreached = 0;
  /// Files whose result came from the cache (Cache.h), not analysed again.
  unsigned Cached = 0;
};

/// The baseline in force: --baseline, else the Baseline key of the first
/// input's .kvlint.yaml (none with --write-baseline).
struct BaselineState {
  std::string Path;
  Baseline Known;
  bool Active = false;
};

/// Reads the baseline before the scan, so a bad file costs nothing.
/// Returns false after reporting an error.
bool loadBaselineFor(const CliOptions &C, ConfigResolver &Resolver, BaselineState &B);

/// The directory SARIF's %SRCROOT% and its fingerprints are relative to:
/// the top of the git work tree of the first input, else the baseline's
/// root, else the current directory.
std::string sourceRoot(const CliOptions &C, const BaselineState &B);

int reportScan(const CliOptions &C, ScanOutcome &S, const BaselineState &B,
               const ChangedLines &Changed);

} // namespace kvlint

#endif
