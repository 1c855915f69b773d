// kvref_bench.cu - throughput of the kvref kernels on the GPU; prints figures, asserts nothing.
//
//   kvref_bench [--quick] [--explore]
//   kvref_bench --records
//   kvref_bench --plateau
//
// Every store is timed twice: back-to-back launches on a stream, and per launch when 20
// launches are captured in one CUDA graph that is replayed (engines replay graphs); "% of copy"
// uses the better of the two.  --explore also times the prefill-sized stores with other thread
// shapes (threads per token x tokens per CTA) than kvref's plan picks, launching the kernels
// directly (development aid).  --records times only the record store, at 1..65,536 tokens, with
// scatter_copy_kernel (the plan without the bulk path) and record_store_bulk_kernel in chunks
// of 8 / 16 / 32 tokens with and without L2 evict_first hints, each checked against the first
// byte for byte (development aid: the bulk path's threshold and chunk in src/plan.h).
// --plateau times the prefill-sized K/V store (bf16 NHD / HND 8 x 128, f16 NHD 32 x 128; 16K,
// 32K, 64K tokens) with L2 prefetch sizes, capped and raised occupancy and other register
// budgets, each checked against the plan byte for byte; with slots whose pages are in order or
// shuffled only inside windows of the free list; and last with L2 evict_last hints, each
// followed by a reset of L2's persisting lines and a control line (development aid: why 16K
// bf16 sits near 89 %).
//
// * device-to-device copy bandwidth (cudaMemcpyAsync), measured in the same run: the ceiling
// * KV store (K and V), decode-like (hundreds of tokens) and prefill-like (tens of thousands),
//   bf16 NHD / HND, bf16 -> fp8, and the record store (MLA-sized records): GB/s counting bytes
//   read + written, and % of the copy bandwidth
// * slot mapping with the width guard (kvref's kernel) and without it (a copy of the kernel
//   with the guard removed, kept here only as a baseline): time and guard cost in %
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <chrono>
#include <initializer_list>
#include <numeric>
#include <random>
#include <vector>

#include <cuda.h>

#include "kvref/kv_store.cuh"
#include "bench_common.h"
#include "bench_timer.cuh"
#include "kvref/kvref.h"
#include "kvref/slot_mapping.cuh"
#include "plan.h"  // internal (src/): the explore mode launches the store kernels itself


namespace {

// ---- The unguarded baseline (deliberately without the row-width guard; benchmark only) --------
__device__ inline int64_t slot_unguarded(const kvref_slot_group& g, int32_t row, int64_t pos,
                                         int32_t cp_size, int32_t cp_rank, int32_t cp_interleave) {
  if (pos < 0) return KVREF_PAD_SLOT;
  const int64_t virtual_block = static_cast<int64_t>(g.block_size) * cp_size;
  const int64_t col = pos / virtual_block;
  const int64_t off = pos - col * virtual_block;
  int64_t local = off;
  if (cp_size > 1) {
    const int64_t stripe = off / cp_interleave;
    if (stripe % cp_size != cp_rank) return KVREF_PAD_SLOT;
    local = (stripe / cp_size) * cp_interleave + (off - stripe * cp_interleave);
  }
  // Unguarded on purpose: the baseline for the guard's cost (kvlint would flag this line).
  const int32_t block = g.block_table[kvref::page_offset(row, g.row_stride) + col];  // NOLINT(kvlint-unguarded-table-load)
  if (block < 0) return KVREF_PAD_SLOT;
  return kvref::page_offset(static_cast<int64_t>(block), g.block_size) + local;
}

__global__ void slot_mapping_unguarded_kernel(const kvref_slot_mapping_args args) {
  const kvref_slot_group& g = args.groups[blockIdx.y];
  const int64_t t = kvref::page_offset(blockIdx.x, kvref::kSlotMappingThreads) + threadIdx.x;
  if (t >= args.num_tokens_padded) return;
  int64_t slot = KVREF_PAD_SLOT;
  if (t < args.num_tokens) {
    const int32_t b = kvref::find_request(args.query_start_loc, args.num_reqs, t);
    if (b >= 0) {
      const int32_t row = args.idx_mapping[b];
      if (row >= 0 && row < args.num_rows) {
        slot = slot_unguarded(g, row, args.positions[t], args.cp_size, args.cp_rank,
                              args.cp_interleave);
      }
    }
  }
  g.slot_mapping[t] = slot;
}

double g_copy_gbs = 0;
cudaStream_t g_stream = nullptr;  // every timed launch goes here (capturable)
bool g_explore = false;


// Times `launch` both ways and prints one line; returns the better time (ms).
template <typename F>
double time_store(const char* kind, const char* name, int64_t T, double bytes, F launch) {
  Timer t(g_stream);
  const int iters = T >= 8192 ? 20 : 200;
  const double ms = t.ms_per_iter(launch, iters);
  const double gms = t.graph_ms_per_iter(launch, 20, T >= 8192 ? 3 : 20);
  BENCH_OK(cudaGetLastError());
  const double best = std::min(ms, gms);
  const double gbs = bytes / (best * 1e-3) / 1e9;
  printf("%-12s %-34s tokens %6lld  stream %8.2f us  graph %8.2f us  %8.1f GB/s  %5.1f%% of copy\n", kind,
         name, (long long)T, ms * 1e3, gms * 1e3, gbs, 100.0 * gbs / g_copy_gbs);
  if (T >= 16384) {
    // The ceiling at this size: cudaMemcpyAsync moving the same bytes (read + write), timed
    // the same two ways.
    const size_t half = static_cast<size_t>(bytes / 2);
    void *x, *y;
    BENCH_OK(cudaMalloc(&x, half));
    BENCH_OK(cudaMalloc(&y, half));
    auto cp = [&] { BENCH_OK(cudaMemcpyAsync(y, x, half, cudaMemcpyDeviceToDevice, g_stream)); };
    const double cms = std::min(t.ms_per_iter(cp, iters), t.graph_ms_per_iter(cp, 20, 3));
    printf("%-12s %-34s        %6s  memcpy of the same bytes: %8.2f us  %5.1f%% of copy\n", "", "", "",
           cms * 1e3, 100.0 * bytes / (cms * 1e-3) / 1e9 / g_copy_gbs);
    cudaFree(x);
    cudaFree(y);
  }
  fflush(stdout);
  return best;
}

// --explore: the same store with other kernel variants (unroll, load path) and thread shapes
// than kvref's plan picks, launched directly.
typedef void (*StoreKernel)(kvref::ScatterParams);
struct Variant {
  const char* label;
  StoreKernel kernel;
  int grid_y;
};

void explore(const char* name, const kvref::StorePlan& plan, double bytes, std::initializer_list<Variant> variants,
             std::initializer_list<uint32_t> lanes, std::initializer_list<uint32_t> tpbs) {
  for (const Variant& v : variants) {
    for (uint32_t ln : lanes) {
      for (uint32_t tpb : tpbs) {
        if (tpb * ln > 512) continue;
        kvref::ScatterParams p = plan.params;
        p.lanes_log2 = kvref::log2_ceil(ln);
        p.tokens_per_block = tpb;
        const dim3 grid(static_cast<unsigned>((p.num_tokens + tpb - 1) / tpb), v.grid_y);
        const dim3 block(tpb * ln);
        Timer t(g_stream);
        auto go = [&] { v.kernel<<<grid, block, 0, g_stream>>>(p); };
        const double ms = t.ms_per_iter(go, p.num_tokens >= 8192 ? 20 : 200);
        const double gms = t.graph_ms_per_iter(go, 20, p.num_tokens >= 8192 ? 3 : 20);
        BENCH_OK(cudaGetLastError());
        const double gbs = bytes / (std::min(ms, gms) * 1e-3) / 1e9;
        const bool is_plan = p.lanes_log2 == plan.params.lanes_log2 && tpb == plan.params.tokens_per_block;
        printf("  explore %-30s %6lld tok %-16s lanes %3u tok/CTA %3u%s: stream %8.2f us graph %8.2f us %5.1f%%\n",
               name, (long long)p.num_tokens, v.label, ln, tpb, is_plan ? " (plan)" : "       ", ms * 1e3,
               gms * 1e3, 100.0 * gbs / g_copy_gbs);
      }
    }
  }
  fflush(stdout);
}

double measure_copy_bandwidth() {
  const size_t bytes = size_t(2) << 30;
  void *src, *dst;
  BENCH_OK(cudaMalloc(&src, bytes));
  BENCH_OK(cudaMalloc(&dst, bytes));
  BENCH_OK(cudaMemset(src, 1, bytes));
  Timer t(g_stream);
  const double ms = t.ms_per_iter(
      [&] { BENCH_OK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, g_stream)); }, 10);
  cudaFree(src);
  cudaFree(dst);
  return 2.0 * bytes / (ms * 1e-3) / 1e9;
}

