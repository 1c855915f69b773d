#include <cuda_runtime.h>
#include <cstdint>

// prefix_lse, suffix_lse, out_lse: [num_tokens, num_heads] (one float per token and head)
__global__ void merge_lse_kernel(float* __restrict__ out_lse, const float* __restrict__ prefix_lse,
                                 const float* __restrict__ suffix_lse, const int num_heads) {
  const int token = blockIdx.x;
  const int head = threadIdx.x;  // blockDim.x == num_heads
  const int idx = token * num_heads + head;
  const float p = prefix_lse[idx];
  const float s = suffix_lse[idx];
  const float m = fmaxf(p, s);
  out_lse[idx] = m + logf(expf(p - m) + expf(s - m));
}

void merge_lse(float* out_lse, const float* prefix_lse, const float* suffix_lse,
               int64_t num_tokens, int num_heads, cudaStream_t stream) {
  merge_lse_kernel<<<num_tokens, num_heads, 0, stream>>>(out_lse, prefix_lse, suffix_lse,
                                                         num_heads);
}
