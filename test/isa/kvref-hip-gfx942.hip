// kvref's HIP code on gfx942 (clang-19, no ROCm): the page offsets are 64-bit products.
//
// kvref forms every page offset in two places: slot_for_position() (the slot mapping: block id
// from the table x block size) and slot_destination() (the stores: page x page stride).  The
// kernels below call those two functions as the library does, per lane, next to "narrow" twins
// that do the same arithmetic in 32 bits, as the bugs kvlint's KV001 reports do.  In the fixed
// code the loaded block id feeds a 64-bit multiply-add and nothing is sign-extended after it;
// in the twins a v_mul_lo_u32 product is sign-extended (v_ashrrev_i32 31) into the address.
// The LIB prefix checks that the library's own kernels (slot_mapping_kernel and explicit
// instantiations of the store templates kernels/src/kvref_launch.cu launches) compile for gfx942
// and form 64-bit products; the dataflow checks are on the per-lane kernels above, which inline
// the same two functions.
//
// RUN: %if clang %{ %clang-gfx942 -I%S/../../kernels/include %s | FileCheck %s %}
// RUN: %if clang %{ %clang-gfx942 -I%S/../../kernels/include %s | FileCheck %s --check-prefix=LIB %}
#include "kvref/kv_store.cuh"
#include "kvref/slot_mapping.cuh"

#define THREAD_X __builtin_amdgcn_workitem_id_x()

// CHECK-LABEL: {{^}}kvref_slot:
// CHECK: global_load_dword [[B:v[0-9]+]], v[{{[0-9]+:[0-9]+}}], off
// CHECK-NOT: v_ashrrev_i32
// CHECK: v_mad_u64_u32 v[{{[0-9]+:[0-9]+}}], s[{{[0-9]+:[0-9]+}}], [[B]], s{{[0-9]+}}
// CHECK-NOT: v_ashrrev_i32
// CHECK: global_store_dwordx2
// CHECK: s_endpgm
extern "C" KVREF_GLOBAL void kvref_slot(const kvref_slot_group g, const int64_t* pos, int64_t* out) {
  const uint32_t t = THREAD_X;
  out[t] = kvref::slot_for_position(g, static_cast<int32_t>(t), pos[t], 1, 0, 1);
}

// The narrow twin: block * block_size in 32 bits.
KVREF_DEVICE inline int64_t slot_narrow(const kvref_slot_group& g, int32_t row, int64_t pos) {
  if (pos < 0) return -1;
  const int64_t col = pos / g.block_size;
  const int64_t off = pos - col * g.block_size;
  if (col >= static_cast<int64_t>(g.width)) return -1;
  const int32_t block = g.block_table[kvref::page_offset(row, g.row_stride) + col];
  if (block < 0) return -1;
  return block * g.block_size + off;
}

// CHECK-LABEL: {{^}}narrow_slot:
// CHECK: global_load_dword [[B:v[0-9]+]], v[{{[0-9]+:[0-9]+}}], off
// CHECK-NOT: v_mad_u64_u32 v[{{[0-9]+:[0-9]+}}], s[{{[0-9]+:[0-9]+}}], [[B]]
// CHECK: v_mul_lo_u32 [[P:v[0-9]+]], [[B]], s{{[0-9]+}}
// CHECK: v_ashrrev_i32_e32 v{{[0-9]+}}, 31, [[P]]
// CHECK: global_store_dwordx2
// CHECK: s_endpgm
extern "C" KVREF_GLOBAL void narrow_slot(const kvref_slot_group g, const int64_t* pos, int64_t* out) {
  const uint32_t t = THREAD_X;
  out[t] = slot_narrow(g, static_cast<int32_t>(t), pos[t]);
}

// CHECK-LABEL: {{^}}kvref_dest:
// CHECK-NOT: v_ashrrev_i32
// CHECK: v_mad_u64_u32
// CHECK-NOT: v_ashrrev_i32
// CHECK: global_store_byte
// CHECK: s_endpgm
extern "C" KVREF_GLOBAL void kvref_dest(const kvref::ScatterParams p, const int64_t* slots, unsigned char* out) {
  const uint32_t t = THREAD_X;
  const int64_t d = kvref::slot_destination(p, slots[t]);
  if (d >= 0) out[d] = 1;
}

