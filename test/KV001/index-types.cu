// KV001 facet: the 32-bit index types that wrap, and the 64-bit ones that do not.
// RUN: %if kvlint %{ not %kvlint %s | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --implicit-check-not=warning: %}
#include <cstdint>

typedef int32_t page_id_t;
using slot_t = unsigned int;

// Positive: int32_t table entry.
__global__ void int32_index(float *cache, const int32_t *block_table, int block_stride) {
  int32_t block = block_table[blockIdx.x];
  // CHECK: index-types.cu:[[@LINE+1]]:9: warning: 32-bit signed product 'block * block_stride' is used as a memory offset and wraps past 2^31 in the training profile: 'block' <= 8,388,607 ('block_table' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'block_stride' <= 16,384 ('block_stride' is named like it: Envelope.Stride = 16,384); widen 'block' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  cache[block * block_stride] = 0.f;
}

// Positive: unsigned wraps past 2^32 instead, still a wrapped address.
__global__ void unsigned_index(float *cache, const unsigned *block_table, unsigned block_stride) {
  unsigned block = block_table[blockIdx.x];
  // CHECK: index-types.cu:[[@LINE+1]]:9: warning: 32-bit unsigned product 'block * block_stride' is used as a memory offset and wraps past 2^32 in the training profile: 'block' <= 8,388,607 ('block_table' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'block_stride' <= 16,384 ('block_stride' is named like it: Envelope.Stride = 16,384); widen 'block' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  cache[block * block_stride] = 0.f;
}

// Positive: uint32_t.
__global__ void uint32_index(float *cache, const uint32_t *block_table, uint32_t block_stride) {
  uint32_t block = block_table[blockIdx.x];
  // CHECK: index-types.cu:[[@LINE+1]]:9: warning: 32-bit unsigned product 'block * block_stride' is used as a memory offset and wraps past 2^32 in the training profile: 'block' <= 8,388,607 ('block_table' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'block_stride' <= 16,384 ('block_stride' is named like it: Envelope.Stride = 16,384); widen 'block' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  cache[block * block_stride] = 0.f;
}

// Positive: a typedef of int32_t.
__global__ void typedef_index(float *cache, const page_id_t *pages, int page_stride) {
  page_id_t page = pages[blockIdx.x];
  // CHECK: index-types.cu:[[@LINE+1]]:9: warning: 32-bit signed product 'page * page_stride' is used as a memory offset and wraps past 2^31 in the training profile: 'page' <= 8,388,607 ('pages' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'page_stride' <= 16,384 ('page_stride' is named like it: Envelope.Stride = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  cache[page * page_stride] = 0.f;
}

// Positive: a using-alias of unsigned int.
__global__ void alias_index(float *cache, const slot_t *slots, int head_stride) {
  slot_t slot = slots[blockIdx.x];
  // CHECK: index-types.cu:[[@LINE+1]]:9: warning: 32-bit unsigned product 'slot * head_stride' is used as a memory offset and wraps past 2^32 in the training profile: 'slot' <= 8,388,607 ('slots' is an entry of a table named like it: below Envelope.KvSlots = 8,388,608) times 'head_stride' <= 16,384 ('head_stride' is named like it: Envelope.Stride = 16,384); widen 'slot' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  cache[slot * head_stride] = 0.f;
}

// Positive: a template index type, instantiated with int.
template <typename IdxT>
__global__ void template_index(float *cache, const IdxT *pages, IdxT page_stride) {
  IdxT page = pages[blockIdx.x];
  // CHECK: index-types.cu:[[@LINE+1]]:9: warning: 32-bit signed product 'page * page_stride' is used as a memory offset and wraps past 2^31 in the training profile: 'page' <= 8,388,607 ('pages' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'page_stride' <= 16,384 ('page_stride' is named like it: Envelope.Stride = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  cache[page * page_stride] = 0.f;
}
template __global__ void template_index<int>(float *, const int *, int);
template __global__ void template_index<int64_t>(float *, const int64_t *, int64_t);

// Negative: int64_t index.
__global__ void int64_index(float *cache, const int64_t *slot_mapping, int64_t page_stride) {
  int64_t slot = slot_mapping[blockIdx.x];
  cache[slot * page_stride] = 0.f;
}

// Negative: a 64-bit typedef'd index times an int stride promotes.
typedef long long idx64_t;
__global__ void idx64_index(float *cache, const idx64_t *pages, int page_stride) {
  idx64_t page = pages[blockIdx.x];
  cache[page * page_stride] = 0.f;
}

// Negative: size_t index.
__global__ void size_t_index(float *cache, const size_t *pages, int page_stride) {
  size_t page = pages[blockIdx.x];
  cache[page * page_stride] = 0.f;
}

// Negative: a uint8 expert id times a stride fits in 32 bits.
__global__ void uint8_index(float *w, const uint8_t *expert_ids, int expert_stride) {
  uint8_t e = expert_ids[blockIdx.x];
  w[e * 4096] = 0.f;
}

// Negative: int16 lane offsets.
__global__ void int16_index(float *out, const int16_t *offs) {
  out[offs[threadIdx.x] * 64] = 0.f;
}

// Negative: a template only ever instantiated with int64_t.
template <typename IdxT>
__global__ void template_index64(float *cache, const IdxT *pages, IdxT page_stride) {
  IdxT page = pages[blockIdx.x];
  cache[page * page_stride] = 0.f;
}
template __global__ void template_index64<int64_t>(float *, const int64_t *, int64_t);
