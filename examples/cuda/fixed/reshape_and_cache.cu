// The fixed twin of examples/cuda/reshape_and_cache.cu: kvlint reports nothing.
//
// The slot stays int64_t, so slot / block_size is int64_t too and
// block_idx * block_stride promotes to a 64-bit product. The in-block offset
// (slot % block_size) is below block_size and needs no widening.
#include <cstdint>

template <typename scalar_t>
__global__ void reshape_and_cache_kernel(const scalar_t *__restrict__ key,   // [num_tokens, num_heads, head_size]
                                         const scalar_t *__restrict__ value, // [num_tokens, num_heads, head_size]
                                         scalar_t *__restrict__ key_cache,
                                         scalar_t *__restrict__ value_cache,
                                         const int64_t *__restrict__ slot_mapping, // [num_tokens]
                                         int key_stride, int value_stride, int num_heads,
                                         int head_size, int block_size, int block_stride) {
  const int64_t token_idx = blockIdx.x;
  const int64_t slot = slot_mapping[token_idx];
  if (slot < 0)
    return; // padding token

  const int64_t block_idx = slot / block_size;
  const int block_offset = slot % block_size;
  const int n = num_heads * head_size;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const int64_t src_key = token_idx * key_stride + i;
    const int64_t src_value = token_idx * value_stride + i;
    const int64_t dst = block_idx * block_stride + block_offset * n + i;
    key_cache[dst] = key[src_key];
    value_cache[dst] = value[src_value];
  }
}

template __global__ void reshape_and_cache_kernel<float>(const float *, const float *, float *,
                                                         float *, const int64_t *, int, int, int,
                                                         int, int, int);
