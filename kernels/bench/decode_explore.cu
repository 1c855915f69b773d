// decode_explore.cu - store-kernel variants kvref's plan did not pick, timed under CUDA-graph
// replay (GPU machine; prints figures, asserts nothing).
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -Ikernels/include -Ikernels/src kernels/bench/decode_explore.cu \
//        kernels/src/kvref_launch.cu kernels/src/validate.cpp -o decode_explore
//   ./decode_explore            # decode sizes + bandwidth sweeps
//   ./decode_explore --sweep    # also the general kernels in every K/V sharing mode and unit size
//
// Decode sizes (bf16 and bf16 -> fp8, NHD 8 x 128, block 16, shuffled pages as kvref_bench):
// the plan through the C API, the decode kernels with other shapes (dense / paged addressing,
// K and V by CTA half or by blockIdx.y, 128 or 64 lanes), a hard-coded bf16 copy (the floor for
// this shape) and, for fp8, timing probes that are NOT exact (no arithmetic; multiply only)
// next to kvref's exact quantiser with its two ways of finding special units.  Every exact
// variant's caches are compared byte for byte with the plan's.  Then bandwidth sweeps over
// lanes x tokens per CTA x unroll for the record stores (32K, 64K) and the fp8 store (16K).
// This is the harness behind the thresholds in src/plan.h (docs/kvref/performance.md).
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <initializer_list>
#include <numeric>
#include <random>
#include <vector>

#include "bench_common.h"
#include "kvref/kvref.h"
#include "plan.h"  // internal (src/): the harness launches the kernels itself

#define CK(x)                                                                       \
  do {                                                                              \
    cudaError_t e_ = (x);                                                           \
    if (e_ != cudaSuccess) {                                                        \
      printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      exit(1);                                                                      \
    }                                                                               \
  } while (0)

using namespace kvref;

namespace {

cudaStream_t g_s;  // every launch, copy and memset goes here
bool g_fp8_bw = true;  // --no-fp8-bw: leave out the 16K fp8 sweeps
bool g_rec_bw = true;  // --no-rec: leave out the record-store sweeps
double g_copy_gbs = 0;

// The floor for bf16 8 x 128, page 16, dense NHD pages: K and V halves of a 256-thread CTA, all
// sizes compiled in.
__global__ void floor_kernel(const int64_t* __restrict__ slots, const uint4* __restrict__ k,
                             const uint4* __restrict__ v, uint4* kc, uint4* vc) {
  const int64_t token = blockIdx.x;
  const int64_t lane = threadIdx.x & 127;
  const bool isv = threadIdx.x >= 128;
  const int64_t slot = __ldg(slots + token);
  const uint4 x = __ldg((isv ? v : k) + token * 128 + lane);
  if (slot < 0) return;
  (isv ? vc : kc)[slot * 128 + lane] = x;
}

// fp8 timing probes, decode shape (not exact): kQ 0 no arithmetic (bf16 high bytes), 1 the
// multiply only, 2 kvref's quantiser (special units found from the packed bytes), 3 kvref's
// quantiser testing every quotient.
template <int kQ>
__global__ void fp8_probe(const DecodeParams p) {
  const uint32_t lanes = 1u << p.lanes_log2;
  const bool v = (threadIdx.x >> p.lanes_log2) != 0;
  const uint32_t lane = threadIdx.x & (lanes - 1u);
  const int64_t token = blockIdx.x;
  const int64_t slot = load_early<true>(p.slot_mapping + token);
  const Vec16* src = reinterpret_cast<const Vec16*>((v ? p.src[1] : p.src[0]) +
                                                    page_offset(token, v ? p.src_token_stride[1] : p.src_token_stride[0]));
  // Loads in a predicated block, as the kernels have them (else ptxas sinks them below the test).
  float scale_value = 0.0f;
  Vec16 r = Vec16();
  if (lane < p.units_per_row) {
    scale_value = load_early<true>(v ? p.scale[1] : p.scale[0]);
    r = load_early<true>(src + lane);
  }
  if (slot < 0 || slot >= p.num_slots || lane >= p.units_per_row) return;
  unsigned char* out = (v ? p.dst[1] : p.dst[0]) + page_offset(slot, p.dst_slot_stride);
  const uint32_t w[4] = {r.x, r.y, r.z, r.w};
  uint64_t q = 0;
  if (kQ == 0) {
    for (int k = 0; k < 4; ++k) q |= static_cast<uint64_t>(((w[k] >> 8) & 0xffu) | ((w[k] >> 16) & 0xff00u)) << (16 * k);
  } else if (kQ == 1) {
    const float inv = __frcp_rn(scale_value);
    float x[8];
    unit_floats<KVREF_DTYPE_BF16, 8>(w, x);
    for (int e = 0; e < 8; e += 2) {
      unsigned short pr;
      asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(pr) : "f"(x[e + 1] * inv), "f"(x[e] * inv));
      q |= static_cast<uint64_t>(pr) << (8 * e);
    }
  } else {
    const Fp8Scale s = fp8_scale(scale_value);
    float x[8];
    unit_floats<KVREF_DTYPE_BF16, 8>(w, x);
    q = kQ == 2 ? quantize_unit<8, true>(x, s) : quantize_unit<8, false>(x, s);
  }
  store_fp8_unit(out + lane * 8u, q, 8);
}

