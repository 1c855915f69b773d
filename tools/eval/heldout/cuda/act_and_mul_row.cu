#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cstdint>
#include <algorithm>

__device__ __forceinline__ float silu(float x) {
  return x / (1.0f + __expf(-x));
}

// input: [num_tokens, 2 * d] (gate | up), out: [num_tokens, d]
__global__ void silu_and_mul_kernel(__half* __restrict__ out,
                                    const __half* __restrict__ input,
                                    const int d) {
  const __half* gate = input + blockIdx.x * 2 * d;
  const __half* up = gate + d;
  __half* dst = out + static_cast<int64_t>(blockIdx.x) * d;
  for (int idx = threadIdx.x; idx < d; idx += blockDim.x) {
    const float g = __half2float(gate[idx]);
    const float u = __half2float(up[idx]);
    dst[idx] = __float2half(silu(g) * u);
  }
}

void silu_and_mul(__half* out, const __half* input, int64_t num_tokens,
                  int64_t input_last_dim, cudaStream_t stream) {
  const int d = static_cast<int>(input_last_dim / 2);
  dim3 grid(num_tokens);
  dim3 block(std::min(d, 1024));
  silu_and_mul_kernel<<<grid, block, 0, stream>>>(out, input, d);
}
