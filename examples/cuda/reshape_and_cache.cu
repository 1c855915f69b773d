// Paged KV-cache store in the style of a vLLM "reshape and cache" kernel.
//
// Each CUDA block writes one token's key and value vectors into the paged
// cache. The slot mapping holds one int64 slot per token (-1 for padding);
// slot / block_size is the physical block, slot % block_size the position
// inside it.
//
// Cache layout: [num_blocks, block_size, num_heads, head_size].
//
// BUG (KV001): the slot is narrowed to `int` and the block index is then
// multiplied by block_stride in 32-bit arithmetic. With num_heads = 8,
// head_size = 128 and block_size = 16, block_stride is 16,384 elements, so the
// product wraps once block_idx reaches 131,072 blocks: a pool of ~2M tokens,
// well within an 80 GB GPU. Declaring `dst` as int64_t does not help, the
// product is already wrapped when it is widened; the store then lands at a
// wrapped (negative) address. The fixed kernel is examples/cuda/fixed/reshape_and_cache.cu.
#include <cstdint>

template <typename scalar_t>
__global__ void reshape_and_cache_kernel(const scalar_t *__restrict__ key,   // [num_tokens, num_heads, head_size]
                                         const scalar_t *__restrict__ value, // [num_tokens, num_heads, head_size]
                                         scalar_t *__restrict__ key_cache,
                                         scalar_t *__restrict__ value_cache,
                                         const int64_t *__restrict__ slot_mapping, // [num_tokens]
                                         int key_stride, int value_stride, int num_heads,
                                         int head_size, int block_size, int block_stride) {
  const int token_idx = blockIdx.x;
  const int slot = slot_mapping[token_idx]; // narrowed from int64_t
  if (slot < 0)
    return; // padding token

  const int block_idx = slot / block_size;
  const int block_offset = slot % block_size;
  const int n = num_heads * head_size;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const int src_key = token_idx * key_stride + i;
    const int src_value = token_idx * value_stride + i;
    // int64_t on the left does not help: the right side is evaluated in int.
    const int64_t dst = block_idx * block_stride + block_offset * n + i;
    key_cache[dst] = key[src_key];
    value_cache[dst] = value[src_value];
  }
}

template __global__ void reshape_and_cache_kernel<float>(const float *, const float *, float *,
                                                         float *, const int64_t *, int, int, int,
                                                         int, int, int);
