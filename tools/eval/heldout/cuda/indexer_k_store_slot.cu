#include <cuda_runtime.h>
#include <cstdint>

constexpr int kIndexHeadDim = 128;  // DeepSeek-V3.2 lightning-indexer key width (fp8)

// k_cache: [num_slots, kIndexHeadDim] fp8 bytes; k: [num_tokens, kIndexHeadDim]
__global__ void indexer_k_store_kernel(uint8_t* __restrict__ k_cache,
                                       const uint8_t* __restrict__ k,
                                       const int64_t* __restrict__ slot_mapping) {
  const int token = blockIdx.x;
  const int slot = static_cast<int>(slot_mapping[token]);
  if (slot < 0) return;
  const int d = threadIdx.x;  // blockDim.x == kIndexHeadDim
  const uint8_t v = k[static_cast<int64_t>(token) * kIndexHeadDim + d];
  k_cache[slot * kIndexHeadDim + d] = v;
}

void indexer_k_store(uint8_t* k_cache, const uint8_t* k, const int64_t* slot_mapping,
                     int64_t num_tokens, cudaStream_t stream) {
  indexer_k_store_kernel<<<num_tokens, kIndexHeadDim, 0, stream>>>(k_cache, k, slot_mapping);
}
