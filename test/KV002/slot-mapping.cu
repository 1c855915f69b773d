// KV002 facet: slot-mapping kernels read a request's block-table row at
// pos / block_size. Unguarded reads are reported; each guard idiom is silent.
// RUN: %if kvlint %{ not %kvlint %s | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --implicit-check-not=warning: %}
// The latent level also reports the column bounded only by a sequence length.
// RUN: %if kvlint %{ not %kvlint --option=Level=latent %s | FileCheck %s --check-prefixes=CHECK,LATENT --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -config="{CheckOptions: {Level: latent}}" -- %cuda-flags | FileCheck %s --check-prefixes=CHECK,LATENT --implicit-check-not=warning: %}
#include <cstdint>
#define PAD_SLOT_ID -1

// Positive: the classic unguarded slot mapping.
__global__ void slot_mapping(int64_t *slots, const int *block_table, const int64_t *positions,
                             const int *req_idx, int block_table_stride, int block_size) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int64_t pos = positions[t];
  int req = req_idx[t];
  // CHECK: slot-mapping.cu:[[@LINE+1]]:19: warning: table load reads column 'pos / block_size', a position divided by a block size, with no bound against the row width; past the row it reads the next row's blocks or faults; guard 'col < width' and emit the pad slot (-1) [kvlint-unguarded-table-load]
  int64_t block = block_table[req * block_table_stride + pos / block_size];
  slots[t] = block * block_size + pos % block_size;
}

// Negative: guarded by an early return that writes the pad slot.
__global__ void slot_mapping_early_return(int64_t *slots, const int *block_table,
                                          const int64_t *positions, const int *req_idx,
                                          int block_table_stride, int block_size) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int64_t pos = positions[t];
  int64_t col = pos / block_size;
  if (col >= block_table_stride) {
    slots[t] = PAD_SLOT_ID;
    return;
  }
  int64_t block = block_table[req_idx[t] * block_table_stride + col];
  slots[t] = block * block_size + pos % block_size;
}

// Positive: guarded against the number of requests, the wrong bound.
__global__ void slot_mapping_wrong_bound(int64_t *slots, const int *block_table,
                                         const int64_t *positions, const int *req_idx,
                                         int num_reqs, int block_table_stride, int block_size) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int req = req_idx[t];
  if (req >= num_reqs)
    return;
  int64_t pos = positions[t];
  // CHECK: slot-mapping.cu:[[@LINE+1]]:19: warning: table load reads column 'pos / block_size', a position divided by a block size, with no bound against the row width; past the row it reads the next row's blocks or faults; guard 'col < width' and emit the pad slot (-1) [kvlint-unguarded-table-load]
  int64_t block = block_table[req * block_table_stride + pos / block_size];
  slots[t] = block * block_size + pos % block_size;
}

// Negative: guarded by a ternary that emits the pad slot.
__global__ void slot_mapping_ternary(int64_t *slots, const int *block_table,
                                     const int64_t *positions, int max_num_blocks_per_req,
                                     int block_size) {
  int t = threadIdx.x;
  int64_t col = positions[t] / block_size;
  int64_t block = col < max_num_blocks_per_req
                      ? block_table[blockIdx.x * max_num_blocks_per_req + col]
                      : PAD_SLOT_ID;
  slots[t] = block;
}

// Latent: guarded by the sequence length only, which a narrow cache group
// (sliding window, hybrid tail group) does not bound; safe only while the
// scheduler gives every request cdiv(seq_len, block_size) columns.
// Reported at the latent level.
__global__ void slot_mapping_seq_len(int64_t *slots, const int *block_table,
                                     const int64_t *positions, const int *seq_lens,
                                     int block_table_stride, int block_size) {
  int t = threadIdx.x;
  int64_t pos = positions[t];
  if (pos < seq_lens[blockIdx.x]) {
    // LATENT: slot-mapping.cu:[[@LINE+1]]:21: warning: table load reads column 'pos / block_size', a position divided by a block size, bounded only by 'seq_lens[blockIdx.x]', which comes from a sequence length, not by the row width; it stays in the row only while the table spans the whole sequence; guard 'col < width' and emit the pad slot (-1) [kvlint-unguarded-table-load]
    int64_t block = block_table[blockIdx.x * block_table_stride + pos / block_size];
    slots[t] = block * block_size + pos % block_size;
  }
}

