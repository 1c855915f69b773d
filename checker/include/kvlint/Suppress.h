//===- Suppress.h - suppression comments, one syntax everywhere -*- C++ -*-===//
//
// The CLI and the clang-tidy plugin read the same comments, with the same
// meaning (docs/cli.md#suppressing-a-finding):
//
//   x[a * b];  // NOLINT                    everything on this line
//   x[a * b];  // NOLINT(KV001, kvlint-*)   codes, check names, globs
//   // NOLINTNEXTLINE(kvlint-narrowed-index-overflow)
//   // NOLINTBEGIN(KV002) ... // NOLINTEND(KV002)   a range of lines
//   x[a * b];  // kvlint: ignore[KV001]     (bare: everything)
//   x = a * b  # noqa: KV001                ruff's form (bare: everything)
//
// A name that looks like a kvlint rule (KVnnn, kvlint-...) but is none is
// a problem to warn about; names of other tools' checks are left alone.
//
//===----------------------------------------------------------------------===//
#ifndef KVLINT_SUPPRESS_H
#define KVLINT_SUPPRESS_H

#include "kvlint/Rule.h"

#include <string>
#include <vector>

namespace kvlint {

/// One suppression comment.
struct Suppression {
  std::string Kind; ///< NOLINT, NOLINTNEXTLINE, NOLINTBEGIN, kvlint: ignore, noqa
  std::string Text; ///< as written, e.g. "NOLINT(KV001)"
  unsigned Line = 0, Col = 0;   ///< where the comment is
  unsigned First = 0, Last = 0; ///< the lines it covers
  std::vector<std::string> Items; ///< empty: every rule
  /// It names a kvlint rule (or is `kvlint: ignore`): only such comments
  /// are reported as unused; a bare NOLINT may be meant for clang-tidy.
  bool NamesKvlint = false;
  bool Used = false;
};

/// A comment kvlint cannot read as meant: an unknown rule, an unmatched
/// NOLINTBEGIN or NOLINTEND.
struct SuppressionProblem {
  unsigned Line = 0, Col = 0;
  std::string Message;
};

/// Every suppression comment of one file's text.
class SuppressionMap {
public:
  explicit SuppressionMap(const std::string &Text);
  /// True when a comment suppresses F (F's first line); marks it used.
  bool suppresses(const Finding &F);
  std::vector<Suppression> All;
  std::vector<SuppressionProblem> Problems;
};

/// True when Item (a code, check name or glob) names the rule.
bool suppressionNames(const std::string &Item, const std::string &Code,
                      const std::string &Check);

/// --report-unused-suppressions: the CLI then filters suppressed findings
/// itself, after the per-file analysis, so that it sees every use; the
/// per-file isSuppressed() answers false meanwhile.
void setDeferSuppressions(bool Defer);
bool deferSuppressions();

} // namespace kvlint

#endif
