// KV001 facet: where the product becomes an address — subscripts, pointer
// arithmetic, offsets hoisted into variables, macros, helper calls — and the
// whole offset tree, not only its top node.
// RUN: %if kvlint %{ not %kvlint --per-site %s | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --implicit-check-not=warning: %}
#include <cstdint>

#define KV_OFFSET(page, stride) ((page) * (stride))

// Positive: deep inside the offset tree: cache[page * k + head * d + lane].
__global__ void deep_tree(float *cache, const int *block_table, int page_stride, int head_dim) {
  int page = block_table[blockIdx.x];
  // CHECK: offsets.cu:[[@LINE+1]]:34: warning: 32-bit signed product 'page * page_stride' is used as a memory offset and wraps past 2^31 in the training profile: 'page' <= 8,388,607 ('block_table' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'page_stride' <= 16,384 ('page_stride' is named like it: Envelope.Stride = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  cache[threadIdx.y * head_dim + page * page_stride + threadIdx.x] = 0.f;
}

// Positive: pointer arithmetic, not dereferenced here.
__global__ void pointer_arith(float *cache, const int *block_table, int page_stride, float v) {
  int page = block_table[blockIdx.x];
  // CHECK: offsets.cu:[[@LINE+1]]:29: warning: 32-bit signed product 'page * page_stride' is used as a memory offset and wraps past 2^31 in the training profile: 'page' <= 8,388,607 ('block_table' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'page_stride' <= 16,384 ('page_stride' is named like it: Envelope.Stride = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  float *page_ptr = cache + page * page_stride;
  page_ptr[threadIdx.x] = v;
}

// Positive: the offset hoisted into a variable first.
__global__ void hoisted(float *cache, const int *block_table, int page_stride) {
  int page = block_table[blockIdx.x];
  // CHECK: offsets.cu:[[@LINE+1]]:16: warning: 32-bit signed product 'page * page_stride' is used as a memory offset and wraps past 2^31 in the training profile: 'page' <= 8,388,607 ('block_table' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'page_stride' <= 16,384 ('page_stride' is named like it: Envelope.Stride = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  int offset = page * page_stride + threadIdx.x;
  cache[offset] = 0.f;
}

// Positive: through a macro argument.
__global__ void via_macro(float *cache, const int *block_table, int page_stride) {
  int page = block_table[blockIdx.x];
  // CHECK: offsets.cu:[[@LINE+1]]:9: warning: 32-bit signed product 'KV_OFFSET(page, page_stride)' is used as a memory offset and wraps past 2^31 in the training profile: 'page' <= 8,388,607 ('block_table' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'page_stride' <= 16,384 ('page_stride' is named like it: Envelope.Stride = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  cache[KV_OFFSET(page, page_stride)] = 0.f;
}

// Positive: an offset computed by a device helper that returns int.
__device__ __forceinline__ int page_offset(int page, int stride) { return page * stride; }
__global__ void via_helper(float *cache, const int *block_table, int page_stride) {
  int page = block_table[blockIdx.x];
  cache[page_offset(page, page_stride)] = 0.f;
  // CHECK: offsets.cu:41:75: warning: {{.*}}'page * stride'{{.*}}'page' <= 8,388,607 ('block_table' is an entry of a table named like it
}

// Positive: a loop-carried pointer advanced by a 32-bit product.
__global__ void loop_pointer(float *cache, const int *block_table, int num_pages, int page_stride) {
  float *p = cache;
  for (int i = 0; i < num_pages; ++i) {
    int page = block_table[i];
    // CHECK: offsets.cu:[[@LINE+1]]:10: warning: 32-bit signed product 'page * page_stride' is used as a memory offset and wraps past 2^31 in the training profile: 'page' <= 8,388,607 ('block_table' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'page_stride' <= 16,384 ('page_stride' is named like it: Envelope.Stride = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    p += page * page_stride;
    *p = 0.f;
  }
}

