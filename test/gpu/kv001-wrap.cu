// KV001 end to end: kvlint flags the buggy store and not the fixed one, and
// on a GPU the buggy store lands at the wrapped address while the fixed one
// lands where it should. The shape is the DeepSeek MLA incident: a bf16 page
// stride of 74,880 elements, int32 page ids, page 28,680 is past 2^31.
// RUN: %if kvlint %{ not %kvlint %s | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if cuda-gpu %{ %nvcc %s -o %t && %t | FileCheck %s --check-prefix=GPU %}
#include <cstdint>

constexpr int kPageStride = 74880; // bf16 elements per page

__global__ void store_buggy(uint16_t *cache, const int *pages, uint16_t marker) {
  int page = pages[blockIdx.x];
  // CHECK: kv001-wrap.cu:[[@LINE+1]]:9: warning: 32-bit signed product 'page * kPageStride' {{.*}}[kvlint-narrowed-index-overflow]
  cache[page * kPageStride + threadIdx.x] = marker;
}

__global__ void store_fixed(uint16_t *cache, const int *pages, uint16_t marker) {
  int page = pages[blockIdx.x];
  cache[static_cast<int64_t>(page) * kPageStride + threadIdx.x] = marker;
}

#ifndef __KVLINT__
#include <cstdio>
#include <cuda_runtime.h>

// GPU: page 28680 offset 2147558400 (int32 max 2147483647)
// GPU: buggy: correct=0 wrapped=1
// GPU: fixed: correct=1 wrapped=0
int main() {
  const int page = 28680;
  const int64_t correct = int64_t(page) * kPageStride;
  const int64_t wrapped = int64_t(int32_t(uint32_t(correct)));
  printf("page %d offset %lld (int32 max %d)\n", page, (long long)correct, INT32_MAX);
  // Put the cache in the middle of one allocation, so both the right and
  // the wrapped address are inside it and neither faults.
  const int64_t before = -wrapped + 1024, total = before + correct + 1024;
  uint16_t *buf;
  int *pages;
  if (cudaMalloc(&buf, total * sizeof(uint16_t)) != cudaSuccess) {
    printf("cannot allocate %lld bytes\n", (long long)(total * 2));
    return 1;
  }
  cudaMalloc(&pages, sizeof(int));
  cudaMemcpy(pages, &page, sizeof(int), cudaMemcpyHostToDevice);
  uint16_t *cache = buf + before;
  for (int fixed = 0; fixed < 2; ++fixed) {
    cudaMemset(buf, 0, total * sizeof(uint16_t));
    if (fixed)
      store_fixed<<<1, 1>>>(cache, pages, 0xBEEF);
    else
      store_buggy<<<1, 1>>>(cache, pages, 0xBEEF);
    if (cudaDeviceSynchronize() != cudaSuccess) {
      printf("kernel failed\n");
      return 1;
    }
    uint16_t at_correct = 0, at_wrapped = 0;
    cudaMemcpy(&at_correct, cache + correct, 2, cudaMemcpyDeviceToHost);
    cudaMemcpy(&at_wrapped, cache + wrapped, 2, cudaMemcpyDeviceToHost);
    printf("%s: correct=%d wrapped=%d\n", fixed ? "fixed" : "buggy", at_correct == 0xBEEF,
           at_wrapped == 0xBEEF);
  }
  cudaFree(buf);
  cudaFree(pages);
  return 0;
}
#endif
