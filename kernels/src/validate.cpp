// validate.cpp - argument validation and small helpers shared by every kvref backend.
#include <stdint.h>
#include <string.h>

#include "kvref/kvref.h"

namespace {

bool aligned(const void* p, uintptr_t a) { return (reinterpret_cast<uintptr_t>(p) % a) == 0; }

// Largest launch dimension kvref uses (grid.x limit of CUDA and HIP).
const int64_t kMaxGrid = 0x7fffffff;

}  // namespace

extern "C" {

const char* kvref_status_string(kvref_status status) {
  switch (status) {
    case KVREF_SUCCESS:
      return "success";
    case KVREF_ERROR_NULL_POINTER:
      return "a required pointer is NULL";
    case KVREF_ERROR_INVALID_VALUE:
      return "a size, stride or count is negative, zero or inconsistent";
    case KVREF_ERROR_MISALIGNED:
      return "a pointer is not aligned to its element type";
    case KVREF_ERROR_UNSUPPORTED:
      return "unsupported dtype or layout";
    case KVREF_ERROR_LAUNCH_FAILED:
      return "the GPU runtime reported an error at launch";
  }
  return "unknown kvref status";
}

int32_t kvref_dtype_size(kvref_dtype dtype) {
  switch (dtype) {
    case KVREF_DTYPE_F16:
    case KVREF_DTYPE_BF16:
      return 2;
    case KVREF_DTYPE_F32:
      return 4;
    case KVREF_DTYPE_FP8_E4M3:
      return 1;
  }
  return 0;
}

void kvref_slot_mapping_args_init(kvref_slot_mapping_args* args) {
  if (args == NULL) return;
  memset(args, 0, sizeof(*args));
  args->cp_size = 1;
  args->cp_rank = 0;
  args->cp_interleave = 1;
}

void kvref_kv_store_args_init(kvref_kv_store_args* args) {
  if (args == NULL) return;
  memset(args, 0, sizeof(*args));
  args->layout = KVREF_LAYOUT_NHD;
  args->src_dtype = KVREF_DTYPE_BF16;
  args->cache_dtype = KVREF_DTYPE_BF16;
}

void kvref_record_store_args_init(kvref_record_store_args* args) {
  if (args == NULL) return;
  memset(args, 0, sizeof(*args));
}

kvref_status kvref_validate_slot_mapping(const kvref_slot_mapping_args* a) {
  if (a == NULL) return KVREF_ERROR_NULL_POINTER;
  if (a->num_groups < 1 || a->num_groups > KVREF_MAX_GROUPS) return KVREF_ERROR_INVALID_VALUE;
  if (a->num_reqs < 0 || a->num_rows <= 0 || a->num_tokens < 0 ||
      a->num_tokens_padded < a->num_tokens) {
    return KVREF_ERROR_INVALID_VALUE;
  }
  if (a->num_tokens_padded / 256 >= kMaxGrid) return KVREF_ERROR_INVALID_VALUE;
  if (a->cp_size < 1 || a->cp_rank < 0 || a->cp_rank >= a->cp_size || a->cp_interleave < 1) {
    return KVREF_ERROR_INVALID_VALUE;
  }
  if (a->num_tokens > 0) {
    if (a->idx_mapping == NULL || a->query_start_loc == NULL || a->positions == NULL) {
      return KVREF_ERROR_NULL_POINTER;
    }
    if (a->num_reqs == 0) return KVREF_ERROR_INVALID_VALUE;  // tokens but no request
  }
  for (int32_t i = 0; i < a->num_groups; ++i) {
    const kvref_slot_group* g = &a->groups[i];
    if (g->slot_mapping == NULL || g->block_table == NULL) return KVREF_ERROR_NULL_POINTER;
    if (g->width <= 0 || g->block_size <= 0 || g->row_stride < g->width) {
      return KVREF_ERROR_INVALID_VALUE;
    }
    if (g->block_size % a->cp_interleave != 0) return KVREF_ERROR_INVALID_VALUE;
    if (!aligned(g->slot_mapping, sizeof(int64_t)) || !aligned(g->block_table, sizeof(int32_t))) {
      return KVREF_ERROR_MISALIGNED;
    }
  }
  if (a->num_tokens > 0) {
    if (!aligned(a->idx_mapping, sizeof(int32_t)) || !aligned(a->query_start_loc, sizeof(int32_t)) ||
        !aligned(a->positions, sizeof(int64_t))) {
      return KVREF_ERROR_MISALIGNED;
    }
  }
  return KVREF_SUCCESS;
}

kvref_status kvref_validate_kv_store(const kvref_kv_store_args* a) {
  if (a == NULL) return KVREF_ERROR_NULL_POINTER;
  if (a->key == NULL || a->value == NULL || a->key_cache == NULL || a->value_cache == NULL ||
      a->slot_mapping == NULL) {
    return KVREF_ERROR_NULL_POINTER;
  }
  if (a->layout != KVREF_LAYOUT_NHD && a->layout != KVREF_LAYOUT_HND) return KVREF_ERROR_UNSUPPORTED;
  const int32_t src_size = kvref_dtype_size(a->src_dtype);
  const int32_t cache_size = kvref_dtype_size(a->cache_dtype);
  if (src_size == 0 || cache_size == 0 || a->src_dtype == KVREF_DTYPE_FP8_E4M3) {
    return KVREF_ERROR_UNSUPPORTED;
  }
  if (a->cache_dtype != a->src_dtype && a->cache_dtype != KVREF_DTYPE_FP8_E4M3) {
    return KVREF_ERROR_UNSUPPORTED;
  }
  const bool fp8 = a->cache_dtype == KVREF_DTYPE_FP8_E4M3;
  if (fp8 && (a->k_scale == NULL || a->v_scale == NULL)) return KVREF_ERROR_NULL_POINTER;
  if (a->num_tokens < 0 || a->num_blocks <= 0 || a->block_size <= 0 || a->num_heads <= 0 ||
      a->head_size <= 0) {
    return KVREF_ERROR_INVALID_VALUE;
  }
  if (a->num_tokens / 8 >= kMaxGrid) return KVREF_ERROR_INVALID_VALUE;
  if (static_cast<int64_t>(a->num_heads) * a->head_size > 0x7fffffff) {
    return KVREF_ERROR_INVALID_VALUE;
  }
  if (a->key_stride_token < 0 || a->key_stride_head < 0 || a->value_stride_token < 0 ||
      a->value_stride_head < 0 || a->cache_block_stride < 0) {
    return KVREF_ERROR_INVALID_VALUE;
  }
  const int64_t page_elems =
      static_cast<int64_t>(a->block_size) * a->num_heads * static_cast<int64_t>(a->head_size);
  if (a->cache_block_stride != 0 && a->cache_block_stride < page_elems) {
    return KVREF_ERROR_INVALID_VALUE;  // pages would overlap
  }
  const int64_t page_stride = a->cache_block_stride != 0 ? a->cache_block_stride : page_elems;
  if (a->num_blocks > INT64_MAX / cache_size / page_stride) return KVREF_ERROR_INVALID_VALUE;
  if (a->num_heads > 1 && (a->key_stride_head < a->head_size || a->value_stride_head < a->head_size)) {
    return KVREF_ERROR_INVALID_VALUE;  // heads of one token would overlap
  }
  if (!aligned(a->key, src_size) || !aligned(a->value, src_size) ||
      !aligned(a->key_cache, cache_size) || !aligned(a->value_cache, cache_size) ||
      !aligned(a->slot_mapping, sizeof(int64_t))) {
    return KVREF_ERROR_MISALIGNED;
  }
  if (fp8 && (!aligned(a->k_scale, sizeof(float)) || !aligned(a->v_scale, sizeof(float)))) {
    return KVREF_ERROR_MISALIGNED;
  }
  return KVREF_SUCCESS;
}

kvref_status kvref_validate_record_store(const kvref_record_store_args* a) {
  if (a == NULL) return KVREF_ERROR_NULL_POINTER;
  if (a->src == NULL || a->cache == NULL || a->slot_mapping == NULL) {
    return KVREF_ERROR_NULL_POINTER;
  }
  if (a->num_tokens < 0 || a->record_bytes <= 0 || a->num_pages <= 0 || a->page_size <= 0 ||
      a->src_stride < 0 || a->page_bytes <= 0) {
    return KVREF_ERROR_INVALID_VALUE;
  }
  if (a->num_tokens / 8 >= kMaxGrid || a->record_bytes > 0x7fffffff) {
    return KVREF_ERROR_INVALID_VALUE;
  }
  if (a->page_bytes / a->page_size < a->record_bytes) return KVREF_ERROR_INVALID_VALUE;
  if (a->num_pages > INT64_MAX / a->page_bytes) return KVREF_ERROR_INVALID_VALUE;
  if (!aligned(a->slot_mapping, sizeof(int64_t))) return KVREF_ERROR_MISALIGNED;
  return KVREF_SUCCESS;
}

}  // extern "C"