// The narrow twin: page * page_stride in 32 bits.
// CHECK-LABEL: {{^}}narrow_dest:
// CHECK: v_mad_u64_u32 v[{{[0-9]+}}:{{[0-9]+}}], s[{{[0-9]+:[0-9]+}}], v{{[0-9]+}}, s{{[0-9]+}}, v[{{[0-9]+:[0-9]+}}]
// CHECK-NEXT: v_ashrrev_i32_e32 v{{[0-9]+}}, 31, v{{[0-9]+}}
// CHECK: global_store_byte
// CHECK: s_endpgm
extern "C" KVREF_GLOBAL void narrow_dest(const kvref::ScatterParams p, const int64_t* slots, unsigned char* out) {
  const uint32_t t = THREAD_X;
  const int32_t slot = static_cast<int32_t>(slots[t]);
  if (slot < 0) return;
  const int32_t ps = static_cast<int32_t>(p.page_size);
  const int32_t page = slot / ps;
  out[page * static_cast<int32_t>(p.dst_page_stride) +
      (slot - page * ps) * static_cast<int32_t>(p.dst_slot_stride)] = 1;
}

// The library's kernels (the instantiations kvref_launch.cu launches for 16-byte vectors and
// bf16 -> fp8, prefill- and decode-sized): each forms its offsets with 64-bit multiply-adds.
template KVREF_GLOBAL void kvref::scatter_copy_kernel<kvref::Vec16, 2, 4, true>(const kvref::ScatterParams);
template KVREF_GLOBAL void kvref::scatter_copy_kernel<kvref::Vec16, 1, 1, true>(const kvref::ScatterParams);
template KVREF_GLOBAL void kvref::scatter_fp8_vec_kernel<KVREF_DTYPE_BF16, 2, 2, true>(const kvref::ScatterParams);
template KVREF_GLOBAL void kvref::scatter_copy_decode_kernel<kvref::Vec16, true, false>(const kvref::DecodeParams);
template KVREF_GLOBAL void kvref::scatter_copy_decode_kernel<kvref::Vec16, false, true>(const kvref::DecodeParams);
template KVREF_GLOBAL void kvref::scatter_fp8_decode_kernel<KVREF_DTYPE_BF16, true, false>(const kvref::DecodeParams);
template KVREF_GLOBAL void kvref::scatter_fp8_decode_pairs_kernel<KVREF_DTYPE_BF16, true, false, 1>(const kvref::DecodeParams);
// LIB-LABEL: {{^}}_ZN5kvref19slot_mapping_kernelE23kvref_slot_mapping_args:
// LIB: v_mad_u64_u32
// LIB: global_store_dwordx2
// LIB: s_endpgm
// LIB-LABEL: {{^}}_ZN5kvref19scatter_copy_kernelINS_5Vec16ELi2ELi4ELb1ELb0EEEvNS_13ScatterParamsE:
// LIB: v_mad_u64_u32
// LIB: global_store_dwordx4
// LIB: s_endpgm
// LIB-LABEL: {{^}}_ZN5kvref19scatter_copy_kernelINS_5Vec16ELi1ELi1ELb1ELb0EEEvNS_13ScatterParamsE:
// LIB: v_mad_u64_u32
// LIB: global_store_dwordx4
// LIB: s_endpgm
// LIB-LABEL: {{^}}_ZN5kvref22scatter_fp8_vec_kernelILi1ELi2ELi2ELb1ELi8EEEvNS_13ScatterParamsE:
// LIB: v_mad_u64_u32
// LIB: global_store_dwordx2
// LIB: s_endpgm
// The decode kernels take the slot from a uniform load: its products are scalar 64-bit ones
// (the high half from s_mul_hi_u32).
// LIB-LABEL: {{^}}_ZN5kvref26scatter_copy_decode_kernelINS_5Vec16ELb1ELb0EEEvNS_12DecodeParamsE:
// LIB: s_mul_hi_u32
// LIB: global_store_dwordx4
// LIB: s_endpgm
// LIB-LABEL: {{^}}_ZN5kvref26scatter_copy_decode_kernelINS_5Vec16ELb0ELb1EEEvNS_12DecodeParamsE:
// LIB: s_mul_hi_u32
// LIB: global_store_dwordx4
// LIB: s_endpgm
// LIB-LABEL: {{^}}_ZN5kvref25scatter_fp8_decode_kernelILi1ELb1ELb0EEEvNS_12DecodeParamsE:
// LIB: s_mul_hi_u32
// LIB: global_store_dwordx2
// LIB: s_endpgm
// LIB-LABEL: {{^}}_ZN5kvref31scatter_fp8_decode_pairs_kernelILi1ELb1ELb0ELi1EEEvNS_12DecodeParamsE:
// LIB: s_mul_hi_u32
// LIB: global_store_dwordx4
// LIB: s_endpgm
