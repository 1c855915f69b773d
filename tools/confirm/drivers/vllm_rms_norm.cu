//===- vllm_rms_norm.cu - vLLM's rms_norm_kernel past 2^32 output elements -===//
//
// The kernel's text is extracted from csrc/libtorch_stable/layernorm_kernels.cu
// (upstream or kvlint's fixed copy) into CONFIRM_KERNEL by confirm.py prepare;
// the tree's own headers (cub_helpers.h, quantization/vectorization_utils.cuh)
// come from -I.  rms_norm_kernel writes out + blockIdx.x * hidden_size: an
// unsigned 32-bit product, which wraps past 2^32 at token 2^32 / hidden.
// Launch as vLLM's rms_norm does for bf16, hidden 8192: vec 8, block 1024.
//
//===----------------------------------------------------------------------===//
#include "confirm.cuh"
#include <numeric>
#include "cub_helpers.h"
#include "quantization/vectorization_utils.cuh"
#include CONFIRM_KERNEL

constexpr size_t HID = 8192;

__global__ void ref_rms_norm(const __nv_bfloat16* in, const __nv_bfloat16* w, __nv_bfloat16* out,
                             size_t rows, float eps) {
  for (size_t r = blockIdx.x; r < rows; r += gridDim.x) {
    __shared__ float part[256];
    float s = 0.f;
    for (size_t c = threadIdx.x; c < HID; c += blockDim.x) {
      float x = float(in[r * HID + c]);
      s += x * x;
    }
    part[threadIdx.x] = s;
    __syncthreads();
    for (int k = 128; k > 0; k >>= 1) {
      if (threadIdx.x < k) part[threadIdx.x] += part[threadIdx.x + k];
      __syncthreads();
    }
    float inv = rsqrtf(part[0] / float(HID) + eps);
    for (size_t c = threadIdx.x; c < HID; c += blockDim.x)
      out[r * HID + c] = __float2bfloat16(float(in[r * HID + c]) * inv * float(w[c]));
    __syncthreads();
  }
}

int main(int argc, char** argv) {
  bool at = confirm::parse_which(argc, argv);
  size_t tokens = at ? 524289 : 524288;  // 2^32 / 8192 = 524,288
  size_t n = tokens * HID;
  confirm::Guarded<__nv_bfloat16> in, out, w, ref;
  in.alloc(n);
  out.alloc(n);
  w.alloc(HID);
  ref.alloc(n, 0, 0);
  confirm::fill_rows<<<4096, 256>>>(in.t, tokens, HID);
  confirm::fill_rows<<<32, 256>>>(w.t, 1, HID);
  confirm::must(cudaMemset(out.t, 0, n * 2), "memset");
  confirm::sync_or_fault("fill");
  vllm::rms_norm_kernel<__nv_bfloat16, 8, 2, true><<<(unsigned)tokens, 1024>>>(
      out.t, in.t, (int64_t)HID, 0, 0, 0, 0, w.t, 0, 1e-6f, (int)tokens, (int)HID);
  confirm::sync_or_fault("rms_norm_kernel");
  ref_rms_norm<<<65536, 256>>>(in.t, w.t, ref.t, tokens, 1e-6f);
  confirm::sync_or_fault("reference");
  std::string cmp = confirm::compare_rows(out.t, ref.t, tokens, HID, 0.02f, 0.02f, 524288);
  std::string can = confirm::check_canaries(in, "input") + confirm::check_canaries(out, "output");
  bool ok = cmp.rfind("OK:", 0) == 0 && can.empty();
  confirm::emit(ok ? "ok" : "wrong", (ok ? cmp.substr(3) : cmp) + (can.empty() ? "; canaries intact" : "; " + can),
                confirm::which_name());
  return 0;
}
