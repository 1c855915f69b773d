//===- FuzzDriver.cpp - libFuzzer target: the whole driver on a tree ------===//
//
// The input describes a small tree: sections that each start with a line
// `@@ <relative path>` and hold that file's bytes (an input without one is
// one file, k.cu). File names come from the input as they are (a name such
// as `--config=x.cu`, `-x.cu` or one of 200 characters), so do the
// `.kvlint.yaml` and `.clang-tidy` files in any folder. The target writes
// the tree to a private temp directory, runs kvlint::runDriver in-process on
// it with DriverArgs, checks the exit status is 0, 1 or 2, and removes the
// tree. A crash, an uncaught exception, a leak, a hang or a UBSan report in
// the driver (file walk, configuration, frontends, rules, reporters) is a
// finding, and so is a file the planted `-MF kvlint-fuzz-pwned` wrote.
//
// Paths stay inside the temp directory: a `..` or empty component becomes
// `_`, a leading `/` is dropped, at most 3 folders deep and 8 files.
// stdout and stderr of the driver (std::cout, std::cerr) are discarded.
//
//===----------------------------------------------------------------------===//
#include "Driver.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

/// The driver's arguments before the tree's path. One list, so that a flag
/// (the per-file isolation's in-process switch, `--no-isolation`) is added
/// in one place: files are analysed on the driver's own threads, so a crash
/// in any of them is the fuzzer's.
// In-process (no worker processes: libFuzzer sees the crash itself).
const std::vector<std::string> DriverArgs = {"--format=json", "-j", "1", "--no-isolation"};

constexpr size_t MaxFiles = 8, MaxDepth = 3, MaxComponent = 200;

std::string safePath(const std::string &Raw) {
  std::string Out;
  size_t Depth = 0, B = 0;
  while (B <= Raw.size()) {
    size_t E = Raw.find('/', B);
    if (E == std::string::npos)
      E = Raw.size();
    std::string C = Raw.substr(B, E - B);
    B = E + 1;
    if (C.empty() && E == Raw.size() && !Out.empty())
      break; // a trailing '/'
    if (C.empty() || C == "." || C == "..")
      C = "_";
    if (C.size() > MaxComponent)
      C.resize(MaxComponent);
    for (char &Ch : C)
      if (Ch == '\0')
        Ch = '_';
    if (!Out.empty())
      Out += '/';
    Out += C;
    if (++Depth > MaxDepth)
      break;
  }
  return Out.empty() ? "_" : Out;
}

std::vector<std::pair<std::string, std::string>> parseTree(const std::string &In) {
  std::vector<std::pair<std::string, std::string>> Files;
  if (In.compare(0, 3, "@@ ") != 0) {
    Files.push_back({"k.cu", In});
    return Files;
  }
  size_t At = 0;
  while (At < In.size() && Files.size() < MaxFiles) {
    size_t NameEnd = In.find('\n', At);
    if (NameEnd == std::string::npos)
      NameEnd = In.size();
    std::string Name = In.substr(At + 3, NameEnd - At - 3);
    size_t Body = NameEnd < In.size() ? NameEnd + 1 : In.size();
    size_t Next = In.find("\n@@ ", Body == 0 ? 0 : Body - 1);
    size_t End = Next == std::string::npos ? In.size() : Next + 1;
    Files.push_back({safePath(Name), In.substr(Body, End - Body)});
    At = End;
  }
  return Files;
}

std::string tempDir() {
  const char *T = getenv("TMPDIR");
  std::string Templ = std::string(T && *T ? T : "/tmp") + "/kvlint-fuzz-driver.XXXXXX";
  if (!mkdtemp(Templ.data()))
    abort();
  return Templ;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string In(reinterpret_cast<const char *>(Data), Size);
  std::string Root = tempDir();
  std::error_code EC;
  for (const auto &[Name, Text] : parseTree(In)) {
    fs::path P = fs::path(Root) / Name;
    fs::create_directories(P.parent_path(), EC);
    if (fs::is_directory(P, EC))
      continue; // a file named like a folder made before
    std::ofstream Out(P, std::ios::binary | std::ios::trunc);
    Out << Text;
  }
  std::vector<std::string> Args = DriverArgs;
  Args.push_back(Root);
  std::ostringstream Sink;
  std::streambuf *Cout = std::cout.rdbuf(Sink.rdbuf());
  std::streambuf *Cerr = std::cerr.rdbuf(Sink.rdbuf());
  int Rc = kvlint::runDriver(Args);
  std::cout.rdbuf(Cout);
  std::cerr.rdbuf(Cerr);
  fs::remove_all(Root, EC);
  if (Rc < 0 || Rc > 2)
    abort(); // exit codes are 0 clean, 1 findings, 2 error
  // The seeds plant a clang config (`--config=x/y.cu` naming a file that
  // says `-MD -MF kvlint-fuzz-pwned`): nothing from the tree may become a
  // driver option, so that file must never appear.
  if (fs::exists("kvlint-fuzz-pwned", EC))
    abort();
  return 0;
}
