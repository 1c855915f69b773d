// KV001 facet: templates. Real kernels are templates whose launchers do not
// parse without torch; the primary template is analysed even where the
// pointer type is dependent, and instantiations report once, at the
// template's own line.
// RUN: %if kvlint %{ not %kvlint %s | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --implicit-check-not=warning: %}
#include <cstdint>

// Positive: never instantiated, dependent element type.
template <typename scalar_t, typename cache_t>
__global__ void reshape_and_cache(const scalar_t *key, cache_t *key_cache, const int *block_table,
                                  int block_stride, int head_size) {
  int block_idx = block_table[blockIdx.x];
  for (int i = threadIdx.x; i < head_size; i += blockDim.x) {
    // CHECK: templates.cu:[[@LINE+1]]:15: warning: 32-bit signed product 'block_idx * block_stride' is used as a memory offset and wraps past 2^31 in the training profile: 'block_idx' <= 8,388,607 ('block_table' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'block_stride' <= 16,384 ('block_stride' is named like it: Envelope.Stride = 16,384); widen 'block_idx' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    key_cache[block_idx * block_stride + i] = cache_t(key[i]);
  }
}

// Positive: instantiated twice, reported once.
template <typename T>
__global__ void copy_pages(T *dst, const T *src, const int *pages, int page_elems) {
  int page = pages[blockIdx.x];
  // CHECK: templates.cu:[[@LINE+1]]:7: warning: 32-bit signed product 'page * page_elems' is used as a memory offset and wraps past 2^31 in the training profile: 'page' <= 8,388,607 ('pages' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'page_elems' <= 8,388,607 ('page_elems' is named like it: below Envelope.KvPages = 8,388,608); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  dst[page * page_elems + threadIdx.x] = src[threadIdx.x];
}
template __global__ void copy_pages<float>(float *, const float *, const int *, int);
template __global__ void copy_pages<double>(double *, const double *, const int *, int);

// Positive: a member function template of a cache view.
struct PagedView {
  float *data;
  int page_stride;
  template <int kHeadDim>
  __device__ float *head_ptr(int page, int head) const {
    // CHECK: templates.cu:[[@LINE+1]]:19: warning: 32-bit signed product 'page * page_stride' is used as a memory offset and wraps past 2^31 in the training profile: 'page' <= 8,388,607 ('page' is named like it: below Envelope.KvPages = 8,388,608) times 'page_stride' <= 16,384 ('page_stride' is named like it: Envelope.Stride = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    return data + page * page_stride + head * kHeadDim;
  }
};

// Negative: dependent index type, never instantiated: nothing known.
template <typename IdxT>
__global__ void dependent_index(float *cache, const IdxT *pages, IdxT stride) {
  IdxT page = pages[blockIdx.x];
  cache[page * stride] = 0.f;
}

// Negative: a 64-bit index type parameter in the primary template.
template <typename scalar_t>
__global__ void wide_template(scalar_t *cache, const int64_t *slots, int stride) {
  int64_t slot = slots[blockIdx.x];
  cache[slot * stride] = scalar_t(0);
}

// Negative: a member function whose page is already 64-bit.
struct PagedView64 {
  float *data;
  int64_t page_stride;
  __device__ float *page_ptr(int page) const { return data + page * page_stride; }
};

// A template the file instantiates is judged as instantiated: the template
// arguments are facts, the pattern's names are not. Negative: the row
// width is 1,024 in every instantiation here (the pattern alone bounds
// kHiddenDim by its name, as a 16,384-element hidden row, and would report).
// Positive twin: a 7,168-element row, where 1M tokens wrap.
template <int kHiddenDim>
__global__ void gather_rows(float *out, const float *w, const int *token_ids) {
  int tok = token_ids[blockIdx.x];
  out[blockIdx.x * 2 + threadIdx.x] = w[tok * kHiddenDim + threadIdx.x];
}
template __global__ void gather_rows<1024>(float *, const float *, const int *);

template <int kHiddenDim>
__global__ void gather_hidden(float *out, const float *w, const int *token_ids) {
  int tok = token_ids[blockIdx.x];
  // CHECK: templates.cu:[[@LINE+1]]:41: warning: 32-bit signed product 'tok * kHiddenDim' is used as a memory offset and wraps past 2^31 in the training profile: 'tok' <= 1,048,575 ('token_ids' is an entry of a table named like it: below Envelope.Tokens = 1,048,576) times 'kHiddenDim' = 7,168; it wraps once 'tok' >= 299,594; widen 'tok' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  out[blockIdx.x * 2 + threadIdx.x] = w[tok * kHiddenDim + threadIdx.x];
}
template __global__ void gather_hidden<7168>(float *, const float *, const int *);

// Negative: a member function of a class template, instantiated with a
// 16-row tile (a stage of shared memory would be 2^31 elements only with a
// tile the pattern's names allow and the file never uses).
template <int tile_m, int tile_k>
struct TileLoader {
  float *gmem;
  __device__ void load(int tile_idx) {
    gmem[tile_idx * tile_m * tile_k + threadIdx.x] = 0.f;
  }
};
__global__ void tiles(float *g, int t) {
  TileLoader<16, 8> L{g};
  L.load(t);
}
