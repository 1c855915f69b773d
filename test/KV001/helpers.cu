// KV001 facet: device helpers are judged where they are called. A helper
// whose every use in the file is a call that the analysis inlines is not
// judged alone, where its parameters would be bounded by their names only:
// each caller's arguments decide (Kimi's KDA decode passes slot 0 and
// offsets the state by the slot with a 64-bit stride). A helper used
// otherwise (its address taken) is also judged alone.
// RUN: %if kvlint %{ not %kvlint --per-site %s | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --implicit-check-not=warning: %}
#include <cstdint>

constexpr int kDimK = 128, kDimV = 128;

// Negative: every caller passes slot 0 and a state already offset by the
// slot (an int64_t stride).
__device__ void load_state_chunk(float *dst, const float *state, int slot, int i_hv, int hv_count,
                                 int row) {
  dst[threadIdx.x] = state[((slot * hv_count + i_hv) * kDimV + row) * kDimK + threadIdx.x];
}
__global__ void kda_decode(float *out, const float *state, const int64_t *slots,
                           int64_t state_slot_stride, int hv_count) {
  const float *state_for_slot = state + slots[blockIdx.x] * state_slot_stride;
  load_state_chunk(out, state_for_slot, 0, blockIdx.y, hv_count, threadIdx.y);
}

// Negative: a helper called twice (K, then V), each call with slot 0 and a
// state already offset by the slot: both calls are inlined and judged.
__device__ void store_state_chunk(float *state, const float *src, int slot, int hv_count, int row) {
  state[(slot * hv_count * kDimV + row) * kDimK + threadIdx.x] = src[threadIdx.x];
}
__global__ void kda_store_kv(float *k_state, float *v_state, const float *src, const int64_t *slots,
                             int64_t slot_stride, int hv_count) {
  const int64_t off = slots[blockIdx.x] * slot_stride;
  store_state_chunk(k_state + off, src, 0, hv_count, threadIdx.y);
  store_state_chunk(v_state + off, src, 0, hv_count, threadIdx.y);
}

// Positive: the same helper shape, called with the slot itself.
__device__ void load_slot_chunk(float *dst, const float *state, int slot, int hv_count, int row) {
  // CHECK: helpers.cu:[[@LINE+1]]:28: warning: 32-bit signed product '(slot * hv_count * kDimV + row) * kDimK' {{.*}}
  dst[threadIdx.x] = state[(slot * hv_count * kDimV + row) * kDimK + threadIdx.x];
}
__global__ void kda_decode_slot(float *out, const float *state, const int *slots, int hv_count) {
  load_slot_chunk(out, state, slots[blockIdx.x], hv_count, threadIdx.y);
}

// Positive: a helper whose address is taken is judged alone too (a caller
// through the pointer is not seen).
__device__ void store_row(float *cache, int slot, int row_elems) {
  // CHECK: helpers.cu:[[@LINE+1]]:9: warning: 32-bit signed product 'slot * row_elems' {{.*}}
  cache[slot * row_elems + threadIdx.x] = 0.f;
}
typedef void (*StoreFn)(float *, int, int);
__device__ StoreFn store_fn = store_row;
__global__ void store_first(float *cache, int row_elems) { store_row(cache, 0, row_elems); }
