#include <cuda_runtime.h>
#include <cstdint>

// logits: [num_reqs, vocab_size] (one row per running request in the decode step)
__global__ void apply_temperature_kernel(float* __restrict__ logits,
                                         const float* __restrict__ temperature,
                                         const int vocab_size) {
  const int req = blockIdx.x;
  const float inv_t = 1.0f / temperature[req];
  float* row = logits + req * vocab_size;
  for (int v = threadIdx.x; v < vocab_size; v += blockDim.x) {
    row[v] *= inv_t;
  }
}

void apply_temperature(float* logits, const float* temperature, int num_reqs,
                       int vocab_size, cudaStream_t stream) {
  apply_temperature_kernel<<<num_reqs, 1024, 0, stream>>>(logits, temperature,
                                                          vocab_size);
}
