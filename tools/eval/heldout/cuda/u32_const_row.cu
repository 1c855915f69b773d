#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cstdint>

using u32 = uint32_t;
constexpr u32 kHidden = 3072;  // Llama 3.2 3B / Phi-3-mini hidden size

// x: [num_tokens, kHidden]; x *= gamma (per-channel layer scale)
__global__ void layer_scale_kernel(__nv_bfloat16* __restrict__ x,
                                   const float* __restrict__ gamma) {
  const u32 token = blockIdx.x;
  __nv_bfloat16* row = x + token * kHidden;
  for (u32 i = threadIdx.x; i < kHidden; i += blockDim.x) {
    row[i] = __float2bfloat16(__bfloat162float(row[i]) * gamma[i]);
  }
}

void layer_scale(__nv_bfloat16* x, const float* gamma, int64_t num_tokens,
                 cudaStream_t stream) {
  layer_scale_kernel<<<num_tokens, 256, 0, stream>>>(x, gamma);
}
