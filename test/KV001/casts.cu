// KV001 facet: where the widening cast sits. A cast after the multiply does
// not help; C++ evaluates a * b * c left to right, so (int64_t)a * b * c is
// 64-bit all the way while a * b * (int64_t)c multiplies a * b in 32 bits.
// RUN: %if kvlint %{ not %kvlint %s | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --implicit-check-not=warning: %}
// The latent level (Level=latent) also reports what wraps only beyond the
// deployment envelope, read from a global option in both entry points.
// RUN: %if kvlint %{ not %kvlint --option=Level=latent %s | FileCheck %s --check-prefixes=CHECK,LATENT --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -config="{CheckOptions: {Level: latent, Profile: training}}" -- %cuda-flags | FileCheck %s --check-prefixes=CHECK,LATENT --implicit-check-not=warning: %}
#include <cstdint>

// Positive: cast of the product.
__global__ void cast_after(float *cache, const int *pages, int page_stride) {
  int page = pages[blockIdx.x];
  // CHECK: casts.cu:[[@LINE+1]]:30: warning: 32-bit signed product 'page * page_stride' is used as a memory offset and wraps past 2^31 in the training profile: 'page' <= 8,388,607 ('pages' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'page_stride' <= 16,384 ('page_stride' is named like it: Envelope.Stride = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  cache[static_cast<int64_t>(page * page_stride)] = 0.f;
}

// Positive: C-style cast of the product.
__global__ void c_cast_after(float *cache, const int *pages, int page_stride) {
  int page = pages[blockIdx.x];
  // CHECK: casts.cu:[[@LINE+1]]:19: warning: 32-bit signed product 'page * page_stride' is used as a memory offset and wraps past 2^31 in the training profile: 'page' <= 8,388,607 ('pages' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'page_stride' <= 16,384 ('page_stride' is named like it: Envelope.Stride = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  cache[(int64_t)(page * page_stride)] = 0.f;
}

// Latent: the cast comes last in a chain, but page * num_heads (a per-head
// scalar row, <= 4M pages x 128 heads = 2^29) wraps only beyond the envelope.
__global__ void cast_last(float *cache, const int *pages, int num_heads, int head_dim) {
  int page = pages[blockIdx.x];
  // LATENT: casts.cu:[[@LINE+1]]:9: warning: 32-bit signed product 'page * num_heads' is used as a memory offset and wraps past 2^31 only beyond the training envelope: 'page' <= {{.*}} times 'num_heads' <= 2,048 ('num_heads' is named like it: Envelope.Heads = 2,048); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  cache[page * num_heads * (int64_t)head_dim] = 0.f;
}

// Positive: a ?: whose arms are both int: the common type is int.
__global__ void ternary_common(float *cache, const int *pages, const int *alt, int page_stride, bool b) {
  // CHECK: casts.cu:[[@LINE+1]]:9: warning: 32-bit signed product '(b ? pages[0] : alt[0]) * page_stride' is used as a memory offset and wraps past 2^31 in the training profile: 'b ? pages[0] : alt[0]' <= 8,388,607 ('pages' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'page_stride' <= 16,384 ('page_stride' is named like it: Envelope.Stride = 16,384); widen 'b ? pages[0] : alt[0]' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  cache[(b ? pages[0] : alt[0]) * page_stride] = 0.f;
}

// Positive: cast to a 64-bit unsigned of an int product.
__global__ void cast_unsigned_after(float *cache, const int *pages, int page_stride) {
  int page = pages[blockIdx.x];
  // CHECK: casts.cu:[[@LINE+1]]:20: warning: 32-bit signed product 'page * page_stride' is used as a memory offset and wraps past 2^31 in the training profile: 'page' <= 8,388,607 ('pages' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'page_stride' <= 16,384 ('page_stride' is named like it: Envelope.Stride = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  cache[(uint64_t)(page * page_stride)] = 0.f;
}

// Negative: the cast comes first: 64-bit all the way.
__global__ void cast_first(float *cache, const int *pages, int num_heads, int head_dim) {
  int page = pages[blockIdx.x];
  cache[(int64_t)page * num_heads * head_dim] = 0.f;
}

// Negative: a ?: with one int64_t arm: the common type is int64_t.
__global__ void ternary_wide(float *cache, const int *pages, const int64_t *alt, int page_stride, bool b) {
  cache[(b ? pages[0] : alt[0]) * page_stride] = 0.f;
}

// Negative: the stride widened first, on the left.
__global__ void stride_first(float *cache, const int *pages, int page_stride) {
  int page = pages[blockIdx.x];
  cache[(int64_t)page_stride * page] = 0.f;
}

// Negative: widened with a functional cast.
__global__ void functional_cast(float *cache, const int *pages, int page_stride) {
  int page = pages[blockIdx.x];
  cache[int64_t(page) * page_stride] = 0.f;
}

// Negative: widened in a 64-bit local first.
__global__ void wide_local(float *cache, const int *pages, int page_stride) {
  const int64_t page = pages[blockIdx.x];
  cache[page * page_stride] = 0.f;
}
