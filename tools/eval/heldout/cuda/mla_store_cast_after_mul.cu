#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cstdint>

constexpr int kPageSize = 64;
constexpr int kTokenElems = 576;                     // MLA: 512 latent + 64 rope
constexpr int kPageElems = kPageSize * kTokenElems;  // 36,864

// kv_cache: [num_pages, kPageSize, kTokenElems]; kv: [num_tokens, kTokenElems]
__global__ void mla_cache_store_kernel(__nv_bfloat16* __restrict__ kv_cache,
                                       const __nv_bfloat16* __restrict__ kv,
                                       const int64_t* __restrict__ slot_mapping) {
  const int token = blockIdx.x;
  const int64_t slot = slot_mapping[token];
  if (slot < 0) return;
  const int page = static_cast<int>(slot / kPageSize);
  const int in_page = static_cast<int>(slot % kPageSize);
  __nv_bfloat16* dst = kv_cache + static_cast<int64_t>(page * kPageElems) + in_page * kTokenElems;
  const __nv_bfloat16* src = kv + static_cast<int64_t>(token) * kTokenElems;
  for (int i = threadIdx.x; i < kTokenElems; i += blockDim.x) {
    dst[i] = src[i];
  }
}

void mla_cache_store(__nv_bfloat16* kv_cache, const __nv_bfloat16* kv,
                     const int64_t* slot_mapping, int64_t num_tokens, cudaStream_t stream) {
  mla_cache_store_kernel<<<num_tokens, 128, 0, stream>>>(kv_cache, kv, slot_mapping);
}