__global__ void diff_kernel(const uint4* a, const uint4* b, size_t n, unsigned long long* cnt) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const uint4 x = a[i], y = b[i];
    if (x.x != y.x || x.y != y.y || x.z != y.z || x.w != y.w) atomicAdd(cnt, 1ull);
  }
}

// Microseconds per launch: per_graph launches captured in one graph, replayed; best of reps.
template <typename F>
double graph_us(F fn, int per_graph = 20, int replays = 50, int reps = 7) {
  fn();
  CK(cudaStreamSynchronize(g_s));
  cudaGraph_t g;
  cudaGraphExec_t ge;
  CK(cudaStreamBeginCapture(g_s, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < per_graph; ++i) fn();
  CK(cudaStreamEndCapture(g_s, &g));
  CK(cudaGraphInstantiate(&ge, g, 0));
  CK(cudaGraphLaunch(ge, g_s));
  CK(cudaStreamSynchronize(g_s));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    CK(cudaEventRecord(a, g_s));
    for (int i = 0; i < replays; ++i) CK(cudaGraphLaunch(ge, g_s));
    CK(cudaEventRecord(b, g_s));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    best = std::min(best, 1e3 * ms / (replays * per_graph));
  }
  CK(cudaGraphExecDestroy(ge));
  CK(cudaGraphDestroy(g));
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return best;
}


// Decode-sized K/V stores, bf16 or bf16 -> fp8.
struct DecodeCase {
  int64_t T;
  bool fp8;
  size_t cache_bytes;
  void *k, *v, *kc, *vc, *rk, *rv;  // rk/rv: the plan's caches (the reference)
  int64_t* slots;
  float* scales;
  unsigned long long* cnt;
  kvref_kv_store_args a;
};

// Runs launch() once on zeroed caches and counts 16-byte words that differ from the plan's.
template <typename F>
unsigned long long differs(DecodeCase& c, F launch) {
  CK(cudaMemsetAsync(c.kc, 0, c.cache_bytes, g_s));
  CK(cudaMemsetAsync(c.vc, 0, c.cache_bytes, g_s));
  launch();
  CK(cudaGetLastError());
  CK(cudaMemsetAsync(c.cnt, 0, 8, g_s));
  diff_kernel<<<1024, 256, 0, g_s>>>(static_cast<const uint4*>(c.kc), static_cast<const uint4*>(c.rk), c.cache_bytes / 16, c.cnt);
  diff_kernel<<<1024, 256, 0, g_s>>>(static_cast<const uint4*>(c.vc), static_cast<const uint4*>(c.rv), c.cache_bytes / 16, c.cnt);
  unsigned long long n = 0;
  CK(cudaMemcpyAsync(&n, c.cnt, 8, cudaMemcpyDeviceToHost, g_s));
  CK(cudaStreamSynchronize(g_s));
  return n;
}

