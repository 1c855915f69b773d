// The fixed twin of examples/hip/paged_copy.hip: kvlint reports nothing.
// The block ids are widened to 64 bits before they multiply.
#include <hip/hip_runtime.h>
#include <cstdint>

__global__ void copy_blocks_kernel(float *__restrict__ key_cache,
                                   float *__restrict__ value_cache,
                                   const int *__restrict__ src_blocks, // [num_pairs]
                                   const int *__restrict__ dst_blocks, // [num_pairs]
                                   int block_elems) {
  const int pair = hipBlockIdx_x;
  const int64_t src = src_blocks[pair];
  const int64_t dst = dst_blocks[pair];
  float *k_dst = key_cache + dst * block_elems;
  const float *k_src = key_cache + src * block_elems;
  float *v_dst = value_cache + dst * block_elems;
  const float *v_src = value_cache + src * block_elems;
  for (int i = hipThreadIdx_x; i < block_elems; i += hipBlockDim_x) {
    k_dst[i] = k_src[i];
    v_dst[i] = v_src[i];
  }
}
