//===- Baseline.h - findings known when the baseline was written -*- C++ -*-===//
//
// `--write-baseline FILE` records every finding's fingerprint (Report.h's
// fingerprints(), the same as SARIF's partialFingerprints) and `--baseline
// FILE` reports only findings whose fingerprint is not in it. The format is
// text, one finding per line, so a baseline reviews well in a diff:
//
//   # kvlint baseline v1
//   3f0c9a1b2d4e5f60 KV001 csrc/cache.cu:34 store_kernel
//
// Only the 16 hex digits count; the rest is for people. File paths are hashed
// relative to the baseline's directory, so a baseline matches whatever
// directory kvlint runs from.
//
//===----------------------------------------------------------------------===//
#ifndef KVLINT_TOOLS_BASELINE_H
#define KVLINT_TOOLS_BASELINE_H

#include "SafeWrite.h"
#include "kvlint/Report.h"

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace kvlint {

struct Baseline {
  std::set<std::string> Fingerprints;
};

/// Parses a baseline's text; Err is "path:line: what" on failure.
bool parseBaseline(const std::string &Text, const std::string &Path, Baseline &Out,
                   std::string &Err);
bool readBaseline(const std::string &Path, Baseline &Out, std::string &Err);

/// File as the baseline at BaselinePath hashes it: relative to the
/// baseline's directory, '/'-separated.
std::string baselineFileKey(const std::string &BaselinePath, const std::string &File);

/// The baseline text for Fs with their fingerprints FPs; files are shown as
/// FileKey spells them (the path itself when null).
std::string formatBaseline(const std::vector<Finding> &Fs, const std::vector<std::string> &FPs,
                           const std::function<std::string(const std::string &)> &FileKey = nullptr);


} // namespace kvlint

#endif