// Slots as an engine lays them out: pages taken from a shuffled free list, consecutive tokens
// filling a page.

// The K/V store's arguments of the benchmark's cases: K and V [T, H, D] dense, caches of
// num_blocks pages of bs tokens in `layout`.
kvref_kv_store_args kv_args(const void* k, const void* v, void* kc, void* vc, const int64_t* slots, int64_t T, int H,
                            int D, int64_t num_blocks, int bs, kvref_dtype src, kvref_dtype cache, kvref_layout layout) {
  kvref_kv_store_args a;
  kvref_kv_store_args_init(&a);
  a.key = k;
  a.value = v;
  a.key_stride_token = a.value_stride_token = static_cast<int64_t>(H) * D;
  a.key_stride_head = a.value_stride_head = D;
  a.key_cache = kc;
  a.value_cache = vc;
  a.layout = layout;
  a.num_blocks = num_blocks;
  a.block_size = bs;
  a.num_heads = H;
  a.head_size = D;
  a.slot_mapping = slots;
  a.num_tokens = T;
  a.src_dtype = src;
  a.cache_dtype = cache;
  return a;
}

void bench_kv(std::mt19937_64& rng, const char* name, int64_t T, int H, int D, kvref_dtype src,
              kvref_dtype cache, kvref_layout layout) {
  const int bs = 16;
  const int es = kvref_dtype_size(src), ce = kvref_dtype_size(cache);
  const int64_t num_blocks = std::max<int64_t>((T + bs - 1) / bs * 2, 4096);
  const int64_t cache_bytes = num_blocks * bs * H * D * ce;
  const int64_t src_bytes = T * H * D * es;
  void *k, *v, *kc, *vc;
  int64_t* slots;
  float* scale;
  BENCH_OK(cudaMalloc(&k, src_bytes));
  BENCH_OK(cudaMalloc(&v, src_bytes));
  BENCH_OK(cudaMalloc(&kc, cache_bytes));
  BENCH_OK(cudaMalloc(&vc, cache_bytes));
  BENCH_OK(cudaMalloc(&slots, T * 8));
  BENCH_OK(cudaMalloc(&scale, 8));
  BENCH_OK(cudaMemset(k, 0x11, src_bytes));
  BENCH_OK(cudaMemset(v, 0x22, src_bytes));
  const float sc[2] = {1.0f, 1.0f};
  BENCH_OK(cudaMemcpy(scale, sc, 8, cudaMemcpyHostToDevice));
  const std::vector<int64_t> hs = paged_slots(rng, T, bs, num_blocks);
  BENCH_OK(cudaMemcpy(slots, hs.data(), T * 8, cudaMemcpyHostToDevice));
  BENCH_OK(cudaDeviceSynchronize());  // the copy has landed before g_stream reads the slots
  kvref_kv_store_args a = kv_args(k, v, kc, vc, slots, T, H, D, num_blocks, bs, src, cache, layout);
  a.k_scale = scale;
  a.v_scale = scale + 1;
  const double bytes = 2.0 * (src_bytes + static_cast<double>(T) * H * D * ce) + T * 8.0;
  time_store("kv_store", name, T, bytes, [&] { kvref_kv_store(&a, g_stream); });
  if (g_explore && src == KVREF_DTYPE_BF16 && layout == KVREF_LAYOUT_NHD) {
    using namespace kvref;
    const StorePlan plan = plan_kv_store(a);
    const bool fp8 = cache == KVREF_DTYPE_FP8_E4M3;
    const bool decode_probe = T == 16 || T == 256 || T == 1024;
    if (T < 2048 && !fp8 && decode_probe) {
      explore(name, plan, bytes,
              {{"fused u4 nc", scatter_copy_kernel<Vec16, 2, 4, true>, 1},
               {"fused u4 plain", scatter_copy_kernel<Vec16, 2, 4, false>, 1},
               {"fused u1 nc", scatter_copy_kernel<Vec16, 2, 1, true>, 1},
               {"split u1 nc", scatter_copy_kernel<Vec16, 1, 1, true>, 2}},
              {32, 64, 128, 256}, {1, 2});
    } else if (T < 2048 && decode_probe) {
      explore(name, plan, bytes,
              {{"fused u4 nc", scatter_fp8_vec_kernel<KVREF_DTYPE_BF16, 2, 4, true>, 1},
               {"fused u1 nc", scatter_fp8_vec_kernel<KVREF_DTYPE_BF16, 2, 1, true>, 1},
               {"fused u1 plain", scatter_fp8_vec_kernel<KVREF_DTYPE_BF16, 2, 1, false>, 1},
               {"split u1 nc", scatter_fp8_vec_kernel<KVREF_DTYPE_BF16, 1, 1, true>, 2}},
              {32, 64, 128, 256}, {1, 2});
    } else if (T == 16384 && !fp8) {
      explore(name, plan, bytes,
              {{"fused u4 nc", scatter_copy_kernel<Vec16, 2, 4, true>, 1},
               {"fused u4 plain", scatter_copy_kernel<Vec16, 2, 4, false>, 1},
               {"fused u2 nc", scatter_copy_kernel<Vec16, 2, 2, true>, 1},
               {"fused u1 nc", scatter_copy_kernel<Vec16, 2, 1, true>, 1}},
              {16, 32, 64, 128}, {1, 2, 4, 8});
    } else if (T == 16384) {
      explore(name, plan, bytes,
              {{"fused u4 nc", scatter_fp8_vec_kernel<KVREF_DTYPE_BF16, 2, 4, true>, 1},
               {"fused u4 plain", scatter_fp8_vec_kernel<KVREF_DTYPE_BF16, 2, 4, false>, 1},
               {"fused u2 nc", scatter_fp8_vec_kernel<KVREF_DTYPE_BF16, 2, 2, true>, 1},
               {"fused u1 nc", scatter_fp8_vec_kernel<KVREF_DTYPE_BF16, 2, 1, true>, 1},
               {"split u4 nc", scatter_fp8_vec_kernel<KVREF_DTYPE_BF16, 1, 4, true>, 2}},
              {16, 32, 64, 128}, {1, 2, 4, 8});
    }
  }
  cudaFree(k);
  cudaFree(v);
  cudaFree(kc);
  cudaFree(vc);
  cudaFree(slots);
  cudaFree(scale);
}

