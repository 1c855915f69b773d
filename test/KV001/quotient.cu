// KV001 facet: an index bounded by a quotient of what it multiplies. Under
// `i < n / d` (or a ceil division, `(n + d - 1) / d`), `i * d` stays below
// the dividend: a row start inside a [tokens, hidden] buffer whose element
// count is a 32-bit int, a tile start below the rows it tiles, a chunk of a
// row. Negatives from real kernels (TensorRT-LLM's MoE all-reduce, CUTLASS
// schedulers, FlashInfer's RMSNorm), each with a positive twin where the
// dividend is 64-bit or the product has a factor the divisor lacks.
// RUN: %if kvlint %{ not %kvlint --per-site %s | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --implicit-check-not=warning: %}
#include <cstdint>

struct AllReduceParams {
  int size;       // token_num * hidden_dim elements, an int
  int hidden_dim;
  float *input;
};

// Negative: token_id < size / hidden_dim, so token_id * hidden_dim < size.
__global__ void moe_reduce_rows(AllReduceParams params) {
  int num_token = params.size / params.hidden_dim;
  for (int token_id = blockIdx.x; token_id < num_token; token_id += gridDim.x)
    params.input[token_id * params.hidden_dim + threadIdx.x] = 0.f;
}

// Positive: the element count is 64-bit (all elements of a [tokens, hidden]
// activation, Envelope.Elements); the quotient no longer says the product
// fits in 32 bits.
__global__ void moe_reduce_rows_wide(float *input, int64_t numel, int hidden_dim,
                                     const int *token_ids) {
  int64_t num_token = numel / hidden_dim;
  int token_id = token_ids[blockIdx.x];
  if (token_id >= num_token)
    return;
  // CHECK: quotient.cu:[[@LINE+1]]:9: warning: 32-bit signed product 'token_id * hidden_dim' is used as a memory offset and wraps past 2^31 in the training profile: 'token_id' <= 1,048,575 ('token_ids' is an entry of a table named like it: below Envelope.Tokens = 1,048,576) times 'hidden_dim' <= 16,384 ('hidden_dim' is named like it: Envelope.Hidden = 16,384); widen 'token_id' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  input[token_id * hidden_dim + threadIdx.x] = 0.f;
}

// Negative: a chunk of a row, i < ceil_div(d, vec * threads), times
// threads * vec in the other order (the template is not instantiated: the
// vector width is a constant of unknown value, the thread count unknown).
template <uint32_t VEC_SIZE>
__global__ void norm_chunks(float *x, uint32_t d, uint32_t num_threads) {
  const uint32_t rounds = (d + VEC_SIZE * num_threads - 1) / (VEC_SIZE * num_threads);
  for (uint32_t i = 0; i < rounds; i++)
    x[i * num_threads * VEC_SIZE + threadIdx.x * VEC_SIZE] = 0.f;
}

// Negative: the same through a ceil_div helper (FlashInfer's RMSNorm).
__device__ inline uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }
template <uint32_t VEC_SIZE>
__global__ void norm_rounds(float *weight, uint32_t d, uint32_t num_threads) {
  const uint32_t rounds = ceil_div(d, VEC_SIZE * num_threads);
  for (uint32_t i = 0; i < rounds; i++)
    weight[i * num_threads * VEC_SIZE + threadIdx.x * VEC_SIZE] = 0.f;
}

// Positive: the product has a factor the divisor does not (the page size).
__global__ void tile_times_page(float *cache, int num_pages, int page_elems, const int *pages) {
  int n_tiles = num_pages / 16;
  int tile = pages[blockIdx.x];
  if (tile >= n_tiles)
    return;
  // CHECK: quotient.cu:[[@LINE+1]]:9: warning: 32-bit signed product 'tile * 16 * page_elems' is used as a memory offset and wraps past 2^31 in the training profile: 'tile * 16' <= 8,388,592 ('num_pages' is named like it: Envelope.KvPages = 8,388,608) times 'page_elems' <= 8,388,607 ('page_elems' is named like it: below Envelope.KvPages = 8,388,608); widen 'tile' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  cache[tile * 16 * page_elems] = 0.f;
}

// Negative: the dividend is an int, so whatever its name says (numel:
// Envelope.Elements, 2^34), it is at most INT_MAX, and so is row * cols.
__global__ void fill_rows(float *out, const float *vals, int numel, int cols) {
  int row = blockIdx.x;
  if (row >= numel / cols)
    return;
  out[row * cols + threadIdx.x] = vals[row];
}

// Positive twin: the same int dividend bounds row * cols, not eight times it
// (rows of 8-float vectors, the dividend counted in vectors).
__global__ void fill_rows_x8(float *out, const float *vals, int numel, int cols) {
  int row = blockIdx.x;
  if (row >= numel / cols)
    return;
  // CHECK: quotient.cu:[[@LINE+1]]:7: warning: 32-bit signed product 'row * cols * 8' is used as a memory offset and wraps past 2^31 in the training profile: 'row * cols' <= 536,797,185 ('blockIdx.x' spans a grid the launcher does not show: below Envelope.Grid = 65,536) times '8' = 8; it wraps once 'row * cols' >= 268,435,456; widen 'row' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  out[row * cols * 8 + threadIdx.x] = vals[row];
}


