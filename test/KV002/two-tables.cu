// KV002 evidence: a start read from a table of starts inside the request.
// vLLM's gather_and_maybe_dequant_cache (fixed in vLLM PR 28760) read
// row[seq_starts[b] / bs + i] for i < cdiv(seq_len, bs), with seq_len from
// cu_seq_lens: nothing ties start + len to the row's width, and the fix
// bounds the loop by stride - offset. Its per-token rewrite lost the guard
// and got it back (PR 49427): row[(seq_starts[b] + t) / bs]. A position
// offset by a value read from a table of starts (`seq_starts`,
// `chunk_starts`) is one the request's length does not bound, so both are
// default findings. (Not a rounding effect: floor(s / bs) + cdiv(l, bs)
// never passes cdiv(s + l, bs).) Negatives: the fix, and a start block the
// host passes as a parameter.
// RUN: %if kvlint %{ not %kvlint --checks=KV002 %s | FileCheck %s --check-prefix=DEFAULT --implicit-check-not=warning: %}
// RUN: %if kvlint %{ not %kvlint --checks=KV002 --level latent %s | FileCheck %s --check-prefix=DEFAULT --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --check-prefix=DEFAULT --implicit-check-not=warning: %}
#include <cstdint>

// Default: the upstream shape, a loop over the chunk's own blocks from a
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
    // DEFAULT: two-tables.cu:[[@LINE-1]]:20: warning: table load reads column 'offset', a position divided by a block size, with no bound against the row width{{.*}}[kvlint-unguarded-table-load]
    // DEFAULT: note: reported at the default level: the position is offset by a start read from 'seq_starts', which the request's length does not bound
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

// Default: the per-token rewrite, one quotient of a start and a token of the
// step, (start + t) / bs.
__global__ void gather_token(float *dst, const float *cache, const int32_t *block_table,
                             const int32_t *seq_starts, int64_t block_table_stride,
                             int64_t block_stride, int block_size) {
  int bid = blockIdx.y;
  int pos = seq_starts[bid] + blockIdx.x;
  int block_id = block_table[bid * block_table_stride + pos / block_size];
  // DEFAULT: two-tables.cu:[[@LINE-1]]:18: warning: table load reads column 'pos / block_size'{{.*}}[kvlint-unguarded-table-load]
  dst[blockIdx.x * 128 + threadIdx.x] = cache[block_id * block_stride + threadIdx.x];
}

// Negative: the rewrite with its guard restored.
__global__ void gather_token_fixed(float *dst, const float *cache, const int32_t *block_table,
                                   const int32_t *seq_starts, int64_t max_blocks_per_req,
                                   int64_t block_stride, int block_size) {
  int bid = blockIdx.y;
  int pos = seq_starts[bid] + blockIdx.x;
  int col = pos / block_size;
  if (col >= max_blocks_per_req)
    return;
  int block_id = block_table[bid * max_blocks_per_req + col];
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
