#include <cuda_runtime.h>
#include <cstdint>

// x: [num_tokens, hidden_size], hidden_size == 4 * blockDim.x; x = relu(x + bias)
__global__ void bias_relu_vec4_kernel(float* __restrict__ x, const float* __restrict__ bias,
                                      const int hidden_size) {
  const int64_t row = static_cast<int64_t>(blockIdx.x) * hidden_size;
  const int col = threadIdx.x * 4;
  float4 v = *reinterpret_cast<float4*>(x + row + col);
  const float4 b = *reinterpret_cast<const float4*>(bias + col);
  v.x = fmaxf(v.x + b.x, 0.0f);
  v.y = fmaxf(v.y + b.y, 0.0f);
  v.z = fmaxf(v.z + b.z, 0.0f);
  v.w = fmaxf(v.w + b.w, 0.0f);
  *reinterpret_cast<float4*>(x + row + col) = v;
}

void bias_relu(float* x, const float* bias, int64_t num_tokens, int hidden_size,
               cudaStream_t stream) {
  // requires hidden_size % 4 == 0 and hidden_size / 4 <= 1024
  bias_relu_vec4_kernel<<<num_tokens, hidden_size / 4, 0, stream>>>(x, bias, hidden_size);
}
