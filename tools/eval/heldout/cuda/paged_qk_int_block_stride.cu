#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cstdint>

constexpr int kHeadSize = 128;
constexpr int kBlockSize = 16;

// k_cache: [num_blocks, num_heads, kBlockSize, kHeadSize]
// block_tables: [num_seqs, max_num_blocks_per_seq]; logits: [num_seqs, num_heads, max_seq_len]
__global__ void paged_qk_kernel(float* __restrict__ logits, const __half* __restrict__ q,
                                const __half* __restrict__ k_cache,
                                const int* __restrict__ block_tables,
                                const int* __restrict__ seq_lens,
                                const int max_num_blocks_per_seq, const int max_seq_len,
                                const int kv_block_stride, const int kv_head_stride) {
  const int seq_idx = blockIdx.x;
  const int head_idx = blockIdx.y;
  const int64_t sh = static_cast<int64_t>(seq_idx) * gridDim.y + head_idx;
  const int* block_table = block_tables + static_cast<int64_t>(seq_idx) * max_num_blocks_per_seq;
  const __half* q_vec = q + sh * kHeadSize;
  float* out = logits + sh * max_seq_len;
  const int seq_len = seq_lens[seq_idx];
  for (int t = threadIdx.x; t < seq_len; t += blockDim.x) {
    const int physical_block = block_table[t / kBlockSize];
    const int offset = t % kBlockSize;
    const __half* k_vec = k_cache + physical_block * kv_block_stride +
                          head_idx * kv_head_stride + offset * kHeadSize;
    float acc = 0.0f;
    for (int d = 0; d < kHeadSize; ++d) {
      acc += __half2float(q_vec[d]) * __half2float(k_vec[d]);
    }
    out[t] = acc;
  }
}

void paged_qk(float* logits, const __half* q, const __half* k_cache,
              const int* block_tables, const int* seq_lens, int num_seqs,
              int num_heads, int max_num_blocks_per_seq, int max_seq_len,
              int kv_block_stride, int kv_head_stride, cudaStream_t stream) {
  dim3 grid(num_seqs, num_heads);
  paged_qk_kernel<<<grid, 128, 0, stream>>>(logits, q, k_cache, block_tables, seq_lens,
                                            max_num_blocks_per_seq, max_seq_len,
                                            kv_block_stride, kv_head_stride);
}
