#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cstdint>

constexpr int kWarpsPerBlock = 4;
constexpr int kRowElems = 256;  // one warp covers a row: 32 lanes x 8 halves

// x, y: [num_tokens, kRowElems]; partial: [num_blocks, kWarpsPerBlock * 32]
__global__ void scale_rows_vec_kernel(__half* __restrict__ y, const __half* __restrict__ x,
                                      const float* __restrict__ row_scale,
                                      float* __restrict__ partial, const int num_tokens) {
  const int warp_id = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int row = blockIdx.x * kWarpsPerBlock + warp_id;
  if (row >= num_tokens) return;
  const int64_t base = static_cast<int64_t>(row) * kRowElems;
  uint4 v = *reinterpret_cast<const uint4*>(x + base + lane * 8);
  __half2* h = reinterpret_cast<__half2*>(&v);
  const __half2 s = __float2half2_rn(row_scale[row]);
  float acc = 0.0f;
  for (int i = 0; i < 4; ++i) {
    h[i] = __hmul2(h[i], s);
    acc += __low2float(h[i]) + __high2float(h[i]);
  }
  *reinterpret_cast<uint4*>(y + base + lane * 8) = v;
  partial[static_cast<int64_t>(blockIdx.x) * (kWarpsPerBlock * 32) + warp_id * 32 + lane] = acc;
}

void scale_rows_vec(__half* y, const __half* x, const float* row_scale, float* partial,
                    int num_tokens, cudaStream_t stream) {
  const int grid = (num_tokens + kWarpsPerBlock - 1) / kWarpsPerBlock;
  scale_rows_vec_kernel<<<grid, kWarpsPerBlock * 32, 0, stream>>>(y, x, row_scale, partial,
                                                                  num_tokens);
}
