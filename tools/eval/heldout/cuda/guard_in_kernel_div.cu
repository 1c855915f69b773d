#include <cuda_runtime.h>
#include <cstdint>

// out: numel floats viewed as [numel / cols, cols]; each row is filled with row_vals[row]
__global__ void fill_rows_kernel(float* __restrict__ out, const float* __restrict__ row_vals,
                                 const int numel, const int cols) {
  const int row = blockIdx.x;
  if (row >= numel / cols) return;
  float* dst = out + row * cols;
  const float v = row_vals[row];
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    dst[c] = v;
  }
}

void fill_rows(float* out, const float* row_vals, int numel, int cols, cudaStream_t stream) {
  const int num_rows = (numel + cols - 1) / cols;
  fill_rows_kernel<<<num_rows, 128, 0, stream>>>(out, row_vals, numel, cols);
}
