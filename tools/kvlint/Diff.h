//===- Diff.h - lines changed since a git revision --------------*- C++ -*-===//
//
// `--diff REF` runs `git diff -U0 REF` in the scanned tree's repository (git
// is the only program kvlint ever runs; nothing from the tree is executed)
// and `--diff -` reads a unified diff on stdin. Only findings on added or
// changed lines are reported, and only files with such lines are analysed.
//
//===----------------------------------------------------------------------===//
#ifndef KVLINT_TOOLS_DIFF_H
#define KVLINT_TOOLS_DIFF_H

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kvlint {

/// New-side line ranges [first, last] per file (paths as normalPath gives).
struct ChangedLines {
  std::map<std::string, std::vector<std::pair<unsigned, unsigned>>> ByFile;
  /// Untracked files gitDiff added whole (absolute); said in a note.
  std::vector<std::string> Untracked;
  /// What gitDiff has to say (no commit yet, ...).
  std::vector<std::string> Notes;
  /// The repository's work tree (gitDiff; empty for a diff on stdin): where
  /// the includers of a changed header are looked for.
  std::string Root;
  bool hasFile(const std::string &Path) const;
  /// True when any line of [First, Last] of Path changed.
  bool touches(const std::string &Path, unsigned First, unsigned Last) const;
};

/// Parses a unified diff (git's or diff -u's); relative paths are joined to
/// Root. Err is "<diff>:line: what" on failure.
bool parseUnifiedDiff(const std::string &Text, const std::string &Root, ChangedLines &Out,
                      std::string &Err);

/// Runs git in Dir's repository: `git diff -U0 REF` over the working tree,
/// plus the untracked files that are not ignored, whole. REF "HEAD" in a
/// repository with no commit yet diffs against the empty tree.
bool gitDiff(const std::string &Dir, const std::string &Ref, ChangedLines &Out,
             std::string &Err);

/// Absolute, symlinks resolved: how ChangedLines spells paths.
std::string normalPath(const std::string &P);

} // namespace kvlint

#endif
