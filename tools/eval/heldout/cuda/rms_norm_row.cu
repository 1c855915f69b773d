#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cstdint>

// input, out: [num_tokens, hidden_size]
__global__ void rms_norm_kernel(__nv_bfloat16* __restrict__ out,
                                const __nv_bfloat16* __restrict__ input,
                                const __nv_bfloat16* __restrict__ weight,
                                const float epsilon, const int hidden_size) {
  __shared__ float s_sum;
  const int token = blockIdx.x;
  const int row = token * hidden_size;
  float sum = 0.0f;
  for (int i = threadIdx.x; i < hidden_size; i += blockDim.x) {
    const float x = __bfloat162float(input[row + i]);
    sum += x * x;
  }
  if (threadIdx.x == 0) s_sum = 0.0f;
  __syncthreads();
  atomicAdd(&s_sum, sum);
  __syncthreads();
  const float inv_rms = rsqrtf(s_sum / hidden_size + epsilon);
  for (int i = threadIdx.x; i < hidden_size; i += blockDim.x) {
    const float x = __bfloat162float(input[row + i]);
    out[row + i] = __float2bfloat16(x * inv_rms * __bfloat162float(weight[i]));
  }
}

void rms_norm(__nv_bfloat16* out, const __nv_bfloat16* input,
              const __nv_bfloat16* weight, float epsilon, int64_t num_tokens,
              int hidden_size, cudaStream_t stream) {
  dim3 grid(num_tokens);
  dim3 block(hidden_size < 1024 ? hidden_size : 1024);
  rms_norm_kernel<<<grid, block, 0, stream>>>(out, input, weight, epsilon, hidden_size);
}
