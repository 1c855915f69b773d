// flashinfer_peer.cu - kvref's K/V store against FlashInfer's AppendPagedKVCache (prints
// figures, asserts nothing).
//
// FlashInfer is not part of this repository: this file is compiled on the GPU machine against a
// checkout of FlashInfer's public source (its kernels are header-only templates in
// include/flashinfer/page.cuh), e.g. by kernels/tools/gpu_check.sh:
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -I$FLASHINFER/include -Ikernels/include \
//        kernels/bench/flashinfer_peer.cu -Lbuild -lkvref_cuda -o flashinfer_peer
//
// FlashInfer's Python entry point (flashinfer.append_paged_kv_cache) JIT-compiles this same
// kernel through its own build system, which the GPU machine (no network, no FlashInfer
// package) cannot run; its Python-side overhead is therefore not in these figures.
//
// Layout: bf16, NHD, 8 heads x 128, page size 16; one request whose pages come from a shuffled
// free list (FlashInfer: indices / indptr / last_page_len with batch index 0 and positions
// 0..T-1; kvref: the equivalent slot mapping).  FlashInfer stores K/V in the cache dtype only
// (no quantising append), so there is no fp8 row.  Caches are compared byte for byte first.
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

// FlashInfer's current fastdiv.cuh wraps cuda::fast_mod_div, which the CCCL of CUDA 13.0 (the
// GPU machine's toolkit) does not have.  Where it is missing, this file supplies
// flashinfer::uint_fastdiv itself, with the same interface and the same cost class (a
// multiply-high by a precomputed 64-bit magic number, Lemire's method; exact for every
// 32-bit numerator), and keeps FlashInfer's header out by its include guard.
#include <cuda/std/version>
#if !defined(KVREF_USE_FLASHINFER_FASTDIV) && defined(CCCL_VERSION) && CCCL_VERSION < 3001000
#define FLASHINFER_FASTDIV_CUH_
namespace flashinfer {
struct uint_fastdiv {
  __host__ __device__ uint_fastdiv() : m_(0), d_(0) {}
  __host__ uint_fastdiv(uint32_t d) : m_(d > 1 ? ~uint64_t(0) / d + 1 : 0), d_(d) {}
  __host__ __device__ __forceinline__ operator unsigned int() const { return d_; }
  __host__ __device__ __forceinline__ void divmod(uint32_t n, uint32_t& q, uint32_t& r) const {
    if (d_ <= 1) {
      q = d_ == 1 ? n : 0;
    } else {
#if defined(__CUDA_ARCH__)
      q = uint32_t(__umul64hi(m_, uint64_t(n)));
#else
      q = uint32_t((static_cast<unsigned __int128>(m_) * n) >> 64);
#endif
    }
    r = n - q * d_;
  }

 private:
  uint64_t m_;
  uint32_t d_;
};
__host__ __device__ __forceinline__ uint32_t operator/(const uint32_t n, const uint_fastdiv& d) {
  uint32_t q, r;
  d.divmod(n, q, r);
  return q;
}
__host__ __device__ __forceinline__ uint32_t operator%(const uint32_t n, const uint_fastdiv& d) {
  uint32_t q, r;
  d.divmod(n, q, r);
  return r;
}
}  // namespace flashinfer
#define KVREF_FLASHINFER_FASTDIV_SHIM 1
#endif
#include <flashinfer/page.cuh>

#include "kvref/kvref.h"

