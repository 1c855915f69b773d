#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cstdint>

// w: [num_experts, N, K] fp8 with one scale per expert; out: same shape in bf16
__global__ void dequant_expert_weight_kernel(__nv_bfloat16* __restrict__ out,
                                             const __nv_fp8_e4m3* __restrict__ w,
                                             const float* __restrict__ scale,
                                             const int N, const int K) {
  const int n = blockIdx.x;          // gridDim.x == N
  const int expert_id = blockIdx.y;  // gridDim.y == num_experts
  const int64_t w_off = static_cast<int64_t>(expert_id) * N * K + static_cast<int64_t>(n) * K;
  const float s = scale[expert_id];
  for (int k = threadIdx.x; k < K; k += blockDim.x) {
    out[w_off + k] = __float2bfloat16(static_cast<float>(w[w_off + k]) * s);
  }
}

void dequant_expert_weight(__nv_bfloat16* out, const __nv_fp8_e4m3* w,
                           const float* scale, int num_experts, int N, int K,
                           cudaStream_t stream) {
  dim3 grid(N, num_experts);
  dequant_expert_weight_kernel<<<grid, 256, 0, stream>>>(out, w, scale, N, K);
}
