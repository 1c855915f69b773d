//===- Fixes.h - --fix: apply fix-its in place ------------------*- C++ -*-===//
#ifndef KVLINT_TOOLS_FIXES_H
#define KVLINT_TOOLS_FIXES_H

#include "kvlint/Rule.h"

#include <ostream>
#include <vector>

namespace kvlint {

/// Applies every finding's fix-its to its file: each file is written to a
/// sibling temporary and renamed over the original (permissions kept), so
/// it is either the old or the new version. Reports each file on Err;
/// returns the number of files that could not be written.
int applyAllFixes(const std::vector<Finding> &Fs, std::ostream &Err);

} // namespace kvlint

#endif
