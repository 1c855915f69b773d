//===- ClangFrontend.cpp - parse one C++/CUDA/HIP file ----------------------===//
#include "kvlint/ClangFrontend.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <set>

using namespace clang;

namespace kvlint {

namespace {
const char CudaPrelude[] =
#include "prelude_cuda.inc"
    ;
const char HipPrelude[] =
#include "prelude_hip.inc"
    ;
const char CommonPrelude[] =
#include "prelude_common.inc"
    ;
const char CuteShim[] =
#include "prelude_shims_cute.inc"
    ;
const char AtenAccessorShim[] =
#include "prelude_shims_aten_accessor.inc"
    ;
const char TorchStableShim[] =
#include "prelude_shims_torch_stable.inc"
    ;
/// Stand-ins for headers a single-file scan usually lacks, on an -idirafter
/// path (a real header found by -I or a compilation database wins): only
/// the declarations that keep a kernel parsing (docs/cli.md).
const char *const ShimDir = "/kvlint-prelude/shims";
const struct {
  const char *Path;
  const char *Text;
} Shims[] = {
    {"cute/tensor.hpp", CuteShim},
    {"ATen/ATen.h", AtenAccessorShim},
    {"ATen/Tensor.h", AtenAccessorShim},
    {"ATen/core/TensorAccessor.h", AtenAccessorShim},
    {"torch/torch.h", AtenAccessorShim},
    {"torch/extension.h", AtenAccessorShim},
    {"torch/all.h", AtenAccessorShim},
    {"torch/csrc/stable/tensor.h", TorchStableShim},
    {"torch/csrc/stable/ops.h", TorchStableShim},
    {"torch/csrc/stable/library.h", TorchStableShim},
    {"torch/csrc/stable/accelerator.h", TorchStableShim},
    {"torch/csrc/stable/macros.h", TorchStableShim},
    {"torch/csrc/stable/device.h", TorchStableShim},
    {"torch/csrc/inductor/aoti_torch/c/shim.h", TorchStableShim},
    {"torch/headeronly/core/ScalarType.h", TorchStableShim},
    {"torch/headeronly/core/Dispatch.h", TorchStableShim},
    {"torch/headeronly/util/Exception.h", TorchStableShim},
    {"torch/headeronly/util/shim_utils.h", TorchStableShim},
    {"torch/headeronly/util/Half.h", TorchStableShim},
    {"torch/headeronly/util/BFloat16.h", TorchStableShim},
};
const char *PreludePath(Language L) {
  return L == Language::Hip ? "/kvlint-prelude/hip.h" : "/kvlint-prelude/cuda.h";
}

/// Hides the vendor toolkits' own headers (CUDA, ROCm/HIP) from the parse:
/// clang 19 cannot parse CUDA 13's, and HIP's and CUDA's clash with the
/// prelude. Their includes are then skipped like any other missing header,
/// so a scan reads the same wherever the toolkit is installed: under
/// /usr/local/cuda or /opt/rocm, or straight into /usr/include, as Debian's
/// and Ubuntu's nvidia-cuda-toolkit packages put it (cuda_bf16.h there
/// redefined the prelude's bf16 and left FlashInfer's kernels unparsed).
/// A header counts as the CUDA toolkit's when an include directory at most
/// three levels above it holds cuda_runtime_api.h and the header's path below
/// that directory starts with one of the toolkit's names.
class HideToolkits : public llvm::vfs::ProxyFileSystem {
public:
  using ProxyFileSystem::ProxyFileSystem;
  bool hidden(const llvm::Twine &P) {
    std::string S = P.str();
    if (S.find("/include/hip/") != std::string::npos || S.find("/opt/rocm") != std::string::npos ||
        S.find("/usr/local/cuda") != std::string::npos ||
        S.find("/include/cuda_runtime") != std::string::npos ||
        S.find("/include/cooperative_groups") != std::string::npos) // the prelude's
      return true;
    return inCudaToolkit(S);
  }
  llvm::ErrorOr<llvm::vfs::Status> status(const llvm::Twine &P) override {
    if (hidden(P))
      return std::make_error_code(std::errc::no_such_file_or_directory);
    auto S = ProxyFileSystem::status(P);
    record(P, S);
    if (S && refused(P, *S))
      return std::make_error_code(std::errc::no_such_file_or_directory);
    return S;
  }
  llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>> openFileForRead(const llvm::Twine &P) override {
    if (hidden(P))
      return std::make_error_code(std::errc::no_such_file_or_directory);
    // Opening a FIFO would block: look before opening.
    auto S = ProxyFileSystem::status(P);
    record(P, S);
    if (S && refused(P, *S))
      return std::make_error_code(std::errc::no_such_file_or_directory);
    return ProxyFileSystem::openFileForRead(P);
  }
  /// Includes that were refused, with why (for the file's notes).
  std::set<std::string> Refused;
  /// What the parse looked at on the real file system, absolute: files
  /// (anything not a directory) found, and paths looked for and not found
  /// (LoweredFile::Read, Absent: the scan's cache keys on them).
  std::set<std::string> Read, Absent;

private:
  /// A scanned tree is hostile (DESIGN.md §8): an `#include` of a FIFO, a
  /// device (/dev/zero) or a huge file must not hang or exhaust the scan. Such
  /// a header is treated as missing.
  bool refused(const llvm::Twine &P, const llvm::vfs::Status &S) {
    using llvm::sys::fs::file_type;
    file_type T = S.getType();
    if (T == file_type::directory_file)
      return false;
    if (T != file_type::regular_file) {
      Refused.insert(P.str() + " (not a regular file)");
      return true;
    }
    if (S.getSize() > MaxIncludeBytes) {
      Refused.insert(P.str() + " (larger than 64 MiB)");
      return true;
    }
    return false;
  }
  static constexpr uint64_t MaxIncludeBytes = uint64_t(64) << 20;