/// The record store's arguments for T contiguous records of R bytes into
/// num_pages pages of page_size records (page_bytes apart).
kvref_record_store_args record_args(const void* src, int64_t R, void* cache, int64_t num_pages,
                                    int page_size, int64_t page_bytes, const int64_t* slots,
                                    int64_t T) {
  kvref_record_store_args a;
  kvref_record_store_args_init(&a);
  a.src = src;
  a.src_stride = R;
  a.record_bytes = R;
  a.cache = cache;
  a.num_pages = num_pages;
  a.page_size = page_size;
  a.page_bytes = page_bytes;
  a.slot_mapping = slots;
  a.num_tokens = T;
  return a;
}

void bench_record(std::mt19937_64& rng, const char* name, int64_t T, int64_t R, int64_t extra) {
  const int page_size = 64;
  const int64_t page_bytes = page_size * R + extra;
  const int64_t num_pages = std::max<int64_t>((T + page_size - 1) / page_size * 2, 1024);
  void *src, *cache;
  int64_t* slots;
  BENCH_OK(cudaMalloc(&src, T * R));
  BENCH_OK(cudaMalloc(&cache, num_pages * page_bytes));
  BENCH_OK(cudaMalloc(&slots, T * 8));
  BENCH_OK(cudaMemset(src, 0x33, T * R));
  const std::vector<int64_t> hs = paged_slots(rng, T, page_size, num_pages);
  BENCH_OK(cudaMemcpy(slots, hs.data(), T * 8, cudaMemcpyHostToDevice));
  const kvref_record_store_args a =
      record_args(src, R, cache, num_pages, page_size, page_bytes, slots, T);
  const double bytes = 2.0 * T * R + T * 8.0;
  time_store("record_store", name, T, bytes, [&] { kvref_record_store(&a, g_stream); });
  if (g_explore && T == 16384) {
    using namespace kvref;
    explore(name, plan_record_store(a), bytes,
            {{"u8 nc", scatter_copy_kernel<Vec16, 1, 8, true>, 1},
             {"u8 plain", scatter_copy_kernel<Vec16, 1, 8, false>, 1},
             {"u4 nc", scatter_copy_kernel<Vec16, 1, 4, true>, 1},
             {"u2 nc", scatter_copy_kernel<Vec16, 1, 2, true>, 1}},
            {4, 8, 16, 32, 64}, {1, 2, 4, 8, 16});
  }
  cudaFree(src);
  cudaFree(cache);
  cudaFree(slots);
}

// Number of 16-byte words of a and b that differ.
__global__ void count_diff(const uint4* a, const uint4* b, int64_t n, unsigned long long* out) {
  unsigned long long local = 0;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const uint4 x = a[i], y = b[i];
    local += x.x != y.x || x.y != y.y || x.z != y.z || x.w != y.w;
  }
  if (local != 0) atomicAdd(out, local);
}

__global__ void fill_words(uint32_t* p, int64_t n) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    p[i] = static_cast<uint32_t>(i) * 0x9e3779b9u;
  }
}

