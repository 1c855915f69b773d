// MLA latent-cache store, the shape of a real production incident (see
// docs/rules/KV001.md, "Why is this bad").
//
// A page holds 256 tokens. In this illustrative layout each token has a
// 288-element bf16 row (latent + rope) and the page ends with 1,152 elements
// of per-page scales: 256 * 288 + 1,152 = 74,880 elements per page, the
// incident's stride.
//
// BUG (KV001): `page` is an int and kElemsPerPage an int constant, so
// page * kElemsPerPage is evaluated in 32 bits. It passes 2^31 inside page
// 28,679 (slot 7,341,824): after ~7.3M cumulative prefilled tokens the store
// lands at a wrapped address, no matter how many requests are in flight.
// The fixed kernel is examples/cuda/fixed/mla_store.cu.
#include <cstdint>

typedef uint16_t bf16_t; // storage only: the kernel copies bits

constexpr int kPageSize = 256;       // tokens per page
constexpr int kTokenElems = 288;     // bf16 elements per token row
constexpr int kElemsPerPage = 74880; // page stride, in bf16 elements

__global__ void mla_store_kernel(bf16_t *__restrict__ kv_cache,      // [num_pages, kElemsPerPage]
                                 const bf16_t *__restrict__ kv_new,  // [num_tokens, kTokenElems]
                                 const int64_t *__restrict__ out_loc, // [num_tokens] slot per token
                                 int num_tokens) {
  const int token = blockIdx.x;
  if (token >= num_tokens)
    return;
  const int64_t loc = out_loc[token];
  const int page = loc / kPageSize;    // fits in 32 bits...
  const int in_page = loc % kPageSize; // below 256: never needs widening
  for (int i = threadIdx.x; i < kTokenElems; i += blockDim.x)
    // ...but its product with the page stride does not.
    kv_cache[page * kElemsPerPage + in_page * kTokenElems + i] = kv_new[token * kTokenElems + i];
}
