#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <climits>
#include <cstdint>

// weight: [vocab_size, hidden_size]; out: [num_tokens, hidden_size]
__global__ void embedding_kernel(__half* __restrict__ out, const __half* __restrict__ weight,
                                 const int* __restrict__ input_ids, const int vocab_size,
                                 const int hidden_size) {
  const int token = blockIdx.x;
  const int id = input_ids[token];
  __half* dst = out + static_cast<int64_t>(token) * hidden_size;
  if (id < 0 || id >= vocab_size) {
    for (int i = threadIdx.x; i < hidden_size; i += blockDim.x) dst[i] = __float2half(0.0f);
    return;
  }
  const __half* src = weight + id * hidden_size;
  for (int i = threadIdx.x; i < hidden_size; i += blockDim.x) {
    dst[i] = src[i];
  }
}

cudaError_t embedding(__half* out, const __half* weight, const int* input_ids, int num_tokens,
                      int vocab_size, int hidden_size, cudaStream_t stream) {
  if (static_cast<int64_t>(vocab_size) * hidden_size > INT_MAX) {
    return cudaErrorInvalidValue;  // the table is too large for this kernel
  }
  embedding_kernel<<<num_tokens, 256, 0, stream>>>(out, weight, input_ids, vocab_size,
                                                   hidden_size);
  return cudaGetLastError();
}
