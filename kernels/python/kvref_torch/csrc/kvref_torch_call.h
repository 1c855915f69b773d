// kvref_torch_call.h - how a torch.ops.kvref op calls the C API: the device and stream it
// launches on, and the K/V store's arguments from its tensors.  Shared by the ops
// (kvref_torch.cpp) and kernels/bench/host_pieces.cpp, which times the ops' body.
#ifndef KVREF_TORCH_CALL_H
#define KVREF_TORCH_CALL_H

#include <ATen/ATen.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include "kvref/kvref.h"

namespace kvref_torch {

// Where a call launches: the current stream of the tensors' device, that device made current
// for the call only when it is not already.  (A CUDAGuard asks the runtime for the current
// device twice and getCurrentCUDAStream() once more, on every call; most calls are on the
// current device, and one question answers that.)
class DeviceStream {
 public:
  explicit DeviceStream(const at::Device& device) : index_(device.index()) {
    if (c10::cuda::current_device() != index_) guard_.set_index(index_);
  }
  cudaStream_t stream() const { return c10::cuda::getCurrentCUDAStream(index_).stream(); }

 private:
  c10::DeviceIndex index_;
  c10::cuda::OptionalCUDAGuard guard_;
};

// The K/V store's arguments for key / value [tokens, heads, head_size] and caches
// [blocks, block_size, heads, head_size] (NHD) or [blocks, heads, block_size, head_size]
// (HND): pointers, sizes and strides.  The caller checks the tensors first and sets the
// dtypes and the fp8 scales.
inline kvref_kv_store_args kv_store_args(const at::Tensor& key, const at::Tensor& value, const at::Tensor& key_cache,
                                         const at::Tensor& value_cache, const at::Tensor& slot_mapping, bool nhd) {
  kvref_kv_store_args a;
  kvref_kv_store_args_init(&a);
  a.key = key.data_ptr();
  a.value = value.data_ptr();
  a.key_stride_token = key.stride(0);
  a.key_stride_head = key.stride(1);
  a.value_stride_token = value.stride(0);
  a.value_stride_head = value.stride(1);
  a.key_cache = key_cache.data_ptr();
  a.value_cache = value_cache.data_ptr();
  a.layout = nhd ? KVREF_LAYOUT_NHD : KVREF_LAYOUT_HND;
  a.num_blocks = key_cache.size(0);
  a.block_size = static_cast<int32_t>(nhd ? key_cache.size(1) : key_cache.size(2));
  a.num_heads = static_cast<int32_t>(key.size(1));
  a.head_size = static_cast<int32_t>(key.size(2));
  a.cache_block_stride = key_cache.stride(0);
  a.slot_mapping = slot_mapping.data_ptr<int64_t>();
  a.num_tokens = key.size(0);
  return a;
}

}  // namespace kvref_torch

#endif  // KVREF_TORCH_CALL_H
