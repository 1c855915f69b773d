//===- Frontend.h - what frontends hand to the driver -----------*- C++ -*-===//
#ifndef KVLINT_FRONTEND_H
#define KVLINT_FRONTEND_H

#include "kvlint/IR.h"
#include "kvlint/Rule.h"

#include <memory>
#include <string>
#include <vector>

namespace kvlint {

/// The result of lowering one source file.
struct LoweredFile {
  std::vector<std::unique_ptr<Function>> Functions;
  /// Problems the frontend met that did not stop it (missing headers, parse
  /// errors it recovered from). One line each, no file prefix.
  std::vector<std::string> Notes;
  /// True when nothing could be analysed (unreadable, binary, fatal).
  bool Failed = false;
  /// Code the parser could not read, so that nothing about it is silent: a
  /// function with a parse error in it (analysed without the broken part, or
  /// not at all), or, with Function empty, the line where the parser stopped
  /// for good (bracket depth): nothing after it was analysed. Why is
  /// "line:col: message".
  struct Gap {
    std::string Function;
    unsigned Line = 0;
    std::string Why;
  };
  std::vector<Gap> Gaps;
};

/// Triton frontend: lowers every @triton.jit function of a Python file.
/// Plain Python yields no functions. Options: "triton.UnknownLoadBits".
LoweredFile lowerTritonSource(const std::string &Path, const std::string &Source,
                              const Options &Opts);

} // namespace kvlint

#endif
