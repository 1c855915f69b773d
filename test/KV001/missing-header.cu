// KV001 facet: a missing header (torch, a sibling header) never stops the
// analysis of the rest of the file and is no finding; -v names it once.
// RUN: %if kvlint %{ not %kvlint %s 2>%t.err | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if kvlint %{ FileCheck %s --check-prefix=QUIET < %t.err %}
// RUN: %if kvlint %{ not %kvlint -v %s 2>&1 >/dev/null | FileCheck %s --check-prefix=VERBOSE %}
#include <torch/all.h>
#include <ATen/cuda/CUDAContext.h>
#include "sibling_header_that_is_not_here.cuh"
#include <cstdint>

// QUIET: kvlint: {{[0-9]+}} note(s) about missing headers
// VERBOSE: note: {{.*}}missing-header.cu: headers not found, analysed without them: ATen/cuda/CUDAContext.h cuda_bf16.h cutlass/cutlass.h sibling_header_that_is_not_here.cuh torch/all.h
// VERBOSE-NOT: headers not found

// Positive: still found after three missing includes.
__global__ void after_missing(float *cache, const int *block_table, int page_stride) {
  int page = block_table[blockIdx.x];
  // CHECK: missing-header.cu:[[@LINE+1]]:9: warning: 32-bit signed product 'page * page_stride' is used as a memory offset and wraps past 2^31 in the training profile: 'page' <= 8,388,607 ('block_table' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'page_stride' <= 16,384 ('page_stride' is named like it: Envelope.Stride = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  cache[page * page_stride] = 0.f;
}

// Negative: a launcher that uses torch types does not parse; it is skipped.
void launcher(torch::Tensor &cache, torch::Tensor &block_table) {
  int stride = cache.stride(0);
  after_missing<<<1, 1>>>(cache.data_ptr<float>(), block_table.data_ptr<int>(), stride);
}

// Positive: the toolkit's conversions and fast-math intrinsics, and CUTLASS's
// attribute macros, are declared by the prelude: without cuda_bf16.h or
// cutlass/cutlass.h the store below still parses (an undeclared call made the
// whole statement, and with it the offset, disappear).
#include <cuda_bf16.h>
#include <cutlass/cutlass.h>
CUTLASS_DEVICE float scaled(float x) { return __expf(x) * rsqrtf(x); }
__global__ void store_bf16(__nv_bfloat16 *cache, const int *block_table, int page_stride,
                           const float *x) {
  int page = block_table[blockIdx.x];
  // CHECK: missing-header.cu:[[@LINE+1]]:9: warning: 32-bit signed product 'page * page_stride' is used as a memory offset and wraps past 2^31 in the training profile: 'page' <= 8,388,607 ('block_table' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'page_stride' <= 16,384 ('page_stride' is named like it: Envelope.Stride = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  cache[page * page_stride + threadIdx.x] = __float2bfloat16(scaled(x[threadIdx.x]));
}

// Negative: the same store with the page widened.
__global__ void store_bf16_fixed(__nv_bfloat16 *cache, const int *block_table,
                                 int page_stride, const float *x) {
  int64_t page = block_table[blockIdx.x];
  cache[page * page_stride + threadIdx.x] = __float2bfloat16(scaled(x[threadIdx.x]));
}

// The host API a launcher sizes its launch with is declared by the prelude:
// this launcher parses whole (no note names it), so its grid is read.
// VERBOSE-NOT: function 'smem_launcher'
__global__ void smem_rows(float *out, int row_width) {
  extern __shared__ float tile[];
  tile[threadIdx.x] = 0.f;
  // CHECK: missing-header.cu:[[@LINE+1]]:7: warning: 32-bit unsigned product 'blockIdx.x * row_width' is used as a memory offset and wraps past 2^32 in the training profile: 'blockIdx.x' <= 1,048,575 (the grid spans num_tokens ('num_tokens' is named like it: Envelope.Tokens = 1,048,576)) times 'row_width' <= 8,191 ('row_width' is bounded by no fact: below Envelope.Unknown = 8,192); widen 'blockIdx.x' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  out[blockIdx.x * row_width + threadIdx.x] = tile[threadIdx.x] * float(M_LOG2E);
}
// Negative twin: the row widened before it multiplies, same launcher.
__global__ void smem_rows_wide(float *out, int row_width) {
  extern __shared__ float tile[];
  tile[threadIdx.x] = 0.f;
  out[static_cast<int64_t>(blockIdx.x) * row_width + threadIdx.x] = tile[threadIdx.x];
}
void smem_launcher(float *out, int num_tokens, int row_width, cudaStream_t stream) {
  int dev = 0, sms = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  cudaFuncSetAttribute(smem_rows, cudaFuncAttributeMaxDynamicSharedMemorySize, 96 * 1024);
  smem_rows<<<num_tokens, 256, 96 * 1024, stream>>>(out, row_width);
  smem_rows_wide<<<num_tokens, 256, 96 * 1024, stream>>>(out, row_width);
  cudaMemsetAsync(out, 0, 16, stream);
}
