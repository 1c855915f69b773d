#include <cuda_runtime.h>
#include <cstdint>

// kv_scales: one float per KV-cache slot ([num_pages * page_size])
// block_table: [num_reqs, max_blocks_per_req]
__global__ void store_token_scale_kernel(float* __restrict__ kv_scales,
                                         const float* __restrict__ token_scales,
                                         const int* __restrict__ block_table,
                                         const int* __restrict__ req_idx,
                                         const int* __restrict__ positions,
                                         const int max_blocks_per_req,
                                         const int page_size, const int num_tokens) {
  const int token = blockIdx.x * blockDim.x + threadIdx.x;
  if (token >= num_tokens) return;
  const int req = req_idx[token];
  const int pos = positions[token];
  const int64_t entry = static_cast<int64_t>(req) * max_blocks_per_req + pos / page_size;
  const int page = block_table[entry];
  kv_scales[page * page_size + pos % page_size] = token_scales[token];
}

void store_token_scale(float* kv_scales, const float* token_scales,
                       const int* block_table, const int* req_idx, const int* positions,
                       int max_blocks_per_req, int page_size, int num_tokens,
                       cudaStream_t stream) {
  const int grid = (num_tokens + 255) / 256;
  store_token_scale_kernel<<<grid, 256, 0, stream>>>(kv_scales, token_scales, block_table,
                                                     req_idx, positions, max_blocks_per_req,
                                                     page_size, num_tokens);
}