// --records (see the file's header).
void sweep_records(std::mt19937_64& rng) {
  using namespace kvref;
  struct Rec {
    const char* name;
    int64_t R, extra;
  };
  const Rec recs[] = {{"MLA bf16 1152 B + 64 B/page", 1152, 64}, {"MLA fp8 656 B/record", 656, 0}};
  const int64_t sizes[] = {1, 16, 64, 256, 1024, 2048, 4096, 8192, 16384, 32768, 65536};
  typedef void (*BulkKernel)(ScatterParams);
  struct BulkVariant {
    const char* label;
    BulkKernel kernel;
  };
  const BulkVariant hints[] = {{"", record_store_bulk_kernel<false, false>},
                               {" ef-st", record_store_bulk_kernel<false, true>},
                               {" ef-ld+st", record_store_bulk_kernel<true, true>}};
  unsigned long long* diff;
  BENCH_OK(cudaMalloc(&diff, 8));
  for (const Rec& rec : recs) {
    for (int64_t T : sizes) {
      const int page_size = 64;
      const int64_t page_bytes = page_size * rec.R + rec.extra;
      const int64_t num_pages = std::max<int64_t>((T + page_size - 1) / page_size * 2, 1024);
      const int64_t cache_bytes = num_pages * page_bytes;
      void *src, *cache, *ref;
      int64_t* slots;
      BENCH_OK(cudaMalloc(&src, T * rec.R));
      BENCH_OK(cudaMalloc(&cache, cache_bytes));
      BENCH_OK(cudaMalloc(&ref, cache_bytes));
      BENCH_OK(cudaMalloc(&slots, T * 8));
      fill_words<<<1024, 256>>>(static_cast<uint32_t*>(src), T * rec.R / 4);  // every row different
      const std::vector<int64_t> hs = paged_slots(rng, T, page_size, num_pages);
      BENCH_OK(cudaMemcpy(slots, hs.data(), T * 8, cudaMemcpyHostToDevice));
      BENCH_OK(cudaDeviceSynchronize());
      const kvref_record_store_args a =
          record_args(src, rec.R, cache, num_pages, page_size, page_bytes, slots, T);
      const double bytes = 2.0 * T * rec.R + T * 8.0;
      time_store("records", rec.name, T, bytes, [&] { kvref_record_store(&a, g_stream); });
      // Today's kernel as the plan shapes it without the bulk path; its cache is the reference.
      const StorePlan old = plan_record_store(a, 0);
      const ScatterParams& p = old.params;
      const dim3 grid(static_cast<unsigned>((T + p.tokens_per_block - 1) / p.tokens_per_block));
      const dim3 block(p.tokens_per_block << p.lanes_log2);
      const StoreKernel k = old.unroll == 1 ? scatter_copy_kernel<Vec16, 1, 1> : scatter_copy_kernel<Vec16, 1, 4>;
      ScatterParams pr = p;
      pr.tensor[0].dst = static_cast<unsigned char*>(ref);
      // (Everything on g_stream: it does not synchronise with the legacy default stream.)
      BENCH_OK(cudaMemsetAsync(ref, 0, cache_bytes, g_stream));
      k<<<grid, block, 0, g_stream>>>(pr);
      auto line = [&](const char* label, auto launch) {
        BENCH_OK(cudaMemsetAsync(cache, 0, cache_bytes, g_stream));
        launch();
        BENCH_OK(cudaMemsetAsync(diff, 0, 8, g_stream));
        count_diff<<<1024, 256, 0, g_stream>>>(static_cast<const uint4*>(cache), static_cast<const uint4*>(ref),
                                                cache_bytes / 16, diff);
        unsigned long long nd = 0;
        BENCH_OK(cudaMemcpyAsync(&nd, diff, 8, cudaMemcpyDeviceToHost, g_stream));
        BENCH_OK(cudaStreamSynchronize(g_stream));
        Timer t(g_stream);
        const double ms = t.ms_per_iter(launch, T >= 8192 ? 20 : 200);
        const double gms = t.graph_ms_per_iter(launch, 20, T >= 8192 ? 3 : 20);
        BENCH_OK(cudaGetLastError());
        printf("  records %-30s %6lld tok %-20s stream %8.2f us graph %8.2f us %5.1f%%  %s\n", rec.name, (long long)T,
               label, ms * 1e3, gms * 1e3, 100.0 * bytes / (std::min(ms, gms) * 1e-3) / 1e9 / g_copy_gbs,
               nd == 0 ? "identical" : "DIFFERS");
        fflush(stdout);
      };
      line("scatter_copy", [&] { k<<<grid, block, 0, g_stream>>>(p); });
      for (uint32_t chunk : {8u, 16u, 32u}) {
        for (const BulkVariant& v : hints) {
          ScatterParams q = p;
          q.tokens_per_block = chunk;
          const unsigned blocks = static_cast<unsigned>((T + chunk - 1) / chunk);
          const size_t smem = static_cast<size_t>(chunk * rec.R);
          char label[32];
          snprintf(label, sizeof label, "bulk C%u%s", chunk, v.label);
          line(label, [&] { v.kernel<<<blocks, kBulkThreads, smem, g_stream>>>(q); });
        }
      }
      cudaFree(src);
      cudaFree(cache);
      cudaFree(ref);
      cudaFree(slots);
    }
  }
  cudaFree(diff);
}

// ---- --plateau: where the prefill-sized K/V store's last points of copy bandwidth go -------
// (development aid; docs/kvref/performance.md, round 10).  Variants of the plan's prefill copy
// kernel (scatter_copy_kernel<Vec16, kBoth, ...>), launched as the library launches them (PDL),
// each checked byte for byte against the plan's caches; then diagnostics that change the slots.

template <typename... KArgs, typename... Args>
void launch_pdl(size_t smem, void (*kernel)(KArgs...), dim3 grid, dim3 block, const Args&... args) {
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = smem;
  cfg.stream = g_stream;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  BENCH_OK(cudaLaunchKernelEx(&cfg, kernel, args...));
}

// Loads: kLoad 0 as the library (ld.global.nc), 1 / 2 with an L2 prefetch size of 128 / 256
// bytes, 3 with 256 bytes and an L2 evict_last policy.  Stores: with kStoreLast, under an L2
// evict_last policy.
template <int kLoad>
__device__ inline kvref::Vec16 probe_load(const kvref::Vec16* p, uint64_t policy) {
  kvref::Vec16 v;
  if (kLoad == 0) {
    asm volatile("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  } else if (kLoad == 1) {
    asm volatile("ld.global.nc.L2::128B.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  } else if (kLoad == 2) {
    asm volatile("ld.global.nc.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  } else {
    asm volatile("ld.global.nc.L2::cache_hint.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p), "l"(policy));
  }
  return v;
}

// scatter_copy_kernel<Vec16, kBoth, kU>'s body with the loads and stores above.
template <int kU, int kLoad, bool kStoreLast>
__device__ inline void probe_body(const kvref::ScatterParams& p) {
  using namespace kvref;
  dev::wait_prerequisite_grids();
  uint64_t policy = 0;
  if (kLoad == 3 || kStoreLast) asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  uint32_t lane;
  const int64_t token = store_token<kBoth>(p, lane);
  if (token < 0) return;
  const int64_t slot = load_early<true>(p.slot_mapping + token);
  const uint32_t lanes = 1u << p.lanes_log2;
  const uint32_t upr = p.units_per_row;
  const uint32_t total = p.num_heads * upr;
  int64_t dst = -2;
  for (uint32_t base = lane; base < total; base += lanes * kU) {
    Vec16 r[2][kU];
    int64_t dst_off[kU];
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      const uint32_t i = base + static_cast<uint32_t>(u) * lanes;
      const uint32_t h = p.num_heads == 1 ? 0u : i / upr;
      const int64_t c = static_cast<int64_t>(i - h * upr) * 16;
      dst_off[u] = page_offset(h, p.dst_head_stride) + c;
      if (i < total) {
#pragma unroll
        for (int t = 0; t < 2; ++t) {
          const ScatterTensor& tt = p.tensor[t];
          r[t][u] = probe_load<kLoad>(
              reinterpret_cast<const Vec16*>(tt.src + page_offset(token, tt.src_token_stride) + page_offset(h, tt.src_head_stride) + c),
              policy);
        }
      }
    }
    if (dst == -2) dst = slot_destination(p, slot);
    if (dst < 0) return;
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      const uint32_t i = base + static_cast<uint32_t>(u) * lanes;
      if (i < total) {
#pragma unroll
        for (int t = 0; t < 2; ++t) {
          Vec16* q = reinterpret_cast<Vec16*>(p.tensor[t].dst + dst + dst_off[u]);
          const Vec16 v = r[t][u];
          if (kStoreLast) {
            asm volatile("st.global.L2::cache_hint.v4.u32 [%0], {%1, %2, %3, %4}, %5;" ::"l"(q), "r"(v.x), "r"(v.y), "r"(v.z),
                         "r"(v.w), "l"(policy)
                         : "memory");
          } else {
            store_vec<false>(q, v);
          }
        }
      }
    }
  }
}
template <int kU, int kLoad, bool kStoreLast>
__global__ void probe_kernel(const kvref::ScatterParams p) { probe_body<kU, kLoad, kStoreLast>(p); }
template <int kU, int kMaxReg>
__global__ void __maxnreg__(kMaxReg) probe_capped_kernel(const kvref::ScatterParams p) { probe_body<kU, 0, false>(p); }

__global__ void fill_slots_in_order(int64_t* s, int64_t n) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    s[i] = i;
  }
}

