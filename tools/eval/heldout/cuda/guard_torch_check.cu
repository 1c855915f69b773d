#include <cuda_runtime.h>
#include <c10/util/Exception.h>
#include <climits>
#include <cstdint>

// x: [num_tokens, hidden_size]; x *= scale (per channel)
__global__ void scale_channels_kernel(float* __restrict__ x, const float* __restrict__ scale,
                                      const int hidden_size) {
  const int token = blockIdx.x;
  float* row = x + token * hidden_size;
  for (int i = threadIdx.x; i < hidden_size; i += blockDim.x) {
    row[i] *= scale[i];
  }
}

void scale_channels(float* x, const float* scale, int64_t num_tokens, int64_t hidden_size,
                    cudaStream_t stream) {
  TORCH_CHECK(num_tokens * hidden_size <= INT_MAX, "scale_channels: ", num_tokens, " x ",
              hidden_size, " elements overflow 32-bit indexing");
  scale_channels_kernel<<<num_tokens, 256, 0, stream>>>(x, scale,
                                                        static_cast<int>(hidden_size));
}
