#include <cuda_runtime.h>
#include <cstdint>

// logits: [num_tokens, vocab_size] (prompt logprobs: one row per prefill token)
__global__ void logits_softcap_kernel(float* __restrict__ logits,
                                      const int vocab_size, const float cap) {
  const int token = blockIdx.x;
  float* row = logits + token * vocab_size;
  const float inv_cap = 1.0f / cap;
  for (int v = threadIdx.x; v < vocab_size; v += blockDim.x) {
    row[v] = cap * tanhf(row[v] * inv_cap);
  }
}

void logits_softcap(float* logits, int64_t num_tokens, int vocab_size,
                    float cap, cudaStream_t stream) {
  logits_softcap_kernel<<<num_tokens, 1024, 0, stream>>>(logits, vocab_size, cap);
}
