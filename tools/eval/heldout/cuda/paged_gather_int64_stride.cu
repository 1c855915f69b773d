#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cstdint>

// kv_cache: [num_blocks, block_size, num_kv_heads, head_size]
// Copies the pages of one request, in order, into a contiguous buffer.
__global__ void gather_cached_kv_kernel(__nv_bfloat16* __restrict__ dst,
                                        const __nv_bfloat16* __restrict__ kv_cache,
                                        const int* __restrict__ block_table,
                                        const int64_t kv_block_stride) {
  const int i = blockIdx.x;  // logical block of the request
  const int page = block_table[i];
  const __nv_bfloat16* src = kv_cache + page * kv_block_stride;
  __nv_bfloat16* out = dst + static_cast<int64_t>(i) * kv_block_stride;
  for (int64_t e = threadIdx.x; e < kv_block_stride; e += blockDim.x) {
    out[e] = src[e];
  }
}

void gather_cached_kv(__nv_bfloat16* dst, const __nv_bfloat16* kv_cache,
                      const int* block_tables, int req, int max_blocks_per_seq,
                      int num_blocks_used, int64_t kv_block_stride,
                      cudaStream_t stream) {
  const int* table = block_tables + static_cast<int64_t>(req) * max_blocks_per_seq;
  gather_cached_kv_kernel<<<num_blocks_used, 256, 0, stream>>>(dst, kv_cache, table,
                                                               kv_block_stride);
}