#define CUDA_OK(expr)                                                                        \
  do {                                                                                       \
    cudaError_t e_ = (expr);                                                                 \
    if (e_ != cudaSuccess) {                                                                 \
      fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorString(e_), __FILE__, __LINE__, \
              #expr);                                                                        \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

namespace {

template <typename F>
double eager_us(F&& f, int iters, cudaStream_t s) {
  cudaEvent_t a, b;
  CUDA_OK(cudaEventCreate(&a));
  CUDA_OK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) f();
  CUDA_OK(cudaDeviceSynchronize());
  float best = 1e30f;
  for (int r = 0; r < 5; ++r) {
    CUDA_OK(cudaEventRecord(a, s));
    for (int i = 0; i < iters; ++i) f();
    CUDA_OK(cudaEventRecord(b, s));
    CUDA_OK(cudaEventSynchronize(b));
    float ms;
    CUDA_OK(cudaEventElapsedTime(&ms, a, b));
    best = std::min(best, ms / iters);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return best * 1e3;
}

// Per call when `per_graph` calls are captured in one graph and the graph is replayed.
template <typename F>
double graph_us(F&& f, cudaStream_t s, int per_graph, int replays) {
  cudaGraph_t g;
  cudaGraphExec_t ge;
  for (int i = 0; i < 3; ++i) f();
  CUDA_OK(cudaStreamSynchronize(s));
  CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < per_graph; ++i) f();
  CUDA_OK(cudaStreamEndCapture(s, &g));
  CUDA_OK(cudaGraphInstantiate(&ge, g, 0));
  cudaEvent_t a, b;
  CUDA_OK(cudaEventCreate(&a));
  CUDA_OK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) CUDA_OK(cudaGraphLaunch(ge, s));
  CUDA_OK(cudaStreamSynchronize(s));
  float best = 1e30f;
  for (int r = 0; r < 5; ++r) {
    CUDA_OK(cudaEventRecord(a, s));
    for (int i = 0; i < replays; ++i) CUDA_OK(cudaGraphLaunch(ge, s));
    CUDA_OK(cudaEventRecord(b, s));
    CUDA_OK(cudaEventSynchronize(b));
    float ms;
    CUDA_OK(cudaEventElapsedTime(&ms, a, b));
    best = std::min(best, ms / (replays * per_graph));
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  cudaGraphExecDestroy(ge);
  cudaGraphDestroy(g);
  return best * 1e3;
}

void bench(std::mt19937_64& rng, int64_t T, double copy_gbs, cudaStream_t s) {
  const int H = 8, D = 128, bs = 16;
  const int64_t pages_needed = (T + bs - 1) / bs;
  const int64_t nb = std::max<int64_t>(pages_needed * 2, 4096);
  const size_t src_bytes = size_t(T) * H * D * 2, cache_bytes = size_t(nb) * bs * H * D * 2;
  std::vector<int32_t> pages(nb);
  std::iota(pages.begin(), pages.end(), 0);
  std::shuffle(pages.begin(), pages.end(), rng);
  std::vector<int64_t> slots(T);
  std::vector<int32_t> pos(T), batch(T, 0);
  for (int64_t t = 0; t < T; ++t) {
    slots[t] = int64_t(pages[t / bs]) * bs + t % bs;
    pos[t] = int32_t(t);
  }
  const int32_t indptr[2] = {0, int32_t(pages_needed)};
  const int32_t last_len[1] = {int32_t((T - 1) % bs + 1)};
  std::vector<uint16_t> hk(size_t(T) * H * D), hv(hk.size());
  for (auto& x : hk) x = uint16_t(0x3c00 + rng() % 0x0800);  // finite bf16 values
  for (auto& x : hv) x = uint16_t(0xbc00 + rng() % 0x0800);
  void *k, *v, *kc[2], *vc[2];
  int64_t* d_slots;
  int32_t *d_pages, *d_indptr, *d_last, *d_pos, *d_batch;
  CUDA_OK(cudaMalloc(&k, src_bytes));
  CUDA_OK(cudaMalloc(&v, src_bytes));
  for (int i = 0; i < 2; ++i) {
    CUDA_OK(cudaMalloc(&kc[i], cache_bytes));
    CUDA_OK(cudaMalloc(&vc[i], cache_bytes));
    CUDA_OK(cudaMemset(kc[i], 0, cache_bytes));
    CUDA_OK(cudaMemset(vc[i], 0, cache_bytes));
  }
  CUDA_OK(cudaMalloc(&d_slots, T * 8));
  CUDA_OK(cudaMalloc(&d_pages, nb * 4));
  CUDA_OK(cudaMalloc(&d_indptr, 8));
  CUDA_OK(cudaMalloc(&d_last, 4));
  CUDA_OK(cudaMalloc(&d_pos, T * 4));
  CUDA_OK(cudaMalloc(&d_batch, T * 4));
  CUDA_OK(cudaMemcpy(k, hk.data(), src_bytes, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(v, hv.data(), src_bytes, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_slots, slots.data(), T * 8, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_pages, pages.data(), nb * 4, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_indptr, indptr, 8, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_last, last_len, 4, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_pos, pos.data(), T * 4, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_batch, batch.data(), T * 4, cudaMemcpyHostToDevice));

  kvref_kv_store_args a;
  kvref_kv_store_args_init(&a);  // NHD, bf16 -> bf16
  a.key = k;
  a.value = v;
  a.key_stride_token = a.value_stride_token = H * D;
  a.key_stride_head = a.value_stride_head = D;
  a.key_cache = kc[0];
  a.value_cache = vc[0];
  a.num_blocks = nb;
  a.block_size = bs;
  a.num_heads = H;
  a.head_size = D;
  a.slot_mapping = d_slots;
  a.num_tokens = T;

  typedef __nv_bfloat16 bf16;
  flashinfer::paged_kv_t<bf16, int32_t> kv(H, bs, D, 1, flashinfer::QKVLayout::kNHD,
                                           static_cast<bf16*>(kc[1]), static_cast<bf16*>(vc[1]),
                                           d_pages, d_indptr, d_last);
  auto kvref_fn = [&] {
    if (kvref_kv_store(&a, s) != KVREF_SUCCESS) {
      fprintf(stderr, "kvref_kv_store failed\n");
      exit(1);
    }
  };
  auto fi_fn = [&] {
    CUDA_OK(flashinfer::AppendPagedKVCache(kv, static_cast<bf16*>(k), static_cast<bf16*>(v), d_batch,
                                           d_pos, uint32_t(T), size_t(H) * D, size_t(D),
                                           size_t(H) * D, size_t(D), s));
  };
  kvref_fn();
  fi_fn();
  CUDA_OK(cudaStreamSynchronize(s));
  std::vector<uint8_t> c0(cache_bytes), c1(cache_bytes);
  bool same = true;
  for (int w = 0; w < 2; ++w) {
    CUDA_OK(cudaMemcpy(c0.data(), w ? vc[0] : kc[0], cache_bytes, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(c1.data(), w ? vc[1] : kc[1], cache_bytes, cudaMemcpyDeviceToHost));
    same = same && memcmp(c0.data(), c1.data(), cache_bytes) == 0;
  }
  const int iters = T >= 8192 ? 20 : 200;
  const double ke = eager_us(kvref_fn, iters, s), fe = eager_us(fi_fn, iters, s);
  const int per_graph = T >= 16384 ? 5 : 20;
  const double kg = graph_us(kvref_fn, s, per_graph, 10), fg = graph_us(fi_fn, s, per_graph, 10);
  const double bytes = 4.0 * src_bytes + T * 8.0;
  printf("store bf16 NHD H8 D128 bs16 tokens %6lld | eager kvref %8.2f us  FlashInfer %8.2f us"
         " | graph kvref %8.2f us  FlashInfer %8.2f us",
         (long long)T, ke, fe, kg, fg);
  if (T >= 16384) {
    printf(" | kvref %5.1f%% of copy, FlashInfer %5.1f%%",
           100 * bytes / (std::min(ke, kg) * 1e-6) / 1e9 / copy_gbs,
           100 * bytes / (std::min(fe, fg) * 1e-6) / 1e9 / copy_gbs);
  }
  printf(" | caches %s\n", same ? "identical" : "DIFFER");
  fflush(stdout);
  cudaFree(k);
  cudaFree(v);
  for (int i = 0; i < 2; ++i) {
    cudaFree(kc[i]);
    cudaFree(vc[i]);
  }
  cudaFree(d_slots);
  cudaFree(d_pages);
  cudaFree(d_indptr);
  cudaFree(d_last);
  cudaFree(d_pos);
  cudaFree(d_batch);
}

}  // namespace

int main() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    printf("SKIP: no CUDA device\n");
    return 77;
  }
  cudaDeviceProp prop;
  CUDA_OK(cudaGetDeviceProperties(&prop, 0));
  const size_t bytes = size_t(2) << 30;
  void *src, *dst;
  CUDA_OK(cudaMalloc(&src, bytes));
  CUDA_OK(cudaMalloc(&dst, bytes));
  cudaStream_t s;
  CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const double cms =
      eager_us([&] { CUDA_OK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s)); }, 10, s);
  cudaFree(src);
  cudaFree(dst);
  const double copy_gbs = 2.0 * bytes / (cms * 1e-6) / 1e9;
  printf("%s: D2D copy %.1f GB/s (read + write); FlashInfer AppendPagedKVCache (C++) vs kvref C API%s\n",
         prop.name, copy_gbs,
#if defined(KVREF_FLASHINFER_FASTDIV_SHIM)
         " (uint_fastdiv shim: this CCCL lacks cuda::fast_mod_div)"
#else
         ""
#endif
  );
  std::mt19937_64 rng(11);
  const int64_t sizes[] = {1, 16, 64, 256, 1024, 4096, 16384, 65536};
  for (int64_t T : sizes) bench(rng, T, copy_gbs, s);
  return 0;
}
