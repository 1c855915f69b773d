#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cstdint>

// input, residual: [num_tokens, hidden_size]; residual += input; input = rms_norm(residual)
__global__ void fused_add_rms_norm_kernel(__nv_bfloat16* __restrict__ input,
                                          __nv_bfloat16* __restrict__ residual,
                                          const __nv_bfloat16* __restrict__ weight,
                                          const float epsilon, const int hidden_size) {
  __shared__ float s_sum;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * hidden_size;
  float sum = 0.0f;
  for (int i = threadIdx.x; i < hidden_size; i += blockDim.x) {
    const float z = __bfloat162float(input[row + i]) + __bfloat162float(residual[row + i]);
    residual[row + i] = __float2bfloat16(z);
    sum += z * z;
  }
  if (threadIdx.x == 0) s_sum = 0.0f;
  __syncthreads();
  atomicAdd(&s_sum, sum);
  __syncthreads();
  const float inv_rms = rsqrtf(s_sum / hidden_size + epsilon);
  for (int i = threadIdx.x; i < hidden_size; i += blockDim.x) {
    const float z = __bfloat162float(residual[row + i]);
    input[row + i] = __float2bfloat16(z * inv_rms * __bfloat162float(weight[i]));
  }
}

void fused_add_rms_norm(__nv_bfloat16* input, __nv_bfloat16* residual,
                        const __nv_bfloat16* weight, float epsilon,
                        int64_t num_tokens, int hidden_size, cudaStream_t stream) {
  dim3 grid(num_tokens);
  dim3 block(hidden_size < 1024 ? hidden_size : 1024);
  fused_add_rms_norm_kernel<<<grid, block, 0, stream>>>(input, residual, weight,
                                                        epsilon, hidden_size);
}
