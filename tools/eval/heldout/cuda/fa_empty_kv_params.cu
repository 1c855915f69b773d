#include <cuda_runtime.h>
#include <cstdint>

struct Flash_fwd_params {
  float* __restrict__ o_ptr;            // [b, seqlen_q, h, d]
  float* __restrict__ softmax_lse_ptr;  // [b, h, seqlen_q]
  int b, seqlen_q, seqlen_k, h, h_k, d;
};

constexpr int kBlockM = 64;

// Writes the output of query rows that see no key (seqlen_k == 0): zeros.
__global__ void flash_fwd_empty_kv_kernel(const Flash_fwd_params params) {
  const int m_block = blockIdx.x;
  const int bidb = blockIdx.y;
  const int bidh = blockIdx.z;
  float* o_batch = params.o_ptr + bidb * params.seqlen_q * params.h * params.d;
  for (int i = threadIdx.x; i < kBlockM * params.d; i += blockDim.x) {
    const int m = m_block * kBlockM + i / params.d;
    if (m >= params.seqlen_q) continue;
    const int64_t row = static_cast<int64_t>(m) * params.h + bidh;
    o_batch[row * params.d + i % params.d] = 0.0f;
  }
}

void run_flash_fwd_empty_kv(const Flash_fwd_params& params, cudaStream_t stream) {
  dim3 grid((params.seqlen_q + kBlockM - 1) / kBlockM, params.b, params.h);
  flash_fwd_empty_kv_kernel<<<grid, 128, 0, stream>>>(params);
}
