// KV003 facet (HIP): a KV store in HIP spellings, with the amdgcn index
// builtins; the same guards count as in CUDA.
// RUN: %if kvlint %{ not %kvlint %s | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %hip-flags | FileCheck %s --implicit-check-not=warning: %}
// CHECK lines follow their store: clang-tidy prints the source from the
// fix-it (after the slot read) down to the store, comments included.
#include <hip/hip_runtime.h>
#include <cstdint>

// Positive: a store at slot_mapping[token] with no skip.
__global__ void hip_store(const float *key, float *key_cache, const int64_t *slot_mapping,
                          int64_t head_size) {
  const int64_t slot = slot_mapping[hipBlockIdx_x];
  key_cache[slot * head_size + hipThreadIdx_x] = key[hipBlockIdx_x * head_size + hipThreadIdx_x];
  // CHECK: hip.hip:[[@LINE-1]]:3: warning: store address is computed from slot 'slot' read from 'slot_mapping' with no guard that skips the pad slot (-1){{.*}}{{.*}}; store only when 'slot >= 0' [kvlint-unchecked-pad-slot]
}

// Negative: the same store after an early return on the pad.
__global__ void hip_store_checked(const float *key, float *key_cache, const int64_t *slot_mapping,
                                  int64_t head_size) {
  const int64_t slot = slot_mapping[__builtin_amdgcn_workgroup_id_x()];
  if (slot < 0)
    return;
  key_cache[slot * head_size + __builtin_amdgcn_workitem_id_x()] =
      key[__builtin_amdgcn_workgroup_id_x() * head_size + __builtin_amdgcn_workitem_id_x()];
}
