//===- FuzzTriton.cpp - libFuzzer target: the Triton frontend -------------===//
//
// Any bytes as a Python file: the scan's dtype index reads it (TreeDtypes),
// and lowerTritonSource, asking that index, must return (functions, notes,
// or Failed), never crash, leak, hang or trip UBSan. Seeds: test/triton
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
  kvlint::TreeDtypes Tree;
  Tree.addFile(Src);
  Tree.finish();
  kvlint::LoweredFile LF = kvlint::lowerTritonSource("fuzz.py", Src, Opts, &Tree);
  // Touch what the driver reads so nothing is optimised away.
  size_t N = LF.Notes.size() + Tree.knownNames();
  for (const auto &F : LF.Functions)
    N += F->Accesses.size();
  return N == size_t(-1);
}
