#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cstdint>

// kv_cache: [num_blocks, block_size, num_heads, head_size]
// Zeroes the pages listed in block_ids (freshly allocated pages of new requests).
__global__ void zero_kv_blocks_kernel(__half* __restrict__ kv_cache,
                                      const int* __restrict__ block_ids,
                                      const int block_size, const int num_heads,
                                      const int head_size) {
  const int block_id = block_ids[blockIdx.x];
  const int block_elems = block_size * num_heads * head_size;
  __half* dst = kv_cache + block_id * block_size * num_heads * head_size;
  for (int e = threadIdx.x; e < block_elems; e += blockDim.x) {
    dst[e] = __float2half(0.0f);
  }
}

void zero_kv_blocks(__half* kv_cache, const int* block_ids, int num_ids,
                    int block_size, int num_heads, int head_size, cudaStream_t stream) {
  zero_kv_blocks_kernel<<<num_ids, 256, 0, stream>>>(kv_cache, block_ids, block_size,
                                                     num_heads, head_size);
}