void decode_sizes(std::mt19937_64& rng, bool sweep, bool fp8_only) {
  const int H = 8, D = 128, bs = 16;
  for (int fp8 = fp8_only ? 1 : 0; fp8 < 2; ++fp8) {
    for (int64_t T : {1, 16, 64, 128, 256, 512, 1024, 1536}) {
      DecodeCase c;
      c.T = T;
      c.fp8 = fp8 != 0;
      const int64_t nb = std::max<int64_t>((T + bs - 1) / bs * 2, 4096);
      c.cache_bytes = static_cast<size_t>(nb * bs * H * D * (fp8 ? 1 : 2));
      const size_t src_bytes = static_cast<size_t>(T * H * D * 2);
      for (void** p : {&c.k, &c.v}) CK(cudaMalloc(p, src_bytes));
      for (void** p : {&c.kc, &c.vc, &c.rk, &c.rv}) CK(cudaMalloc(p, c.cache_bytes));
      CK(cudaMalloc(&c.slots, T * 8));
      CK(cudaMalloc(&c.scales, 8));
      CK(cudaMalloc(&c.cnt, 8));
      std::vector<uint16_t> h(src_bytes / 2);
      for (void* dst : {c.k, c.v}) {  // bf16 values around 1, both signs
        for (auto& x : h) x = static_cast<uint16_t>(0x3c00 + (rng() % 0x700) - 0x380 + ((rng() & 1) << 15));
        CK(cudaMemcpy(dst, h.data(), src_bytes, cudaMemcpyHostToDevice));
      }
      const float sc[2] = {0.37f, 1.3f};
      CK(cudaMemcpy(c.scales, sc, 8, cudaMemcpyHostToDevice));
      std::vector<int64_t> hs = paged_slots(rng, T, bs, nb);
      if (T >= 16) hs[T / 2] = -1;  // a pad
      CK(cudaMemcpy(c.slots, hs.data(), T * 8, cudaMemcpyHostToDevice));
      kvref_kv_store_args& a = c.a;
      kvref_kv_store_args_init(&a);
      a.key = c.k;
      a.value = c.v;
      a.key_stride_token = a.value_stride_token = H * D;
      a.key_stride_head = a.value_stride_head = D;
      a.key_cache = c.rk;
      a.value_cache = c.rv;
      a.layout = KVREF_LAYOUT_NHD;
      a.num_blocks = nb;
      a.block_size = bs;
      a.num_heads = H;
      a.head_size = D;
      a.slot_mapping = c.slots;
      a.num_tokens = T;
      a.src_dtype = KVREF_DTYPE_BF16;
      a.cache_dtype = fp8 ? KVREF_DTYPE_FP8_E4M3 : KVREF_DTYPE_BF16;
      a.k_scale = c.scales;
      a.v_scale = c.scales + 1;
      CK(cudaMemsetAsync(c.rk, 0, c.cache_bytes, g_s));
      CK(cudaMemsetAsync(c.rv, 0, c.cache_bytes, g_s));
      if (kvref_kv_store(&a, g_s) != KVREF_SUCCESS) {
        printf("kvref_kv_store failed\n");
        exit(1);
      }
      const char* dt = fp8 ? "fp8 " : "bf16";
      printf("%s T %5lld  plan (C API)                               graph %6.3f us\n", dt, (long long)T,
             graph_us([&] { kvref_kv_store(&a, g_s); }));
      a.key_cache = c.kc;  // the variants write kc/vc
      a.value_cache = c.vc;
      const StorePlan plan = plan_kv_store(a);
      // The decode kernels in every shape.
      for (int dense = 1; dense >= 0; --dense) {
        for (int y = 0; y < 2; ++y) {
          void (*kern)(DecodeParams);
          if (fp8) {
            kern = dense ? (y ? scatter_fp8_decode_kernel<KVREF_DTYPE_BF16, true, true> : scatter_fp8_decode_kernel<KVREF_DTYPE_BF16, true, false>)
                         : (y ? scatter_fp8_decode_kernel<KVREF_DTYPE_BF16, false, true> : scatter_fp8_decode_kernel<KVREF_DTYPE_BF16, false, false>);
          } else {
            kern = dense ? (y ? scatter_copy_decode_kernel<Vec16, true, true> : scatter_copy_decode_kernel<Vec16, true, false>)
                         : (y ? scatter_copy_decode_kernel<Vec16, false, true> : scatter_copy_decode_kernel<Vec16, false, false>);
          }
          for (uint32_t ln : {128u, 64u}) {
            DecodeParams d = plan.dec;
            d.lanes_log2 = log2_ceil(ln);
            const dim3 grid(static_cast<unsigned>(T), y ? 2u : 1u), block(y ? ln : 2 * ln);
            auto go = [&] { kern<<<grid, block, 0, g_s>>>(d); };
            const unsigned long long n = differs(c, go);
            const bool is_plan = plan.decode && plan.decode_pairs == 0 && plan.decode_dense == (dense != 0) &&
                                 plan.decode_split_y == (y != 0) && plan.dec.lanes_log2 == d.lanes_log2;
            printf("%s T %5lld  decode %-6s %-10s lanes %3u%s  graph %6.3f us  %s\n", dt, (long long)T,
                   dense ? "dense" : "paged", y ? "y-split" : "lane-split", ln, is_plan ? " (plan)" : "       ",
                   graph_us(go), n ? "DIFFER" : "identical");
          }
        }
      }
      if (fp8) {
        // Pairs of adjacent units per thread (1 or 2 pairs), K/V by CTA half or blockIdx.y.
        for (int dense = 1; dense >= 0; --dense) {
          for (int y = 0; y < 2; ++y) {
            for (int kp = 1; kp <= 2; ++kp) {
              void (*kern)(DecodeParams);
              if (kp == 1) {
                kern = dense ? (y ? scatter_fp8_decode_pairs_kernel<KVREF_DTYPE_BF16, true, true, 1> : scatter_fp8_decode_pairs_kernel<KVREF_DTYPE_BF16, true, false, 1>)
                             : (y ? scatter_fp8_decode_pairs_kernel<KVREF_DTYPE_BF16, false, true, 1> : scatter_fp8_decode_pairs_kernel<KVREF_DTYPE_BF16, false, false, 1>);
              } else {
                kern = dense ? (y ? scatter_fp8_decode_pairs_kernel<KVREF_DTYPE_BF16, true, true, 2> : scatter_fp8_decode_pairs_kernel<KVREF_DTYPE_BF16, true, false, 2>)
                             : (y ? scatter_fp8_decode_pairs_kernel<KVREF_DTYPE_BF16, false, true, 2> : scatter_fp8_decode_pairs_kernel<KVREF_DTYPE_BF16, false, false, 2>);
              }
              const uint32_t ln = static_cast<uint32_t>(H * D / 16 / kp);
              DecodeParams d = plan.dec;
              d.lanes_log2 = log2_ceil(ln);
              const dim3 grid(static_cast<unsigned>(T), y ? 2u : 1u), block(y ? ln : 2 * ln);
              auto go = [&] { kern<<<grid, block, 0, g_s>>>(d); };
              const unsigned long long n = differs(c, go);
              const bool is_plan = plan.decode && plan.decode_pairs == kp && plan.decode_dense == (dense != 0) &&
                                   plan.decode_split_y == (y != 0) && plan.dec.lanes_log2 == d.lanes_log2;
              printf("%s T %5lld  pairs%d %-6s %-10s lanes %3u%s  graph %6.3f us  %s\n", dt, (long long)T, kp,
                     dense ? "dense" : "paged", y ? "y-split" : "lane-split", ln, is_plan ? " (plan)" : "       ",
                     graph_us(go), n ? "DIFFER" : "identical");
            }
          }
        }
      }
      if (!fp8) {
        printf("bf16 T %5lld  floor (hard-coded shape)                    graph %6.3f us\n", (long long)T,
               graph_us([&] {
                 floor_kernel<<<static_cast<unsigned>(T), 256, 0, g_s>>>(c.slots, static_cast<const uint4*>(c.k),
                                                                       static_cast<const uint4*>(c.v),
                                                                       static_cast<uint4*>(c.kc), static_cast<uint4*>(c.vc));
               }));
      } else {
        DecodeParams d = plan.dec;
        d.lanes_log2 = 7;
        const char* names[4] = {"probe: no arithmetic (inexact)", "probe: multiply only (inexact)",
                                "quantiser, NaN bytes (kvref)", "quantiser, every quotient"};
        void (*probes[4])(DecodeParams) = {fp8_probe<0>, fp8_probe<1>, fp8_probe<2>, fp8_probe<3>};
        for (int i = 0; i < 4; ++i) {
          auto go = [&] { probes[i]<<<static_cast<unsigned>(T), 256, 0, g_s>>>(d); };
          const char* same = "";
          if (i >= 2) same = differs(c, go) ? "  DIFFER" : "  identical";
          printf("fp8  T %5lld  %-32s           graph %6.3f us%s\n", (long long)T, names[i], graph_us(go), same);
        }
      }
      if (sweep) {
        // The general kernels: K/V by blockIdx.y (1), in one thread (2), by CTA half (3).
        struct V {
          const char* label;
          void (*kernel)(ScatterParams);
          int mode;
          int unit;  // copy: vector bytes; fp8: elements per unit
        };
        const std::vector<V> vs =
            fp8 ? std::vector<V>{{"y-split e8", scatter_fp8_vec_kernel<1, 1, 1, true, 8>, 1, 8},
                                 {"both e8", scatter_fp8_vec_kernel<1, 2, 1, true, 8>, 2, 8},
                                 {"lane-split e8", scatter_fp8_vec_kernel<1, 3, 1, true, 8>, 3, 8},
                                 {"y-split e4", scatter_fp8_vec_kernel<1, 1, 1, true, 4>, 1, 4},
                                 {"both e4", scatter_fp8_vec_kernel<1, 2, 1, true, 4>, 2, 4},
                                 {"lane-split e4", scatter_fp8_vec_kernel<1, 3, 1, true, 4>, 3, 4},
                                 {"both e2", scatter_fp8_vec_kernel<1, 2, 1, true, 2>, 2, 2}}
                : std::vector<V>{{"y-split v16", scatter_copy_kernel<Vec16, 1, 1>, 1, 16},
                                 {"both v16", scatter_copy_kernel<Vec16, 2, 1>, 2, 16},
                                 {"lane-split v16", scatter_copy_kernel<Vec16, 3, 1>, 3, 16},
                                 {"y-split v8", scatter_copy_kernel<Vec8, 1, 1>, 1, 8},
                                 {"both v8", scatter_copy_kernel<Vec8, 2, 1>, 2, 8},
                                 {"lane-split v8", scatter_copy_kernel<Vec8, 3, 1>, 3, 8}};
        for (const V& x : vs) {
          for (uint32_t tpb : {1u, 2u, 4u}) {
            ScatterParams p = plan.params;
            p.num_heads = 1;
            p.units_per_row = static_cast<uint32_t>(fp8 ? H * D / x.unit : H * D * 2 / x.unit);
            const uint32_t lanes = p.units_per_row;
            p.lanes_log2 = log2_ceil(lanes);
            p.tokens_per_block = tpb;
            const dim3 grid(static_cast<unsigned>((T + tpb - 1) / tpb), x.mode == 1 ? 2u : 1u);
            const dim3 block(lanes * (x.mode == 3 ? 2u : 1u) * tpb);
            if (block.x > 1024) continue;
            auto go = [&] { x.kernel<<<grid, block, 0, g_s>>>(p); };
            const unsigned long long n = differs(c, go);
            printf("%s T %5lld  general %-16s lanes %3u tok/CTA %u  graph %6.3f us  %s\n", dt, (long long)T, x.label,
                   lanes, tpb, graph_us(go), n ? "DIFFER" : "identical");
          }
        }
      }
      fflush(stdout);
      for (void* p : {c.k, c.v, c.kc, c.vc, c.rk, c.rv}) CK(cudaFree(p));
      CK(cudaFree(c.slots));
      CK(cudaFree(c.scales));
      CK(cudaFree(c.cnt));
    }
  }
}

