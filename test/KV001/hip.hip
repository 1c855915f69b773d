// KV001 facet: HIP spellings and the amdgcn index builtins.
// RUN: %if kvlint %{ not %kvlint %s | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %hip-flags | FileCheck %s --implicit-check-not=warning: %}
#include <hip/hip_runtime.h>
#include <cstdint>

// Positive: a block table read at hipBlockIdx_x.
__global__ void hip_store(float *cache, const int *block_table, int page_stride) {
  int page = block_table[hipBlockIdx_x];
  // CHECK: hip.hip:[[@LINE+1]]:9: warning: 32-bit signed product 'page * page_stride' is used as a memory offset and wraps past 2^31 in the training profile: 'page' <= 8,388,607 ('block_table' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'page_stride' <= 16,384 ('page_stride' is named like it: Envelope.Stride = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  cache[page * page_stride + hipThreadIdx_x] = 0.f;
}

// Positive: amdgcn builtins as indices.
__global__ void amdgcn_store(float *cache, const int *block_table, int page_stride) {
  int page = block_table[__builtin_amdgcn_workgroup_id_x()];
  // CHECK: hip.hip:[[@LINE+1]]:9: warning: 32-bit signed product 'page * page_stride' is used as a memory offset and wraps past 2^31 in the training profile: 'page' <= 8,388,607 ('block_table' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'page_stride' <= 16,384 ('page_stride' is named like it: Envelope.Stride = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  cache[page * page_stride + __builtin_amdgcn_workitem_id_x()] = 0.f;
}

// Negative: thread index times a small vector width.
__global__ void hip_lanes(float *out, int64_t base) {
  out[base + hipThreadIdx_x * 4] = 0.f;
}

// Negative: the fixed twin.
__global__ void hip_store_fixed(float *cache, const int *block_table, int page_stride) {
  int page = block_table[hipBlockIdx_x];
  cache[static_cast<int64_t>(page) * page_stride + hipThreadIdx_x] = 0.f;
}
