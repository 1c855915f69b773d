// KV003 facet: paged KV stores that read a slot from a slot mapping. A store
// whose address is computed from the slot with nothing that skips the pad slot
// (-1) is reported; each guard idiom real store kernels use is silent.
// RUN: %if kvlint %{ not %kvlint %s | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --implicit-check-not=warning: %}
// CHECK lines follow their store: clang-tidy prints the source from the
// fix-it (after the slot read) down to the store, comments included.
#include <cstdint>
#define PAD_SLOT_ID -1

// Positive: vLLM's reshape_and_cache shape without its `slot_idx < 0` check.
__global__ void reshape_and_cache(const float *key, float *key_cache, const int64_t *slot_mapping,
                                  int64_t block_size, int64_t block_stride, int64_t key_stride,
                                  int64_t n) {
  const int64_t token_idx = blockIdx.x;
  const int64_t slot_idx = slot_mapping[token_idx];
  const int64_t block_idx = slot_idx / block_size;
  const int64_t block_offset = slot_idx % block_size;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    key_cache[block_idx * block_stride + block_offset * n + i] = key[token_idx * key_stride + i];
    // CHECK: guards.cu:[[@LINE-1]]:5: warning: store address is computed from slot 'slot_idx' read from 'slot_mapping' with no guard that skips the pad slot (-1); a padded token (CUDA-graph padding, a position past a narrow group's row) writes before the cache or into a live page{{.*}}; store only when 'slot_idx >= 0' [kvlint-unchecked-pad-slot]
  }
}

// Negative: the early return vLLM's kernel has.
__global__ void reshape_and_cache_checked(const float *key, float *key_cache,
                                          const int64_t *slot_mapping, int64_t block_size,
                                          int64_t block_stride, int64_t key_stride, int64_t n) {
  const int64_t token_idx = blockIdx.x;
  const int64_t slot_idx = slot_mapping[token_idx];
  if (slot_idx < 0) {
    // Padding token that should be ignored.
    return;
  }
  const int64_t block_idx = slot_idx / block_size;
  const int64_t block_offset = slot_idx % block_size;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x)
    key_cache[block_idx * block_stride + block_offset * n + i] = key[token_idx * key_stride + i];
}

// Positive: clamping the slot writes the pad token into slot 0.
__global__ void clamped(const float *key, float *key_cache, const int64_t *slot_mapping,
                        int64_t n) {
  const int64_t slot = max(slot_mapping[blockIdx.x], (int64_t)0);
  key_cache[slot * n + threadIdx.x] = key[blockIdx.x * n + threadIdx.x];
  // CHECK: guards.cu:[[@LINE-1]]:3: warning: store address is computed from slot 'slot_mapping[blockIdx.x]' read from 'slot_mapping' {{.*}}; clamping the slot (max(slot, 0), abs) is no guard: the pad token overwrites a live slot; skip the pad slot instead of clamping it [kvlint-unchecked-pad-slot]
}

// Negative: the store inside an enclosing if on the slot.
__global__ void enclosing_if(const float *key, float *key_cache, const int64_t *slot_mapping,
                             int64_t n) {
  const int64_t slot = slot_mapping[blockIdx.x];
  if (slot >= 0)
    key_cache[slot * n + threadIdx.x] = key[blockIdx.x * n + threadIdx.x];
}

// Positive: the guard is on the page, and -1 / block_size is 0 in C++.
__global__ void page_guard(const float *key, float *key_cache, const int64_t *slot_mapping,
                           int64_t block_size, int64_t block_stride, int64_t n) {
  const int64_t slot = slot_mapping[blockIdx.x];
  const int64_t page = slot / block_size;
  if (page < 0)
    return;
  key_cache[page * block_stride + (slot % block_size) * n + threadIdx.x] = key[threadIdx.x];
  // CHECK: guards.cu:[[@LINE-1]]:3: warning: store address is computed from slot 'slot' read from 'slot_mapping'{{.*}}[kvlint-unchecked-pad-slot]
}

// Negative: an early return on the named pad value.
__global__ void named_pad(const float *key, float *key_cache, const int64_t *slot_mapping,
                          int64_t n) {
  const int64_t slot = slot_mapping[blockIdx.x];
  if (slot == PAD_SLOT_ID)
    return;
  key_cache[slot * n + threadIdx.x] = key[threadIdx.x];
}

// Positive: a grid-stride loop over tokens, no skip.
__global__ void grid_stride(const float *key, float *key_cache, const int64_t *slot_mapping,
                            int64_t num_tokens, int64_t n) {
  for (int64_t t = blockIdx.x; t < num_tokens; t += gridDim.x) {
    const int64_t slot = slot_mapping[t];
    key_cache[slot * n + threadIdx.x] = key[t * n + threadIdx.x];
    // CHECK: guards.cu:[[@LINE-1]]:5: warning: store address is computed from slot 'slot' read from 'slot_mapping'{{.*}}[kvlint-unchecked-pad-slot]
  }
}