// Negative: a quotient and its divisor in the same product, apart (vLLM's
// reshape_and_cache, the x-split key cache [blocks, heads, head_size / x,
// block_size, x]): head_idx * (head_size / x) * block_size * x is at most
// head_idx * head_size * block_size, inside one page, however large x is;
// and so is the remainder h_block = i % (head_size / x) times x.
__global__ void key_cache_in_page(float *key_cache, const int64_t *slot_mapping, int num_heads,
                                  int head_size, int block_size, int x) {
  const int64_t slot = slot_mapping[blockIdx.x];
  const int64_t block_idx = slot / block_size;
  const int h_block_count = head_size / x;
  const int i = threadIdx.x;
  if (i >= num_heads * h_block_count) return;
  const int head_idx = i / h_block_count;
  const int h_block = i % h_block_count;
  key_cache[block_idx * num_heads * h_block_count * block_size * x +
            head_idx * h_block_count * block_size * x + h_block * block_size * x] = 0.f;
}

// Positive twin: the divisor is not in the product (the page's x-blocks
// times an unrelated width), so nothing cancels.
__global__ void key_cache_in_page_wide(float *key_cache, const int64_t *slot_mapping,
                                       int num_heads, int head_size, int block_size, int x,
                                       int width) {
  const int64_t slot = slot_mapping[blockIdx.x];
  const int64_t block_idx = slot / block_size;
  const int h_block_count = head_size / x;
  const int i = threadIdx.x;
  if (i >= num_heads * h_block_count) return;
  const int h_block = i % h_block_count;
  // CHECK: quotient.cu:[[@LINE+1]]:33: warning: 32-bit signed product 'h_block * block_size * width' is used as a memory offset and wraps past 2^31 in the training profile: 'h_block * block_size' <= 588,800 ('block_size' is named like it: Envelope.BlockSize = 1,024) times 'width' <= 8,191 ('width' is bounded by no fact: below Envelope.Unknown = 8,192); widen 'h_block' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  key_cache[block_idx * width + h_block * block_size * width] = 0.f;
}

// Negative: a slot minus its page times the page size is the slot's offset
// inside the page (below block_size), as `slot % block_size` would be.
__global__ void in_page_offset(float *cache, const int *slot_mapping, int block_size,
                               int stride_t) {
  const int slot = slot_mapping[blockIdx.x];
  if (slot < 0) return;
  const int block_id = slot / block_size;
  const int block_off = slot - block_id * block_size;
  cache[block_off * stride_t + threadIdx.x] = 0.f;
}

// Positive twin: subtracting a multiple of another size is no remainder.
__global__ void in_page_offset_other(float *cache, const int *slot_mapping, int block_size,
                                     int stride_t, int width) {
  const int slot = slot_mapping[blockIdx.x];
  if (slot < 0) return;
  const int block_id = slot / block_size;
  const int off = slot - block_id * width;
  // CHECK: quotient.cu:[[@LINE+1]]:9: warning: 32-bit signed product 'off * stride_t' is used as a memory offset and wraps past 2^31 in the training profile: 'off' <= 8,388,607 ('slot_mapping' is an entry of a table named like it: below Envelope.KvSlots = 8,388,608) times 'stride_t' <= 16,384 ('stride_t' is named like it: Envelope.Stride = 16,384); widen 'off' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  cache[off * stride_t + threadIdx.x] = 0.f;
}

// Negative: the shuffled V cache of vLLM's ROCm backend, its in-page slot
// read from the slot mapping unguarded (a pad slot makes it negative, and its
// quotient by x too): (slot / x) * x is still at most the slot, so the
// product stays inside one page.
__global__ void shuffled_v_slot(float *cache, const int *slot_mapping, int head_size, int x,
                                int page_size) {
  const int slot = slot_mapping[blockIdx.x] % page_size;
  cache[(slot / x) * head_size * x + slot % x] = 0.f;
}

// Positive twin: the quotient meets another factor than its divisor.
__global__ void shuffled_v_slot_other(float *cache, const int *slot_mapping, int head_size, int x,
                                      int y, int page_size) {
  const int slot = slot_mapping[blockIdx.x] % page_size;
  // CHECK: quotient.cu:[[@LINE+1]]:9: warning: 32-bit signed product '(slot / x) * head_size * y' is used as a memory offset and wraps past 2^31 in the training profile: '(slot / x) * head_size' <= 589,248 ('x' is bounded by no fact: below Envelope.Unknown = 8,192) times 'y' <= 8,191 ('y' is bounded by no fact: below Envelope.Unknown = 8,192); widen 'slot / x' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  cache[(slot / x) * head_size * y + slot % x] = 0.f;
}

// Negative: flash-attention's paged K/V start. The last block's first row,
// (n_block_max - 1) * kBlockN, is -kBlockN when a split has no block, and its
// page index is picked by a ?: against no block table; the page times the
// page size is still at most that row, however large the page size.
template <int kBlockN>
__global__ void paged_block_start(float *k, const int *block_table, int n_block_max,
                                  int page_block_size) {
  const int block_table_idx =
      block_table == nullptr ? 0 : (n_block_max - 1) * kBlockN / page_block_size;
  const int block_table_offset =
      (n_block_max - 1) * kBlockN - block_table_idx * page_block_size;
  k[block_table_offset + threadIdx.x] = 0.f;
}

// Positive twin: the page index times another size than it was divided by.
template <int kBlockN>
__global__ void paged_block_start_other(float *k, const int *block_table, int n_block_max,
                                        int page_block_size, int k_row_stride) {
  const int block_table_idx =
      block_table == nullptr ? 0 : (n_block_max - 1) * kBlockN / page_block_size;
  // CHECK: quotient.cu:[[@LINE+1]]:5: warning: 32-bit signed product 'block_table_idx * k_row_stride' is used as a memory offset and wraps past 2^31 in the training profile: 'block_table_idx' <= 8,387,584 ('n_block_max' is bounded by no fact: Envelope.Unknown = 8,192) times 'k_row_stride' <= 16,384 ('k_row_stride' is named like it: Envelope.Stride = 16,384); widen 'block_table_idx' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  k[block_table_idx * k_row_stride + threadIdx.x] = 0.f;
}
