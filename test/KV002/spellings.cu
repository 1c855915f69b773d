// KV002 facet: the ways a table read is spelled — row pointers, __ldg, CSR
// page tables, helper accessors — and the idioms that are not table reads.
// RUN: %if kvlint %{ not %kvlint %s | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if kvlint %{ not %kvlint --option=kvlint-unguarded-table-load.Level=latent %s | FileCheck %s --check-prefixes=CHECK,LATENT --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -config="{CheckOptions: {kvlint-unguarded-table-load.Level: latent}}" -- %cuda-flags | FileCheck %s --check-prefixes=CHECK,LATENT --implicit-check-not=warning: %}
#include <cstdint>

// Positive: the row pointer computed first.
__global__ void row_pointer(int64_t *slots, const int *block_table, const int64_t *positions,
                            int block_table_stride, int block_size) {
  const int *row = block_table + blockIdx.x * block_table_stride;
  int64_t pos = positions[threadIdx.x];
  // CHECK: spellings.cu:[[@LINE+1]]:24: warning: table load reads column 'pos / block_size', a position divided by a block size, with no bound against the row width; past the row it reads the next row's blocks or faults; guard 'col < width' and emit the pad slot (-1) [kvlint-unguarded-table-load]
  slots[threadIdx.x] = row[pos / block_size];
}

// Negative: the row pointer with the column bounded first.
__global__ void row_pointer_guarded(int64_t *slots, const int *block_table,
                                    const int64_t *positions, int block_table_stride,
                                    int block_size) {
  const int *row = block_table + blockIdx.x * block_table_stride;
  int64_t col = positions[threadIdx.x] / block_size;
  slots[threadIdx.x] = col < block_table_stride ? row[col] : -1;
}

// Positive: through __ldg.
__global__ void ldg_read(int64_t *slots, const int *block_table, const int64_t *positions,
                         int block_table_stride, int block_size) {
  int64_t pos = positions[threadIdx.x];
  // CHECK: spellings.cu:[[@LINE+1]]:24: warning: table load reads column 'pos / block_size', a position divided by a block size, with no bound against the row width; past the row it reads the next row's blocks or faults; guard 'col < width' and emit the pad slot (-1) [kvlint-unguarded-table-load]
  slots[threadIdx.x] = __ldg(block_table + blockIdx.x * block_table_stride + pos / block_size);
}

// Negative: __ldg with the column clamped by the width.
__global__ void ldg_clamped(int64_t *slots, const int *block_table, const int64_t *positions,
                            int max_num_blocks, int block_size) {
  int64_t col = min(positions[threadIdx.x] / block_size, (int64_t)max_num_blocks - 1);
  slots[threadIdx.x] = __ldg(block_table + blockIdx.x * max_num_blocks + col);
}

// Positive: a CSR page table (indptr / indices) read past indptr[b + 1].
__global__ void csr_read(int64_t *slots, const int *kv_indptr, const int *kv_indices,
                         const int64_t *positions, int page_size) {
  int b = blockIdx.x;
  int64_t pos = positions[threadIdx.x];
  // LATENT: spellings.cu:[[@LINE+1]]:24: warning: table load reads column 'pos / page_size', a position divided by a block size, with no bound against the row width; past the row it reads the next row's blocks or faults; latent: in bounds while the scheduler allocates cdiv(len, block) columns; nothing here checks it (nothing in this file shows a row narrower than the position's span); guard 'col < width' and emit the pad slot (-1) [kvlint-unguarded-table-load]
  slots[threadIdx.x] = kv_indices[kv_indptr[b] + pos / page_size];
}

// Negative: the CSR read bounded by the row's own length.
__global__ void csr_read_guarded(int64_t *slots, const int *kv_indptr, const int *kv_indices,
                                 const int64_t *positions, int page_size) {
  int b = blockIdx.x;
  int64_t page = positions[threadIdx.x] / page_size;
  if (page < kv_indptr[b + 1] - kv_indptr[b])
    slots[threadIdx.x] = kv_indices[kv_indptr[b] + page];
}

// Negative: the guard lives in a small "protective" accessor.
struct BlockTable {
  const int *data;
  int width;
  __device__ int at(int row, int64_t col) const {
    return col < width ? data[row * width + col] : -1;
  }
};
__global__ void accessor_guarded(int64_t *slots, BlockTable t, const int64_t *positions,
                                 int block_size) {
  slots[threadIdx.x] = t.at(blockIdx.x, positions[threadIdx.x] / block_size);
}

// Positive: an accessor without a guard.
struct RawTable {
  const int *data;
  int width;
  __device__ int at(int row, int64_t col) const {
    return data[row * width + col];
  }
};
__global__ void accessor_raw(int64_t *slots, RawTable t, const int64_t *positions, int block_size) {
  // FIXME: the load sits in the accessor, whose column is a parameter; the
  // division is in the caller. Reported once inlined, at the accessor.
  slots[threadIdx.x] = t.at(blockIdx.x, positions[threadIdx.x] / block_size);
  // CHECK: spellings.cu:78:12: warning: {{.*}}[kvlint-unguarded-table-load]
}

// Latent: the paged-attention loop: block index bounded by
// cdiv(seq_len, block_size), which is inside the row only while the table
// spans the sequence (a scheduler invariant). Silent by default, reported at
// the latent level.
__global__ void paged_attention_loop(float *out, const float *k_cache, const int *block_tables,
                                     const int *seq_lens, int max_num_blocks_per_seq,
                                     int block_size, int64_t block_stride) {
  int seq_len = seq_lens[blockIdx.x];
  int num_blocks = (seq_len + block_size - 1) / block_size;
  const int *row = block_tables + blockIdx.x * max_num_blocks_per_seq;
  float acc = 0.f;
  for (int b = threadIdx.x; b < num_blocks; b += blockDim.x) {
    // LATENT: spellings.cu:[[@LINE+1]]:20: warning: table load reads column 'b', a loop counter bounded by 'num_blocks', the sequence length in blocks, not by the row width; it stays in the row only while the table spans the whole sequence; guard 'col < width' and emit the pad slot (-1) [kvlint-unguarded-table-load]
    int64_t phys = row[b];
    acc += k_cache[phys * block_stride];
  }
  out[blockIdx.x] = acc;
}

// Negative: a table read at a constant column.
__global__ void first_block(int64_t *out, const int *block_table, int block_table_stride) {
  out[blockIdx.x] = block_table[blockIdx.x * block_table_stride + 0];
}

// Negative: vectorized loads at tid / 4 are lanes, not positions.
__global__ void vector_lanes(float *out, const float4 *in) {
  float4 v = in[threadIdx.x / 4];
  out[threadIdx.x] = v.x;
}
