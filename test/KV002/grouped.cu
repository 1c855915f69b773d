// KV002: one finding per column of a function. Two tables read at the same
// unguarded column (the K and V tables of two cache groups) are one root
// cause, fixed by one guard: the first load is the finding, the others are
// its notes. A second column is a finding of its own. (kvlint only: the
// clang-tidy plugin reports every site, as it does for KV001.)
// RUN: %if kvlint %{ not %kvlint --checks=KV002 %s | FileCheck %s --implicit-check-not=warning: %}
#include <cstdint>

__global__ void two_groups(int64_t *slots, const int *const *tables, const int64_t *pos,
                           int width, int block, int block2) {
  int64_t col = pos[threadIdx.x] / block;
  int64_t col2 = pos[threadIdx.x] / block2;
  const int *k_table = tables[0];
  const int *v_table = tables[1];
  slots[threadIdx.x] = k_table[blockIdx.x * width + col];
  // CHECK: grouped.cu:[[@LINE-1]]:24: warning: table load reads column 'col',{{.*}}; 1 more load in this function reads column 'col' the same way (notes) [kvlint-unguarded-table-load]
  // CHECK: grouped.cu:[[@LINE+1]]:28: note: and here: table load reads column 'col',
  slots[threadIdx.x + 1] = v_table[blockIdx.x * width + col];
  slots[threadIdx.x + 2] = k_table[blockIdx.x * width + col2];
  // CHECK: grouped.cu:[[@LINE-1]]:28: warning: table load reads column 'col2',
}
