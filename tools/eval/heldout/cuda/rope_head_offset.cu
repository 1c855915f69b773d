#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cstdint>

// query: [num_tokens, num_heads * head_size] with row stride query_stride
// cos_sin_cache: [max_position, head_size] (cos | sin halves), positions: [num_tokens]
__global__ void rotary_embedding_kernel(__half* __restrict__ query,
                                        const float* __restrict__ cos_sin_cache,
                                        const int64_t* __restrict__ positions,
                                        const int64_t query_stride, const int head_size) {
  const int token = blockIdx.x;
  const int head = blockIdx.y;  // gridDim.y == num_heads
  const int64_t pos = positions[token];
  const float* cache = cos_sin_cache + pos * head_size;
  __half* q = query + token * query_stride + head * head_size;
  const int half = head_size / 2;
  for (int i = threadIdx.x; i < half; i += blockDim.x) {
    const float c = cache[i];
    const float s = cache[i + half];
    const float x1 = __half2float(q[i]);
    const float x2 = __half2float(q[i + half]);
    q[i] = __float2half(x1 * c - x2 * s);
    q[i + half] = __float2half(x2 * c + x1 * s);
  }
}

void rotary_embedding(__half* query, const float* cos_sin_cache, const int64_t* positions,
                      int64_t num_tokens, int num_heads, int64_t query_stride,
                      int head_size, cudaStream_t stream) {
  dim3 grid(num_tokens, num_heads);
  rotary_embedding_kernel<<<grid, 64, 0, stream>>>(query, cos_sin_cache, positions,
                                                   query_stride, head_size);
}
