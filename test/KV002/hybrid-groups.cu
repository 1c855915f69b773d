// KV002 evidence, positive: a hybrid model's two KV-cache groups. The
// kernel maps slots for every group, and each group's table, row width and
// block size are read per group (vLLM's model runner V2 idiom): a narrow
// group's row is narrower than the request's positions, so the unguarded
// column is reported at the default level, with the evidence in a note.
// RUN: %if kvlint %{ not %kvlint --checks=KV002 %s 2>&1 | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags 2>&1 | FileCheck %s --check-prefix=TIDY --implicit-check-not=warning: %}
#include <cstdint>

__global__ void slot_mapping_groups(int64_t *slot_mappings, const int *const *block_tables,
                                    const int *block_table_strides, const int *block_sizes,
                                    const int64_t *positions, const int *req_idx, int max_tokens) {
  int g = blockIdx.y;
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int *table = block_tables[g];
  int width = block_table_strides[g];
  int block_size = block_sizes[g];
  int64_t pos = positions[t];
  // CHECK: hybrid-groups.cu:[[@LINE+3]]:19: warning: table load reads column 'pos / block_size', a position divided by a block size, with no bound against the row width; past the row it reads the next row's blocks or faults; guard 'col < width' and emit the pad slot (-1) [kvlint-unguarded-table-load]
  // CHECK: note: reported at the default level: the table's pointer is read from an array of tables (one per KV-cache group)
  // TIDY: hybrid-groups.cu:[[@LINE+1]]:19: warning: table load reads column 'pos / block_size'
  int64_t block = table[req_idx[t] * width + pos / block_size];
  slot_mappings[(int64_t)g * max_tokens + t] = block * block_size + pos % block_size;
}

// Negative: the same kernel with the column bounded by the group's width.
__global__ void slot_mapping_groups_fixed(int64_t *slot_mappings, const int *const *block_tables,
                                          const int *block_table_strides, const int *block_sizes,
                                          const int64_t *positions, const int *req_idx,
                                          int max_tokens) {
  int g = blockIdx.y;
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int *table = block_tables[g];
  int width = block_table_strides[g];
  int block_size = block_sizes[g];
  int64_t pos = positions[t];
  int64_t col = pos / block_size;
  int64_t slot = -1;
  if (col < width)
    slot = table[req_idx[t] * width + col] * (int64_t)block_size + pos % block_size;
  slot_mappings[(int64_t)g * max_tokens + t] = slot;
}