  void record(const llvm::Twine &P, const llvm::ErrorOr<llvm::vfs::Status> &S) {
    if (S && S->getType() == llvm::sys::fs::file_type::directory_file)
      return;
    llvm::SmallString<256> A;
    P.toVector(A);
    if (makeAbsolute(A))
      return;
    (S ? Read : Absent).insert(std::string(A));
  }

public:

private:
  /// The first component of a path below the toolkit's include directory:
  /// its headers (cuda_bf16.h, vector_types.h, ...) and folders (crt/, cub/,
  /// thrust/, cuda/ for libcu++).
  static bool toolkitName(llvm::StringRef First) {
    static const char *Folders[] = {"nv", "crt", "cub", "thrust"}; // nv/target, crt/host_config.h
    static const char *Prefixes[] = {
        "cuda",          "cublas",         "curand",        "cufft",
        "cusparse",      "cusolver",       "nvrtc",         "nvToolsExt",
        "nvtx3",         "npp",            "sm_",           "device_",
        "vector_",       "driver_",        "builtin_types", "host_",
        "common_functions", "math_constants", "math_functions", "channel_descriptor",
        "surface_",      "texture_",       "library_types", "mma.h",
        "fatbinary",     "nvfunctional",   "cooperative_groups"};
    for (const char *X : Folders)
      if (First == X)
        return true;
    for (const char *X : Prefixes)
      if (First.starts_with(X))
        return true;
    return false;
  }
  bool inCudaToolkit(const std::string &S) {
    llvm::StringRef Path(S);
    llvm::StringRef Dir = llvm::sys::path::parent_path(Path);
    for (int Up = 0; Up < 3 && !Dir.empty() && Dir != "/"; ++Up) {
      if (isToolkitInclude(Dir)) {
        llvm::StringRef Rel = Path.drop_front(Dir.size());
        Rel = Rel.ltrim('/');
        llvm::StringRef First = Rel.split('/').first;
        return toolkitName(First);
      }
      Dir = llvm::sys::path::parent_path(Dir);
    }
    return false;
  }
  bool isToolkitInclude(llvm::StringRef Dir) {
    auto It = ToolkitDirs.find(Dir);
    if (It != ToolkitDirs.end())
      return It->second;
    llvm::SmallString<256> Marker(Dir);
    llvm::sys::path::append(Marker, "cuda_runtime_api.h");
    bool Yes = static_cast<bool>(ProxyFileSystem::status(Marker));
    ToolkitDirs[Dir.str()] = Yes;
    return Yes;
  }
  llvm::StringMap<bool> ToolkitDirs; ///< include directory -> holds cuda_runtime_api.h
};

/// Missing headers are skipped (LLVM 19 then goes on as if the include was
/// not there) and remembered, so the rest of the file is still analysed.
class SkipMissing : public PPCallbacks {
public:
  explicit SkipMissing(std::set<std::string> &Missing) : Missing(Missing) {}
  bool FileNotFound(StringRef FileName) override {
    Missing.insert(FileName.str());
    return true;
  }
  // A header served by a shim is missing too: say so, with what stood in.
  void InclusionDirective(SourceLocation, const Token &, StringRef FileName, bool,
                          CharSourceRange, OptionalFileEntryRef File, StringRef, StringRef,
                          const Module *, bool, SrcMgr::CharacteristicKind) override {
    if (File && File->getName().starts_with(ShimDir))
      Missing.insert(FileName.str() + " (kvlint's stand-in used)");
  }

private:
  std::set<std::string> &Missing;
};

class CountErrors : public DiagnosticConsumer {
public:
  unsigned Errors = 0;
  std::string First;
  /// Errors located in the main file, for naming the functions they hit.
  struct At {
    unsigned Offset = 0, Line = 0;
    bool Fatal = false;
    std::string Why;
  };
  std::vector<At> InMain;
  void HandleDiagnostic(DiagnosticsEngine::Level L, const Diagnostic &D) override {
    if (L < DiagnosticsEngine::Error)
      return;
    ++Errors;
    SmallString<128> Msg;
    D.FormatDiagnostic(Msg);
    std::string Text(Msg);
    if (D.hasSourceManager() && D.getLocation().isValid()) {
      const SourceManager &SM = D.getSourceManager();
      PresumedLoc P = SM.getPresumedLoc(D.getLocation());
      if (P.isValid())
        Text = std::to_string(P.getLine()) + ":" + std::to_string(P.getColumn()) + ": " + Text;
      SourceLocation E = SM.getExpansionLoc(D.getLocation());
      if (SM.isInMainFile(E) && InMain.size() < 1000)
        InMain.push_back({SM.getFileOffset(E), SM.getExpansionLineNumber(E),
                          L == DiagnosticsEngine::Fatal, Text});
    }
    if (First.empty())
      First = Text;
  }
};

/// Names the main-file functions a parse error falls in.
class FindGaps : public RecursiveASTVisitor<FindGaps> {
public:
  FindGaps(const SourceManager &SM, const CountErrors &Diags, std::vector<LoweredFile::Gap> &Out)
      : SM(SM), Diags(Diags), Out(Out) {}
  bool shouldVisitTemplateInstantiations() const { return false; }
  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (!FD->doesThisDeclarationHaveABody() && !FD->isInvalidDecl())
      return true;
    SourceLocation B = SM.getExpansionLoc(FD->getBeginLoc());
    SourceLocation E = SM.getExpansionLoc(FD->getEndLoc());
    if (B.isInvalid() || !SM.isInMainFile(B))
      return true;
    unsigned BO = SM.getFileOffset(B);
    unsigned EO = E.isValid() && SM.isInMainFile(E) ? SM.getFileOffset(E) : ~0u;
    for (const CountErrors::At &A : Diags.InMain)
      if (A.Offset >= BO && A.Offset <= EO) {
        Out.push_back({FD->getQualifiedNameAsString(), SM.getExpansionLineNumber(B), A.Why});
        break;
      }
    return true;
  }

private:
  const SourceManager &SM;
  const CountErrors &Diags;
  std::vector<LoweredFile::Gap> &Out;
};

class LowerConsumer : public ASTConsumer {
public:
  LowerConsumer(Language L, std::vector<std::unique_ptr<Function>> &Out,
                const CountErrors &Diags, std::vector<LoweredFile::Gap> &Gaps,
                const std::string &Helpers)
      : L(L), Out(Out), Diags(Diags), Gaps(Gaps), Helpers(Helpers) {}
  void HandleTranslationUnit(ASTContext &Ctx) override {
    lowerASTContext(Ctx, L, true, Out, Helpers);
    if (Diags.InMain.empty())
      return;
    FindGaps(Ctx.getSourceManager(), Diags, Gaps).TraverseDecl(Ctx.getTranslationUnitDecl());
    // A fatal error (bracket depth) ends the parse: say where.
    for (const CountErrors::At &A : Diags.InMain)
      if (A.Fatal) {
        Gaps.push_back({"", A.Line, A.Why});
        break;
      }
  }

private:
  Language L;
  std::vector<std::unique_ptr<Function>> &Out;
  const CountErrors &Diags;
  std::vector<LoweredFile::Gap> &Gaps;
  std::string Helpers;
};

class LowerAction : public ASTFrontendAction {
public:
  LowerAction(Language L, std::vector<std::unique_ptr<Function>> &Out,
              std::set<std::string> &Missing, const CountErrors &Diags,
              std::vector<LoweredFile::Gap> &Gaps, const std::string &Helpers)
      : L(L), Out(Out), Missing(Missing), Diags(Diags), Gaps(Gaps), Helpers(Helpers) {}
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI, StringRef) override {
    CI.getPreprocessor().addPPCallbacks(std::make_unique<SkipMissing>(Missing));
    return std::make_unique<LowerConsumer>(L, Out, Diags, Gaps, Helpers);
  }

private:
  Language L;
  std::vector<std::unique_ptr<Function>> &Out;
  std::set<std::string> &Missing;
  const CountErrors &Diags;
  std::vector<LoweredFile::Gap> &Gaps;
  std::string Helpers;
};

