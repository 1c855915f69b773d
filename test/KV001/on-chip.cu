// KV001 facet: arrays on the chip (__shared__, extern __shared__, local
// arrays of constant extent) hold at most what a CTA holds; no index into
// them reaches 2^31 elements, whatever its bound. The same product into
// global memory is reported.
// RUN: %if kvlint %{ not %kvlint %s | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --implicit-check-not=warning: %}

__global__ void on_chip(float *cache, const int *block_table, int page_stride) {
  __shared__ float smem[4096];
  extern __shared__ float dyn[];
  float regs[8];
  const int page = block_table[blockIdx.x];
  smem[page * page_stride] = 1.f;                    // negative: static shared memory
  dyn[page * page_stride] = 1.f;                     // negative: dynamic shared memory
  float *p = &smem[0];
  p[page * page_stride] = 2.f;                       // negative: a pointer into shared memory
  regs[(page * page_stride) & 7] = 0.f;              // negative: a register array
  // CHECK: on-chip.cu:[[@LINE+1]]:9: warning: 32-bit signed product 'page * page_stride' is used as a memory offset and wraps past 2^31: {{.*}} [kvlint-narrowed-index-overflow]
  cache[page * page_stride] = smem[threadIdx.x] + regs[threadIdx.x & 7];
}