// One K/V store case (block size 16, slots from a shuffled free list as in bench_kv, every row
// different), the plan's caches as the reference.
struct KvFixture {
  const char* name;
  int64_t T, cache_bytes;
  double bytes;
  unsigned char *k = nullptr, *v = nullptr, *kc = nullptr, *vc = nullptr, *rk = nullptr, *rv = nullptr;
  int64_t *slots = nullptr, *alt_slots = nullptr;
  unsigned long long* diff = nullptr;
  kvref_kv_store_args a;
  kvref::StorePlan plan;

  KvFixture(std::mt19937_64& rng, const char* shape_name, int64_t tokens, int H, int D, kvref_dtype dt, kvref_layout layout)
      : name(shape_name), T(tokens) {
    const int bs = 16;
    const int64_t row = static_cast<int64_t>(H) * D * kvref_dtype_size(dt);
    const int64_t num_blocks = std::max<int64_t>((T + bs - 1) / bs * 2, 4096);
    cache_bytes = num_blocks * bs * row;
    const int64_t src_bytes = T * row;
    bytes = 4.0 * src_bytes + T * 8.0;
    for (unsigned char** p : {&k, &v}) BENCH_OK(cudaMalloc(p, src_bytes));
    for (unsigned char** p : {&kc, &vc, &rk, &rv}) BENCH_OK(cudaMalloc(p, cache_bytes));
    BENCH_OK(cudaMalloc(&slots, T * 8));
    BENCH_OK(cudaMalloc(&alt_slots, T * 8));
    BENCH_OK(cudaMalloc(&diff, 8));
    fill_words<<<1024, 256>>>(reinterpret_cast<uint32_t*>(k), src_bytes / 4);
    fill_words<<<1024, 256>>>(reinterpret_cast<uint32_t*>(v), src_bytes / 4);
    BENCH_OK(cudaMemset(v, 0x5a, 64));  // K and V differ
    const std::vector<int64_t> hs = paged_slots(rng, T, bs, num_blocks);
    BENCH_OK(cudaMemcpy(slots, hs.data(), T * 8, cudaMemcpyHostToDevice));
    // (A copy from pageable memory may return before it lands, and g_stream does not wait for
    // the legacy stream.)
    BENCH_OK(cudaDeviceSynchronize());
    a = kv_args(k, v, kc, vc, slots, T, H, D, num_blocks, bs, dt, dt, layout);
    kvref_kv_store_args ra = a;
    ra.key_cache = rk;
    ra.value_cache = rv;
    BENCH_OK(cudaMemsetAsync(rk, 0, cache_bytes, g_stream));
    BENCH_OK(cudaMemsetAsync(rv, 0, cache_bytes, g_stream));
    BENCH_OK(kvref_kv_store(&ra, g_stream) == KVREF_SUCCESS ? cudaSuccess : cudaErrorUnknown);
    BENCH_OK(cudaStreamSynchronize(g_stream));
    plan = kvref::plan_kv_store(a);
  }
  ~KvFixture() {
    for (void* p : {(void*)k, (void*)v, (void*)kc, (void*)vc, (void*)rk, (void*)rv, (void*)slots, (void*)alt_slots, (void*)diff})
      cudaFree(p);
  }
  KvFixture(const KvFixture&) = delete;
  KvFixture& operator=(const KvFixture&) = delete;
  // The plan's prefill copy kernel: the variants below keep its thread shape.
  bool plan_is_copy_kernel() const {
    return plan.vector_bytes == 16 && plan.tensors_per_thread == 2 && plan.unroll == 4 && !plan.decode && !plan.bulk;
  }
  // Times `launch`; with `check`, first compares its caches with the plan's byte for byte.
  template <typename F>
  void line(const char* label, bool check, F launch) {
    unsigned long long nd = 0;
    if (check) {
      BENCH_OK(cudaMemsetAsync(kc, 0, cache_bytes, g_stream));
      BENCH_OK(cudaMemsetAsync(vc, 0, cache_bytes, g_stream));
      launch();
      BENCH_OK(cudaMemsetAsync(diff, 0, 8, g_stream));
      count_diff<<<1024, 256, 0, g_stream>>>(reinterpret_cast<const uint4*>(kc), reinterpret_cast<const uint4*>(rk),
                                              cache_bytes / 16, diff);
      count_diff<<<1024, 256, 0, g_stream>>>(reinterpret_cast<const uint4*>(vc), reinterpret_cast<const uint4*>(rv),
                                              cache_bytes / 16, diff);
      BENCH_OK(cudaMemcpyAsync(&nd, diff, 8, cudaMemcpyDeviceToHost, g_stream));
      BENCH_OK(cudaStreamSynchronize(g_stream));
    }
    Timer t(g_stream);
    const double ms = t.ms_per_iter(launch, 20);
    const double gms = t.graph_ms_per_iter(launch, 20, 3);
    BENCH_OK(cudaGetLastError());
    printf("  plateau %-17s %6lld tok %-46s stream %8.2f us graph %8.2f us %5.1f%%  %s\n", name, (long long)T, label,
           ms * 1e3, gms * 1e3, 100.0 * bytes / (std::min(ms, gms) * 1e-3) / 1e9 / g_copy_gbs,
           !check ? "(other slots)" : nd == 0 ? "identical" : "DIFFERS");
    fflush(stdout);
  }
};

