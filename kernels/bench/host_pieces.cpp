// host_pieces.cpp - the ops behind kernels/bench/host_pieces.py (benchmark only): where the host
// time of an eager torch.ops.kvref.kv_store call goes, measured in the calling process.
//
//   kvref_pieces::noop(<kv_store's schema>)         PyTorch's dispatch of an op with kv_store's
//                                                    schema and an empty body
//   kvref_pieces::guarded(<kv_store's schema>)      kv_store's body as it was until round 10: a
//                                                    CUDAGuard and the current device's stream
//   kvref_pieces::body_loop(key, value, kc, vc, slots, n) -> float
//                                                    n times, from C++: kv_store's body without
//                                                    its checks (device switch, stream, arguments,
//                                                    C API); µs per call
//   kvref_pieces::capi_loop(...same...) -> float     n times, from C++: kvref_kv_store alone
//   kvref_pieces::launch_loop(n, pdl) -> float       n launches of an empty kernel from C++
//
// bf16 NHD only (the benchmark's case); no checks beyond what the harness needs.
#include <ATen/ATen.h>
#include <torch/library.h>

#include <chrono>
#include <optional>
#include <string>

#include "kvref/kvref.h"
#include "kvref_torch_call.h"  // kernels/python/kvref_torch/csrc: the ops' own helpers

double empty_launch_loop_us(int64_t n, bool pdl, cudaStream_t stream);  // host_pieces.cu

namespace {

void noop(const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&,
          const std::string&, const std::optional<at::Tensor>&, const std::optional<at::Tensor>&) {}

void guarded(const at::Tensor& key, const at::Tensor& value, const at::Tensor& kc, const at::Tensor& vc,
             const at::Tensor& slots, const std::string& layout, const std::optional<at::Tensor>&,
             const std::optional<at::Tensor>&) {
  TORCH_CHECK(layout == "NHD", "host_pieces: NHD only");
  const c10::cuda::CUDAGuard guard(key.device());
  kvref_kv_store_args a = kvref_torch::kv_store_args(key, value, kc, vc, slots, true);
  TORCH_CHECK(kvref_kv_store(&a, c10::cuda::getCurrentCUDAStream().stream()) == KVREF_SUCCESS);
}

template <typename F>
double us_per_call(int64_t n, F fn) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < n; ++i) fn();
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(t1 - t0).count() / static_cast<double>(n);
}

double body_loop(const at::Tensor& key, const at::Tensor& value, const at::Tensor& kc, const at::Tensor& vc,
                 const at::Tensor& slots, int64_t n) {
  return us_per_call(n, [&] {
    const kvref_torch::DeviceStream on(key.device());
    kvref_kv_store_args a = kvref_torch::kv_store_args(key, value, kc, vc, slots, true);
    (void)kvref_kv_store(&a, on.stream());
  });
}

double capi_loop(const at::Tensor& key, const at::Tensor& value, const at::Tensor& kc, const at::Tensor& vc,
                 const at::Tensor& slots, int64_t n) {
  const kvref_kv_store_args a = kvref_torch::kv_store_args(key, value, kc, vc, slots, true);
  const cudaStream_t s = c10::cuda::getCurrentCUDAStream().stream();
  return us_per_call(n, [&] { (void)kvref_kv_store(&a, s); });
}

double launch_loop(int64_t n, bool pdl) {
  return empty_launch_loop_us(n, pdl, c10::cuda::getCurrentCUDAStream().stream());
}

}  // namespace

// kvref::kv_store's arguments (kernels/python/kvref_torch/csrc/kvref_torch.cpp).
#define KV_STORE_ARGS                                                                            \
  "(Tensor key, Tensor value, Tensor(a!) key_cache, Tensor(b!) value_cache, Tensor slot_mapping, " \
  "str layout='NHD', Tensor? k_scale=None, Tensor? v_scale=None) -> ()"

TORCH_LIBRARY(kvref_pieces, m) {
  m.def("noop" KV_STORE_ARGS);
  m.def("guarded" KV_STORE_ARGS);
  m.def("body_loop(Tensor key, Tensor value, Tensor kc, Tensor vc, Tensor slots, int n) -> float");
  m.def("capi_loop(Tensor key, Tensor value, Tensor kc, Tensor vc, Tensor slots, int n) -> float");
  m.def("launch_loop(int n, bool pdl) -> float");
}

// Registered like kvref's ops: for CUDA and AutogradCUDA (no boxed autograd fallback).
TORCH_LIBRARY_IMPL(kvref_pieces, CUDA, m) {
  m.impl("noop", &noop);
  m.impl("guarded", &guarded);
  m.impl("body_loop", &body_loop);
  m.impl("capi_loop", &capi_loop);
}
TORCH_LIBRARY_IMPL(kvref_pieces, AutogradCUDA, m) {
  m.impl("noop", &noop);
  m.impl("guarded", &guarded);
  m.impl("body_loop", &body_loop);
  m.impl("capi_loop", &capi_loop);
}
TORCH_LIBRARY_IMPL(kvref_pieces, CompositeExplicitAutograd, m) { m.impl("launch_loop", &launch_loop); }
