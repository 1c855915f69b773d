#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cstdint>

struct QKVSplitParams {
  const __half* qkv;     // [num_tokens, (num_heads + 2 * num_kv_heads) * head_dim]
  __half* k_out;         // [num_tokens, num_kv_heads, head_dim]
  int64_t qkv_stride;    // elements between two tokens of qkv
  int64_t k_out_stride;  // elements between two tokens of k_out
  int num_heads;
  int num_kv_heads;
  int head_dim;
};

// Copies the K section of a fused QKV row out to its own tensor.
__global__ void split_k_kernel(const QKVSplitParams p) {
  const int token = blockIdx.x;
  const int kv_head = blockIdx.y;  // gridDim.y == num_kv_heads
  const __half* row = p.qkv + token * p.qkv_stride;
  const __half* k = row + p.num_heads * p.head_dim + kv_head * p.head_dim;
  __half* dst = p.k_out + token * p.k_out_stride + kv_head * p.head_dim;
  for (int d = threadIdx.x; d < p.head_dim; d += blockDim.x) {
    dst[d] = k[d];
  }
}

void split_k(const QKVSplitParams& p, int64_t num_tokens, cudaStream_t stream) {
  dim3 grid(num_tokens, p.num_kv_heads);
  split_k_kernel<<<grid, 128, 0, stream>>>(p);
}
