//===- Args.h - kvlint's command-line flags ---------------------*- C++ -*-===//
//
// Every flag lives in one table (Args.cpp): a new flag is one row there, one
// field here, and one line in --help, which is generated from the table.
//
//===----------------------------------------------------------------------===//
#ifndef KVLINT_TOOLS_ARGS_H
#define KVLINT_TOOLS_ARGS_H

#include "Config.h"
#include "kvlint/Rule.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace kvlint {

/// What the command line asked for.
struct CliOptions {
  std::vector<std::string> Inputs;
  std::vector<std::string> Extra; ///< after `--`
  std::vector<std::string> Excludes;
  /// --config, --checks and --option in command-line order; they layer over
  /// the configuration files found beside the scanned files.
  std::vector<ConfigFile> Overrides;
  std::string Baseline;      ///< --baseline FILE: report only findings not in it
  std::string WriteBaseline; ///< --write-baseline FILE
  bool PruneBaseline = false; ///< --prune-baseline: drop the baseline's gone entries
  std::string Diff;          ///< --diff REF or '-': only findings on changed lines
  std::string Format = "text";
  /// --output FORMAT=FILE, in command-line order: more reports of one run.
  std::vector<std::pair<std::string, std::string>> Outputs;
  bool Statistics = false;    ///< --statistics: per-rule counts
  bool FixDiff = false;       ///< --fix-diff: print the fixes as a unified diff
  bool ReportUnusedSuppressions = false; ///< --report-unused-suppressions
  std::string ShowConfig;     ///< --show-config FILE
  std::string DbDir;
  std::string ProjectRoot;   ///< --project-root DIR: the project the model reads
  unsigned Jobs = 0;
  unsigned ShardI = 0, ShardN = 1;
  bool Fix = false, ListRules = false, DumpIR = false, Verbose = false;
  bool IncludeGenerated = false; ///< also scan generated files found in directories
  bool IncludeTests = false;     ///< also scan test and benchmark directories
  bool PerSite = false;          ///< one finding per site, not per value to widen
  bool UnsafeFixes = false;      ///< --fix also applies fix-its marked unsafe
  bool FailOnError = false;      ///< exit 2 when a file could not be analysed
  bool NoIsolation = false;      ///< analyse on threads, not worker processes
  bool NoCache = false;          ///< --no-cache: neither read nor write the cache
  bool CleanCache = false;       ///< --clean-cache: remove the cache folder and stop
  std::string CacheDir;          ///< --cache-dir DIR (default: <project root>/.kvlint_cache)
  unsigned FileTimeout = 120;    ///< seconds one file's analysis may take
  unsigned FileMemory = 4096;    ///< MiB one file's analysis may use
};

/// Parses Args into C. Returns -1 to go on, or an exit status to stop with
/// (0 after --help/--version, 2 on a usage error, reported on Err).
int parseArgs(const std::vector<std::string> &Args, CliOptions &C, std::ostream &Out,
              std::ostream &Err);

/// text, json, sarif or github.
bool isOutputFormat(const std::string &F);

/// The --help text, generated from the flag table.
std::string usageText();

} // namespace kvlint

#endif
