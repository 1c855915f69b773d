// KV001 codegen oracle on AMD: the HIP pairs of test/KV001/hip.hip (and the DeepSeek MLA shape
// of test/gpu/kv001-wrap.cu), compiled by clang-19 for gfx942 without ROCm.  The buggy kernels
// form the page offset with a 32-bit product (v_mul_lo_u32 / s_mul_i32) that is then
// sign- or zero-extended into the 64-bit address; the fixed twins widen the index first and
// the product is 64-bit (v_mad_i64_i32 / v_mad_u64_u32, s_mul_hi_i32 + s_mul_i32).
// Indices come from the amdgcn builtins, as in hip.hip's second pair, so no HIP header is
// needed; each kernel is extern "C" so the labels are plain.
//
// RUN: %if clang %{ %clang-gfx942 %s | FileCheck %s %}
#include <stdint.h>
#define __global__ __attribute__((global))
#define BLOCK_X __builtin_amdgcn_workgroup_id_x()
#define THREAD_X __builtin_amdgcn_workitem_id_x()

// hip.hip's pair: the page is read at the block index (one per workgroup, so the scalar unit
// multiplies).  Buggy: one 32-bit s_mul_i32, no high half.
// CHECK-LABEL: {{^}}hip_store:
// CHECK-NOT: s_mul_hi
// CHECK: s_mul_i32 [[LO:s[0-9]+]], s{{[0-9]+}}, s{{[0-9]+}}
// CHECK-NOT: s_mul_hi
// CHECK: global_store_dword
// CHECK: s_endpgm
extern "C" __global__ void hip_store(float *cache, const int *block_table, int page_stride) {
  int page = block_table[BLOCK_X];
  cache[page * page_stride + THREAD_X] = 0.f;
}

// Fixed: the high half of the product is formed too (a 64-bit offset).
// CHECK-LABEL: {{^}}hip_store_fixed:
// CHECK: s_mul_hi_i32
// CHECK: s_mul_i32
// CHECK: global_store_dword
// CHECK: s_endpgm
extern "C" __global__ void hip_store_fixed(float *cache, const int *block_table, int page_stride) {
  int page = block_table[BLOCK_X];
  cache[static_cast<int64_t>(page) * page_stride + THREAD_X] = 0.f;
}

// The same pair with the page read per lane (the vector unit multiplies).  Buggy: a 32-bit
// v_mul_lo_u32 whose result is sign-extended (v_ashrrev_i32 31) into the address.
// CHECK-LABEL: {{^}}lane_store:
// CHECK-NOT: v_mad_{{[iu]}}64_{{[iu]}}32
// CHECK: global_load_dword [[PAGE:v[0-9]+]]
// CHECK: v_mul_lo_u32 [[PROD:v[0-9]+]], [[PAGE]], s{{[0-9]+}}
// CHECK-NEXT: v_ashrrev_i32_e32 v{{[0-9]+}}, 31, [[PROD]]
// CHECK-NOT: v_mad_{{[iu]}}64_{{[iu]}}32
// CHECK: global_store_dword
// CHECK: s_endpgm
extern "C" __global__ void lane_store(float *cache, const int *pages, int page_stride) {
  int page = pages[THREAD_X];
  cache[page * page_stride] = 0.f;
}

// Fixed: one signed 32 x 32 -> 64 multiply-add, no 32-bit product.
// CHECK-LABEL: {{^}}lane_store_fixed:
// CHECK-NOT: v_mul_lo_u32
// CHECK: global_load_dword [[PAGE:v[0-9]+]]
// CHECK: v_mad_i64_i32 v[{{[0-9]+:[0-9]+}}], s[{{[0-9]+:[0-9]+}}], [[PAGE]], s{{[0-9]+}}
// CHECK-NOT: v_mul_lo_u32
// CHECK: s_endpgm
extern "C" __global__ void lane_store_fixed(float *cache, const int *pages, int page_stride) {
  int page = pages[THREAD_X];
  cache[static_cast<int64_t>(page) * page_stride] = 0.f;
}

// The DeepSeek MLA store (test/gpu/kv001-wrap.cu): a bf16 page stride of 74,880 elements and
// int32 page ids; it wraps from page 28,680 on.
// CHECK-LABEL: {{^}}mla_store:
// CHECK: global_load_dword [[PAGE:v[0-9]+]]
// CHECK: v_mul_lo_u32 [[PROD:v[0-9]+]], [[PAGE]], s{{[0-9]+}}
// CHECK-NEXT: v_ashrrev_i32_e32 v{{[0-9]+}}, 31, [[PROD]]
// CHECK-NOT: v_mad_{{[iu]}}64_{{[iu]}}32
// CHECK: global_store_short
// CHECK: s_endpgm
extern "C" __global__ void mla_store(uint16_t *cache, const int *pages, uint16_t marker) {
  int page = pages[THREAD_X];
  cache[page * 74880] = marker;
}

// CHECK-LABEL: {{^}}mla_store_fixed:
// CHECK-NOT: v_mul_lo_u32
// CHECK: v_mad_i64_i32
// CHECK-NOT: v_mul_lo_u32
// CHECK: global_store_short
// CHECK: s_endpgm
extern "C" __global__ void mla_store_fixed(uint16_t *cache, const int *pages, uint16_t marker) {
  int page = pages[THREAD_X];
  cache[static_cast<int64_t>(page) * 74880] = marker;
}

// Unsigned: the 32-bit product is zero-extended (no sign extension, still 32 bits; wraps past
// 2^32).  Fixed: unsigned 32 x 32 -> 64.
// CHECK-LABEL: {{^}}lane_store_u32:
// CHECK-NOT: v_mad_{{[iu]}}64_{{[iu]}}32
// CHECK: v_mul_lo_u32
// CHECK-NOT: v_mad_{{[iu]}}64_{{[iu]}}32
// CHECK: s_endpgm
extern "C" __global__ void lane_store_u32(uint16_t *cache, const unsigned *pages, unsigned stride) {
  unsigned page = pages[THREAD_X];
  cache[page * stride] = 1;
}

// CHECK-LABEL: {{^}}lane_store_u32_fixed:
// CHECK-NOT: v_mul_lo_u32
// CHECK: v_mad_u64_u32
// CHECK-NOT: v_mul_lo_u32
// CHECK: s_endpgm
extern "C" __global__ void lane_store_u32_fixed(uint16_t *cache, const unsigned *pages, unsigned stride) {
  unsigned page = pages[THREAD_X];
  cache[static_cast<uint64_t>(page) * stride] = 1;
}
