// KV001 facet: the kinds of stride an int32 index meets. Each positive has a
// negative twin below it that a kernel engineer would leave alone.
// RUN: %if kvlint %{ not %kvlint %s | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --implicit-check-not=warning: %}
#include <cstdint>

constexpr int kBytesPerPage = 74880;  // the DeepSeek MLA incident's stride
#define PAGE_STRIDE 74880

struct CacheParams {
  int page_stride;
  int64_t page_stride64;
};

// Positive: constexpr stride.
__global__ void store_constexpr(uint16_t *cache, const int *page_table) {
  int page = page_table[blockIdx.x];
  // CHECK: strides.cu:[[@LINE+1]]:9: warning: 32-bit signed product 'page * kBytesPerPage' is used as a memory offset and wraps past 2^31 in the training profile: 'page' <= 8,388,607 ('page_table' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'kBytesPerPage' = 74,880; it wraps once 'page' >= 28,680; widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  cache[page * kBytesPerPage + threadIdx.x] = 0;
}

// Negative: the same kernel with the index widened first.
__global__ void store_constexpr_fixed(uint16_t *cache, const int *page_table) {
  int page = page_table[blockIdx.x];
  cache[static_cast<int64_t>(page) * kBytesPerPage + threadIdx.x] = 0;
}

// Positive: literal stride from a macro.
__global__ void store_macro(uint16_t *cache, const int *page_table) {
  int page = page_table[blockIdx.x];
  // CHECK: strides.cu:[[@LINE+1]]:9: warning: 32-bit signed product 'page * PAGE_STRIDE' is used as a memory offset and wraps past 2^31 in the training profile: 'page' <= 8,388,607 ('page_table' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'PAGE_STRIDE' = 74,880; it wraps once 'page' >= 28,680; widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  cache[page * PAGE_STRIDE] = 0;
}

// Negative: 64-bit literal suffix promotes the product.
__global__ void store_macro_ll(uint16_t *cache, const int *page_table) {
  int page = page_table[blockIdx.x];
  cache[page * 74880ll] = 0;
}

// Positive: runtime stride parameter.
__global__ void store_param(float *cache, const int *page_table, int page_stride) {
  int page = page_table[blockIdx.x];
  // CHECK: strides.cu:[[@LINE+1]]:9: warning: 32-bit signed product 'page * page_stride' is used as a memory offset and wraps past 2^31 in the training profile: 'page' <= 8,388,607 ('page_table' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'page_stride' <= 16,384 ('page_stride' is named like it: Envelope.Stride = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  cache[page * page_stride + threadIdx.x] = 0.f;
}

// Negative: an int64_t stride promotes the int32 index (the CUDA twin of the
// incident was safe for exactly this reason).
__global__ void store_param64(float *cache, const int *page_table, int64_t page_stride) {
  int page = page_table[blockIdx.x];
  cache[page * page_stride + threadIdx.x] = 0.f;
}

// Positive: stride read from a struct of parameters.
__global__ void store_member(float *cache, const int *page_table, CacheParams p) {
  int page = page_table[blockIdx.x];
  // CHECK: strides.cu:[[@LINE+1]]:9: warning: 32-bit signed product 'page * p.page_stride' is used as a memory offset and wraps past 2^31 in the training profile: 'page' <= 8,388,607 ('page_table' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'p.page_stride' <= 16,384 ('page_stride' is named like it: Envelope.Stride = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  cache[page * p.page_stride] = 0.f;
}

// Negative: the struct's 64-bit stride.
__global__ void store_member64(float *cache, const int *page_table, CacheParams p) {
  int page = page_table[blockIdx.x];
  cache[page * p.page_stride64] = 0.f;
}

// Positive: template (compile-time) stride.
template <int kPageSize, int kHeadDim>
__global__ void store_template(float *cache, const int *page_table) {
  int page = page_table[blockIdx.x];
  // CHECK: strides.cu:[[@LINE+1]]:9: warning: 32-bit signed product 'page * kPageSize * kHeadDim' is used as a memory offset and wraps past 2^31 in the training profile: 'page * kPageSize' <= 8,388,607 ('page * kPageSize' spans KvSlots (KvPages x BlockSize <= Envelope.KvSlots) = 8,388,607) times 'kHeadDim' <= 576 ('kHeadDim' is named like it: Envelope.HeadDim = 576); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  cache[page * kPageSize * kHeadDim + threadIdx.x] = 0.f;
}

// Negative: the product of two strides is no index.
template <int kPageSize, int kHeadDim>
__global__ void stride_product(float *cache, int64_t page) {
  cache[page * (kPageSize * kHeadDim)] = 0.f;
}

// Positive: a shift by log2(page size) is a multiply.
__global__ void store_shift(float *cache, const int *page_table, int log2_stride) {
  int page = page_table[blockIdx.x];
  // CHECK: strides.cu:[[@LINE+1]]:9: warning: 32-bit signed product 'page << log2_stride' is used as a memory offset and wraps past 2^31 in the training profile: 'page' <= 8,388,607 ('page_table' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) shifted by 'log2_stride' <= 16,384 ('log2_stride' is named like it: Envelope.Stride = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  cache[page << log2_stride] = 0.f;
}

// Negative: a trivial factor is no stride.
__global__ void times_one(float *out, const int *idx) {
  int i = idx[blockIdx.x];
  out[i * 1] = 0.f;
}