typedef void (*StoreKernel)(ScatterParams);
struct Labelled {
  const char* label;
  StoreKernel kernel;
};

void bw_sweep(const char* name, const StorePlan& plan, double bytes, std::initializer_list<Labelled> ks,
              std::initializer_list<uint32_t> lanes, std::initializer_list<uint32_t> tpbs) {
  for (const Labelled& x : ks) {
    for (uint32_t ln : lanes) {
      for (uint32_t tpb : tpbs) {
        if (ln * tpb > 512 || ln * tpb < 32) continue;
        ScatterParams p = plan.params;
        p.lanes_log2 = log2_ceil(ln);
        p.tokens_per_block = tpb;
        const dim3 grid(static_cast<unsigned>((p.num_tokens + tpb - 1) / tpb)), block(ln * tpb);
        const double us = graph_us([&] { x.kernel<<<grid, block, 0, g_s>>>(p); }, 20, 3, 5);
        const bool is_plan = p.lanes_log2 == plan.params.lanes_log2 && tpb == plan.params.tokens_per_block;
        printf("bw %-20s T %6lld %-4s lanes %3u tok/CTA %2u%s %8.2f us %5.1f%% of copy\n", name,
               (long long)p.num_tokens, x.label, ln, tpb, is_plan ? " (plan)" : "       ", us,
               100.0 * bytes / (us * 1e-6) / 1e9 / g_copy_gbs);
      }
    }
  }
  fflush(stdout);
}

