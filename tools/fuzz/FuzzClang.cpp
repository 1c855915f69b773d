//===- FuzzClang.cpp - libFuzzer target: the Clang frontend and rules -----===//
//
// Any bytes as a small CUDA file: lowerClangFile parses and lowers it (with
// the launch-facts pre-pass), and every rule runs over what it lowered. It
// must return, never crash, leak, hang or trip UBSan in kvlint's code.
// clang itself has limits of its own (bracket depth) that end a parse with
// a fatal error; that is a LoweredFile::Gap, not a failure here. Each input
// is written to one file in a private temp directory: lowerClangFile reads
// files through the real file system, as the driver does.
//
// Inputs are kept small (tools/fuzz.sh passes -max_len): a parse costs tens
// of milliseconds, and what kvlint must survive is depth and shape, not
// size. Seeds: tools/fuzz/corpus/clang and tools/fuzz/seeds.py's.
//
//===----------------------------------------------------------------------===//
#include "kvlint/ClangFrontend.h"
#include "kvlint/Rule.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

namespace {

std::string tempDir() {
  static std::string Dir = [] {
    const char *T = getenv("TMPDIR");
    std::string Templ = std::string(T && *T ? T : "/tmp") + "/kvlint-fuzz-clang.XXXXXX";
    if (!mkdtemp(Templ.data()))
      abort();
    return Templ;
  }();
  return Dir;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Src(reinterpret_cast<const char *>(Data), Size);
  static const kvlint::Options Opts;
  static const auto Rules = kvlint::makeRules({"all"}, Opts);
  std::string Path = tempDir() + "/fuzz.cu";
  {
    std::ofstream Out(Path, std::ios::binary | std::ios::trunc);
    Out << Src;
  }
  kvlint::ClangInput In;
  In.Path = Path;
  In.Lang = kvlint::clangLanguageFor(Path, Src);
  In.HostPass = Src.find("__CUDA_ARCH__") != std::string::npos;
  kvlint::LoweredFile LF = kvlint::lowerClangFile(In);
  std::vector<kvlint::Finding> Findings;
  for (const auto &F : LF.Functions)
    kvlint::runRules(Rules, *F, Findings);
  kvlint::dedupeAndSort(Findings);
  size_t N = LF.Notes.size() + LF.Gaps.size() + Findings.size();
  for (const auto &F : LF.Functions)
    N += F->Accesses.size() + F->Limits.size();
  unlink(Path.c_str());
  return N == size_t(-1);
}
