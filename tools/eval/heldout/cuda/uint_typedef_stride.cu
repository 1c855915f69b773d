#include <cuda_runtime.h>
#include <cstdint>

typedef unsigned int uint;

// x: [num_tokens, stride], the first `cols` columns of each row are valid
__global__ void add_bias_kernel(float* __restrict__ x, const float* __restrict__ bias,
                                const uint stride, const uint cols) {
  const uint token = blockIdx.x;
  float* row = x + token * stride;
  for (uint c = threadIdx.x; c < cols; c += blockDim.x) {
    row[c] += bias[c];
  }
}

void add_bias(float* x, const float* bias, int64_t num_tokens, uint stride,
              uint cols, cudaStream_t stream) {
  add_bias_kernel<<<num_tokens, 256, 0, stream>>>(x, bias, stride, cols);
}
