// KV001 facet: values narrowed from 64 bits to 32 by a cast, an assignment or
// a function parameter are unbounded indices.
// RUN: %if kvlint %{ not %kvlint %s | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --implicit-check-not=warning: %}
#include <cstdint>

// Positive: narrowed by an explicit cast.
__global__ void narrow_cast(float *cache, const int64_t *slot_mapping, int head_size) {
  int slot = (int)slot_mapping[blockIdx.x];
  // CHECK: narrowing.cu:[[@LINE+1]]:9: warning: 32-bit signed product 'slot * head_size' is used as a memory offset and wraps past 2^31 in the training profile: 'slot' <= 8,388,607 ('slot_mapping' is an entry of a table named like it: below Envelope.KvSlots = 8,388,608) times 'head_size' <= 576 ('head_size' is named like it: Envelope.HeadDim = 576); widen 'slot' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  cache[slot * head_size + threadIdx.x] = 0.f;
}

// Positive: narrowed by a static_cast inside the expression.
__global__ void narrow_static_cast(float *cache, const int64_t *slot_mapping, int head_size) {
  // CHECK: narrowing.cu:[[@LINE+1]]:9: warning: 32-bit signed product 'static_cast<int>(slot_mapping[blockIdx.x]) * head_size' is used as a memory offset and wraps past 2^31 in the training profile: 'static_cast<int>(slot_mapping[blockIdx.x])' <= 8,388,607 ('slot_mapping' is an entry of a table named like it: below Envelope.KvSlots = 8,388,608) times 'head_size' <= 576 ('head_size' is named like it: Envelope.HeadDim = 576); widen 'static_cast<int>(slot_mapping[blockIdx.x])' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  cache[static_cast<int>(slot_mapping[blockIdx.x]) * head_size] = 0.f;
}

// Positive: narrowed by assignment to an int.
__global__ void narrow_assign(float *cache, const int64_t *slot_mapping, int head_size) {
  int slot;
  slot = slot_mapping[blockIdx.x];
  // CHECK: narrowing.cu:[[@LINE+1]]:9: warning: 32-bit signed product 'slot * head_size' is used as a memory offset and wraps past 2^31 in the training profile: 'slot' <= 8,388,607 ('slot_mapping' is an entry of a table named like it: below Envelope.KvSlots = 8,388,608) times 'head_size' <= 576 ('head_size' is named like it: Envelope.HeadDim = 576); widen 'slot' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  cache[slot * head_size] = 0.f;
}

// Positive: narrowed by a 32-bit parameter of a device helper.
__device__ void store_one(float *cache, int slot, int head_size) {
  // Judged where it is called (its only use, inlined): the slot is the
  // caller's slot_mapping entry.
  // CHECK: narrowing.cu:[[@LINE+1]]:9: warning: 32-bit signed product 'slot * head_size' is used as a memory offset and wraps past 2^31 in the training profile: 'slot' <= 8,388,607 ('slot_mapping' is an entry of a table named like it: below Envelope.KvSlots = 8,388,608) times 'head_size' <= 576 ('head_size' is named like it: Envelope.HeadDim = 576); widen 'slot' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  cache[slot * head_size] = 0.f;
}
__global__ void narrow_param(float *cache, const int64_t *slot_mapping, int head_size) {
  store_one(cache, slot_mapping[blockIdx.x], head_size);
}

// Positive: a page computed from a narrowed slot.
__global__ void narrow_then_divide(float *cache, const int64_t *slot_mapping, int block_size,
                                   int page_stride) {
  int slot = slot_mapping[blockIdx.x];
  int page = slot / block_size;
  // CHECK: narrowing.cu:[[@LINE+1]]:9: warning: 32-bit signed product 'page * page_stride' is used as a memory offset and wraps past 2^31 in the training profile: 'page' <= 8,388,607 ('slot_mapping' is an entry of a table named like it: below Envelope.KvSlots = 8,388,608) times 'page_stride' <= 16,384 ('page_stride' is named like it: Envelope.Stride = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  cache[page * page_stride] = 0.f;
}

// Negative: the slot kept in 64 bits.
__global__ void no_narrow(float *cache, const int64_t *slot_mapping, int head_size) {
  int64_t slot = slot_mapping[blockIdx.x];
  cache[slot * head_size + threadIdx.x] = 0.f;
}

// Negative: narrowed, but only its in-page part multiplies.
__global__ void narrow_in_page(float *cache, const int64_t *slot_mapping, int block_size,
                               int head_size) {
  int64_t slot = slot_mapping[blockIdx.x];
  int64_t block = slot / block_size;
  int offset = slot % block_size;
  cache[block * block_size * head_size + offset * head_size] = 0.f;
}

// Negative: narrowed to 32 bits, then widened again before the multiply.
__global__ void narrow_rewiden(float *cache, const int64_t *slot_mapping, int head_size) {
  int slot = slot_mapping[blockIdx.x];
  cache[(int64_t)slot * head_size] = 0.f;
}

// Negative: a helper taking int64_t receives the slot unnarrowed.
__device__ void store_wide(float *cache, int64_t slot, int head_size) {
  cache[slot * head_size] = 0.f;
}
__global__ void wide_param(float *cache, const int64_t *slot_mapping, int head_size) {
  store_wide(cache, slot_mapping[blockIdx.x], head_size);
}

// Positive: widened correctly, then cut back to 32 bits by the local's type
// (what a fix-it that only widens the index leaves behind).
__global__ void narrow_wide_offset(float *cache, const int *block_table, int block_stride) {
  int block_idx = block_table[blockIdx.x];
  // CHECK: narrowing.cu:[[@LINE+1]]:19: warning: 64-bit offset 'static_cast<int64_t>(block_idx) * block_stride + threadIdx.x' is narrowed to 32 bits before it is used as a memory offset and wraps past 2^31 in the training profile: 'static_cast<int64_t>(block_idx) * block_stride' <= 137,438,937,088 ('block_table' is an entry of a table named like it: below Envelope.KvPages = 8,388,608); keep the offset in a 64-bit type (int64_t) [kvlint-narrowed-index-overflow]
  const int dst = static_cast<int64_t>(block_idx) * block_stride + threadIdx.x;
  cache[dst] = 0.f;
}

// Negative: the same offset kept in int64_t.
__global__ void keep_wide_offset(float *cache, const int *block_table, int block_stride) {
  int block_idx = block_table[blockIdx.x];
  const int64_t dst = static_cast<int64_t>(block_idx) * block_stride + threadIdx.x;
  cache[dst] = 0.f;
}
