#include <cuda_runtime.h>
#include <cstdint>

// x: [num_tokens, hidden_size]; x[row] *= row_scale[row]
// Persistent launch: 1,024 CTAs stride over all rows.
__global__ void scale_rows_persistent_kernel(float* __restrict__ x,
                                             const float* __restrict__ row_scale,
                                             const int num_tokens, const int hidden_size) {
  for (int row = blockIdx.x; row < num_tokens; row += gridDim.x) {
    float* r = x + row * hidden_size;
    const float s = row_scale[row];
    for (int i = threadIdx.x; i < hidden_size; i += blockDim.x) {
      r[i] *= s;
    }
  }
}

void scale_rows_persistent(float* x, const float* row_scale, int num_tokens, int hidden_size,
                           cudaStream_t stream) {
  scale_rows_persistent_kernel<<<1024, 256, 0, stream>>>(x, row_scale, num_tokens, hidden_size);
}
