// cpu_ref.cpp - CPU reference implementation of the kvref API (the GPU tests' oracle).
//
// Deliberately written as plain loops straight from the semantics in kvref.h, sharing no
// indexing code with the kernels (only the scalar dtype conversions, which have their own
// exhaustive unit tests).
#include <string.h>

#include "kvref/dtypes.cuh"
#include "kvref/kvref.h"
#include "kvref/kvref_cpu.h"

extern "C" {

kvref_status kvref_cpu_slot_mapping(const kvref_slot_mapping_args* a) {
  const kvref_status st = kvref_validate_slot_mapping(a);
  if (st != KVREF_SUCCESS) return st;
  for (int32_t gi = 0; gi < a->num_groups; ++gi) {
    const kvref_slot_group& g = a->groups[gi];
    for (int64_t t = 0; t < a->num_tokens_padded; ++t) g.slot_mapping[t] = KVREF_PAD_SLOT;
    for (int32_t b = 0; b < a->num_reqs; ++b) {
      const int32_t row = a->idx_mapping[b];
      if (row < 0 || row >= a->num_rows) continue;
      const int64_t begin = a->query_start_loc[b];
      const int64_t end = a->query_start_loc[b + 1];
      for (int64_t t = begin < 0 ? 0 : begin; t < end && t < a->num_tokens; ++t) {
        const int64_t pos = a->positions[t];
        if (pos < 0) continue;
        const int64_t virtual_block = static_cast<int64_t>(g.block_size) * a->cp_size;
        const int64_t col = pos / virtual_block;
        if (col >= g.width) continue;
        const int64_t voff = pos % virtual_block;
        if ((voff / a->cp_interleave) % a->cp_size != a->cp_rank) continue;
        const int64_t local = voff / (static_cast<int64_t>(a->cp_size) * a->cp_interleave) *
                                  a->cp_interleave +
                              voff % a->cp_interleave;
        const int64_t entry = static_cast<int64_t>(row) * g.row_stride + col;
        const int32_t block = g.block_table[entry];
        if (block < 0) continue;
        g.slot_mapping[t] = static_cast<int64_t>(block) * g.block_size + local;
      }
    }
  }
  return KVREF_SUCCESS;
}

namespace {

float load_as_float(const unsigned char* p, kvref_dtype dt) {
  uint16_t h;
  uint32_t w;
  switch (dt) {
    case KVREF_DTYPE_F16:
      memcpy(&h, p, 2);
      return kvref::half_to_float(h);
    case KVREF_DTYPE_BF16:
      memcpy(&h, p, 2);
      return kvref::bfloat16_to_float(h);
    default:
      memcpy(&w, p, 4);
      return kvref::bits_float(w);
  }
}

void store_one(const kvref_kv_store_args* a, const unsigned char* src, int64_t src_tok,
               int64_t src_head, unsigned char* cache, const float* scale) {
  const int64_t se = kvref_dtype_size(a->src_dtype);
  const int64_t de = kvref_dtype_size(a->cache_dtype);
  const int64_t page_elems = static_cast<int64_t>(a->block_size) * a->num_heads * a->head_size;
  const int64_t page_stride = a->cache_block_stride ? a->cache_block_stride : page_elems;
  const int64_t num_slots = a->num_blocks * a->block_size;
  for (int64_t t = 0; t < a->num_tokens; ++t) {
    const int64_t slot = a->slot_mapping[t];
    if (slot < 0 || slot >= num_slots) continue;
    const int64_t page = slot / a->block_size;
    const int64_t in_page = slot % a->block_size;
    for (int64_t h = 0; h < a->num_heads; ++h) {
      for (int64_t d = 0; d < a->head_size; ++d) {
        const int64_t s = t * src_tok + h * src_head + d;
        int64_t c;
        if (a->layout == KVREF_LAYOUT_NHD) {
          c = page * page_stride + (in_page * a->num_heads + h) * a->head_size + d;
        } else {
          c = page * page_stride + (h * a->block_size + in_page) * a->head_size + d;
        }
        if (a->cache_dtype == KVREF_DTYPE_FP8_E4M3) {
          cache[c] = kvref::quantize_fp8(load_as_float(src + s * se, a->src_dtype), *scale);
        } else {
          memcpy(cache + c * de, src + s * se, static_cast<size_t>(se));
        }
      }
    }
  }
}

}  // namespace

kvref_status kvref_cpu_kv_store(const kvref_kv_store_args* a) {
  const kvref_status st = kvref_validate_kv_store(a);
  if (st != KVREF_SUCCESS) return st;
  store_one(a, static_cast<const unsigned char*>(a->key), a->key_stride_token, a->key_stride_head,
            static_cast<unsigned char*>(a->key_cache), a->k_scale);
  store_one(a, static_cast<const unsigned char*>(a->value), a->value_stride_token,
            a->value_stride_head, static_cast<unsigned char*>(a->value_cache), a->v_scale);
  return KVREF_SUCCESS;
}

kvref_status kvref_cpu_record_store(const kvref_record_store_args* a) {
  const kvref_status st = kvref_validate_record_store(a);
  if (st != KVREF_SUCCESS) return st;
  const unsigned char* src = static_cast<const unsigned char*>(a->src);
  unsigned char* cache = static_cast<unsigned char*>(a->cache);
  for (int64_t t = 0; t < a->num_tokens; ++t) {
    const int64_t slot = a->slot_mapping[t];
    if (slot < 0 || slot >= a->num_pages * a->page_size) continue;
    const int64_t page = slot / a->page_size;
    const int64_t in_page = slot % a->page_size;
    memcpy(cache + page * a->page_bytes + in_page * a->record_bytes, src + t * a->src_stride,
           static_cast<size_t>(a->record_bytes));
  }
  return KVREF_SUCCESS;
}

float kvref_half_to_float(uint16_t bits) { return kvref::half_to_float(bits); }
float kvref_bfloat16_to_float(uint16_t bits) { return kvref::bfloat16_to_float(bits); }
uint16_t kvref_float_to_half(float value) { return kvref::float_to_half(value); }
uint16_t kvref_float_to_bfloat16(float value) { return kvref::float_to_bfloat16(value); }
uint8_t kvref_float_to_fp8_e4m3(float value) { return kvref::float_to_fp8_e4m3(value); }
float kvref_fp8_e4m3_to_float(uint8_t bits) { return kvref::fp8_e4m3_to_float(bits); }

}  // extern "C"
