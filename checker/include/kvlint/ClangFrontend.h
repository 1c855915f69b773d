//===- ClangFrontend.h - CUDA, HIP and C++ into the kernel IR ---*- C++ -*-===//
#ifndef KVLINT_CLANGFRONTEND_H
#define KVLINT_CLANGFRONTEND_H

#include "kvlint/Frontend.h"

namespace clang {
class ASTContext;
}

namespace kvlint {

/// Lowers every function with a body whose definition is in the main file of
/// Ctx (or every file, when MainFileOnly is false): kernels, __device__
/// helpers, host code, member functions, primary templates (also those never
/// instantiated) and instantiations. Shared by the CLI and the clang-tidy
/// plugin, so both see the same IR.
void lowerASTContext(clang::ASTContext &Ctx, Language L, bool MainFileOnly,
                     std::vector<std::unique_ptr<Function>> &Out);

/// What the CLI knows about one file before parsing it.
struct ClangInput {
  std::string Path;
  Language Lang = Language::Cpp;
  /// Flags taken from a compile database (-I -D -U -std -include ...), or
  /// empty to use the built-in defaults for the language.
  std::vector<std::string> DbArgs;
  /// Flags the user gave after `--`.
  std::vector<std::string> ExtraArgs;
  /// Also run a host pass (the file has code under __CUDA_ARCH__ guards).
  bool HostPass = false;
};

/// Parses a file (device pass, plus a host pass when asked) and lowers it.
/// Missing headers are skipped and named in Notes; parse errors are counted.
LoweredFile lowerClangFile(const ClangInput &In);

/// The language a C/C++-family file is analysed as: .cu/.cuh are CUDA, .hip
/// is HIP, and a .cpp/.h that includes hip/hip_runtime.h or declares
/// __global__/__device__ functions is HIP or CUDA; everything else is C++.
Language clangLanguageFor(const std::string &Path, const std::string &Source);

} // namespace kvlint

#endif
