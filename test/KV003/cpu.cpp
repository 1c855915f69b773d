// KV003 facet (C++): the CPU reference of a paged KV store (vLLM's CPU
// backend has one); the same guards count as in device code.
// RUN: %if kvlint %{ not %kvlint %s | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- -std=c++17 | FileCheck %s --implicit-check-not=warning: %}
// CHECK lines follow their store: clang-tidy prints the source from the
// fix-it (after the slot read) down to the store, comments included.
#include <cstdint>

// Positive: every token is copied to its slot, pad tokens too.
void reshape_and_cache_cpu(const float *key, float *key_cache, const int64_t *slot_mapping,
                           int64_t num_tokens, int64_t block_size, int64_t block_stride,
                           int64_t head_size) {
  for (int64_t t = 0; t < num_tokens; ++t) {
    const int64_t slot = slot_mapping[t];
    const int64_t block = slot / block_size;
    const int64_t offset = slot % block_size;
    for (int64_t i = 0; i < head_size; ++i)
      key_cache[block * block_stride + offset * head_size + i] = key[t * head_size + i];
      // CHECK: cpu.cpp:[[@LINE-1]]:7: warning: store address is computed from slot 'slot' read from 'slot_mapping' with no guard that skips the pad slot (-1){{.*}}{{.*}}; store only when 'slot >= 0' [kvlint-unchecked-pad-slot]
  }
}

// Negative: the pad tokens are skipped with continue.
void reshape_and_cache_cpu_checked(const float *key, float *key_cache, const int64_t *slot_mapping,
                                   int64_t num_tokens, int64_t block_size, int64_t block_stride,
                                   int64_t head_size) {
  for (int64_t t = 0; t < num_tokens; ++t) {
    const int64_t slot = slot_mapping[t];
    if (slot < 0)
      continue;
    const int64_t block = slot / block_size;
    const int64_t offset = slot % block_size;
    for (int64_t i = 0; i < head_size; ++i)
      key_cache[block * block_stride + offset * head_size + i] = key[t * head_size + i];
  }
}
