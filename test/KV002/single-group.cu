// KV002 evidence, negative: a single-group table. One cache group whose
// rows span every request's sequence (the scheduler gives each request
// cdiv(seq_len, block_size) columns), and nothing in the file shows a
// narrower row: no per-group tables, no sliding window or context
// parallelism, no sibling that bounds the column. The loads are in bounds
// by that invariant, which nothing checks: latent only, with the reason.
// RUN: %if kvlint %{ %kvlint --checks=KV002 %s | FileCheck %s --check-prefix=DEFAULT --allow-empty --implicit-check-not=warning: %}
// RUN: %if kvlint %{ not %kvlint --checks=KV002 --level latent %s | FileCheck %s --check-prefix=LATENT --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --check-prefix=DEFAULT --allow-empty --implicit-check-not=warning: %}
// DEFAULT-NOT: warning:
#include <cstdint>

__global__ void slot_mapping(int64_t *slots, const int *block_table, const int64_t *positions,
                             const int *req_idx, int block_table_stride, int block_size) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int64_t pos = positions[t];
  // LATENT: single-group.cu:[[@LINE+1]]:19: warning: table load reads column 'pos / block_size', a position divided by a block size, with no bound against the row width; past the row it reads the next row's blocks or faults; latent: in bounds while the scheduler allocates cdiv(len, block) columns; nothing here checks it (nothing in this file shows a row narrower than the position's span); guard 'col < width' and emit the pad slot (-1) [kvlint-unguarded-table-load]
  int64_t block = block_table[req_idx[t] * block_table_stride + pos / block_size];
  slots[t] = block * block_size + pos % block_size;
}

// A read bounded by the request's sequence length: latent as before.
__global__ void slot_mapping_seq(int64_t *slots, const int *block_table, const int64_t *positions,
                                 const int *seq_lens, int block_table_stride, int block_size) {
  int t = threadIdx.x;
  int b = blockIdx.x;
  int64_t pos = positions[t];
  if (pos < seq_lens[b]) {
    // LATENT: single-group.cu:[[@LINE+1]]:16: warning: table load reads column 'pos / block_size', a position divided by a block size, bounded only by 'seq_lens[b]', which comes from a sequence length, not by the row width; it stays in the row only while the table spans the whole sequence; guard 'col < width' and emit the pad slot (-1) [kvlint-unguarded-table-load]
    slots[t] = block_table[b * block_table_stride + pos / block_size];
  }
}
