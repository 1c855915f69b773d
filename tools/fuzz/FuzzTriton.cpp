//===- FuzzTriton.cpp - libFuzzer target: the Triton frontend -------------===//
//
// Any bytes as a Python file: lowerTritonSource must return (functions,
// notes, or Failed), never crash, leak, hang or trip UBSan. Seeds: test/triton
// and tools/fuzz/corpus/triton (see tools/fuzz.sh).
//
//===----------------------------------------------------------------------===//
#include "kvlint/Frontend.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Src(reinterpret_cast<const char *>(Data), Size);
  kvlint::Options Opts;
  kvlint::LoweredFile LF = kvlint::lowerTritonSource("fuzz.py", Src, Opts);
  // Touch what the driver reads so nothing is optimised away.
  size_t N = LF.Notes.size();
  for (const auto &F : LF.Functions)
    N += F->Accesses.size();
  return N == size_t(-1);
}
