// KV002 facet: is the array a block table? A table-like name, a struct field
// and a CSR row start are evidence; per-group quantization scales read at
// k / group_size with k bounded by a loop over K, and other arrays indexed by
// a bounded quotient, are not tables.
// RUN: %if kvlint %{ not %kvlint %s | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --implicit-check-not=warning: %}
#include <cstdint>

struct PagedParams {
  const int *page_ids;
  const int *rows;
  const float *scales;
  int row_width;
  int page_size;
  int group_size;
};

// Positive: a table in a struct field, read at a loaded position.
__global__ void field_table(int64_t *slots, PagedParams p, const int64_t *positions) {
  int64_t pos = positions[threadIdx.x];
  slots[threadIdx.x] = p.page_ids[blockIdx.x * p.row_width + pos / p.page_size];
  // CHECK: evidence.cu:[[@LINE-1]]:24: warning: table load reads column 'pos / p.page_size', a position divided by a block size, with no bound against the row width{{.*}}[kvlint-unguarded-table-load]
}

// Positive: a struct field whose name says nothing is a table by its shape.
__global__ void field_by_shape(int64_t *slots, PagedParams p, const int64_t *positions) {
  int64_t pos = positions[threadIdx.x];
  slots[threadIdx.x] = p.rows[blockIdx.x * p.row_width + pos / p.page_size];
  // CHECK: evidence.cu:[[@LINE-1]]:24: warning: table load reads column 'pos / p.page_size'{{.*}}[kvlint-unguarded-table-load]
}

// Negative: the same field, column bounded by the row width.
__global__ void field_guarded(int64_t *slots, PagedParams p, const int64_t *positions) {
  int64_t col = positions[threadIdx.x] / p.page_size;
  if (col < p.row_width)
    slots[threadIdx.x] = p.rows[blockIdx.x * p.row_width + col];
}

// Negative: per-group quantization scales at k / group_size, k < K (a
// GPTQ/AWQ dequant loop): a bounded quotient into a scale array.
__global__ void group_scales(float *out, const float *w, const float *scales, int K,
                             int num_groups, int group_size) {
  float acc = 0.f;
  for (int k = threadIdx.x; k < K; k += blockDim.x)
    acc += w[(int64_t)blockIdx.x * K + k] * scales[blockIdx.x * num_groups + k / group_size];
  out[blockIdx.x] = acc;
}

// Negative: the scales in a struct field, still a bounded quotient.
__global__ void group_scales_field(float *out, const float *w, PagedParams p, int K) {
  float acc = 0.f;
  for (int k = threadIdx.x; k < K; k += blockDim.x)
    acc += w[k] * p.scales[k / p.group_size];
  out[blockIdx.x] = acc;
}

// Negative: per-expert metadata (an expert's first row) at a quotient of
// the routed row, bounded by the number of rows.
__global__ void per_expert(int64_t *out, const int *expert_first_row, int num_rows,
                           int block_size_m) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < num_rows)
    out[row] = expert_first_row[row / block_size_m];
}

// Positive: an optional table (flash-attention's paged KV): the row pointer
// is null without a table, and the table is the other arm.
__global__ void optional_table(int64_t *slots, const int *block_table, const int64_t *positions,
                               int block_table_stride, int block_size) {
  const int *row =
      block_table == nullptr ? nullptr : block_table + blockIdx.x * block_table_stride;
  int64_t pos = positions[threadIdx.x];
  slots[threadIdx.x] = row[pos / block_size];
  // CHECK: evidence.cu:[[@LINE-1]]:24: warning: table load reads column 'pos / block_size'{{.*}}[kvlint-unguarded-table-load]
}

// Negative: the optional table, column bounded by the row width.
__global__ void optional_table_guarded(int64_t *slots, const int *block_table,
                                       const int64_t *positions, int block_table_stride,
                                       int block_size) {
  const int *row =
      block_table == nullptr ? nullptr : block_table + blockIdx.x * block_table_stride;
  int64_t col = positions[threadIdx.x] / block_size;
  if (col < block_table_stride)
    slots[threadIdx.x] = row[col];
}

// Negative: a binary search over a sorted index table: (lo + hi) / 2 is a
// midpoint, not a position divided by a block size.
__global__ void binary_search(int *out, const int *sorted_indices, int n, int target) {
  int lo = 0, hi = n;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (sorted_indices[mid] >= target)
      hi = mid;
    else
      lo = mid + 1;
  }
  out[blockIdx.x] = lo;
}

// Negative: a rotary frequency table at dim >> 1 (one frequency per pair).
__global__ void rotary_table(float *out, const float *freq_table, int head_dim) {
  int dim_idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (dim_idx < head_dim)
    out[dim_idx] = freq_table[dim_idx >> 1];
}
