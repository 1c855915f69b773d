#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cstdint>

constexpr int kRowsPerBlock = 8;

// x: [num_tokens, hidden_size]; amax: [num_tokens] per-token absolute max (one warp per CTA)
__global__ void rowwise_absmax_kernel(float* __restrict__ amax,
                                      const __nv_bfloat16* __restrict__ x,
                                      const int num_tokens, const int hidden_size) {
  const int64_t first = static_cast<int64_t>(blockIdx.x) * kRowsPerBlock;
  const __nv_bfloat16* tile = x + first * hidden_size;
  for (int j = 0; j < kRowsPerBlock; ++j) {
    if (first + j >= num_tokens) break;
    float m = 0.0f;
    for (int i = threadIdx.x; i < hidden_size; i += 32) {
      m = fmaxf(m, fabsf(__bfloat162float(tile[j * hidden_size + i])));
    }
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    if (threadIdx.x == 0) amax[first + j] = m;
  }
}

void rowwise_absmax(float* amax, const __nv_bfloat16* x, int num_tokens, int hidden_size,
                    cudaStream_t stream) {
  const int grid = (num_tokens + kRowsPerBlock - 1) / kRowsPerBlock;
  rowwise_absmax_kernel<<<grid, 32, 0, stream>>>(amax, x, num_tokens, hidden_size);
}
