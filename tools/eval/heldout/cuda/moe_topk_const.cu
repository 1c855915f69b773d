#include <cuda_runtime.h>
#include <cstdint>

constexpr int kNumExperts = 64;
constexpr int kTopK = 8;

// gating_output: [num_tokens, kNumExperts]; topk_weights, topk_ids: [num_tokens, kTopK]
__global__ void topk_gating_kernel(float* __restrict__ topk_weights, int* __restrict__ topk_ids,
                                   const float* __restrict__ gating_output,
                                   const int num_tokens) {
  const int token = blockIdx.x * blockDim.x + threadIdx.x;
  if (token >= num_tokens) return;
  const float* logits = gating_output + token * kNumExperts;
  float* w = topk_weights + token * kTopK;
  int* ids = topk_ids + token * kTopK;
  uint64_t used = 0;
  for (int k = 0; k < kTopK; ++k) {
    int best = -1;
    float best_v = -INFINITY;
    for (int e = 0; e < kNumExperts; ++e) {
      if (!((used >> e) & 1ull) && logits[e] > best_v) {
        best_v = logits[e];
        best = e;
      }
    }
    used |= 1ull << best;
    w[k] = best_v;
    ids[k] = best;
  }
}

void topk_gating(float* topk_weights, int* topk_ids, const float* gating_output,
                 int num_tokens, cudaStream_t stream) {
  topk_gating_kernel<<<(num_tokens + 127) / 128, 128, 0, stream>>>(topk_weights, topk_ids,
                                                                   gating_output, num_tokens);
}
