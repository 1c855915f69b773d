// KV002 facet: an array in shared memory or registers is a CTA's scratch,
// never a block table the scheduler fills: a 2-D `__shared__` array, a struct
// laid over the dynamic shared buffer (`Storage &s = *reinterpret_cast<Storage
// *>(smem_buf)`, CUTLASS's SharedStorage), also when a template leaves the
// struct's type dependent. Positives beside them: the same struct laid over a
// global pointer, and tables read from an array of per-group tables.
// An array the kernel itself writes is its scratch too, also where the
// frontend cannot see its type (lmdeploy's sm90 GEMM epilogue: a struct laid
// over the `char *smem_buf` parameter its caller fills from extern
// __shared__).
// RUN: %if kvlint %{ not %kvlint --checks=KV002 %s | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --implicit-check-not=warning: %}
#include <cstdint>

struct Storage {
  float scratch[2][256];
};

// Negative: a 2-D shared array.
__global__ void scratch_rows(float *out, const int64_t *pos, int block) {
  __shared__ float rows[4][256];
  out[threadIdx.x] = rows[blockIdx.y][pos[threadIdx.x] / block];
}

// Negative: a struct over the dynamic shared buffer.
__global__ void scratch_struct(float *out, const int64_t *pos, int block) {
  extern __shared__ char smem_buf[];
  Storage &storage = *reinterpret_cast<Storage *>(smem_buf);
  out[threadIdx.x] = storage.scratch[blockIdx.y][pos[threadIdx.x] / block];
}

// Negative: the same, the struct's type a template parameter.
template <class S>
__global__ void scratch_dependent(float *out, const int64_t *pos, int block) {
  extern __shared__ char smem_buf[];
  S &storage = *reinterpret_cast<S *>(smem_buf);
  out[threadIdx.x] = storage.scratch[blockIdx.y][pos[threadIdx.x] / block];
}

// Negative: lmdeploy's sm90 GEMM epilogue. The struct is laid over the
// `char *smem_buf` its caller passes and its type is a template's, so the
// member's extent is unknown here; but the kernel writes the rows it reads
// back (`scratch[row] = amax`), and a block table is never written by the
// kernels that read it.
template <class S>
__global__ void written_scratch(float *out, char *smem_buf, const int64_t *pos, int block) {
  S &storage = *reinterpret_cast<S *>(smem_buf);
  int row = pos[threadIdx.x] / block;
  float *scratch = storage.amax_scratch[threadIdx.y];
  scratch[row] = out[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = storage.amax_scratch[0][row] + storage.amax_scratch[1][row];
}

// Positive: the same read with no write: an array of per-group tables.
template <class S>
__global__ void unwritten_rows(int64_t *slots, char *buf, const int64_t *pos, int block) {
  S &storage = *reinterpret_cast<S *>(buf);
  int col = pos[threadIdx.x] / block;
  slots[threadIdx.x] = storage.tables[threadIdx.y][col];
  // CHECK: on-chip.cu:[[@LINE-1]]:{{[0-9]+}}: warning: table load reads column 'col'
}

// Positive: a struct of tables over a global buffer.
struct Tables {
  const int *rows[4];
};
__global__ void global_struct(int64_t *slots, const char *buf, const int64_t *pos, int width,
                              int block) {
  const Tables &t = *reinterpret_cast<const Tables *>(buf);
  slots[threadIdx.x] = t.rows[blockIdx.y][blockIdx.x * width + pos[threadIdx.x] / block];
  // CHECK: on-chip.cu:[[@LINE-1]]:{{[0-9]+}}: warning: table load reads column 'pos[threadIdx.x] / block'
}

// Positive: a table row read from an array of per-group tables.
__global__ void group_tables(int64_t *slots, const int *const *tables, const int64_t *pos,
                             int width, int block) {
  const int *t = tables[blockIdx.y];
  slots[threadIdx.x] = t[blockIdx.x * width + pos[threadIdx.x] / block];
  // CHECK: on-chip.cu:[[@LINE-1]]:{{[0-9]+}}: warning: table load reads column 'pos[threadIdx.x] / block'
}
