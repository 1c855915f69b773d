#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cstdint>

constexpr int kHidden = 3072;  // Llama 3.2 3B hidden size

// residual, x: [num_tokens, kHidden]; residual += x
__global__ void residual_add_kernel(__half* __restrict__ residual,
                                    const __half* __restrict__ x) {
  const int token = blockIdx.x;
  const int off = token * kHidden;
  for (int i = threadIdx.x; i < kHidden; i += blockDim.x) {
    residual[off + i] = __hadd(residual[off + i], x[off + i]);
  }
}

void residual_add(__half* residual, const __half* x, int64_t num_tokens,
                  cudaStream_t stream) {
  residual_add_kernel<<<num_tokens, 256, 0, stream>>>(residual, x);
}
