//===- Pattern.h - name patterns that match in linear time ------*- C++ -*-===//
//
// Every pattern a user or a configuration supplies (rule options such as
// TablePattern, Envelope.<Key>.Names) and every built-in one goes through
// this wrapper. It compiles to llvm::Regex (POSIX ERE), whose matcher is a
// set of states advanced once per character: time linear in the text, no
// recursion, so `^(a+)+$` or a 50,000-character identifier costs nothing
// (std::regex recursed per character and backtracked without bound).
//
// The syntax is the ECMAScript subset the defaults always used, translated:
//   \d \w \s (and \D \W \S outside brackets), (?:...), lazy quantifiers
//   (*? +? ??: the same matches for a yes/no search), \. \( ... escapes;
//   a negative lookahead right after a leading ^ of a top-level alternative,
//   `^(?!X)Y`: the alternative matches when ^Y does and ^X does not.
// Rejected, with a message: back-references (\1), lookbehind, lookahead
// anywhere else, \b, unknown escapes, patterns over 16,384 characters, and
// bounded repetitions that would expand past 100,000 states.
// Matching ignores case unless the pattern is compiled with CaseSensitive.
//
//===----------------------------------------------------------------------===//
#ifndef KVLINT_PATTERN_H
#define KVLINT_PATTERN_H

#include <memory>
#include <string>
#include <vector>

namespace kvlint {

class Pattern {
public:
  enum Flags { IgnoreCase = 0, CaseSensitive = 1 };

  /// A pattern that matches nothing.
  Pattern();

  /// Compiles Source; on failure returns false and sets Err to what is wrong
  /// (without a file name: the caller knows where the pattern came from).
  /// An empty Source matches every text, as an empty ECMAScript regex does.
  static bool compile(const std::string &Source, Pattern &Out, std::string &Err,
                      Flags F = IgnoreCase);
  /// A built-in pattern: never fails (a bad one is a programming error and
  /// matches nothing, with an assertion in debug builds).
  static Pattern builtin(const std::string &Source, Flags F = IgnoreCase);

  /// True when the pattern matches somewhere in Text.
  bool search(const std::string &Text) const;
  /// As search, and fills Groups with the first match's groups (Groups[0]
  /// is the whole match). Only for patterns without lookahead.
  bool search(const std::string &Text, std::vector<std::string> &Groups) const;

  const std::string &source() const;

  struct Impl;

private:
  std::shared_ptr<const Impl> P; ///< immutable once compiled: shared by copies and threads
};

} // namespace kvlint

#endif
