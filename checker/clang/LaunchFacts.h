//===- LaunchFacts.h - What host launches say about kernels -----*- C++ -*-===//
//
// Private to checker/clang: the interface between the launch-facts pre-pass
// (LaunchFacts.cpp) and the lowering (ClangLowering.cpp). scanLaunches reads
// a translation unit once; the lowering looks a kernel up with factsKey and
// puts what it finds on the kernel's Param and LaunchIdx nodes (Node::Hint)
// and in Function::Checked.
//
//===----------------------------------------------------------------------===//
#ifndef KVLINT_CLANG_LAUNCHFACTS_H
#define KVLINT_CLANG_LAUNCHFACTS_H

#include "kvlint/IR.h"

#include "clang/Basic/SourceLocation.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class FunctionDecl;
} // namespace clang

namespace kvlint {

// ---- launch facts ----------------------------------------------------------
//
// A pre-pass over the translation unit, before any function is lowered: it
// finds the launches in host code (`k<<<g, b, s, st>>>(...)`,
// `hipLaunchKernelGGL(k, g, b, s, st, ...)`, `cudaLaunchKernel(k, g, ...)`)
// and the checks the launching function makes before them, and records what
// they say about the kernel: the grid per axis (bounds blockIdx), the
// constants and names passed for its parameters, and the products host code
// checks. Facts only: what they imply is for the bounds analysis.

/// What a launch site says about one value: a constant range and/or the
/// launcher's name for an upper bound (divided by Div, rounded up).
struct SiteFact {
  bool Known = false; ///< false: this site says nothing about the value
  bool HasRange = false;
  int64_t Lo = 0, Hi = 0;
  std::string BoundBy;
  int64_t Div = 1;
  std::string DivText; ///< a divisor that is no constant, as written (no spaces)
  std::string DivBy;   ///< ... the kernel parameter it is passed as
};

struct LaunchSite {
  SiteFact Axis[3];
  std::vector<SiteFact> Args; ///< per kernel parameter
  std::string Where;          ///< "file.cu:LINE"
  unsigned Offset = 0, Spelling = 0;
  clang::FileID SpellFile;    ///< the file Spelling is an offset in
  std::string File;
};

/// Everything the translation unit's launchers say about one kernel.
struct KernelFacts {
  std::vector<LaunchSite> Sites;
  std::vector<CheckedProduct> Checked;
  // Merged over the sites, by finish().
  ValueHint Axis[3];
  std::vector<ValueHint> Args;
};

using FactsMap = std::map<const clang::FunctionDecl *, KernelFacts>;

/// The key facts are recorded under: the primary template's declaration for
/// an instantiation, so that every instantiation and the template share them.
const clang::FunctionDecl *factsKey(const clang::FunctionDecl *FD);

/// Reads the launches and host checks of the translation unit (outside system
/// headers; only in the main file when MainOnly) and returns the facts of
/// each launched kernel, under factsKey(kernel). Helpers is the
/// CheckedHelpers regex of lowerASTContext.
FactsMap scanLaunches(clang::ASTContext &Ctx, const std::string &Helpers, bool MainOnly);

} // namespace kvlint

#endif // KVLINT_CLANG_LAUNCHFACTS_H
