#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cstdint>

// kv_a: [num_tokens, kv_stride] = [compressed kv (kv_lora_rank) | k_pe (rope_dim)]
// k_pe_out: [num_tokens, rope_dim]
__global__ void split_k_pe_kernel(__nv_bfloat16* __restrict__ k_pe_out,
                                  const __nv_bfloat16* __restrict__ kv_a,
                                  const int64_t kv_stride, const int kv_lora_rank,
                                  const int rope_dim) {
  const int token = blockIdx.x;
  const __nv_bfloat16* src = kv_a + token * kv_stride + kv_lora_rank;
  __nv_bfloat16* dst = k_pe_out + token * rope_dim;
  for (int i = threadIdx.x; i < rope_dim; i += blockDim.x) {
    dst[i] = src[i];
  }
}

void split_k_pe(__nv_bfloat16* k_pe_out, const __nv_bfloat16* kv_a, int64_t num_tokens,
                int64_t kv_stride, cudaStream_t stream) {
  split_k_pe_kernel<<<num_tokens, 64, 0, stream>>>(k_pe_out, kv_a, kv_stride, 512, 64);
}
