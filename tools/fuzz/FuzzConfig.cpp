//===- FuzzConfig.cpp - libFuzzer target: the configuration reader -------===//
//
// Any bytes as a .clang-tidy and as a .kvlint.yaml: parseConfig (and the YAML
// reader under it) must accept or give a "file:line: ..." error, never crash,
// leak, hang or trip UBSan.
//
//===----------------------------------------------------------------------===//
#include "Config.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Text(reinterpret_cast<const char *>(Data), Size);
  for (kvlint::ConfigKind K : {kvlint::ConfigKind::ClangTidy, kvlint::ConfigKind::Kvlint}) {
    kvlint::ConfigFile F;
    std::string Err;
    if (kvlint::parseConfig(Text, "/fuzz/.clang-tidy", K, F, Err)) {
      kvlint::EffectiveConfig E;
      E.apply(F);
      (void)E.key();
    } else if (Err.compare(0, 18, "/fuzz/.clang-tidy:") != 0) {
      abort(); // every error names file:line
    }
  }
  return 0;
}