// Positive: through a ternary arm.
__global__ void ternary_arm(float *cache, const int *block_table, int page_stride, bool k) {
  int page = block_table[blockIdx.x];
  // CHECK: offsets.cu:[[@LINE+1]]:17: warning: 32-bit signed product 'page * page_stride' is used as a memory offset and wraps past 2^31 in the training profile: 'page' <= 8,388,607 ('block_table' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'page_stride' <= 16,384 ('page_stride' is named like it: Envelope.Stride = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  cache[k ? 0 : page * page_stride] = 0.f;
}

// Negative: the product never reaches an address (a value stored).
__global__ void value_only(int64_t *slot_mapping, const int *block_table, int block_size) {
  int block = block_table[blockIdx.x];
  slot_mapping[blockIdx.x] = block * block_size + threadIdx.x;
}

// Negative: a comparison, not an address.
__global__ void compare_only(int *flags, const int *block_table, int page_stride, int limit) {
  int page = block_table[blockIdx.x];
  flags[threadIdx.x] = page * page_stride < limit;
}

// Negative: an int helper that widens before it multiplies.
__device__ __forceinline__ int64_t page_offset64(int page, int stride) {
  return static_cast<int64_t>(page) * stride;
}
__global__ void via_helper64(float *cache, const int *block_table, int page_stride) {
  int page = block_table[blockIdx.x];
  cache[page_offset64(page, page_stride)] = 0.f;
}

// Negative: a hoisted 64-bit offset.
__global__ void hoisted64(float *cache, const int *block_table, int page_stride) {
  int page = block_table[blockIdx.x];
  int64_t offset = (int64_t)page * page_stride + threadIdx.x;
  cache[offset] = 0.f;
}

// Negative: the loop index times a stride: a counter, not an index table entry.
__global__ void loop_counter(float *out, int n, int64_t row_stride) {
  for (int i = 0; i < n; ++i)
    out[i * 16] = 0.f;
}

// A bit or word index: the product wraps before the small division scales
// it down (FlashInfer's custom mask: offset = qo_idx * kv_len + kv_idx, read
// at custom_mask[offset / 8]). A division by a size computes another index
// (a page from a position) and is no offset of this address.
__global__ void bit_index(const unsigned char *mask, const unsigned *words, float *out,
                          unsigned qo_len, unsigned kv_len, int block_size) {
  unsigned qo_idx = blockIdx.x * 128 + threadIdx.x, kv_idx = threadIdx.y;
  if (qo_idx >= qo_len || kv_idx >= kv_len)
    return;
  // CHECK: offsets.cu:[[@LINE+1]]:27: warning: 32-bit unsigned product 'qo_idx * kv_len' is used as a memory offset and wraps past 2^32 in the training profile: 'qo_idx' <= 1,048,575 ('qo_len' is named like it: Envelope.Context = 1,048,576) times 'kv_len' <= 1,048,576 ('kv_len' is named like it: Envelope.Context = 1,048,576); widen 'qo_idx' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  const unsigned offset = qo_idx * kv_len + kv_idx; // positive: a word index, offset >> 5
  // CHECK: offsets.cu:[[@LINE+1]]:18: warning: 32-bit unsigned product 'qo_idx * kv_len' is used as a memory offset and wraps past 2^32 in the training profile: 'qo_idx' <= 1,048,575 ('qo_len' is named like it: Envelope.Context = 1,048,576) times 'kv_len' <= 1,048,576 ('kv_len' is named like it: Envelope.Context = 1,048,576); widen 'qo_idx' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  out[0] = mask[(qo_idx * kv_len + kv_idx) / 8] + words[offset >> 5];
  const int pos = blockIdx.y * 4096 + threadIdx.x;
  out[1] = words[pos * 3 / block_size];              // negative: a division by a size
  const uint64_t wide = static_cast<uint64_t>(qo_idx) * kv_len + kv_idx;
  out[2] = mask[wide / 8];                           // negative: FlashInfer's fix, widened first
}
