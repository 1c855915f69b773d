#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cstdint>

// w: [num_experts, N, K]; x: [num_tokens, K]; out: [num_tokens * top_k, N]
// topk_ids: [num_tokens * top_k] expert of each (token, k) pair
__global__ void moe_gemv_kernel(float* __restrict__ out,
                                const __nv_bfloat16* __restrict__ w,
                                const __nv_bfloat16* __restrict__ x,
                                const int* __restrict__ topk_ids,
                                const int N, const int K, const int top_k) {
  const int pair = blockIdx.x;
  const int n = blockIdx.y;  // gridDim.y == N
  const int token = pair / top_k;
  const int expert_id = topk_ids[pair];
  const __nv_bfloat16* w_e = w + expert_id * N * K;
  const __nv_bfloat16* w_row = w_e + static_cast<int64_t>(n) * K;
  const __nv_bfloat16* x_row = x + static_cast<int64_t>(token) * K;
  float acc = 0.0f;
  for (int k = threadIdx.x; k < K; k += 32) {
    acc += __bfloat162float(w_row[k]) * __bfloat162float(x_row[k]);
  }
  for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
  if (threadIdx.x == 0) out[static_cast<int64_t>(pair) * N + n] = acc;
}

void moe_gemv(float* out, const __nv_bfloat16* w, const __nv_bfloat16* x,
              const int* topk_ids, int num_tokens, int top_k, int N, int K,
              cudaStream_t stream) {
  dim3 grid(num_tokens * top_k, N);
  moe_gemv_kernel<<<grid, 32, 0, stream>>>(out, w, x, topk_ids, N, K, top_k);
}