// Positive: a token id gathered from a routing table times the hidden size
// (lmdeploy's MoE reduce, `src + dim * fid`): a row of a [tokens, hidden]
// activation, so the index is a token, up to Envelope.Tokens, whatever the
// table is called.
__global__ void moe_gather(const float *src, float *dst, const int *f2n, int dim) {
  int fid = f2n[blockIdx.x];
  // CHECK: strides.cu:[[@LINE+1]]:28: warning: 32-bit signed product 'dim * fid' is used as a memory offset and wraps past 2^31 in the training profile: 'dim' <= 16,384 ('dim' is named like it: Envelope.Hidden = 16,384) times 'fid' <= 131,071 ('f2n' is loaded from a table no name explains: below Envelope.Loaded = 131,072); the product reaches 17,179,852,800 (an index times a hidden-size row is a token's row, and a token is below Envelope.Tokens); widen 'dim' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  const float *row = src + dim * fid;
  dst[blockIdx.x * 4 + threadIdx.x] = row[threadIdx.x];
}

// Negative: the same gather with the token widened, and a gathered index
// times a head's width (no hidden-size row).
__global__ void moe_gather_fixed(const float *src, float *dst, const int *f2n, int dim,
                                 int head_dim) {
  int fid = f2n[blockIdx.x];
  const float *row = src + int64_t(dim) * fid;
  const float *head = src + fid * head_dim;
  dst[blockIdx.x * 4 + threadIdx.x] = row[threadIdx.x] + head[threadIdx.x];
}

// Negative: a KV index table's entry times the page size is a slot, whether
// the entries are pages (FlashInfer's kv_indices) or slots (SGLang's): the
// row of an MLA page table (FlashInfer's `phys * (HEAD_DIM_CKV / 128)`)
// stays below 8M slots x 4. Positive twin: the same slot times a whole
// 576-element MLA row.
__global__ void mla_rows(float *scales, float *ckv, const int *kv_indices, int page_size) {
  int phys = kv_indices[blockIdx.x] * page_size + int(threadIdx.x) % page_size;
  scales[phys * (512 / 128) + threadIdx.x % 4] = 0.f;
  // CHECK: strides.cu:[[@LINE+1]]:7: warning: 32-bit signed product 'phys * 576' is used as a memory offset and wraps past 2^31 in the training profile: 'phys' <= 8,389,630 ('kv_indices[blockIdx.x] * page_size' spans KvSlots (KvSlots x BlockSize <= Envelope.KvSlots) = 8,388,607) times '576' = 576; it wraps once 'phys' >= 3,728,271; widen 'phys' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  ckv[phys * 576 + threadIdx.x] = 0.f;
}

// Negative: a tile's rows (Envelope.Tile) times a launch index: a tile
// length is a compile-time size, not a context length (`QO_TILE_LEN` ends in
// _LEN). Positive twin: the same tile start times a 576-element MLA row,
// judged as the file instantiates it (128-row tiles: 65,535 x 128 x 576
// passes 2^32; with 64-row tiles it would not).
template <unsigned QO_TILE_LEN>
__global__ void tile_rows(float *q, float *q_nope) {
  uint32_t q_head_idx_start = blockIdx.y * QO_TILE_LEN;
  q[q_head_idx_start + threadIdx.x] = 0.f;
  // CHECK: strides.cu:[[@LINE+1]]:10: warning: 32-bit unsigned product 'q_head_idx_start * 576u' is used as a memory offset and wraps past 2^32 in the training profile: 'q_head_idx_start' <= 8,388,480 ('blockIdx.y' spans a grid the launcher does not show: below Envelope.Grid = 65,536) times '576u' = 576; it wraps once 'q_head_idx_start' >= 7,456,541; widen 'q_head_idx_start' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  q_nope[q_head_idx_start * 576u + threadIdx.x] = 0.f;
}
template __global__ void tile_rows<128>(float *, float *);

// Negative: a rank of the all-reduce times one token's row (TensorRT-LLM's
// `tokenDim` is the hidden size, not a token count: Envelope.Hidden).
// Positive twin: a token index times the same row.
__global__ void allreduce_rank_rows(float *buf, int rank, int tokenDim, const int *token_ids) {
  buf[rank * tokenDim + threadIdx.x] = 0.f;
  int token = token_ids[blockIdx.x];
  // CHECK: strides.cu:[[@LINE+1]]:7: warning: 32-bit signed product 'token * tokenDim' is used as a memory offset and wraps past 2^31 in the training profile: 'token' <= 1,048,575 ('token_ids' is an entry of a table named like it: below Envelope.Tokens = 1,048,576) times 'tokenDim' <= 16,384 ('tokenDim' is named like it: Envelope.Hidden = 16,384); widen 'token' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  buf[token * tokenDim + threadIdx.x] = 1.f;
}

// Negative: a rank of the communication group (Envelope.Ranks, 1,024) times
// the step's tokens (a per-token comm buffer, MiniMax's reduce-RMS).
// Positive twin: the same rank times the step's token rows of a hidden.
__global__ void rank_rows(float *comm, int rank, int tot_tokens, int hidden) {
  comm[rank * tot_tokens + threadIdx.x] = 0.f;
  // CHECK: strides.cu:[[@LINE+1]]:8: warning: 32-bit signed product 'rank * tot_tokens * hidden' is used as a memory offset and wraps past 2^31 in the training profile: 'rank * tot_tokens' <= 1,073,740,800 ('tot_tokens' is named like it: below Envelope.Tokens = 1,048,576) times 'hidden' <= 16,384 ('hidden' is named like it: Envelope.Hidden = 16,384); widen 'rank' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  comm[rank * tot_tokens * hidden + threadIdx.x] = 0.f;
}