// Negative: guarded by an enclosing if on the column.
__global__ void slot_mapping_if(int64_t *slots, const int *block_table, const int64_t *positions,
                                int block_table_stride, int block_size) {
  int t = threadIdx.x;
  int64_t pos = positions[t];
  int64_t col = pos / block_size;
  int64_t slot = PAD_SLOT_ID;
  if (col < block_table_stride)
    slot = block_table[blockIdx.x * block_table_stride + col] * (int64_t)block_size +
           pos % block_size;
  slots[t] = slot;
}

// Positive: context-parallel virtual blocks, unguarded.
__global__ void slot_mapping_cp(int64_t *slots, const int *block_table, const int64_t *positions,
                                int block_table_stride, int block_size, int cp_size) {
  int t = threadIdx.x;
  int64_t pos = positions[t];
  int64_t virtual_block_size = (int64_t)block_size * cp_size;
  // CHECK: slot-mapping.cu:[[@LINE+1]]:19: warning: table load reads column 'pos / virtual_block_size', a position divided by a block size, with no bound against the row width; past the row it reads the next row's blocks or faults; guard 'col < width' and emit the pad slot (-1) [kvlint-unguarded-table-load]
  int64_t block = block_table[blockIdx.x * block_table_stride + pos / virtual_block_size];
  slots[t] = block * block_size + (pos % virtual_block_size) / cp_size;
}

// Negative: the grid-stride loop skips out-of-range columns with continue.
__global__ void slot_mapping_grid_stride(int64_t *slots, const int *block_table,
                                         const int64_t *positions, int num_tokens,
                                         int block_table_stride, int block_size) {
  for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < num_tokens; t += gridDim.x * blockDim.x) {
    int64_t pos = positions[t];
    int64_t col = pos / block_size;
    if (col >= block_table_stride) {
      slots[t] = PAD_SLOT_ID;
      continue;
    }
    slots[t] = block_table[col] * (int64_t)block_size + pos % block_size;
  }
}

// Positive: a shift by log2(block size), unguarded.
__global__ void slot_mapping_shift(int64_t *slots, const int *block_table, const int64_t *positions,
                                   int block_table_stride, int log2_block_size) {
  int t = threadIdx.x;
  int64_t pos = positions[t];
  // CHECK: slot-mapping.cu:[[@LINE+1]]:19: warning: table load reads column 'pos >> log2_block_size', a position divided by a block size, with no bound against the row width; past the row it reads the next row's blocks or faults; guard 'col < width' and emit the pad slot (-1) [kvlint-unguarded-table-load]
  int64_t block = block_table[blockIdx.x * block_table_stride + (pos >> log2_block_size)];
  slots[t] = block;
}

// Negative: clamped with min to the last column.
__global__ void slot_mapping_min(int64_t *slots, const int *block_table, const int64_t *positions,
                                 int max_num_blocks, int block_size) {
  int t = threadIdx.x;
  int64_t col = min(positions[t] / block_size, (int64_t)max_num_blocks - 1);
  slots[t] = block_table[blockIdx.x * max_num_blocks + col];
}

// Negative: the guard combined with && before the load.
__global__ void slot_mapping_and(int64_t *slots, const int *block_table, const int64_t *positions,
                                 int num_tokens, int block_table_stride, int block_size) {
  int t = threadIdx.x;
  int64_t col = positions[t] / block_size;
  if (t < num_tokens && col < block_table_stride)
    slots[t] = block_table[blockIdx.x * block_table_stride + col];
}
