//===- Baseline.h - findings known when the baseline was written -*- C++ -*-===//
//
// `--write-baseline FILE` records every finding's fingerprint (Report.h's
// fingerprints(), the same as SARIF's partialFingerprints) and `--baseline
// FILE` reports only findings the baseline does not account for. The format
// is text, one finding per line, so a baseline reviews well in a diff:
//
//   # kvlint baseline v2
//   3f0c9a1b2d4e5f60 0a1b2c3d4e5f6071 KV001 csrc/cache.cu:34 store_kernel
//
// The first column is the fingerprint (format v3: rule, file, function and
// expression text, no occurrence index); equal-shaped sites of one function
// share it, and the baseline holds one line per site, so it counts them. The
// second column hashes the site's line and its neighbours; when a function
// has more sites of one fingerprint than the baseline counts, it (and the
// changed lines of --diff) decides which are new. The rest is for people.
// File paths are relative to the repository holding the baseline (the top
// of its git work tree), else to the baseline's directory.
//
// A v1 baseline (fingerprints with an occurrence index) still reads: it is
// matched with the old fingerprints, and `--prune-baseline` rewrites it as v2.
//
//===----------------------------------------------------------------------===//
#ifndef KVLINT_TOOLS_BASELINE_H
#define KVLINT_TOOLS_BASELINE_H

#include "SafeWrite.h"
#include "kvlint/Report.h"

#include <functional>
#include <string>
#include <vector>

namespace kvlint {

struct BaselineEntry {
  std::string Fingerprint; ///< 16 hex digits
  std::string Site;        ///< 16 hex digits (siteHashes), "" in v1
  std::string File;        ///< as recorded ("" when the line names none)
  unsigned Line = 0;       ///< as recorded (0 when unknown)
  std::string Raw;         ///< the line itself
};

struct Baseline {
  unsigned Version = 2; ///< 1: fingerprints with an occurrence index
  std::vector<BaselineEntry> Entries;
};

/// Parses a baseline's text; Err is "path:line: what" on failure.
bool parseBaseline(const std::string &Text, const std::string &Path, Baseline &Out,
                   std::string &Err);
bool readBaseline(const std::string &Path, Baseline &Out, std::string &Err);

/// The directory the baseline at BaselinePath keys files by: the top of the
/// git work tree holding it (a parent with .git), else its own directory.
std::string baselineRoot(const std::string &BaselinePath);
/// File as the baseline at BaselinePath hashes it: relative to
/// baselineRoot, '/'-separated.
std::string baselineFileKey(const std::string &BaselinePath, const std::string &File);
/// The top of the git work tree holding Path (a file or directory), or "".
std::string gitTopLevel(const std::string &Path);

/// One finding as the baseline sees it.
struct BaselineSite {
  std::string Fingerprint; ///< fingerprints() (legacyFingerprints() for v1)
  std::string Site;        ///< siteHashes()
  unsigned Line = 0;
  bool Changed = false; ///< on a line --diff reports (prefer it as the new one)
};

/// Which findings the baseline accounts for. Per fingerprint, a baseline that
/// counts K sites accounts for K of the findings: first those on unchanged
/// lines, then by how well the site hash matches (line and neighbours, then
/// the line alone), then by the nearest recorded line. The rest are new.
struct BaselineMatch {
  std::vector<bool> Known;     ///< per site
  std::vector<bool> EntryUsed; ///< per baseline entry
  unsigned Matched = 0, New = 0;
};
BaselineMatch matchBaseline(const Baseline &B, const std::vector<BaselineSite> &Sites);

/// The baseline text (v2) for Fs with their fingerprints FPs and site
/// hashes Sites; files are shown as FileKey spells them (the path itself
/// when null).
std::string formatBaseline(const std::vector<Finding> &Fs, const std::vector<std::string> &FPs,
                           const std::vector<std::string> &Sites,
                           const std::function<std::string(const std::string &)> &FileKey = nullptr);


} // namespace kvlint

#endif
