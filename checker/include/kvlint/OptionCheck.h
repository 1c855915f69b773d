//===- OptionCheck.h - what each option key accepts -------------*- C++ -*-===//
//
// Every option a configuration sets (a .kvlint.yaml key, a CheckOptions
// entry, --option, an envelope file) is checked here before any rule reads
// it: an unknown key or a malformed value is an error, never a silent
// default. The value types come from the options themselves (Rule.h's
// OptionSpec): a default that is an integer makes an integer option, a help
// text that starts with "regex" a Pattern (Pattern.h), `Level` a choice; a
// short table (OptionCheck.cpp) gives the ranges the defaults cannot tell.
//
//===----------------------------------------------------------------------===//
#ifndef KVLINT_OPTIONCHECK_H
#define KVLINT_OPTIONCHECK_H

#include <cstdint>
#include <string>
#include <vector>

namespace kvlint {

/// An integer as configuration files write it: decimal digits, optionally
/// grouped by ',', '_' or '\'' (262,144; 1_048_576), an optional leading '-',
/// or 0x hex. Rejects leading zeros (010 would read as octal elsewhere),
/// '+', exponents (1e3), fractions, NaN, words and values outside int64.
bool parseInteger(const std::string &S, int64_t &V);

struct OptionType {
  enum Kind { Integer, Choice, Regex, Text } K = Text;
  int64_t Min = 0, Max = 0;         ///< Integer
  std::vector<std::string> Choices; ///< Choice (compared case-insensitively)
  bool EmptyOk = true;              ///< Regex: an empty pattern matches every name
};

/// The type of an option key: global ("Level", "Envelope.Tokens",
/// "triton.UnknownLoadBits") or local ("<check>.<Option>" of a registered
/// rule). False when nothing reads the key.
bool optionType(const std::string &Key, OptionType &Out);

/// "" when Value suits Key, else what is wrong: "unknown option 'Levle' (did
/// you mean 'Level'?)", "'Envelope.Tokens' wants an integer from 1 to ...,
/// got '-5'", "'kvlint-...TablePattern' is not a valid pattern: ...".
std::string checkOption(const std::string &Key, const std::string &Value);

/// The known name closest to Name (edit distance at most 2, or a case
/// difference), or "".
std::string closestName(const std::string &Name, const std::vector<std::string> &Known);

/// Every option key a configuration may set (globals and each rule's locals).
std::vector<std::string> knownOptionKeys();

} // namespace kvlint

#endif