// Negative: the grid-stride loop skips the pad with continue.
__global__ void grid_stride_continue(const float *key, float *key_cache,
                                     const int64_t *slot_mapping, int64_t num_tokens, int64_t n) {
  for (int64_t t = blockIdx.x; t < num_tokens; t += gridDim.x) {
    const int64_t slot = slot_mapping[t];
    if (slot < 0)
      continue;
    key_cache[slot * n + threadIdx.x] = key[t * n + threadIdx.x];
  }
}

// Positive: an atomic into the cache at the slot.
__global__ void atomic_store(const float *key, float *k_cache, const int64_t *out_cache_loc) {
  const int64_t loc = out_cache_loc[blockIdx.x];
  atomicAdd(&k_cache[loc], key[blockIdx.x]);
  // CHECK: guards.cu:[[@LINE-1]]:3: warning: store address is computed from slot 'loc' read from 'out_cache_loc'{{.*}}[kvlint-unchecked-pad-slot]
}

// Negative: an unsigned bound check also rejects -1 (it wraps to 2^64 - 1).
__global__ void unsigned_bound(const float *key, float *k_cache, const int64_t *out_cache_loc,
                               int64_t num_slots) {
  const int64_t loc = out_cache_loc[blockIdx.x];
  if ((uint64_t)loc >= (uint64_t)num_slots)
    return;
  atomicAdd(&k_cache[loc], key[blockIdx.x]);
}

// Positive: a signed upper bound alone lets -1 through.
__global__ void upper_bound_only(const float *key, float *k_cache, const int64_t *out_cache_loc,
                                 int64_t num_slots) {
  const int64_t loc = out_cache_loc[blockIdx.x];
  if (loc >= num_slots)
    return;
  k_cache[loc] = key[blockIdx.x];
  // CHECK: guards.cu:[[@LINE-1]]:3: warning: store address is computed from slot 'loc' read from 'out_cache_loc'{{.*}}[kvlint-unchecked-pad-slot]
}

// Negative: the slot check combined with && in one condition.
__global__ void logical_and(const float *key, float *k_cache, const int64_t *out_cache_loc,
                            int64_t num_tokens) {
  const int64_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < num_tokens && out_cache_loc[t] >= 0)
    k_cache[out_cache_loc[t]] = key[t];
}

// Positive: the indices of a store into a cache are slots too.
__global__ void store_by_indices(const float *key, float *kv_cache, const int64_t *indices,
                                 int64_t n) {
  const int64_t page = indices[blockIdx.x];
  kv_cache[page * n + threadIdx.x] = key[blockIdx.x * n + threadIdx.x];
  // CHECK: guards.cu:[[@LINE-1]]:3: warning: store address is computed from slot 'page' read from 'indices'{{.*}}[kvlint-unchecked-pad-slot]
}

// Negative: the same indices used for an output that is not a cache (a
// top-k gather writes its own dense output; only the read uses the index).
__global__ void gather_by_indices(float *out, const float *kv_cache, const int64_t *indices,
                                  int64_t n) {
  const int64_t page = indices[blockIdx.x];
  out[blockIdx.x * n + threadIdx.x] = page >= 0 ? kv_cache[page * n + threadIdx.x] : 0.f;
}

// Negative: a helper returns nullptr for a pad slot and the caller leaves
// on nullptr (kvref's token_destination shape).
__device__ float *destination(float *cache, const int64_t *slot_mapping, int64_t t,
                              int64_t num_slots, int64_t n) {
  const int64_t slot = slot_mapping[t];
  if (slot < 0 || slot >= num_slots)
    return nullptr;
  return cache + slot * n;
}
__global__ void helper_nullptr(const float *key, float *key_cache, const int64_t *slot_mapping,
                               int64_t num_slots, int64_t n) {
  float *dst = destination(key_cache, slot_mapping, blockIdx.x, num_slots, n);
  if (dst == nullptr)
    return;
  dst[threadIdx.x] = key[blockIdx.x * n + threadIdx.x];
}

// Negative: an optional slot table merged with the identity, the pad tested
// on the merged value (FlashInfer's Mamba state-cache kernels).
__global__ void optional_state_slots(const float *x, float *state_cache,
                                     const int32_t *state_batch_indices, int64_t pad_slot_id,
                                     int64_t dim) {
  const int64_t seq = blockIdx.x;
  const int64_t cache_slot = state_batch_indices ? (int64_t)state_batch_indices[seq] : seq;
  if (cache_slot == pad_slot_id)
    return;
  state_cache[cache_slot * dim + threadIdx.x] = x[seq * dim + threadIdx.x];
}

// Negative: a helper maps a refused slot to the offset sentinel -1 and the
// caller leaves on it (kvref's slot_destination protocol).
__device__ int64_t slot_offset(const int64_t *slot_mapping, int64_t t, int64_t num_slots,
                               int64_t n) {
  const int64_t slot = slot_mapping[t];
  if (slot < 0 || slot >= num_slots)
    return -1;
  return slot * n;
}
__global__ void helper_sentinel(const float *key, float *key_cache, const int64_t *slot_mapping,
                                int64_t num_slots, int64_t n) {
  const int64_t dst = slot_offset(slot_mapping, blockIdx.x, num_slots, n);
  if (dst < 0)
    return;
  key_cache[dst + threadIdx.x] = key[blockIdx.x * n + threadIdx.x];
}
