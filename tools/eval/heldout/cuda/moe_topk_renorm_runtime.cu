#include <cuda_runtime.h>
#include <cstdint>

// topk_weights: [num_tokens, top_k]; renormalize each token's weights to sum to 1
__global__ void renormalize_topk_kernel(float* __restrict__ topk_weights,
                                        const int num_tokens, const int top_k) {
  const int token = blockIdx.x * blockDim.x + threadIdx.x;
  if (token >= num_tokens) return;
  float* w = topk_weights + token * top_k;
  float sum = 0.0f;
  for (int j = 0; j < top_k; ++j) sum += w[j];
  const float inv = 1.0f / sum;
  for (int j = 0; j < top_k; ++j) w[j] *= inv;
}

void renormalize_topk(float* topk_weights, int num_tokens, int top_k, cudaStream_t stream) {
  renormalize_topk_kernel<<<(num_tokens + 255) / 256, 256, 0, stream>>>(topk_weights,
                                                                        num_tokens, top_k);
}