std::vector<std::string> baseArgs(const ClangInput &In, bool Host) {
  // --no-default-config: no clang++.cfg beside a binary or in a user's
  // directory shapes the parse.
  std::vector<std::string> A = {"clang++", "--no-default-config", "-fsyntax-only", "-w",
                                "-ferror-limit=0", "-fno-spell-checking",
                                "-fno-delayed-template-parsing",
                                "-resource-dir=" KVLINT_CLANG_RESOURCE_DIR};
  bool HasStd = false;
  for (const std::string &S : In.DbArgs)
    HasStd |= S.rfind("-std=", 0) == 0;
  for (const std::string &S : In.ExtraArgs)
    HasStd |= S.rfind("-std=", 0) == 0;
  switch (In.Lang) {
  case Language::Cuda:
    A.insert(A.end(), {"-x", "cuda", Host ? "--cuda-host-only" : "--cuda-device-only",
                       "-nocudainc", "-nocudalib", "--cuda-gpu-arch=sm_90",
                       "-Wno-unknown-cuda-version", "-include", PreludePath(In.Lang)});
    break;
  case Language::Hip:
    A.insert(A.end(), {"-x", "hip", Host ? "--cuda-host-only" : "--cuda-device-only",
                       "-nogpuinc", "-nogpulib", "--offload-arch=gfx90a", "-include",
                       PreludePath(In.Lang)});
    break;
  case Language::Cpp:
  case Language::Triton:
    if (endsWith(In.Path, ".c"))
      A.insert(A.end(), {"-x", "c"});
    else
      A.insert(A.end(), {"-x", "c++"});
    break;
  }
  if (!HasStd && !endsWith(In.Path, ".c"))
    A.push_back("-std=c++17");
  A.insert(A.end(), In.DbArgs.begin(), In.DbArgs.end());
  A.insert(A.end(), In.ExtraArgs.begin(), In.ExtraArgs.end());
  A.insert(A.end(), {"-idirafter", ShimDir});
  // After `--` the path is an input whatever it is called: a file named
  // `--config=x/y.cu` or `-MFfoo.cu` is never read as a driver option. The
  // driver passes the input on to cc1 without a `--`, where a leading '-'
  // would be an option again: such a name is spelled "./-x.cu" (the file
  // walk already names files so; this keeps any other caller safe).
  A.push_back("--");
  A.push_back(!In.Path.empty() && In.Path[0] == '-' ? "./" + In.Path : In.Path);
  return A;
}

} // namespace

