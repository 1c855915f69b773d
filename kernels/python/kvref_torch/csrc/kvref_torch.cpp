// kvref_torch.cpp - torch.ops.kvref.* on top of the kvref C API (CUDA).
//
// Ops (registered for CUDA tensors):
//   kvref::slot_mapping(Tensor[] block_tables, int[] block_sizes, Tensor idx_mapping,
//                       Tensor query_start_loc, Tensor positions, int num_tokens_padded,
//                       int cp_size=1, int cp_rank=0, int cp_interleave=1) -> Tensor
//   kvref::kv_store(Tensor key, Tensor value, Tensor(a!) key_cache, Tensor(b!) value_cache,
//                   Tensor slot_mapping, str layout="NHD", Tensor? k_scale=None,
//                   Tensor? v_scale=None) -> ()
//   kvref::record_store(Tensor src, Tensor(a!) cache, Tensor slot_mapping, int page_size,
//                       int record_bytes) -> ()
//
// The hot path checks only tensor metadata on the host (no device reads, no synchronisation,
// no allocation besides slot_mapping's output).  KVREF_TORCH_DEBUG=1 in the environment (read
// once) adds the checks that need the device: every slot is -1 or inside the cache, and the
// fp8 scales are finite and positive; they synchronise, so they are for debugging only.
// The kernels are registered for the CUDA key and for AutogradCUDA as well: the stores are not
// differentiable, and answering at the autograd key skips PyTorch's boxed autograd fallback
// (about a microsecond per call).
#include <ATen/ATen.h>
#include <torch/library.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "kvref/kvref.h"
#include "kvref_torch_call.h"