void bandwidth(std::mt19937_64& rng) {
  {
    const size_t n = size_t(2) << 30;
    void *a, *b;
    CK(cudaMalloc(&a, n));
    CK(cudaMalloc(&b, n));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    float best = 1e9f;
    for (int r = 0; r < 5; ++r) {
      CK(cudaEventRecord(e0, g_s));
      for (int i = 0; i < 10; ++i) CK(cudaMemcpyAsync(b, a, n, cudaMemcpyDeviceToDevice, g_s));
      CK(cudaEventRecord(e1, g_s));
      CK(cudaEventSynchronize(e1));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      best = std::min(best, ms / 10);
    }
    g_copy_gbs = 2.0 * n / (best * 1e-3) / 1e9;
    printf("cudaMemcpy D2D 2 GiB: %.1f GB/s (read + write)\n", g_copy_gbs);
    CK(cudaFree(a));
    CK(cudaFree(b));
  }
  struct Rec {
    const char* name;
    int64_t record, extra;
  };
  for (Rec r : {Rec{"MLA bf16 1152+64", 1152, 64}, Rec{"MLA fp8 656", 656, 0}}) {
    if (!g_rec_bw) break;
    for (int64_t T : {32768, 65536}) {
      const int page = 64;
      const int64_t page_bytes = page * r.record + r.extra;
      const int64_t pages = std::max<int64_t>((T + page - 1) / page * 2, 1024);
      void *src, *cache;
      int64_t* slots;
      CK(cudaMalloc(&src, T * r.record));
      CK(cudaMalloc(&cache, pages * page_bytes));
      CK(cudaMalloc(&slots, T * 8));
      const std::vector<int64_t> hs = paged_slots(rng, T, page, pages);
      CK(cudaMemcpy(slots, hs.data(), T * 8, cudaMemcpyHostToDevice));
      kvref_record_store_args a;
      kvref_record_store_args_init(&a);
      a.src = src;
      a.src_stride = r.record;
      a.record_bytes = r.record;
      a.cache = cache;
      a.num_pages = pages;
      a.page_size = page;
      a.page_bytes = page_bytes;
      a.slot_mapping = slots;
      a.num_tokens = T;
      bw_sweep(r.name, plan_record_store(a), 2.0 * T * r.record + T * 8.0,
               {{"u2", scatter_copy_kernel<Vec16, 1, 2>}, {"u4", scatter_copy_kernel<Vec16, 1, 4>},
                {"u2cs", scatter_copy_kernel<Vec16, 1, 2, true, true>}, {"u4cs", scatter_copy_kernel<Vec16, 1, 4, true, true>},
                {"u2ld", scatter_copy_kernel<Vec16, 1, 2, false, false>}},
               {16, 32, 64}, {1, 2, 4, 8});
      CK(cudaFree(src));
      CK(cudaFree(cache));
      CK(cudaFree(slots));
    }
  }
  for (int hnd = 0; hnd < 2 && g_fp8_bw; ++hnd) {
    const int64_t T = 16384;
    const int H = 8, D = 128, bs = 16;
    const int64_t nb = std::max<int64_t>((T + bs - 1) / bs * 2, 4096);
    void *k, *v, *kc, *vc;
    int64_t* slots;
    float* sc;
    CK(cudaMalloc(&k, T * H * D * 2));
    CK(cudaMalloc(&v, T * H * D * 2));
    CK(cudaMalloc(&kc, nb * bs * H * D));
    CK(cudaMalloc(&vc, nb * bs * H * D));
    CK(cudaMalloc(&slots, T * 8));
    CK(cudaMalloc(&sc, 8));
    const float hsc[2] = {1.0f, 1.0f};
    CK(cudaMemcpy(sc, hsc, 8, cudaMemcpyHostToDevice));
    CK(cudaMemsetAsync(k, 0x11, T * H * D * 2, g_s));
    CK(cudaMemsetAsync(v, 0x22, T * H * D * 2, g_s));
    const std::vector<int64_t> hs = paged_slots(rng, T, bs, nb);
    CK(cudaMemcpy(slots, hs.data(), T * 8, cudaMemcpyHostToDevice));
    kvref_kv_store_args a;
    kvref_kv_store_args_init(&a);
    a.key = k;
    a.value = v;
    a.key_stride_token = a.value_stride_token = H * D;
    a.key_stride_head = a.value_stride_head = D;
    a.key_cache = kc;
    a.value_cache = vc;
    a.layout = hnd ? KVREF_LAYOUT_HND : KVREF_LAYOUT_NHD;
    a.num_blocks = nb;
    a.block_size = bs;
    a.num_heads = H;
    a.head_size = D;
    a.slot_mapping = slots;
    a.num_tokens = T;
    a.src_dtype = KVREF_DTYPE_BF16;
    a.cache_dtype = KVREF_DTYPE_FP8_E4M3;
    a.k_scale = sc;
    a.v_scale = sc + 1;
    bw_sweep(hnd ? "bf16->fp8 HND" : "bf16->fp8 NHD", plan_kv_store(a), 2.0 * T * H * D * 3.0 + T * 8.0,
             {{"u1", scatter_fp8_vec_kernel<1, 2, 1>}, {"u2", scatter_fp8_vec_kernel<1, 2, 2>},
              {"u4", scatter_fp8_vec_kernel<1, 2, 4>}},
             {16, 32, 64, 128}, {1, 2, 4});
    for (void* p : {k, v, kc, vc}) CK(cudaFree(p));
    CK(cudaFree(slots));
    CK(cudaFree(sc));
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool sweep = false, fp8_only = false, bw = true, decode = true;
  for (int i = 1; i < argc; ++i) {
    sweep = sweep || !strcmp(argv[i], "--sweep");
    fp8_only = fp8_only || !strcmp(argv[i], "--fp8");  // decode sizes: bf16 -> fp8 only
    bw = bw && strcmp(argv[i], "--no-bw") != 0;        // no bandwidth sweeps
    if (!strcmp(argv[i], "--no-fp8-bw")) g_fp8_bw = false;
    if (!strcmp(argv[i], "--no-rec")) g_rec_bw = false;  // no record-store sweeps
    decode = decode && strcmp(argv[i], "--no-decode") != 0;
  }
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    printf("SKIP: no CUDA device\n");
    return 0;
  }
  CK(cudaStreamCreateWithFlags(&g_s, cudaStreamNonBlocking));
  std::mt19937_64 rng(1);
  if (decode) decode_sizes(rng, sweep, fp8_only);
  if (bw) bandwidth(rng);
  return 0;
}
