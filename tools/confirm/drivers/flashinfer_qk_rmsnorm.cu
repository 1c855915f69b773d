//===- flashinfer_qk_rmsnorm.cu - FlashInfer's QKRMSNorm at 2^32 elements -===//
//
// Launches flashinfer::norm::QKRMSNorm (the upstream host launcher, from the
// tree's include/ folder given with -I) on bf16 [tokens, 32 heads, 128].
// QKRMSNormKernel addresses input + batch_idx * stride_input_n + ... in
// uint32_t: at tokens * 4096 >= 2^32 the row offset wraps to the first rows.
// Reference: one block per (token, head), every address in size_t.
//
//===----------------------------------------------------------------------===//
#include "confirm.cuh"
#include <flashinfer/norm.cuh>

constexpr size_t H = 32, D = 128;

__global__ void ref_qk_rmsnorm(const __nv_bfloat16* in, const __nv_bfloat16* w, __nv_bfloat16* out,
                               size_t jobs, float eps) {
  for (size_t j = blockIdx.x; j < jobs; j += gridDim.x) {
    const __nv_bfloat16* x = in + j * D;  // size_t: no wrap
    float s = 0.f;
    for (size_t c = 0; c < D; ++c) s += float(x[c]) * float(x[c]);
    float r = rsqrtf(s / float(D) + eps);
    for (size_t c = threadIdx.x; c < D; c += blockDim.x)
      out[j * D + c] = __float2bfloat16(float(x[c]) * r * float(w[c]));
  }
}

int main(int argc, char** argv) {
  bool at = confirm::parse_which(argc, argv);
  // token 1,048,576 = 2^32 / (32 * 128) is the first whose offset passes 2^32
  size_t tokens = at ? 1048577 : 1048576;
  size_t n = tokens * H * D;
  confirm::Guarded<__nv_bfloat16> in, out, w, ref;
  in.alloc(n);
  out.alloc(n);
  w.alloc(D);
  ref.alloc(n, 0, 0);
  confirm::fill_rows<<<4096, 256>>>(in.t, tokens * H, D);
  confirm::fill_rows<<<1, 128>>>(w.t, 1, D);
  confirm::must(cudaMemset(out.t, 0, n * 2), "memset");
  confirm::sync_or_fault("fill");
  cudaError_t e = flashinfer::norm::QKRMSNorm<__nv_bfloat16>(
      in.t, w.t, out.t, (uint32_t)tokens, (uint32_t)H, (uint32_t)D, (uint32_t)(H * D), (uint32_t)D,
      (uint32_t)(H * D), (uint32_t)D, 1e-6f, false, 0);
  if (e != cudaSuccess) { confirm::emit("error", std::string("launch: ") + cudaGetErrorString(e), confirm::which_name()); return 0; }
  confirm::sync_or_fault("QKRMSNorm");
  ref_qk_rmsnorm<<<65536, 128>>>(in.t, w.t, ref.t, tokens * H, 1e-6f);
  confirm::sync_or_fault("reference");
  std::string cmp = confirm::compare_rows(out.t, ref.t, tokens, H * D, 0.02f, 0.02f, 1048576);
  std::string can = confirm::check_canaries(in, "input") + confirm::check_canaries(out, "output");
  bool ok = cmp.rfind("OK:", 0) == 0 && can.empty();
  confirm::emit(ok ? "ok" : "wrong", (ok ? cmp.substr(3) : cmp) + (can.empty() ? "; canaries intact" : "; " + can),
                confirm::which_name());
  return 0;
}
