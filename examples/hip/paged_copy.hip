// Copies whole KV-cache blocks from one physical block to another (prefix
// cache forking, copy-on-write), one workgroup per (src, dst) pair.
//
// Cache layout: [num_blocks, block_elems] where block_elems is
// block_size * num_kv_heads * head_size.
//
// BUG (KV001): the block ids come from int32 tables and block_elems is an
// int, so src * block_elems and dst * block_elems are 32-bit products. With
// block_elems = 16 * 8 * 128 = 16,384 they wrap at block 131,072 and the
// copy reads and writes the wrong blocks. The fixed kernel is
// examples/hip/fixed/paged_copy.hip.
#include <hip/hip_runtime.h>
#include <cstdint>

__global__ void copy_blocks_kernel(float *__restrict__ key_cache,
                                   float *__restrict__ value_cache,
                                   const int *__restrict__ src_blocks, // [num_pairs]
                                   const int *__restrict__ dst_blocks, // [num_pairs]
                                   int block_elems) {
  const int pair = hipBlockIdx_x;
  const int src = src_blocks[pair];
  const int dst = dst_blocks[pair];
  float *k_dst = key_cache + dst * block_elems;
  const float *k_src = key_cache + src * block_elems;
  float *v_dst = value_cache + dst * block_elems;
  const float *v_src = value_cache + src * block_elems;
  for (int i = hipThreadIdx_x; i < block_elems; i += hipBlockDim_x) {
    k_dst[i] = k_src[i];
    v_dst[i] = v_src[i];
  }
}