namespace {

void check_status(kvref_status st, const char* op) {
  TORCH_CHECK(st == KVREF_SUCCESS, "kvref::", op, ": ", kvref_status_string(st));
}

bool debug_mode() {
  static const bool on = [] {
    const char* v = std::getenv("KVREF_TORCH_DEBUG");
    return v != nullptr && v[0] != '\0' && v[0] != '0';
  }();
  return on;
}

// Debug mode only (synchronises): slots are -1 (skipped) or in [0, num_slots).
void debug_check_slots(const at::Tensor& slots, int64_t num_tokens, int64_t num_slots,
                       const char* op) {
  if (num_tokens == 0) return;
  const at::Tensor s = slots.narrow(0, 0, num_tokens);
  const int64_t bad = ((s < -1) | (s >= num_slots)).sum().item<int64_t>();
  TORCH_CHECK(bad == 0, "kvref::", op, " (KVREF_TORCH_DEBUG): ", bad,
              " slots are neither -1 nor inside the cache of ", num_slots, " slots");
}

using kvref_torch::DeviceStream;

kvref_dtype to_kvref_dtype(at::ScalarType t) {
  switch (t) {
    case at::kHalf: return KVREF_DTYPE_F16;
    case at::kBFloat16: return KVREF_DTYPE_BF16;
    case at::kFloat: return KVREF_DTYPE_F32;
    case at::kFloat8_e4m3fn:
    case at::kByte: return KVREF_DTYPE_FP8_E4M3;
    default: TORCH_CHECK(false, "kvref: unsupported dtype ", t);
  }
  return KVREF_DTYPE_F16;
}

at::Tensor slot_mapping(at::TensorList block_tables, at::IntArrayRef block_sizes, const at::Tensor& idx_mapping,
                        const at::Tensor& query_start_loc, const at::Tensor& positions,
                        int64_t num_tokens_padded, int64_t cp_size, int64_t cp_rank,
                        int64_t cp_interleave) {
  const int64_t groups = static_cast<int64_t>(block_tables.size());
  TORCH_CHECK(groups >= 1 && groups <= KVREF_MAX_GROUPS, "kvref: 1..", KVREF_MAX_GROUPS, " groups");
  TORCH_CHECK(static_cast<int64_t>(block_sizes.size()) == groups, "kvref: one block size per table");
  TORCH_CHECK(idx_mapping.scalar_type() == at::kInt && query_start_loc.scalar_type() == at::kInt,
              "kvref: idx_mapping and query_start_loc must be int32");
  TORCH_CHECK(positions.scalar_type() == at::kLong, "kvref: positions must be int64");
  TORCH_CHECK(idx_mapping.is_contiguous() && query_start_loc.is_contiguous() && positions.is_contiguous(),
              "kvref: idx_mapping, query_start_loc and positions must be contiguous");
  const DeviceStream on(positions.device());
  at::Tensor out = at::empty({groups, num_tokens_padded}, positions.options().dtype(at::kLong));
  kvref_slot_mapping_args a;
  kvref_slot_mapping_args_init(&a);
  a.num_groups = static_cast<int32_t>(groups);
  int64_t rows = INT64_MAX;
  for (int64_t g = 0; g < groups; ++g) {
    const at::Tensor& bt = block_tables[g];
    TORCH_CHECK(bt.dim() == 2 && bt.scalar_type() == at::kInt && bt.stride(1) == 1,
                "kvref: block tables must be [rows, width] int32 with unit column stride");
    rows = std::min<int64_t>(rows, bt.size(0));
    a.groups[g].block_table = bt.data_ptr<int32_t>();
    a.groups[g].row_stride = bt.stride(0);
    a.groups[g].width = static_cast<int32_t>(bt.size(1));
    a.groups[g].block_size = static_cast<int32_t>(block_sizes[g]);
    a.groups[g].slot_mapping = out.data_ptr<int64_t>() + g * num_tokens_padded;
  }
  a.num_rows = static_cast<int32_t>(rows);
  a.num_reqs = static_cast<int32_t>(idx_mapping.size(0));
  a.idx_mapping = idx_mapping.data_ptr<int32_t>();
  a.query_start_loc = query_start_loc.data_ptr<int32_t>();
  a.positions = positions.data_ptr<int64_t>();
  a.num_tokens = positions.size(0);
  a.num_tokens_padded = num_tokens_padded;
  a.cp_size = static_cast<int32_t>(cp_size);
  a.cp_rank = static_cast<int32_t>(cp_rank);
  a.cp_interleave = static_cast<int32_t>(cp_interleave);
  check_status(kvref_slot_mapping(&a, on.stream()), "slot_mapping");
  return out;
}

void kv_store(const at::Tensor& key, const at::Tensor& value, const at::Tensor& key_cache,
              const at::Tensor& value_cache, const at::Tensor& slot_mapping, const std::string& layout,
              const std::optional<at::Tensor>& k_scale, const std::optional<at::Tensor>& v_scale) {
  TORCH_CHECK(key.dim() == 3 && value.sizes() == key.sizes(), "kvref: key/value [tokens, heads, head_size]");
  TORCH_CHECK(key.stride(2) == 1 && value.stride(2) == 1, "kvref: head_size dim must be contiguous");
  TORCH_CHECK(key_cache.dim() == 4 && key_cache.sizes() == value_cache.sizes() &&
                  key_cache.strides() == value_cache.strides(),
              "kvref: caches must be 4-d with equal shapes and strides");
  TORCH_CHECK(slot_mapping.scalar_type() == at::kLong && slot_mapping.is_contiguous(),
              "kvref: slot_mapping must be contiguous int64");
  const bool nhd = layout == "NHD";
  TORCH_CHECK(nhd || layout == "HND", "kvref: layout must be NHD or HND");
  const int64_t H = key.size(1), D = key.size(2);
  const int64_t bs = nhd ? key_cache.size(1) : key_cache.size(2);
  TORCH_CHECK((nhd ? key_cache.size(2) : key_cache.size(1)) == H && key_cache.size(3) == D,
              "kvref: cache heads / head_size do not match key");
  TORCH_CHECK(key_cache.stride(3) == 1 && key_cache.stride(2) == (nhd ? D : D) &&
                  key_cache.stride(1) == (nhd ? H * D : bs * D),
              "kvref: cache pages must be dense inside (the page stride may be larger)");
  if (key.size(0) == 0) return;  // nothing to store (and empty tensors have no data pointer)
  const DeviceStream on(key.device());
  kvref_kv_store_args a = kvref_torch::kv_store_args(key, value, key_cache, value_cache, slot_mapping, nhd);
  TORCH_CHECK(slot_mapping.numel() >= a.num_tokens, "kvref::kv_store: slot_mapping shorter than key");
  a.src_dtype = to_kvref_dtype(key.scalar_type());
  a.cache_dtype = to_kvref_dtype(key_cache.scalar_type());
  TORCH_CHECK(value.scalar_type() == key.scalar_type() && value_cache.scalar_type() == key_cache.scalar_type(),
              "kvref: key/value and caches must share dtypes");
  if (a.cache_dtype == KVREF_DTYPE_FP8_E4M3) {
    TORCH_CHECK(k_scale.has_value() && v_scale.has_value(), "kvref: fp8 caches need k_scale and v_scale");
    TORCH_CHECK(k_scale->scalar_type() == at::kFloat && v_scale->scalar_type() == at::kFloat,
                "kvref: scales must be float32 tensors");
    a.k_scale = k_scale->data_ptr<float>();
    a.v_scale = v_scale->data_ptr<float>();
  }
  if (debug_mode()) {
    debug_check_slots(slot_mapping, a.num_tokens, a.num_blocks * a.block_size, "kv_store");
    if (a.cache_dtype == KVREF_DTYPE_FP8_E4M3) {
      const bool ok = (at::isfinite(*k_scale) & (*k_scale > 0)).all().item<bool>() &&
                      (at::isfinite(*v_scale) & (*v_scale > 0)).all().item<bool>();
      TORCH_CHECK(ok, "kvref::kv_store (KVREF_TORCH_DEBUG): fp8 scales must be finite and > 0");
    }
  }
  check_status(kvref_kv_store(&a, on.stream()), "kv_store");
}

void record_store(const at::Tensor& src, const at::Tensor& cache, const at::Tensor& slot_mapping,
                  int64_t page_size, int64_t record_bytes) {
  TORCH_CHECK(src.dim() >= 1 && cache.dim() >= 1, "kvref: src [tokens, ...], cache [pages, ...]");
  TORCH_CHECK(slot_mapping.scalar_type() == at::kLong && slot_mapping.is_contiguous(),
              "kvref: slot_mapping must be contiguous int64");
  if (src.size(0) == 0) return;
  bool record_contiguous = true;  // src[0].is_contiguous(), without making a view per call
  for (int64_t d = src.dim() - 1, expected = 1; d >= 1; --d) {
    if (src.size(d) != 1 && src.stride(d) != expected) record_contiguous = false;
    expected *= src.size(d);
  }
  TORCH_CHECK(record_contiguous, "kvref: each src record must be contiguous");
  TORCH_CHECK(record_bytes <= src.numel() / src.size(0) * static_cast<int64_t>(src.element_size()),
              "kvref: record_bytes exceeds the size of one src record");
  const DeviceStream on(src.device());
  kvref_record_store_args a;
  kvref_record_store_args_init(&a);
  a.src = src.data_ptr();
  a.src_stride = src.stride(0) * static_cast<int64_t>(src.element_size());
  a.record_bytes = record_bytes;
  a.cache = cache.data_ptr();
  a.num_pages = cache.size(0);
  a.page_size = static_cast<int32_t>(page_size);
  a.page_bytes = cache.stride(0) * static_cast<int64_t>(cache.element_size());
  a.slot_mapping = slot_mapping.data_ptr<int64_t>();
  a.num_tokens = src.size(0);
  TORCH_CHECK(slot_mapping.numel() >= a.num_tokens, "kvref::record_store: slot_mapping shorter than src");
  if (debug_mode()) {
    debug_check_slots(slot_mapping, a.num_tokens, a.num_pages * a.page_size, "record_store");
  }
  check_status(kvref_record_store(&a, on.stream()), "record_store");
}

}  // namespace

TORCH_LIBRARY(kvref, m) {
  m.def(
      "slot_mapping(Tensor[] block_tables, int[] block_sizes, Tensor idx_mapping, "
      "Tensor query_start_loc, Tensor positions, int num_tokens_padded, int cp_size=1, "
      "int cp_rank=0, int cp_interleave=1) -> Tensor");
  m.def(
      "kv_store(Tensor key, Tensor value, Tensor(a!) key_cache, Tensor(b!) value_cache, "
      "Tensor slot_mapping, str layout='NHD', Tensor? k_scale=None, Tensor? v_scale=None) -> ()");
  m.def(
      "record_store(Tensor src, Tensor(a!) cache, Tensor slot_mapping, int page_size, "
      "int record_bytes) -> ()");
}

TORCH_LIBRARY_IMPL(kvref, CUDA, m) {
  m.impl("slot_mapping", &slot_mapping);
  m.impl("kv_store", &kv_store);
  m.impl("record_store", &record_store);
}

TORCH_LIBRARY_IMPL(kvref, AutogradCUDA, m) {
  m.impl("slot_mapping", &slot_mapping);
  m.impl("kv_store", &kv_store);
  m.impl("record_store", &record_store);
}