void sweep_plateau(std::mt19937_64& rng) {
  using namespace kvref;
  typedef void (*Kernel)(ScatterParams);
  struct Named {
    const char* label;
    Kernel kernel;
  };
  const Named prefetch[] = {{"loads L2::128B", probe_kernel<4, 1, false>}, {"loads L2::256B", probe_kernel<4, 2, false>}};
  // Lines touched under evict_last stay in L2 after the kernel, and every later measurement
  // would inherit them: these run last, each followed by cudaCtxResetPersistingL2Cache and a
  // control line (the plan's kernel again, which should read as it did first).
  const Named persisting[] = {{"loads L2::256B + evict_last", probe_kernel<4, 3, false>},
                              {"stores evict_last", probe_kernel<4, 0, true>},
                              {"loads L2::256B, stores evict_last", probe_kernel<4, 2, true>}};
  const Named shapes[] = {{"u1", probe_kernel<1, 0, false>},       {"u2", probe_kernel<2, 0, false>},
                          {"u4", probe_kernel<4, 0, false>},       {"u2 <= 32 regs", probe_capped_kernel<2, 32>},
                          {"u4 <= 40 regs", probe_capped_kernel<4, 40>}, {"u4 <= 48 regs", probe_capped_kernel<4, 48>}};
  const Kernel same = probe_kernel<4, 0, false>;
  BENCH_OK(cudaFuncSetAttribute(reinterpret_cast<const void*>(same), cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
  struct Shape {
    const char* name;
    int H, D;
    kvref_dtype dt;
    kvref_layout layout;
  };
  const Shape cases[] = {{"bf16 NHD H8 D128", 8, 128, KVREF_DTYPE_BF16, KVREF_LAYOUT_NHD},
                         {"bf16 HND H8 D128", 8, 128, KVREF_DTYPE_BF16, KVREF_LAYOUT_HND},
                         {"f16 NHD H32 D128", 32, 128, KVREF_DTYPE_F16, KVREF_LAYOUT_NHD}};
  char label[96];
  for (const Shape& sh : cases) {
    for (int64_t T : {16384, 32768, 65536}) {
      KvFixture fx(rng, sh.name, T, sh.H, sh.D, sh.dt, sh.layout);
      fx.line("plan (C API)", true, [&] { kvref_kv_store(&fx.a, g_stream); });
      // The plan's launch shape (used where the plan is the copy kernel the variants replace).
      const ScatterParams& q = fx.plan.params;
      const dim3 grid(static_cast<unsigned>((T + q.tokens_per_block - 1) / q.tokens_per_block));
      const dim3 block(q.tokens_per_block << q.lanes_log2);
      if (fx.plan_is_copy_kernel()) {
        fx.line("the plan's kernel and shape, PDL", true, [&] { launch_pdl(0, same, grid, block, q); });
        // 1. L2 prefetch sizes on the loads (the evict_last hints come last, below).
        for (const Named& h : prefetch) fx.line(h.label, true, [&] { launch_pdl(0, h.kernel, grid, block, q); });
        // 2. Fewer resident CTAs per SM: dynamic shared memory the kernel does not use.
        for (int kib : {22, 27, 37, 55, 113}) {
          const size_t smem = static_cast<size_t>(kib) * 1024;
          int occ = 0;
          BENCH_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, same, block.x, smem));
          snprintf(label, sizeof label, "%2d CTAs/SM (%3d KiB unused shared memory)", occ, kib);
          fx.line(label, true, [&] { launch_pdl(smem, same, grid, block, q); });
        }
        // 3. More resident threads: fewer registers (units per iteration, register caps), and
        // other shapes, at 16K and 32K tokens for bf16.
        if (sh.dt == KVREF_DTYPE_BF16 && T <= 32768) {
          for (const Named& v : shapes) {
            cudaFuncAttributes fa;
            BENCH_OK(cudaFuncGetAttributes(&fa, reinterpret_cast<const void*>(v.kernel)));
            for (uint32_t ln : {32u, 64u, 128u}) {
              for (uint32_t tpb : {1u, 2u, 4u}) {
                if (ln * tpb < 64 || ln * tpb > 512) continue;
                ScatterParams qs = q;
                qs.lanes_log2 = log2_ceil(ln);
                qs.tokens_per_block = tpb;
                const dim3 g2(static_cast<unsigned>((T + tpb - 1) / tpb)), b2(ln * tpb);
                int occ = 0;
                BENCH_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, v.kernel, b2.x, 0));
                snprintf(label, sizeof label, "%-13s %3ux%u, %2d regs %3d B spilt, %4d thr/SM", v.label, ln, tpb, fa.numRegs,
                         static_cast<int>(fa.localSizeBytes), occ * static_cast<int>(b2.x));
                fx.line(label, true, [&] { launch_pdl(0, v.kernel, g2, b2, qs); });
              }
            }
          }
        }
      }
      // 4. Diagnostics (other slots, so no byte check): pages in order (the destination as linear
      // as a memcpy's), and pages shuffled only inside windows of W pages of the free list.
      kvref_kv_store_args alt = fx.a;
      alt.slot_mapping = fx.alt_slots;
      fill_slots_in_order<<<256, 256, 0, g_stream>>>(fx.alt_slots, T);
      BENCH_OK(cudaStreamSynchronize(g_stream));
      fx.line("plan, pages in order", false, [&] { kvref_kv_store(&alt, g_stream); });
      const int64_t num_blocks = fx.a.num_blocks;
      for (int64_t W : {8, 64, 512}) {
        const std::vector<int64_t> ws = paged_slots(rng, T, fx.a.block_size, num_blocks, W);
        BENCH_OK(cudaMemcpy(fx.alt_slots, ws.data(), T * 8, cudaMemcpyHostToDevice));
        BENCH_OK(cudaDeviceSynchronize());
        snprintf(label, sizeof label, "plan, pages shuffled in windows of %lld", (long long)W);
        fx.line(label, false, [&] { kvref_kv_store(&alt, g_stream); });
      }
      // 5. evict_last hints, each followed by a reset of L2's persisting lines and a control.
      if (fx.plan_is_copy_kernel()) {
        for (const Named& h : persisting) {
          fx.line(h.label, true, [&] { launch_pdl(0, h.kernel, grid, block, q); });
          BENCH_OK(cudaCtxResetPersistingL2Cache());
          fx.line("  control: the plan's kernel after the reset", true, [&] { launch_pdl(0, same, grid, block, q); });
        }
      }
    }
  }
}

__global__ void empty_kernel() {}

