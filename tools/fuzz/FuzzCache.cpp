//===- FuzzCache.cpp - libFuzzer target: the cache's entry readers --------===//
//
// Any bytes as a cache pack, a Python summary and a file result (what a
// hostile tree can plant in .kvlint_cache/): each reader accepts or refuses,
// never crashes, leaks, hangs or trips UBSan, and what it accepts encodes
// back to the same bytes.
//
//===----------------------------------------------------------------------===//
#include "Cache.h"
#include "Wire.h"
#include "project/SummaryIO.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Bytes(reinterpret_cast<const char *>(Data), Size);
  kvlint::CachePack P;
  if (P.parse(Bytes, "id") && P.serialise("id", 0).size() > Bytes.size() + 64)
    abort();
  kvlint::project::FileSummary S;
  if (kvlint::project::decodeSummary(Bytes, S) && kvlint::project::encodeSummary(S) != Bytes)
    abort();
  kvlint::FileResult R;
  if (kvlint::decodeResult(Bytes, R) && kvlint::encodeResult(R).size() != Bytes.size())
    abort();
  return 0;
}
