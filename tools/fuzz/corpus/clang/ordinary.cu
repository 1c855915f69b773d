#include <cstdint>
__device__ int64_t slot_of(const int *block_table, int pos, int page_size) {
  return block_table[pos / page_size] * page_size + pos % page_size;
}
__global__ void store(const int *block_table, const int64_t *slot_mapping, float *cache,
                      const float *src, int page_size, int stride, int n) {
  int64_t slot = slot_mapping[blockIdx.x];
  if (slot < 0)
    return;
  int page = block_table[blockIdx.x];
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    cache[page * stride + i] = src[slot_of(block_table, i, page_size) + i];
}
void launch(const int *bt, const int64_t *sm, float *c, const float *s, int ps, int st, int n,
            int tokens) {
  store<<<tokens, 128>>>(bt, sm, c, s, ps, st, n);
}
