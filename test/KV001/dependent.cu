// KV001 facet: products whose type a template leaves dependent. Engines pass
// their sizes in a params struct of template type (`KernelParams params`),
// so `i * params.inner` has no width in the primary template. Two facts
// still give it one: a 32-bit local or cast that holds it (the value ends up
// 32 bits wide whatever the instantiation), and an array subscript whose
// index is dependent is still an offset into the base (clang's getBase()
// returns the index there; kvlint reads the sides as written).
// An array that holds offsets for later addressing (`kv_offset[j] = page *
// stride`, FlashInfer's prefetch) has its stored values checked as offsets.
// RUN: %if kvlint %{ not %kvlint %s | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --implicit-check-not=warning: %}
#include <cstdint>

// Positive: a 32-bit local holds a dependent product (FlashInfer's MoE
// activation: `int const baseIdx = permutedIdx * params.innerDim + hiddenIdx`).
template <typename KernelParams>
__global__ void activation(KernelParams params, const int *permuted_idx) {
  int const permuted = permuted_idx[blockIdx.x];
  // CHECK: dependent.cu:[[@LINE+1]]:20: warning: 32-bit signed product 'permuted * params.innerDim' is used as a memory offset and wraps past 2^31 in the training profile: 'permuted' <= 131,071 ('permuted_idx' is loaded from a table no name explains: below Envelope.Loaded = 131,072) times 'params.innerDim' <= 65,536 ('innerDim' is named like it: Envelope.Intermediate = 65,536); widen 'permuted' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  int const base = permuted * params.innerDim + threadIdx.x;
  params.outPtr[base] = params.inPtr[base];
}

// Negative: the fix widens the holder and a factor.
template <typename KernelParams>
__global__ void activation_fixed(KernelParams params, const int *permuted_idx) {
  int const permuted = permuted_idx[blockIdx.x];
  int64_t const base = int64_t(permuted) * params.innerDim + threadIdx.x;
  params.outPtr[base] = params.inPtr[base];
}

// Negative: the holder is 32 bits, but the dependent factors are small (a
// head times the head dim).
template <typename KernelParams>
__global__ void per_head(KernelParams params) {
  int const head = blockIdx.y;
  int const off = head * params.head_dim + threadIdx.x;
  params.outPtr[off] = 0;
}

// Positive: the index is dependent (a 32-bit product plus a member of a
// template struct): still an offset into `cache`.
template <typename P>
__global__ void dependent_index(P params, float *cache, const int *block_table, int block_stride) {
  int const page = block_table[blockIdx.x];
  // CHECK: dependent.cu:[[@LINE+1]]:9: warning: 32-bit signed product 'page * block_stride' is used as a memory offset and wraps past 2^31 in the training profile: 'page' <= 8,388,607 ('block_table' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'block_stride' <= 16,384 ('block_stride' is named like it: Envelope.Stride = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  cache[page * block_stride + params.col] = 0.f;
}

// Negative: the same store with the page widened.
template <typename P>
__global__ void dependent_index_fixed(P params, float *cache, const int *block_table,
                                      int block_stride) {
  int const page = block_table[blockIdx.x];
  cache[int64_t(page) * block_stride + params.col] = 0.f;
}

// Positive: offsets prefetched into registers, addressed later (FlashInfer's
// MLA prefetch_offset: IdType pages times a 32-bit page stride).
__global__ void prefetch(const uint32_t *indices, const float *ckv, float *out,
                         uint32_t ckv_stride_page) {
  int64_t ckv_offset[4];
  for (int j = 0; j < 4; ++j)
    // CHECK: dependent.cu:[[@LINE+1]]:21: warning: 32-bit unsigned product 'indices[blockIdx.x * 4 + j] * ckv_stride_page' is used as a memory offset and wraps past 2^32 in the training profile: 'indices[blockIdx.x * 4 + j]' <= 8,388,607 ('indices' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'ckv_stride_page' <= 16,384 ('ckv_stride_page' is named like it: Envelope.Stride = 16,384); widen 'indices[blockIdx.x * 4 + j]' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    ckv_offset[j] = indices[blockIdx.x * 4 + j] * ckv_stride_page;
  for (int j = 0; j < 4; ++j)
    out[blockIdx.x * 4 + j] = ckv[ckv_offset[j]];
}

// Negative: the fix widens the page; and an offsets array filled with a
// lane's small offset.
__global__ void prefetch_fixed(const uint32_t *indices, const float *ckv, float *out,
                               uint32_t ckv_stride_page) {
  int64_t ckv_offset[4];
  int lane_offset[4];
  for (int j = 0; j < 4; ++j) {
    ckv_offset[j] = int64_t(indices[blockIdx.x * 4 + j]) * ckv_stride_page;
    lane_offset[j] = threadIdx.x * 4 + j;
  }
  for (int j = 0; j < 4; ++j)
    out[blockIdx.x * 4 + j] = ckv[ckv_offset[j] + lane_offset[j]];
}

// Negatives: a tile's one-letter shape (`Cta_tile::M`) is a compile-time
// constant, not the token count a bare `M` names; so is sizeof of a
// dependent type.
template <typename Cta_tile>
__global__ void tile_rows(float *out) {
  out[blockIdx.x * Cta_tile::M + threadIdx.x] = 0.f;
}
template <typename Packed>
__global__ void packed_bytes(char *out) {
  out[(blockIdx.x * 16 + threadIdx.x) * sizeof(Packed)] = 0;
}
