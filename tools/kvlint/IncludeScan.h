//===- IncludeScan.h - which scanned files include which --------*- C++ -*-===//
//
// A cheap scan, no preprocessor and no regex: the `#include "..."` and
// `#include <...>` lines of each file, resolved against the includer's
// directory and the -I directories, else to the scanned files whose path ends
// in the included name (an over-approximation: an include path the scan does
// not know still connects). --diff uses it to analyse the includers of a
// changed header, --shard to give each header's findings to one shard.
//
//===----------------------------------------------------------------------===//
#ifndef KVLINT_TOOLS_INCLUDESCAN_H
#define KVLINT_TOOLS_INCLUDESCAN_H

#include <string>
#include <vector>

namespace kvlint {

struct IncludeGraph {
  /// Per file (the index into the scanned list), the files that include it,
  /// directly or through others, sorted by index.
  std::vector<std::vector<size_t>> Includers;
};

/// Scans Files (paths as found) with the include directories IDirs.
IncludeGraph scanIncludes(const std::vector<std::string> &Files,
                          const std::vector<std::string> &IDirs);

/// The -I, -isystem, -iquote and -idirafter directories of compiler flags.
std::vector<std::string> includeDirs(const std::vector<std::string> &Flags);

/// What shard I of N analyses and reports, so that the shards' union is the
/// full scan: a file belongs to the shard of its first includer (in Files'
/// order), or to the K % N shard of its own index K when nothing includes
/// it; a shard analyses its files and every includer of them, and reports
/// only findings in its files.
struct ShardPlan {
  std::vector<size_t> Analyse; ///< indices into Files, sorted
  std::vector<bool> Reports;   ///< per file of Files
};
ShardPlan planShard(const IncludeGraph &G, size_t NumFiles, unsigned I, unsigned N);

} // namespace kvlint

#endif
