// Launches through a kernel pointer, with a grid assembled axis by axis (the
// GPTQ launchers): `dim3 grid; grid.z = DIVIDE(size_k, BLOCK);` then
// `kernel<<<grid, block>>>(...)` where kernel is a local set to one of
// several kernels, or returned by a picker whose every return is a kernel.
// Each kernel gets the launch's facts. A `num_blocks_per_seq` is no page
// count.
// RUN: %if kvlint %{ %kvlint --dump-ir %s > %t || true %}
// RUN: %if kvlint %{ FileCheck %s < %t %}
// RUN: %if kvlint %{ %kvlint --checks=KV001 %s %}
#define DIVIDE(x, size) (((x) + (size) - 1) / (size))
#define BLOCK 128

// CHECK-LABEL: function gemm4 (cuda, kernel)
// CHECK: (LaunchIdx:u32 blockIdx.z @size_k/128)
// CHECK-LABEL: function gemm8 (cuda, kernel)
// CHECK: (LaunchIdx:u32 blockIdx.z @size_k/128)
// CHECK-LABEL: function pick
__global__ void gemm4(const unsigned *b_q, unsigned *c, int size_k, int size_n) {
  c[threadIdx.x] = b_q[blockIdx.z * BLOCK / 8 * size_n + threadIdx.x];
}
__global__ void gemm8(const unsigned *b_q, unsigned *c, int size_k, int size_n) {
  c[threadIdx.x] = b_q[blockIdx.z * BLOCK / 4 * size_n + threadIdx.x];
}
typedef void (*gemm_fn)(const unsigned *, unsigned *, int, int);
gemm_fn pick(int bit) {
  if (bit == 4) return gemm4;
  if (bit == 8) return gemm8;
  return nullptr;
}
void gemm(const unsigned *b_q, unsigned *c, int size_k, int size_n, int bit) {
  dim3 blockDim, gridDim;
  blockDim.x = BLOCK;
  gridDim.x = DIVIDE(size_n, BLOCK);
  gridDim.z = DIVIDE(size_k, BLOCK);
  gemm_fn kernel = pick(bit);
  kernel<<<gridDim, blockDim>>>(b_q, c, size_k, size_n);
}

// CHECK-LABEL: function rec4 (cuda, kernel)
// CHECK: (LaunchIdx:u32 blockIdx.y @height/128)
// CHECK-LABEL: function rec8 (cuda, kernel)
// CHECK: (LaunchIdx:u32 blockIdx.y @height/128)
__global__ void rec4(unsigned *out, int height, int width) {
  out[width * (BLOCK * blockIdx.y) + threadIdx.x] = 0;
}
__global__ void rec8(unsigned *out, int height, int width) {
  out[width * (BLOCK * blockIdx.y) + threadIdx.x] = 0;
}
void reconstruct(unsigned *out, int height, int width, int bit) {
  dim3 blockDim, gridDim;
  blockDim.x = BLOCK;
  gridDim.y = DIVIDE(height, BLOCK);
  gridDim.x = DIVIDE(width, BLOCK);
  auto kernel = rec4;
  if (bit == 8)
    kernel = rec8;
  kernel<<<gridDim, blockDim>>>(out, height, width);
}

// The grid spans num_blocks_per_seq, a count of CUDA blocks (Envelope.Grid),
// not of KV pages: blockIdx.y * 256 stays below 2^31.
// CHECK-LABEL: function count_tokens (cuda, kernel)
// CHECK: (LaunchIdx:u32 blockIdx.y @num_blocks_per_seq)
template <int kNumTokensPerBlock>
__global__ void count_tokens(int *counts, int num_blocks_per_seq) {
  counts[blockIdx.y * kNumTokensPerBlock + threadIdx.x] = 0;
}
void count(int *counts, int num_blocks_per_seq) {
  count_tokens<256><<<dim3(8, num_blocks_per_seq), 256>>>(counts, num_blocks_per_seq);
}
