// KV003 evidence, positive: a PAD_SLOT_ID engine. The slot-mapping kernel
// writes PAD_SLOT_ID (-1) for positions past a group's row (vLLM's idiom),
// so every consumer of slot_mapping must skip it: an unguarded store is
// reported at the default level and says where the pad comes from.
// RUN: %if kvlint %{ not %kvlint --checks=KV003 %s | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --implicit-check-not=warning: %}
#include <cstdint>
#define PAD_SLOT_ID -1

__global__ void compute_slot_mapping(int64_t *slot_mapping, const int *block_table,
                                     const int64_t *positions, int max_num_blocks,
                                     int block_size) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int64_t col = positions[t] / block_size;
  if (col >= max_num_blocks) {
    slot_mapping[t] = PAD_SLOT_ID;
    return;
  }
  slot_mapping[t] = (int64_t)block_table[blockIdx.y * max_num_blocks + col] * block_size +
                    positions[t] % block_size;
}

__global__ void write_kv(const float *k, float *k_cache, const int64_t *slot_mapping, int64_t d) {
  int64_t slot = slot_mapping[blockIdx.x];
  // CHECK: pad-engine.cu:[[@LINE+1]]:3: warning: store address is computed from slot 'slot' read from 'slot_mapping' with no guard that skips the pad slot (-1){{.*}}; 'slot_mapping' can hold the pad: function 'compute_slot_mapping' (pad-engine.cu:16) stores the pad into it; store only when 'slot >= 0' [kvlint-unchecked-pad-slot]
  k_cache[slot * d + threadIdx.x] = k[blockIdx.x * d + threadIdx.x];
}

// Negative: the guarded consumer of the same table.
__global__ void write_kv_guarded(const float *k, float *k_cache, const int64_t *slot_mapping,
                                 int64_t d) {
  int64_t slot = slot_mapping[blockIdx.x];
  if (slot < 0)
    return;
  k_cache[slot * d + threadIdx.x] = k[blockIdx.x * d + threadIdx.x];
}