Language clangLanguageFor(const std::string &Path, const std::string &Src) {
  if (endsWith(Path, ".cu") || endsWith(Path, ".cuh"))
    return Src.find("hip/hip_runtime.h") != std::string::npos ? Language::Hip : Language::Cuda;
  if (endsWith(Path, ".hip"))
    return Language::Hip;
  if (Src.find("hip/hip_runtime") != std::string::npos ||
      Src.find("hipLaunchKernelGGL") != std::string::npos)
    return Language::Hip;
  if (Src.find("__global__") != std::string::npos ||
      Src.find("__device__") != std::string::npos)
    return Language::Cuda;
  return Language::Cpp;
}

LoweredFile lowerClangFile(const ClangInput &In) {
  LoweredFile Result;
  std::set<std::string> Missing;
  unsigned Errors = 0;
  std::string FirstError;
  bool AnyRan = false;
  std::set<std::string> Refused, Read, Absent;
  // The in-memory copy needs an absolute path; relative names the driver
  // resolves against the working directory, as the real file system does.
  std::string MainPath;
  if (!In.Source.empty() || llvm::sys::fs::exists(In.Path)) {
    llvm::SmallString<256> P(In.Path);
    if (!llvm::sys::fs::make_absolute(P)) {
      llvm::sys::path::remove_dots(P, /*remove_dot_dot=*/false);
      MainPath = std::string(P);
    }
  }
  std::string Source = In.Source;
  if (Source.empty() && !MainPath.empty()) {
    // A caller that gave no bytes (the unit tests): read them once here.
    auto Buf = llvm::MemoryBuffer::getFile(MainPath);
    if (!Buf)
      MainPath.clear();
    else
      Source = (*Buf)->getBuffer().str();
  }
  for (int Pass = 0; Pass < (In.HostPass ? 2 : 1); ++Pass) {
    auto Hide = llvm::makeIntrusiveRefCnt<HideToolkits>(llvm::vfs::getRealFileSystem());
    auto Overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(Hide);
    auto Mem = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
    // The main file is the caller's bytes, at its own path (its directory
    // still serves `#include "x.h"` from the real file system).
    if (!MainPath.empty())
      Mem->addFile(MainPath, 0,
                   llvm::MemoryBuffer::getMemBufferCopy(Source, MainPath));
    Mem->addFile("/kvlint-prelude/cuda.h", 0, llvm::MemoryBuffer::getMemBuffer(CudaPrelude));
    Mem->addFile("/kvlint-prelude/hip.h", 0, llvm::MemoryBuffer::getMemBuffer(HipPrelude));
    Mem->addFile("/kvlint-prelude/common.h", 0, llvm::MemoryBuffer::getMemBuffer(CommonPrelude));
    for (const auto &S : Shims)
      Mem->addFile(std::string(ShimDir) + "/" + S.Path, 0, llvm::MemoryBuffer::getMemBuffer(S.Text));
    Overlay->pushOverlay(Mem);
    auto Files = llvm::makeIntrusiveRefCnt<FileManager>(FileSystemOptions(), Overlay);
    std::vector<std::unique_ptr<Function>> Fns;
    CountErrors Diags;
    std::vector<LoweredFile::Gap> Gaps;
    tooling::ToolInvocation Inv(baseArgs(In, Pass == 1),
                                std::make_unique<LowerAction>(In.Lang, Fns, Missing, Diags, Gaps,
                                                              In.CheckedHelpers),
                                Files.get());
    Inv.setDiagnosticConsumer(&Diags);
    bool Ok = Inv.run();
    Refused.insert(Hide->Refused.begin(), Hide->Refused.end());
    Read.insert(Hide->Read.begin(), Hide->Read.end());
    Absent.insert(Hide->Absent.begin(), Hide->Absent.end());
    AnyRan |= Ok || !Fns.empty();
    Errors += Diags.Errors;
    if (FirstError.empty())
      FirstError = Diags.First;
    for (auto &F : Fns)
      Result.Functions.push_back(std::move(F));
    for (LoweredFile::Gap &G : Gaps) { // both passes may see the same one
      bool Seen = false;
      for (const LoweredFile::Gap &H : Result.Gaps)
        Seen |= H.Function == G.Function && H.Line == G.Line;
      if (!Seen)
        Result.Gaps.push_back(std::move(G));
    }
  }
  if (!Refused.empty()) {
    std::string S = "includes refused, analysed without them:";
    for (const std::string &R : Refused)
      S += " " + R;
    Result.Notes.push_back(S);
  }
  if (!Missing.empty()) {
    std::string S = "headers not found, analysed without them:";
    for (const std::string &M : Missing)
      S += " " + M;
    Result.Notes.push_back(S);
  }
  if (Errors)
    Result.Notes.push_back(std::to_string(Errors) + " parse error(s) recovered from; first: " +
                           FirstError);
  Result.Read.assign(Read.begin(), Read.end());
  Result.Absent.assign(Absent.begin(), Absent.end());
  Result.Failed = !AnyRan;
  return Result;
}

} // namespace kvlint