// Host time of one kvref_kv_store call (1 token, bf16 NHD 8 x 128): validation, planning and
// the launch, measured on the CPU over back-to-back calls (best of 5 x 2,000).
void bench_launch_host_cost() {
  const int H = 8, D = 128, bs = 16, nb = 64;
  void *k, *kc, *vc;
  int64_t* slots;
  BENCH_OK(cudaMalloc(&k, H * D * 2));
  BENCH_OK(cudaMalloc(&kc, nb * bs * H * D * 2));
  BENCH_OK(cudaMalloc(&vc, nb * bs * H * D * 2));
  BENCH_OK(cudaMalloc(&slots, 8));
  BENCH_OK(cudaMemset(slots, 0, 8));
  const kvref_kv_store_args a =
      kv_args(k, k, kc, vc, slots, 1, H, D, nb, bs, KVREF_DTYPE_BF16, KVREF_DTYPE_BF16, KVREF_LAYOUT_NHD);
  double best = 1e30;
  for (int r = 0; r < 6; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 2000; ++i) kvref_kv_store(&a, nullptr);
    const auto t1 = std::chrono::steady_clock::now();
    BENCH_OK(cudaDeviceSynchronize());
    if (r > 0) best = std::min(best, std::chrono::duration<double, std::micro>(t1 - t0).count() / 2000);
  }
  printf("host cost    kvref_kv_store C API call (1 token, launch included): %.2f us\n", best);
  // What the launch itself costs: the same kernel and parameters launched directly, an empty
  // kernel, and the driver's cuLaunchKernel on the same kernel.
  // (1 token, dense NHD pages: the plan is the decode kernel with K and V in separate CTAs.)
  const kvref::StorePlan plan = kvref::plan_kv_store(a);
  if (!plan.decode || !plan.decode_dense || !plan.decode_split_y) {
    printf("host cost    (the plan is not the dense split decode kernel: launch rows skipped)\n");
    cudaFree(k);
    cudaFree(kc);
    cudaFree(vc);
    cudaFree(slots);
    return;
  }
  void (*const kernel)(kvref::DecodeParams) = kvref::scatter_copy_decode_kernel<kvref::Vec16, true, true>;
  const dim3 grid(1, 2), block(1u << plan.dec.lanes_log2);
  auto host_us = [&](auto fn) {
    double b = 1e30;
    for (int r = 0; r < 6; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < 2000; ++i) fn();
      const auto t1 = std::chrono::steady_clock::now();
      BENCH_OK(cudaDeviceSynchronize());
      if (r > 0) b = std::min(b, std::chrono::duration<double, std::micro>(t1 - t0).count() / 2000);
    }
    return b;
  };
  printf("host cost    <<<>>> of the same kernel: %.2f us\n",
         host_us([&] { kernel<<<grid, block>>>(plan.dec); }));
  printf("host cost    <<<>>> of an empty kernel: %.2f us\n", host_us([&] { empty_kernel<<<1, 32>>>(); }));
  cudaFunction_t fn_rt;
  void* entry = nullptr;
  cudaDriverEntryPointQueryResult q;
  if (cudaGetFuncBySymbol(&fn_rt, reinterpret_cast<const void*>(kernel)) ==
          cudaSuccess &&
      cudaGetDriverEntryPointByVersion("cuLaunchKernel", &entry, 12000, cudaEnableDefault, &q) == cudaSuccess &&
      entry != nullptr) {
    typedef CUresult (*LaunchFn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                 unsigned, CUstream, void**, void**);
    const LaunchFn launch = reinterpret_cast<LaunchFn>(entry);
    kvref::DecodeParams prm = plan.dec;
    void* args[] = {&prm};
    printf("host cost    cuLaunchKernel of the same kernel: %.2f us\n", host_us([&] {
             launch(reinterpret_cast<CUfunction>(fn_rt), 1, grid.y, 1, block.x, 1, 1, 0, nullptr, args, nullptr);
           }));
  }
  cudaFree(k);
  cudaFree(kc);
  cudaFree(vc);
  cudaFree(slots);
}

