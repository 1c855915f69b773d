// KV001 end to end: kvlint flags the buggy stores and not the fixed one, and
// on a GPU the buggy stores land at the wrapped address while the fixed one
// lands where it should. The shape is the DeepSeek MLA incident: a bf16 page
// stride of 74,880 elements and int32 page ids.
//
// Signed overflow is undefined, so a compiler may also widen the product on
// its own; clang's PTX (the PTX leg, which CI runs) shows the 32-bit
// mul.lo.s32 of the buggy kernel and the mul.wide.s32 of the fixed one.
// Unsigned arithmetic wraps by definition.
// RUN: %if kvlint %{ not %kvlint %s | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if cuda-gpu %{ %nvcc %s -o %t && %t unsigned | FileCheck %s --check-prefix=GPU-U32 %}
// RUN: %if cuda-gpu %{ %nvcc %s -o %t && %t signed | FileCheck %s --check-prefix=GPU-S32 %}
// RUN: %if clang %{ %clang-ptx %s | FileCheck %s --check-prefix=PTX %}
// PTX-LABEL: .entry _Z11store_buggy
// PTX: mul.lo.s32 {{.*}}74880;
// PTX-NEXT: mul.wide.s32
// PTX-LABEL: .entry _Z11store_fixed
// PTX-NOT: mul.lo.s32
// PTX: mul.wide.s32 {{.*}}149760;
#include <cstdint>

constexpr int kPageStride = 74880; // bf16 elements per page

__global__ void store_buggy(uint16_t *cache, const int *pages, uint16_t marker) {
  int page = pages[blockIdx.x];
  // CHECK: kv001-wrap.cu:[[@LINE+1]]:9: warning: 32-bit signed product 'page * kPageStride' {{.*}}[kvlint-narrowed-index-overflow]
  cache[page * kPageStride] = marker;
}

__global__ void store_buggy_u32(uint16_t *cache, const unsigned *pages, unsigned page_stride,
                                uint16_t marker) {
  unsigned page = pages[blockIdx.x];
  // CHECK: kv001-wrap.cu:[[@LINE+1]]:9: warning: 32-bit unsigned product 'page * page_stride' {{.*}}[kvlint-narrowed-index-overflow]
  cache[page * page_stride] = marker;
}

__global__ void store_fixed(uint16_t *cache, const int *pages, uint16_t marker) {
  int page = pages[blockIdx.x];
  cache[static_cast<int64_t>(page) * kPageStride] = marker;
}

#ifndef __KVLINT__
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

// GPU-S32: page 28680 offset 2147558400 wraps to -2147408896
// GPU-S32: buggy: correct=0 wrapped=1
// GPU-S32: fixed: correct=1 wrapped=0
// GPU-U32: page 57400 offset 4298112000 wraps to 3144704
// GPU-U32: buggy: correct=0 wrapped=1
// GPU-U32: fixed: correct=1 wrapped=0
int main(int argc, char **argv) {
  const bool u32 = argc > 1 && strcmp(argv[1], "unsigned") == 0;
  const int page = u32 ? 57400 : 28680; // first page past 2^32 / 2^31 elements
  const int64_t correct = int64_t(page) * kPageStride;
  const int64_t wrapped = u32 ? int64_t(uint32_t(correct)) : int64_t(int32_t(uint32_t(correct)));
  printf("page %d offset %lld wraps to %lld\n", page, (long long)correct, (long long)wrapped);
  // Put the cache inside one allocation so that both the right and the
  // wrapped address are in it and neither faults.
  const int64_t before = wrapped < 0 ? -wrapped + 1024 : 0;
  const int64_t total = before + correct + 1024;
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
    else if (u32)
      store_buggy_u32<<<1, 1>>>(cache, (const unsigned *)pages, kPageStride, 0xBEEF);
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
