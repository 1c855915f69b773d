//===- FuzzBaseline.cpp - libFuzzer target: baseline and diff readers -----===//
//
// Any bytes as a baseline file (--baseline) and as a unified diff (--diff -):
// both readers must accept or give a "file:line: ..." error, never crash,
// leak, hang or trip UBSan; accepted diffs give well-formed line ranges.
//
//===----------------------------------------------------------------------===//
#include "Baseline.h"
#include "Diff.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Text(reinterpret_cast<const char *>(Data), Size);
  kvlint::Baseline B;
  std::string Err;
  if (kvlint::parseBaseline(Text, "b.txt", B, Err)) {
    for (const kvlint::BaselineEntry &E : B.Entries)
      if (E.Fingerprint.size() != 16 || (B.Version == 2 && E.Site.size() != 16))
        abort();
  } else if (Err.compare(0, 6, "b.txt:") != 0) {
    abort();
  }
  kvlint::ChangedLines L;
  if (kvlint::parseUnifiedDiff(Text, "/r", L, Err)) {
    for (const auto &[File, Ranges] : L.ByFile)
      for (const auto &[A, Z] : Ranges)
        if (Z < A || File.empty())
          abort();
  } else if (Err.compare(0, 5, "diff:") != 0) {
    abort();
  }
  return 0;
}