// Slot mapping: two groups (block 16, width 2048; block 64, width 512), all positions inside the
// rows so that both kernels compute the same slots.  Timed as a CUDA graph of 100 launches.
void bench_slot_mapping(std::mt19937_64& rng, const char* name, int reqs, int tokens_per_req) {
  const int rows = 1024;
  const int64_t T = static_cast<int64_t>(reqs) * tokens_per_req;
  std::vector<int32_t> t0(static_cast<size_t>(rows) * 2048), t1(static_cast<size_t>(rows) * 512);
  for (auto& x : t0) x = static_cast<int32_t>(rng() % 1000000);
  for (auto& x : t1) x = static_cast<int32_t>(rng() % 1000000);
  std::vector<int32_t> idx(reqs), qsl(reqs + 1);
  std::vector<int32_t> perm(rows);
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), rng);
  std::vector<int64_t> pos;
  for (int b = 0; b < reqs; ++b) {
    idx[b] = perm[b % rows];
    qsl[b] = static_cast<int32_t>(pos.size());
    const int64_t start = static_cast<int64_t>(rng() % (32768 - tokens_per_req));
    for (int i = 0; i < tokens_per_req; ++i) pos.push_back(start + i);
  }
  qsl[reqs] = static_cast<int32_t>(pos.size());
  int32_t *dt0, *dt1, *didx, *dqsl;
  int64_t *dpos, *o0, *o1;
  BENCH_OK(cudaMalloc(&dt0, t0.size() * 4));
  BENCH_OK(cudaMalloc(&dt1, t1.size() * 4));
  BENCH_OK(cudaMalloc(&didx, idx.size() * 4));
  BENCH_OK(cudaMalloc(&dqsl, qsl.size() * 4));
  BENCH_OK(cudaMalloc(&dpos, pos.size() * 8));
  BENCH_OK(cudaMalloc(&o0, pos.size() * 8));
  BENCH_OK(cudaMalloc(&o1, pos.size() * 8));
  BENCH_OK(cudaMemcpy(dt0, t0.data(), t0.size() * 4, cudaMemcpyHostToDevice));
  BENCH_OK(cudaMemcpy(dt1, t1.data(), t1.size() * 4, cudaMemcpyHostToDevice));
  BENCH_OK(cudaMemcpy(didx, idx.data(), idx.size() * 4, cudaMemcpyHostToDevice));
  BENCH_OK(cudaMemcpy(dqsl, qsl.data(), qsl.size() * 4, cudaMemcpyHostToDevice));
  BENCH_OK(cudaMemcpy(dpos, pos.data(), pos.size() * 8, cudaMemcpyHostToDevice));
  kvref_slot_mapping_args a;
  kvref_slot_mapping_args_init(&a);
  a.num_groups = 2;
  a.groups[0] = {dt0, 2048, 2048, 16, o0};
  a.groups[1] = {dt1, 512, 512, 64, o1};
  a.num_reqs = reqs;
  a.num_rows = rows;
  a.idx_mapping = didx;
  a.query_start_loc = dqsl;
  a.positions = dpos;
  a.num_tokens = T;
  a.num_tokens_padded = T;
  const dim3 grid(static_cast<unsigned>((T + kvref::kSlotMappingThreads - 1) / kvref::kSlotMappingThreads), 2);
  cudaStream_t s;
  BENCH_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaGraphExec_t graphs[2];
  for (int variant = 0; variant < 2; ++variant) {
    cudaGraph_t g;
    BENCH_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    for (int i = 0; i < 100; ++i) {
      if (variant == 0) {
        kvref::slot_mapping_kernel<<<grid, kvref::kSlotMappingThreads, 0, s>>>(a);
      } else {
        slot_mapping_unguarded_kernel<<<grid, kvref::kSlotMappingThreads, 0, s>>>(a);
      }
    }
    BENCH_OK(cudaStreamEndCapture(s, &g));
    BENCH_OK(cudaGraphInstantiate(&graphs[variant], g, 0));
    BENCH_OK(cudaGraphDestroy(g));
  }
  // Equal results.
  std::vector<int64_t> r0(pos.size()), r1(pos.size());
  BENCH_OK(cudaGraphLaunch(graphs[0], s));
  BENCH_OK(cudaStreamSynchronize(s));
  BENCH_OK(cudaMemcpy(r0.data(), o0, pos.size() * 8, cudaMemcpyDeviceToHost));
  BENCH_OK(cudaGraphLaunch(graphs[1], s));
  BENCH_OK(cudaStreamSynchronize(s));
  BENCH_OK(cudaMemcpy(r1.data(), o0, pos.size() * 8, cudaMemcpyDeviceToHost));
  const bool same = r0 == r1;
  // Interleaved rounds; per variant the median of 15 rounds, each 100 launches.
  cudaEvent_t e0, e1;
  BENCH_OK(cudaEventCreate(&e0));
  BENCH_OK(cudaEventCreate(&e1));
  std::vector<double> times[2];
  for (int round = 0; round < 15; ++round) {
    for (int variant = 0; variant < 2; ++variant) {
      BENCH_OK(cudaEventRecord(e0, s));
      BENCH_OK(cudaGraphLaunch(graphs[variant], s));
      BENCH_OK(cudaEventRecord(e1, s));
      BENCH_OK(cudaEventSynchronize(e1));
      float ms = 0;
      BENCH_OK(cudaEventElapsedTime(&ms, e0, e1));
      times[variant].push_back(ms * 1e3 / 100.0);
    }
  }
  for (auto& v : times) std::sort(v.begin(), v.end());
  const double guarded = times[0][7], unguarded = times[1][7];
  printf("slot_mapping %-34s tokens %6lld  guarded %7.2f us  unguarded %7.2f us  guard cost %+5.2f%%%s\n",
         name, (long long)T, guarded, unguarded, 100.0 * (guarded - unguarded) / unguarded,
         same ? "" : "  (RESULTS DIFFER)");
  for (auto& gx : graphs) cudaGraphExecDestroy(gx);
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaStreamDestroy(s);
  for (void* p : {(void*)dt0, (void*)dt1, (void*)didx, (void*)dqsl, (void*)dpos, (void*)o0, (void*)o1}) cudaFree(p);
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  bool records = false;
  bool plateau = false;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--quick")) quick = true;
    if (!strcmp(argv[i], "--explore")) g_explore = true;
    if (!strcmp(argv[i], "--records")) records = true;
    if (!strcmp(argv[i], "--plateau")) plateau = true;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    printf("SKIP: no CUDA device\n");
    return 0;
  }
  cudaDeviceProp prop;
  BENCH_OK(cudaGetDeviceProperties(&prop, 0));
  std::mt19937_64 rng(42);
  BENCH_OK(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
  g_copy_gbs = measure_copy_bandwidth();
  printf("device %s, %d SMs; cudaMemcpy D2D 2 GiB: %.1f GB/s (read + write)\n", prop.name,
         prop.multiProcessorCount, g_copy_gbs);
  const char* pdl = getenv("KVREF_PDL");
  printf("programmatic dependent launch: %s\n",
         pdl != nullptr && strcmp(pdl, "0") == 0 ? "off (KVREF_PDL=0)"
         : prop.major >= 9                       ? "on (sm_90+; KVREF_PDL=0 turns it off)"
                                                 : "off (below sm_90)");
  if (records) {
    sweep_records(rng);
    return 0;
  }
  if (plateau) {
    sweep_plateau(rng);
    return 0;
  }
  bench_launch_host_cost();
  const int64_t decode[] = {1, 16, 64, 256, 512, 1024};
  const int64_t prefill[] = {16384, 32768, 65536};
  for (int64_t T : decode) {
    bench_kv(rng, "decode bf16 NHD H8 D128", T, 8, 128, KVREF_DTYPE_BF16, KVREF_DTYPE_BF16, KVREF_LAYOUT_NHD);
    bench_kv(rng, "decode bf16 HND H8 D128", T, 8, 128, KVREF_DTYPE_BF16, KVREF_DTYPE_BF16, KVREF_LAYOUT_HND);
    bench_kv(rng, "decode bf16->fp8 NHD H8 D128", T, 8, 128, KVREF_DTYPE_BF16, KVREF_DTYPE_FP8_E4M3, KVREF_LAYOUT_NHD);
    bench_record(rng, "decode MLA fp8 656 B/record", T, 656, 0);
  }
  for (int64_t T : prefill) {
    if (quick && T != 32768) continue;
    bench_kv(rng, "prefill bf16 NHD H8 D128", T, 8, 128, KVREF_DTYPE_BF16, KVREF_DTYPE_BF16, KVREF_LAYOUT_NHD);
    bench_kv(rng, "prefill bf16 HND H8 D128", T, 8, 128, KVREF_DTYPE_BF16, KVREF_DTYPE_BF16, KVREF_LAYOUT_HND);
    bench_kv(rng, "prefill f16 NHD H32 D128", T, 32, 128, KVREF_DTYPE_F16, KVREF_DTYPE_F16, KVREF_LAYOUT_NHD);
    bench_kv(rng, "prefill bf16->fp8 NHD H8 D128", T, 8, 128, KVREF_DTYPE_BF16, KVREF_DTYPE_FP8_E4M3, KVREF_LAYOUT_NHD);
    bench_kv(rng, "prefill bf16->fp8 HND H8 D128", T, 8, 128, KVREF_DTYPE_BF16, KVREF_DTYPE_FP8_E4M3, KVREF_LAYOUT_HND);
    bench_record(rng, "prefill MLA fp8 656 B/record", T, 656, 0);
    bench_record(rng, "prefill MLA bf16 1152 B + 64 B/page", T, 1152, 64);
  }
  bench_slot_mapping(rng, "decode 256 reqs x 1", 256, 1);
  bench_slot_mapping(rng, "decode 1024 reqs x 1", 1024, 1);
  bench_slot_mapping(rng, "prefill 8 reqs x 4096", 8, 4096);
  bench_slot_mapping(rng, "prefill 32 reqs x 2048", 32, 2048);
  return 0;
}
