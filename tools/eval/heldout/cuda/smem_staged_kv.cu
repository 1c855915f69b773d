#include <cuda_runtime.h>
#include <cstdint>

// Cross-attention scores for short encoder outputs: one request's K rows
// ([kv_len, head_size], kv_len bounded by the shared-memory size) are staged in smem.
// k: [total_kv_tokens, k_stride]; q: [num_reqs, head_size]; scores: [total_kv_tokens]
__global__ void cross_attn_scores_kernel(float* __restrict__ scores, const float* __restrict__ q,
                                         const float* __restrict__ k,
                                         const int* __restrict__ cu_seqlens_k,
                                         const int64_t k_stride, const int head_size) {
  extern __shared__ float s_k[];
  const int req = blockIdx.x;
  const int kv_start = cu_seqlens_k[req];
  const int kv_end = cu_seqlens_k[req + 1];
  for (int t = kv_start + threadIdx.y; t < kv_end; t += blockDim.y) {
    for (int d = threadIdx.x; d < head_size; d += blockDim.x) {
      s_k[(t - kv_start) * head_size + d] = k[t * k_stride + d];
    }
  }
  __syncthreads();
  const float* q_row = q + static_cast<int64_t>(req) * head_size;
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  for (int t = kv_start + tid; t < kv_end; t += blockDim.x * blockDim.y) {
    float acc = 0.0f;
    for (int d = 0; d < head_size; ++d) {
      acc += q_row[d] * s_k[(t - kv_start) * head_size + d];
    }
    scores[t] = acc;
  }
}

void cross_attn_scores(float* scores, const float* q, const float* k, const int* cu_seqlens_k,
                       int num_reqs, int max_kv_len, int64_t k_stride, int head_size,
                       cudaStream_t stream) {
  dim3 block(32, 8);
  const size_t smem = static_cast<size_t>(max_kv_len) * head_size * sizeof(float);
  cross_attn_scores_kernel<<<num_reqs, block, smem, stream>>>(scores, q, k, cu_seqlens_k,
                                                             k_stride, head_size);
}
