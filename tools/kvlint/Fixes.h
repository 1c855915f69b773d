//===- Fixes.h - --fix: apply fix-its in place ------------------*- C++ -*-===//
#ifndef KVLINT_TOOLS_FIXES_H
#define KVLINT_TOOLS_FIXES_H

#include "kvlint/Rule.h"

#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace kvlint {

struct FixOutcome {
  unsigned Failures = 0;      ///< files that could not be (or were refused to be) fixed
  size_t FindingsFixed = 0;   ///< findings whose every fix-it was applied
  unsigned UnsafeSkipped = 0; ///< unsafe fix-its left out (no --unsafe-fixes)
};

/// Applies the findings' fix-its, each real file once:
///  - a file is named by its resolved path (a symlink is fixed at its target,
///    never replaced), and all names of one file share one set of edits;
///  - only files whose real path lies below one of Roots (a scanned
///    directory, or a scanned file's own directory) are written: a symlink
///    that leads out of the tree, or a header included from elsewhere, is
///    refused;
///  - the file is locked (flock) against a concurrent --fix, re-read, and
///    fixed only when its bytes still hash to Hashes[name], the bytes the
///    fix-its were computed from;
///  - identical edits reached twice are applied once;
///  - the result is written with writeFileAtomically (mode and owner kept;
///    hard-linked or special files refused).
/// Unsafe fix-its are applied only with Unsafe. Reports each file on Err.
FixOutcome applyAllFixes(const std::vector<Finding> &Fs,
                         const std::map<std::string, std::string> &Hashes, bool Unsafe,
                         const std::vector<std::string> &Roots, std::ostream &Err);

} // namespace kvlint

#endif
