#include <cuda_runtime.h>
#include <climits>
#include <cstdint>

__device__ __forceinline__ float gelu_tanh(float x) {
  const float k0 = 0.7978845608f, k1 = 0.044715f;
  return 0.5f * x * (1.0f + tanhf(k0 * (x + k1 * x * x * x)));
}

// x: [num_rows, row_stride], gelu applied in place to the first `cols` columns
__global__ void gelu_rows_kernel(float* __restrict__ x, const int row_stride, const int cols) {
  const int row = blockIdx.x;
  float* r = x + row * row_stride;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    r[c] = gelu_tanh(r[c]);
  }
}

cudaError_t gelu_rows(float* x, int num_rows, int row_stride, int cols, cudaStream_t stream) {
  if (num_rows <= 0) return cudaSuccess;
  if (static_cast<int64_t>(num_rows) * row_stride > INT_MAX) {
    return cudaErrorInvalidValue;  // caller falls back to the 64-bit kernel
  }
  gelu_rows_kernel<<<num_rows, 256, 0, stream>>>(x, row_stride, cols);
  return cudaGetLastError();
}
