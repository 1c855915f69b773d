//===- FixDiff.h - --fix-diff: the fix-its as a unified diff ----*- C++ -*-===//
#ifndef KVLINT_TOOLS_FIXDIFF_H
#define KVLINT_TOOLS_FIXDIFF_H

#include "kvlint/Rule.h"

#include <functional>
#include <string>
#include <vector>

namespace kvlint {

/// The edits --fix would make, as a unified diff (3 lines of context), files
/// labelled "a/<Label(file)>" and "b/<Label(file)>" (git apply -p1), or the
/// absolute path twice when Label gives one. Overlapping edits after the
/// first are dropped, as --fix does. Counts the files and edits.
std::string fixesAsDiff(const std::vector<Finding> &Fs,
                        const std::function<std::string(const std::string &)> &Label,
                        unsigned &Files, unsigned &Edits);

} // namespace kvlint

#endif
