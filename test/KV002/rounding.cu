// KV002 evidence: a column that rounds apart. A start read from memory is
// divided by the block size and a block count of its own is added to it:
// row[start / bs + i] for i < cdiv(len, bs). floor(s / bs) + cdiv(len, bs)
// passes cdiv(s + len, bs) -- the row the scheduler sized for the span --
// by one whenever s is not a multiple of bs. vLLM's gather_cache read past
// the row this way (PR 28760: the fix bounds the loop by stride - offset).
// RUN: %if kvlint %{ not %kvlint --checks=KV002 %s | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --implicit-check-not=warning: %}
#include <cstdint>

// Positive: the upstream shape, a loop over the chunk's own blocks from a
// start block read from seq_starts.
__global__ void gather_chunk(float *dst, const float *cache, const int32_t *block_table,
                             const int32_t *seq_starts, const int32_t *seq_lens,
                             int64_t block_table_stride, int64_t block_stride, int block_size) {
  int bid = blockIdx.x;
  int tot_blocks = (seq_lens[bid] + block_size - 1) / block_size;
  int offset = seq_starts[bid] / block_size;
  const int32_t *row = block_table + bid * block_table_stride + offset;
  for (int pid = 0; pid < tot_blocks; ++pid) {
    int block_id = row[pid];
    // CHECK: rounding.cu:[[@LINE-1]]:20: warning: table load reads column 'offset', a position divided by a block size, with no bound against the row width{{.*}}[kvlint-unguarded-table-load]
    // CHECK: note: reported at the default level: the column adds 'seq_starts' / block size to a count of its own ('pid'): the two round apart
    dst[(int64_t)pid * block_size + threadIdx.x] = cache[block_id * block_stride + threadIdx.x];
  }
}

// Negative: the fix. The loop stops at the row's end minus the start.
__global__ void gather_chunk_fixed(float *dst, const float *cache, const int32_t *block_table,
                                   const int32_t *seq_starts, const int32_t *seq_lens,
                                   int64_t block_table_stride, int64_t block_stride,
                                   int block_size) {
  int bid = blockIdx.x;
  int tot_blocks = (seq_lens[bid] + block_size - 1) / block_size;
  int offset = seq_starts[bid] / block_size;
  const int32_t *row = block_table + bid * block_table_stride + offset;
  int64_t end = tot_blocks < block_table_stride - offset ? tot_blocks : block_table_stride - offset;
  for (int pid = 0; pid < end; ++pid) {
    int block_id = row[pid];
    dst[(int64_t)pid * block_size + threadIdx.x] = cache[block_id * block_stride + threadIdx.x];
  }
}

// Negative: one quotient of the whole position, (start + t) / bs: it rounds
// once, inside the span the row covers (latent, with the scheduler's
// invariant as its reason).
__global__ void gather_token(float *dst, const float *cache, const int32_t *block_table,
                             const int32_t *seq_starts, int64_t block_table_stride,
                             int64_t block_stride, int block_size) {
  int bid = blockIdx.y;
  int pos = seq_starts[bid] + blockIdx.x;
  int block_id = block_table[bid * block_table_stride + pos / block_size];
  dst[blockIdx.x * 128 + threadIdx.x] = cache[block_id * block_stride + threadIdx.x];
}

// Negative: the start block is a parameter the caller computed, not a value
// read per request (a prefix the host aligned); only a loop count is added.
__global__ void gather_from(float *dst, const float *cache, const int32_t *block_table,
                            int64_t block_table_stride, int64_t block_stride, int block_size,
                            int first_block, int num_blocks) {
  const int32_t *row = block_table + blockIdx.x * block_table_stride + first_block;
  for (int pid = 0; pid < num_blocks; ++pid) {
    int block_id = row[pid];
    dst[(int64_t)pid * block_size + threadIdx.x] = cache[block_id * block_stride + threadIdx.x];
  }
}
