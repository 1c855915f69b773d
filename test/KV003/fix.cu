// KV003 fix-it: the early return goes right after the statement that reads
// the slot (continue when the slot is read inside a loop over tokens), so it
// is in the slot's scope whatever shape the store has (a loop body without
// braces, too); after --fix (exit 0: nothing remains) the file compiles and
// a re-scan reports nothing.
// RUN: %if kvlint %{ cp %s %t.cu && %kvlint --checks=KV003 --fix %t.cu 2>&1 | FileCheck %s --check-prefix=APPLY %}
// RUN: %if kvlint %{ %kvlint --checks=KV003 %t.cu %}
// RUN: %if kvlint %{ FileCheck %s --check-prefix=FIXED < %t.cu %}
// RUN: %if kvlint && clang %{ %clang-ptx %t.cu > /dev/null %}
// APPLY: kvlint: applied 2 edit(s) to
#include <cstdint>

__global__ void store(const float *key, float *key_cache, const int64_t *slot_mapping,
                      int64_t block_size, int64_t block_stride, int64_t n) {
  // FIXED: {{^}}  const int64_t slot_idx = slot_mapping[blockIdx.x]; if (slot_idx < 0) return;{{$}}
  const int64_t slot_idx = slot_mapping[blockIdx.x];
  const int64_t block_idx = slot_idx / block_size;
  const int64_t block_offset = slot_idx % block_size;
  key_cache[block_idx * block_stride + block_offset * n + threadIdx.x] = key[blockIdx.x * n + threadIdx.x];
}

__global__ void store_loop(const float *key, float *key_cache, const int64_t *slot_mapping,
                           int64_t num_tokens, int64_t n) {
  for (int64_t t = blockIdx.x; t < num_tokens; t += gridDim.x) {
    // FIXED: {{^}}    const int64_t slot = slot_mapping[t]; if (slot < 0) continue;{{$}}
    const int64_t slot = slot_mapping[t];
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x)
      key_cache[slot * n + i] = key[t * n + i];
  }
}
