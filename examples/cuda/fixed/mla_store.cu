// The fixed twins of examples/cuda/mla_store.cu: kvlint reports nothing.
#include <cstdint>

typedef uint16_t bf16_t;

constexpr int kPageSize = 256;
constexpr int kTokenElems = 288;
constexpr int kElemsPerPage = 74880;

// Fix 1: widen the index before it multiplies (what `kvlint --fix` writes).
__global__ void mla_store_kernel(bf16_t *__restrict__ kv_cache,
                                 const bf16_t *__restrict__ kv_new,
                                 const int64_t *__restrict__ out_loc,
                                 int num_tokens) {
  const int token = blockIdx.x;
  if (token >= num_tokens)
    return;
  const int64_t loc = out_loc[token];
  if (loc < 0) // the pad slot (-1): a padded token has no place in the cache
    return;
  const int page = loc / kPageSize;
  const int in_page = loc % kPageSize;
  for (int i = threadIdx.x; i < kTokenElems; i += blockDim.x)
    kv_cache[static_cast<int64_t>(page) * kElemsPerPage + in_page * kTokenElems + i] =
        kv_new[token * kTokenElems + i];
}

// Fix 2, the incident's safe twin: the stride arrives as int64_t, so
// int * int64_t promotes and the product is 64-bit.
__global__ void mla_store_stride64_kernel(bf16_t *__restrict__ kv_cache,
                                          const bf16_t *__restrict__ kv_new,
                                          const int64_t *__restrict__ out_loc,
                                          int64_t page_stride, int num_tokens) {
  const int token = blockIdx.x;
  if (token >= num_tokens)
    return;
  const int64_t loc = out_loc[token];
  if (loc < 0) // the pad slot (-1): a padded token has no place in the cache
    return;
  const int page = loc / kPageSize;
  const int in_page = loc % kPageSize;
  for (int i = threadIdx.x; i < kTokenElems; i += blockDim.x)
    kv_cache[page * page_stride + in_page * kTokenElems + i] = kv_new[token * kTokenElems + i];
}
