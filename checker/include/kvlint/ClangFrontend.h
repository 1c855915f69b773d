//===- ClangFrontend.h - CUDA, HIP and C++ into the kernel IR ---*- C++ -*-===//
#ifndef KVLINT_CLANGFRONTEND_H
#define KVLINT_CLANGFRONTEND_H

#include "kvlint/Frontend.h"

namespace clang {
class ASTContext;
}

namespace kvlint {

/// Helpers that check a product of sizes against INT32_MAX before a launch
/// (FlashInfer's CheckedInt32Product({a, b, c}, "what")): a regex on the
/// callee's name.
inline constexpr const char *DefaultCheckedHelpers =
    "CheckedInt32Product|checked_int32_product|check_int32";

/// Lowers every function with a body whose definition is in the main file of
/// Ctx (or every file, when MainFileOnly is false): kernels, __device__
/// helpers, host code, member functions, primary templates (also those never
/// instantiated) and instantiations. Shared by the CLI and the clang-tidy
/// plugin, so both see the same IR.
///
/// Before lowering, the translation unit's launches are read: the grids and
/// arguments that host code launches each kernel with become hints on the
/// kernel's blockIdx and parameter nodes (Node::Hint), and the products the
/// launching function checks before the launch (TORCH_CHECK(a * b <=
/// INT_MAX), calls to a helper whose name matches the regex CheckedHelpers)
/// become Function::Checked.
void lowerASTContext(clang::ASTContext &Ctx, Language L, bool MainFileOnly,
                     std::vector<std::unique_ptr<Function>> &Out,
                     const std::string &CheckedHelpers = DefaultCheckedHelpers);

/// What the CLI knows about one file before parsing it.
struct ClangInput {
  std::string Path;
  /// The file's bytes as the caller read them: clang parses exactly these
  /// (not a second read of Path), so fix-it offsets refer to them.
  std::string Source;
  Language Lang = Language::Cpp;
  /// Flags taken from a compile database (-I -D -U -std -include ...), or
  /// empty to use the built-in defaults for the language.
  std::vector<std::string> DbArgs;
  /// Flags the user gave after `--`.
  std::vector<std::string> ExtraArgs;
  /// Also run a host pass (the file has code under __CUDA_ARCH__ guards).
  bool HostPass = false;
  /// See lowerASTContext.
  std::string CheckedHelpers = DefaultCheckedHelpers;
};

/// Parses a file (device pass, plus a host pass when asked) and lowers it.
/// Missing headers are skipped and named in Notes; parse errors are counted.
/// The path reaches clang's driver after `--`, so no file name becomes an
/// option, and no driver configuration file is read. Includes that are not
/// regular files (a FIFO, a device) or that exceed MaxIncludeBytes are
/// treated as missing and named in Notes.
LoweredFile lowerClangFile(const ClangInput &In);

/// The language a C/C++-family file is analysed as: .cu/.cuh are CUDA, .hip
/// is HIP, and a .cpp/.h that includes hip/hip_runtime.h or declares
/// __global__/__device__ functions is HIP or CUDA; everything else is C++.
Language clangLanguageFor(const std::string &Path, const std::string &Source);

} // namespace kvlint

#endif
