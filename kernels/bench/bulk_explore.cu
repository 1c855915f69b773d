// bulk_explore.cu - Hopper bulk-copy (TMA bulk, no tensor map) and persistent-grid variants of
// the prefill-sized stores, next to kvref's plan and cudaMemcpyAsync (GPU machine, sm_90; prints
// figures, asserts nothing but byte equality with kvref).
//
//   /usr/local/cuda/bin/nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -Ikernels/include -Ikernels/src kernels/bench/bulk_explore.cu kernels/src/kvref_launch.cu kernels/src/validate.cpp -o bulk_explore
//   ./bulk_explore              # all 9 cases (K/V bf16 16K/32K/64K, both MLA records 16K/32K/64K)
//   ./bulk_explore --targets    # only the three cases that miss their targets
//   (-DBULK_FENCE=0: no fence.proxy.async.shared::cta between a chunk's load and its stores in any
//   variant; the "nofence" variants drop it at run time.)
//   About 10 s on an H200 (most of it setup); at most ~1.6 GiB of device memory besides the 4 GiB
//   of the 2 GiB copy measured at start.
//
// Cases (slots as kvref_bench: pages of a shuffled free list, consecutive tokens filling a page,
// plus a few slot -1 tokens):
//   bf16 K/V store, NHD [T, 8, 128] -> [pages, 16, 8, 128] (a 2,048-byte row per token and tensor)
//   record store "bf16 MLA" 1,152 B/record, 64 records/page, page_bytes 64 * 1152 + 64
//   record store "fp8 MLA"    656 B/record, 64 records/page, page_bytes 64 * 656
//
// Variants:
//   bulk      One warp per CTA.  A chunk is C consecutive tokens (C even, <= 32).  Lane 0 arms the
//             stage's mbarrier (arrive.expect_tx) and issues one cp.async.bulk global->shared for
//             the chunk's slots (C * 8 bytes; an odd last token's slot is read with a plain load)
//             and one per tensor for the chunk's contiguous source rows.  All lanes wait on the
//             mbarrier (bounded: traps after 1e8 polls or 4 s); lane j takes token j's slot,
//             computes its destination with kvref::paged_destination (slot < 0 or past the cache:
//             skipped), and - with "merge" - tokens whose destinations follow each other
//             (dst[j] == dst[j-1] + row) join one run, stored with one cp.async.bulk
//             shared->global (bulk_group) per tensor; without merge, one store per token row.
//             "l0": lane 0 issues every store (one bulk group per chunk); "lanes": the lane
//             starting a run issues it (every lane commits its own bulk group per chunk; ptxas
//             still issues UBLKCP one lane at a time, in an ELECT loop: its operands are uniform).
//             After the wait, fence.proxy.async.shared::cta (MEMBAR.ALL.CTA + FENCE.VIEW.ASYNC.S
//             in SASS) unless "nofence".
//     grid:   "1/CTA": one chunk per CTA, grid = ceil(T / C) (S = 1);
//             "pers kN": persistent, grid = N x SMs; "strided": chunk c of the CTA is
//             blockIdx.x + c * gridDim.x; "ranges": each CTA takes an even-aligned contiguous
//             range of T / grid tokens, cut into chunks of C (no chunk-count quantisation).
//     stages: S shared-memory stages per CTA.  Loads of the next S - 1 chunks (lag 1) or S chunks
//             (lag 0) are in flight while a chunk's stores run; a stage is refilled once
//             cp.async.bulk.wait_group.read says the stores reading it are done.
//     hints:  "ef-ld" / "ef-st" / "ef-ld+st": L2 evict_first cache policy (createpolicy) on the
//             bulk loads / stores / both.
//   vec       persistent grid-stride plain copy: thread i of the grid moves 16-byte unit i of the
//             flattened [tokens x units-per-row] space (K and V both), U units per iteration
//             with their slot/row loads ahead of the stores, grid = N x SMs CTAs of 256 threads
//             ("kmax": as many as fit).
// Every variant writes into its own cache, pre-filled with the same pattern as the cache kvref
// wrote (kvref_kv_store / kvref_record_store through the C API); the two are compared byte for
// byte (MISMATCH and the number of differing 16-byte words on any difference).  Times: as
// kvref_bench, back-to-back launches on a stream (20, best of 5) and a CUDA graph of 20 launches
// replayed 3 times (best of 5); "% of copy" = bytes read + written (rows both ways plus the 8-byte
// slots) / time relative to the 2 GiB cudaMemcpyAsync D2D bandwidth measured at start.
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "bench_common.h"
#include "bench_timer.cuh"
#include "kvref/kv_store.cuh"
#include "kvref/kvref.h"
#include "plan.h"  // internal (src/): the plan's thread shape is printed next to its time

#ifndef BULK_FENCE
#define BULK_FENCE 1
#endif

#define CK(x)                                  \
  do {                                         \
    cudaError_t e_ = (x);                      \
    if (e_ != cudaSuccess) die(e_, __LINE__, #x); \
  } while (0)

namespace {

// The case and variant in flight, named when a CUDA call fails.
char g_case[96] = "setup";
char g_current[128] = "";
void set_current(const char* what) { snprintf(g_current, sizeof g_current, "%s", what); }

[[noreturn]] void die(cudaError_t e, int line, const char* what) {
  fflush(stdout);
  fprintf(stderr, "CUDA error %s at %s:%d: %s (while running: %s %s)\n", cudaGetErrorString(e), __FILE__, line, what,
          g_case, g_current);
  exit(1);
}

// ------------------------------------------------------------------------------------------------
// Device side
// ------------------------------------------------------------------------------------------------

enum : uint32_t {
  kMerge = 1u,      // consecutive destinations in one store
  kLaneIssue = 2u,  // the lane starting a run issues it (else lane 0 issues all)
  kRanges = 4u,     // persistent: contiguous token range per CTA (else strided chunks)
  kHintLoad = 8u,   // L2 evict_first on the bulk loads
  kLag0 = 16u,      // S >= 2: refill the stage just stored (wait_group.read 0) instead of the one before
  kHintStore = 32u, // L2 evict_first on the bulk stores
  kNoFence = 64u,   // no fence.proxy.async.shared::cta between a chunk's mbarrier wait and its stores
};

struct BulkParams {
  const unsigned char* src[2];  // K, V (records: src[0]); rows contiguous, row_bytes apart
  unsigned char* dst[2];
  const int64_t* slot_mapping;
  int64_t num_tokens;
  // The fields kvref::paged_destination reads:
  int64_t num_slots;
  int64_t page_size;
  uint64_t page_magic;
  int64_t dst_page_stride;  // bytes
  int64_t dst_slot_stride;  // bytes
  uint32_t row_bytes;       // bytes per token row (= source token stride), multiple of 16
  uint32_t chunk;           // tokens per chunk, even, 2..32
  uint32_t stage_bytes;     // chunk * 8 + tensors * chunk * row_bytes, rounded up to 128
  uint32_t flags;
};

constexpr uint32_t kFull = 0xffffffffu;
constexpr uint32_t kMaxPolls = 100000000u;          // mbarrier polls before trapping
constexpr uint64_t kMaxWaitNs = 4000000000ull;      // or 4 s of %globaltimer

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ uint64_t global_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
// Makes the initialisation visible to the async proxy (the bulk copies' complete_tx).
__device__ __forceinline__ void mbar_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ bool mbar_try_wait(uint32_t bar, uint32_t parity) {
  uint32_t ok;
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
      "selp.b32 %0, 1, 0, p;\n\t}"
      : "=r"(ok)
      : "r"(bar), "r"(parity)
      : "memory");
  return ok != 0;
}
__device__ __noinline__ void mbar_wait_slow(uint32_t bar, uint32_t parity) {
  const uint64_t t0 = global_ns();
  for (uint32_t polls = 1;; ++polls) {
    if (mbar_try_wait(bar, parity)) return;
    if (polls >= kMaxPolls || ((polls & 255u) == 0 && global_ns() - t0 > kMaxWaitNs)) {
      printf("bulk_explore: mbarrier wait timed out (block %u lane %u parity %u)\n", blockIdx.x, threadIdx.x,
             parity);
      __trap();
    }
  }
}
// Waits for the phase with the given parity to complete (bounded).
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  if (!mbar_try_wait(bar, parity)) mbar_wait_slow(bar, parity);
}
__device__ __forceinline__ uint64_t evict_first_policy() {
  uint64_t pol;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
  return pol;
}
// global -> shared, completion (bytes) on the mbarrier.
__device__ __forceinline__ void bulk_load(uint32_t dst, const void* src, uint32_t bytes, uint32_t bar, bool hint,
                                          uint64_t pol) {
  if (hint) {
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1], %2, [%3], %4;" ::"r"(dst),
        "l"(src), "r"(bytes), "r"(bar), "l"(pol)
        : "memory");
  } else {
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
                 "l"(src), "r"(bytes), "r"(bar)
                 : "memory");
  }
}
// shared -> global, tracked by the issuing thread's bulk async-groups.
__device__ __forceinline__ void bulk_store(void* dst, uint32_t src, uint32_t bytes, bool hint, uint64_t pol) {
  if (hint) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%0], [%1], %2, %3;" ::"l"(dst), "r"(src),
                 "r"(bytes), "l"(pol)
                 : "memory");
  } else {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(src), "r"(bytes)
                 : "memory");
  }
}
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
// Until at most N of this thread's bulk groups have not finished reading their source.
template <int N>
__device__ __forceinline__ void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}
__device__ __forceinline__ void fence_proxy_async_smem() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// One warp per CTA; see the file header.  kStages shared-memory stages of p.stage_bytes each
// (dynamic shared memory): [chunk slots: chunk x 8 B][tensor 0 rows: chunk x row][tensor 1 rows].
template <int kTensors, int kStages>
__global__ void __launch_bounds__(32) bulk_store_kernel(const BulkParams p) {
  extern __shared__ __align__(128) unsigned char smem[];
  __shared__ __align__(8) uint64_t bars[kStages];
  const uint32_t lane = threadIdx.x;
  const int64_t T = p.num_tokens;
  const int64_t C = p.chunk;
  const uint32_t row = p.row_bytes;
  const bool merge = (p.flags & kMerge) != 0;
  const bool lane_issue = (p.flags & kLaneIssue) != 0;
  const bool hint_ld = (p.flags & kHintLoad) != 0;
  const bool hint_st = (p.flags & kHintStore) != 0;
  const bool lag0 = kStages == 1 || (p.flags & kLag0) != 0;

  // The CTA's chunks: chunk i starts at first + i * step, valid while below end.
  int64_t first, step, end;
  if (p.flags & kRanges) {
    const int64_t G = gridDim.x, b = blockIdx.x;
    first = (b * T / G) & ~int64_t(1);
    end = b + 1 == G ? T : ((b + 1) * T / G) & ~int64_t(1);
    step = C;
  } else {
    first = static_cast<int64_t>(blockIdx.x) * C;
    step = static_cast<int64_t>(gridDim.x) * C;
    end = T;
  }

  const uint32_t smem0 = smem_u32(smem);
  const uint32_t bar0 = smem_u32(bars);
  if (lane == 0) {
#pragma unroll
    for (int s = 0; s < kStages; ++s) mbar_init(bar0 + 8u * s, 1);
    mbar_init_fence();
  }
  __syncthreads();
  const uint64_t pol = hint_ld || hint_st ? evict_first_policy() : 0;

  // Lane 0: arms stage s for chunk i and issues its loads.
  auto issue_load = [&](int64_t i, int s) {
    const int64_t t0 = first + i * step;
    const uint32_t n = static_cast<uint32_t>(min(C, end - t0));
    const uint32_t n2 = n & ~1u;  // slots loaded in bulk (16-byte multiple); an odd last one by ld
    const uint32_t stage = smem0 + static_cast<uint32_t>(s) * p.stage_bytes;
    const uint32_t bar = bar0 + 8u * static_cast<uint32_t>(s);
    mbar_arrive_expect_tx(bar, n2 * 8u + kTensors * n * row);
    if (n2 != 0) bulk_load(stage, p.slot_mapping + t0, n2 * 8u, bar, hint_ld, pol);
#pragma unroll
    for (int t = 0; t < kTensors; ++t) {
      bulk_load(stage + static_cast<uint32_t>(C) * 8u + static_cast<uint32_t>(t * C) * row,
                p.src[t] + kvref::page_offset(t0, row), n * row, bar, hint_ld, pol);
    }
  };

  if (lane == 0) {
#pragma unroll
    for (int s = 0; s < kStages; ++s) {
      if (first + s * step < end) issue_load(s, s);
    }
  }
  for (int64_t i = 0; first + i * step < end; ++i) {
    const int s = static_cast<int>(i % kStages);
    const int64_t t0 = first + i * step;
    const uint32_t n = static_cast<uint32_t>(min(C, end - t0));
    const uint32_t n2 = n & ~1u;
    const unsigned char* stage = smem + static_cast<size_t>(s) * p.stage_bytes;
    const uint32_t stage_u32 = smem0 + static_cast<uint32_t>(s) * p.stage_bytes;
    int64_t slot = -1;
    if (lane >= n2 && lane < n) slot = kvref::load_early<true>(p.slot_mapping + t0 + lane);  // odd tail
    mbar_wait(bar0 + 8u * static_cast<uint32_t>(s), static_cast<uint32_t>((i / kStages) & 1));
#if BULK_FENCE
    if ((p.flags & kNoFence) == 0) fence_proxy_async_smem();
#endif
    if (lane < n2) slot = reinterpret_cast<const int64_t*>(stage)[lane];
    const int64_t dst = lane < n ? kvref::paged_destination(p, slot) : -1;
    // Runs of consecutive destinations: a run starts at a stored token that does not continue
    // the previous one; len = 1 + the continuing lanes right after it.
    const int64_t prev = __shfl_up_sync(kFull, dst, 1);
    const bool joins = merge && lane > 0 && dst >= 0 && prev >= 0 && prev + row == dst;
    const bool start = dst >= 0 && !joins;
    const uint32_t cont = __ballot_sync(kFull, joins);
    const uint32_t after = lane == 31 ? 0u : cont >> (lane + 1);
    const uint32_t len = static_cast<uint32_t>(__ffs(~after));  // 1 + trailing ones of `after`
    const uint32_t rows = stage_u32 + static_cast<uint32_t>(C) * 8u;
    if (lane_issue) {
      if (start) {
#pragma unroll
        for (int t = 0; t < kTensors; ++t) {
          bulk_store(p.dst[t] + dst, rows + static_cast<uint32_t>(t * C) * row + lane * row, len * row, hint_st, pol);
        }
      }
      bulk_commit();
    } else {
      uint32_t m = __ballot_sync(kFull, start);
      while (m != 0) {
        const int j = __ffs(m) - 1;
        m &= m - 1;
        const int64_t d = __shfl_sync(kFull, dst, j);
        const uint32_t l = __shfl_sync(kFull, len, j);
        if (lane == 0) {
#pragma unroll
          for (int t = 0; t < kTensors; ++t) {
            bulk_store(p.dst[t] + d, rows + static_cast<uint32_t>(t * C) * row + static_cast<uint32_t>(j) * row, l * row,
                       hint_st, pol);
          }
        }
      }
      if (lane == 0) bulk_commit();
    }
    // Refill: lag 0 - this stage with chunk i + S once this chunk's stores have read it; lag 1
    // - the previous chunk's stage with chunk i - 1 + S once its stores have read it (this
    // chunk's group may still be reading).
    if (lag0) {
      if (first + (i + kStages) * step < end) {
        bulk_wait_read<0>();
        __syncwarp();
        if (lane == 0) issue_load(i + kStages, s);
      }
    } else if (i >= 1 && first + (i - 1 + kStages) * step < end) {
      bulk_wait_read<1>();
      __syncwarp();
      if (lane == 0) issue_load(i - 1 + kStages, static_cast<int>((i - 1) % kStages));
    }
  }
  // Shared memory must outlive the stores' reads of it; the global writes complete by the end of
  // the grid.
  bulk_wait_read<0>();
}

// Persistent grid-stride plain copy: unit i of [num_tokens x kUpr] 16-byte units (both tensors).
template <int kUpr, int kTensors, int kU>
__global__ void __launch_bounds__(256) persist_vec_kernel(const BulkParams p) {
  const uint32_t total = static_cast<uint32_t>(p.num_tokens) * kUpr;  // host: < 2^31
  const uint32_t stride = gridDim.x * blockDim.x;
  for (uint32_t base = blockIdx.x * blockDim.x + threadIdx.x; base < total; base += stride * kU) {
    kvref::Vec16 r[kTensors][kU];
    int64_t slot[kU];
    uint32_t tok[kU], unit[kU];
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      const uint32_t i = base + u * stride;
      tok[u] = i / kUpr;
      unit[u] = i - tok[u] * kUpr;
      slot[u] = -1;
      if (i < total) {
        slot[u] = kvref::load_early<true>(p.slot_mapping + tok[u]);
#pragma unroll
        for (int t = 0; t < kTensors; ++t) {
          r[t][u] = kvref::load_early<true>(reinterpret_cast<const kvref::Vec16*>(
              p.src[t] + static_cast<size_t>(tok[u]) * (kUpr * 16) + static_cast<size_t>(unit[u]) * 16u));
        }
      }
    }
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      if (base + u * stride < total) {
        const int64_t d = kvref::paged_destination(p, slot[u]);
        if (d >= 0) {
#pragma unroll
          for (int t = 0; t < kTensors; ++t) {
            *reinterpret_cast<kvref::Vec16*>(p.dst[t] + d + static_cast<int64_t>(unit[u]) * 16) = r[t][u];
          }
        }
      }
    }
  }
}

__device__ __forceinline__ uint32_t mix32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}
__global__ void fill_kernel(uint32_t* p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    p[i] = mix32(static_cast<uint32_t>(i) * 0x9e3779b9u ^ seed ^ static_cast<uint32_t>(i >> 32));
  }
}
__global__ void diff_kernel(const uint4* a, const uint4* b, size_t n, unsigned long long* cnt) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const uint4 x = a[i], y = b[i];
    if (x.x != y.x || x.y != y.y || x.z != y.z || x.w != y.w) atomicAdd(cnt, 1ull);
  }
}

// ------------------------------------------------------------------------------------------------
// Host side
// ------------------------------------------------------------------------------------------------

cudaStream_t g_s;
double g_copy_gbs = 0;
int g_sms = 0;
size_t g_smem_optin = 0;

void fill(void* p, size_t bytes, uint32_t seed) {
  fill_kernel<<<1024, 256, 0, g_s>>>(static_cast<uint32_t*>(p), bytes / 4, seed);
  CK(cudaGetLastError());
}


// Times `launch` as kvref_bench does and prints one line (label, extra, times, % of copy).
template <typename F>
void timed_line(const char* label, const std::string& extra, double bytes, const char* verdict, F launch) {
  Timer t(g_s);
  const double ms = t.ms_per_iter(launch, 20);
  const double gms = t.graph_ms_per_iter(launch, 20, 3);
  CK(cudaGetLastError());
  CK(cudaStreamSynchronize(g_s));
  auto pct = [&](double m) { return 100.0 * bytes / (m * 1e-3) / 1e9 / g_copy_gbs; };
  printf("  %-44s %-26s stream %8.2f us  graph %8.2f us  %5.1f%% (graph)  %5.1f%% (best)  %s\n", label, extra.c_str(),
         ms * 1e3, gms * 1e3, pct(gms), pct(std::min(ms, gms)), verdict);
  fflush(stdout);
}

typedef void (*Kernel)(BulkParams);

template <int kT>
Kernel bulk_kernel(int stages) {
  switch (stages) {
    case 1: return bulk_store_kernel<kT, 1>;
    case 2: return bulk_store_kernel<kT, 2>;
    default: return bulk_store_kernel<kT, 3>;
  }
}

void setup_bulk_kernels() {
  for (int t = 1; t <= 2; ++t) {
    for (int s = 1; s <= 3; ++s) {
      const Kernel k = t == 1 ? bulk_kernel<1>(s) : bulk_kernel<2>(s);
      const void* f = reinterpret_cast<const void*>(k);
      cudaFuncAttributes fa;
      CK(cudaFuncGetAttributes(&fa, f));
      // Static shared memory (the mbarriers) counts against the opt-in limit too.
      CK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize,
                              static_cast<int>(g_smem_optin - fa.sharedSizeBytes)));
      CK(cudaFuncSetAttribute(f, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
    }
  }
}

struct BulkCfg {
  int chunk;    // tokens per chunk
  int stages;   // 1..3
  int per_sm;   // persistent: CTAs per SM (grid = per_sm x SMs); 0: one chunk per CTA
  uint32_t flags;
};

struct VecCfg {
  int per_sm;  // CTAs of 256 threads per SM; 0: as many as fit
  int unroll;  // 2 or 4
};

struct Case {
  std::string name;
  double target;  // % of copy (0: none)
  bool kv;
  int64_t T, row, page, page_bytes, pages;
  int tensors;
  void* src[2] = {nullptr, nullptr};
  void* cache[2] = {nullptr, nullptr};  // the variants' caches
  void* ref[2] = {nullptr, nullptr};    // kvref's caches
  size_t cache_bytes = 0;
  int64_t* slots = nullptr;
  unsigned long long* cnt = nullptr;
  double bytes = 0;
  BulkParams bp;
};

const uint32_t kCacheSeed = 0x5eed0001u;

// Number of 16-byte words of the variant caches that differ from kvref's.
unsigned long long compare(const Case& c) {
  CK(cudaMemsetAsync(c.cnt, 0, 8, g_s));
  for (int t = 0; t < c.tensors; ++t) {
    diff_kernel<<<1024, 256, 0, g_s>>>(static_cast<const uint4*>(c.cache[t]), static_cast<const uint4*>(c.ref[t]),
                                       c.cache_bytes / 16, c.cnt);
    CK(cudaGetLastError());
  }
  unsigned long long n = 0;
  CK(cudaMemcpyAsync(&n, c.cnt, 8, cudaMemcpyDeviceToHost, g_s));
  CK(cudaStreamSynchronize(g_s));
  return n;
}

// Pre-fills the variant caches as kvref's were, runs `launch` once, compares.
template <typename F>
std::string verify(const Case& c, F launch) {
  for (int t = 0; t < c.tensors; ++t) fill(c.cache[t], c.cache_bytes, kCacheSeed + t);
  launch();
  CK(cudaGetLastError());
  CK(cudaStreamSynchronize(g_s));
  const unsigned long long n = compare(c);
  if (n == 0) return "identical";
  char buf[64];
  snprintf(buf, sizeof buf, "MISMATCH (%llu 16-byte words)", n);
  return buf;
}

std::string flag_text(uint32_t f) {
  std::string s = (f & kMerge) ? "merge" : "nomerge";
  s += (f & kLaneIssue) ? " lanes" : " l0";
  if ((f & kHintLoad) && (f & kHintStore)) s += " ef-ld+st";
  else if (f & kHintLoad) s += " ef-ld";
  else if (f & kHintStore) s += " ef-st";
  if (f & kLag0) s += " lag0";
  if (f & kNoFence) s += " nofence";
  return s;
}

void run_bulk(Case& c, const BulkCfg& cfg) {
  BulkParams p = c.bp;
  p.chunk = static_cast<uint32_t>(cfg.chunk);
  p.stage_bytes = static_cast<uint32_t>((cfg.chunk * 8 + c.tensors * cfg.chunk * c.row + 127) / 128 * 128);
  p.flags = cfg.flags;
  if (cfg.per_sm == 0) p.flags &= ~kRanges;  // one chunk per CTA: strided is the same thing
  const Kernel k = c.tensors == 1 ? bulk_kernel<1>(cfg.stages) : bulk_kernel<2>(cfg.stages);
  const size_t smem = static_cast<size_t>(p.stage_bytes) * cfg.stages;
  char label[96];
  if (cfg.per_sm == 0) {
    snprintf(label, sizeof label, "bulk C%-2d S%d 1/CTA %s", cfg.chunk, cfg.stages, flag_text(p.flags).c_str());
  } else {
    snprintf(label, sizeof label, "bulk C%-2d S%d pers k%d %s %s", cfg.chunk, cfg.stages, cfg.per_sm,
             (p.flags & kRanges) ? "ranges" : "strided", flag_text(p.flags).c_str());
  }
  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, reinterpret_cast<const void*>(k)));
  if (smem + fa.sharedSizeBytes > g_smem_optin) {
    printf("  %-44s skipped: %zu B of shared memory per CTA\n", label, smem);
    return;
  }
  int occ = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, 32, smem));
  if (occ == 0 || (cfg.per_sm > 0 && cfg.per_sm > occ)) {
    printf("  %-44s skipped: %d CTAs/SM fit (%zu B shared each)\n", label, occ, smem);
    return;
  }
  const int64_t chunks = (c.T + cfg.chunk - 1) / cfg.chunk;
  const unsigned grid = cfg.per_sm == 0 ? static_cast<unsigned>(chunks) : static_cast<unsigned>(cfg.per_sm * g_sms);
  char extra[64];
  snprintf(extra, sizeof extra, "grid %6u %2d/SM %3zuK", grid, cfg.per_sm == 0 ? occ : cfg.per_sm, smem / 1024);
  set_current(label);
  auto launch = [&] { k<<<grid, 32, smem, g_s>>>(p); };
  const std::string v = verify(c, launch);
  timed_line(label, extra, c.bytes, v.c_str(), launch);
}

template <int kUpr, int kT>
Kernel vec_kernel(int unroll) {
  return unroll == 2 ? persist_vec_kernel<kUpr, kT, 2> : persist_vec_kernel<kUpr, kT, 4>;
}

void run_vec(Case& c, const VecCfg& cfg) {
  Kernel k = nullptr;
  const int64_t upr = c.row / 16;
  if (c.tensors == 2 && upr == 128) k = vec_kernel<128, 2>(cfg.unroll);
  else if (c.tensors == 1 && upr == 72) k = vec_kernel<72, 1>(cfg.unroll);
  else if (c.tensors == 1 && upr == 41) k = vec_kernel<41, 1>(cfg.unroll);
  char label[96];
  if (cfg.per_sm == 0) snprintf(label, sizeof label, "vec pers kmax 256 thr u%d", cfg.unroll);
  else snprintf(label, sizeof label, "vec pers k%d 256 thr u%d", cfg.per_sm, cfg.unroll);
  if (k == nullptr) {
    printf("  %-44s skipped: no instantiation for this row\n", label);
    return;
  }
  if (c.T * upr >= (int64_t(1) << 31)) {
    printf("  %-44s skipped: too many units for 32-bit indices\n", label);
    return;
  }
  int occ = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, 256, 0));
  if (occ == 0 || cfg.per_sm > occ) {
    printf("  %-44s skipped: %d CTAs/SM fit\n", label, occ);
    return;
  }
  const int per_sm = cfg.per_sm == 0 ? occ : cfg.per_sm;
  const unsigned grid = static_cast<unsigned>(per_sm * g_sms);
  char extra[64];
  snprintf(extra, sizeof extra, "grid %6u %2d/SM", grid, per_sm);
  const BulkParams p = c.bp;
  set_current(label);
  auto launch = [&] { k<<<grid, 256, 0, g_s>>>(p); };
  const std::string v = verify(c, launch);
  timed_line(label, extra, c.bytes, v.c_str(), launch);
}

void run_case(std::mt19937_64& rng, Case& c, const std::vector<BulkCfg>& bulk, const std::vector<VecCfg>& vec) {
  const int64_t T = c.T;
  snprintf(g_case, sizeof g_case, "%s, T %lld:", c.name.c_str(), (long long)T);
  set_current("setup");
  const size_t src_bytes = static_cast<size_t>(T * c.row);
  c.cache_bytes = static_cast<size_t>(c.pages * c.page_bytes);
  for (int t = 0; t < c.tensors; ++t) {
    CK(cudaMalloc(&c.src[t], src_bytes));
    CK(cudaMalloc(&c.cache[t], c.cache_bytes));
    CK(cudaMalloc(&c.ref[t], c.cache_bytes));
    fill(c.src[t], src_bytes, 0xabc00000u + static_cast<uint32_t>(t));
    fill(c.ref[t], c.cache_bytes, kCacheSeed + t);
  }
  CK(cudaMalloc(&c.slots, T * 8));
  CK(cudaMalloc(&c.cnt, 8));
  std::vector<int64_t> hs = paged_slots(rng, T, c.page, c.pages);
  // A few pads: inside a chunk, on chunk boundaries, the last token.
  for (int64_t t : {int64_t(1), int64_t(32), int64_t(33), T / 2, T / 2 + 7, T - 1}) hs[t] = KVREF_PAD_SLOT;
  CK(cudaMemcpy(c.slots, hs.data(), T * 8, cudaMemcpyHostToDevice));
  c.bytes = 2.0 * static_cast<double>(src_bytes) * c.tensors + T * 8.0;

  // kvref's store into the reference caches, through the C API.
  kvref_kv_store_args ka;
  kvref_record_store_args ra;
  kvref::StorePlan plan;
  if (c.kv) {
    kvref_kv_store_args_init(&ka);
    ka.key = c.src[0];
    ka.value = c.src[1];
    ka.key_stride_token = ka.value_stride_token = 8 * 128;
    ka.key_stride_head = ka.value_stride_head = 128;
    ka.key_cache = c.ref[0];
    ka.value_cache = c.ref[1];
    ka.layout = KVREF_LAYOUT_NHD;
    ka.num_blocks = c.pages;
    ka.block_size = static_cast<int32_t>(c.page);
    ka.num_heads = 8;
    ka.head_size = 128;
    ka.slot_mapping = c.slots;
    ka.num_tokens = T;
    ka.src_dtype = KVREF_DTYPE_BF16;
    ka.cache_dtype = KVREF_DTYPE_BF16;
    plan = kvref::plan_kv_store(ka);
  } else {
    kvref_record_store_args_init(&ra);
    ra.src = c.src[0];
    ra.src_stride = c.row;
    ra.record_bytes = c.row;
    ra.cache = c.ref[0];
    ra.num_pages = c.pages;
    ra.page_size = static_cast<int32_t>(c.page);
    ra.page_bytes = c.page_bytes;
    ra.slot_mapping = c.slots;
    ra.num_tokens = T;
    plan = kvref::plan_record_store(ra);
  }
  auto kvref_launch = [&] {
    const kvref_status st = c.kv ? kvref_kv_store(&ka, g_s) : kvref_record_store(&ra, g_s);
    if (st != KVREF_SUCCESS) {
      fprintf(stderr, "kvref store failed: %s\n", kvref_status_string(st));
      exit(1);
    }
  };
  kvref_launch();
  CK(cudaGetLastError());
  CK(cudaStreamSynchronize(g_s));

  // What the bulk copies need: 16-byte aligned addresses and sizes (the slots: C even, pointer
  // 16-byte aligned).
  bool aligned = c.row % 16 == 0 && c.page_bytes % 16 == 0 && reinterpret_cast<uintptr_t>(c.slots) % 16 == 0;
  for (int t = 0; t < c.tensors; ++t) {
    aligned = aligned && reinterpret_cast<uintptr_t>(c.src[t]) % 16 == 0 && reinterpret_cast<uintptr_t>(c.cache[t]) % 16 == 0;
  }
  if (!aligned) {
    fprintf(stderr, "%s rows, pages or pointers not 16-byte aligned: the bulk variants cannot run\n", g_case);
    exit(1);
  }

  BulkParams& p = c.bp;
  memset(&p, 0, sizeof p);
  for (int t = 0; t < 2; ++t) {
    p.src[t] = static_cast<const unsigned char*>(c.src[t < c.tensors ? t : 0]);
    p.dst[t] = static_cast<unsigned char*>(c.cache[t < c.tensors ? t : 0]);
  }
  p.slot_mapping = c.slots;
  p.num_tokens = T;
  p.num_slots = c.pages * c.page;
  p.page_size = c.page;
  p.page_magic = kvref::page_magic_for(c.page);
  p.dst_page_stride = c.page_bytes;
  p.dst_slot_stride = c.row;
  p.row_bytes = static_cast<uint32_t>(c.row);

  printf("\n%s %.1f MB read + written", g_case, c.bytes / 1e6);
  if (c.target > 0) printf("  (target %.0f%% of copy)", c.target);
  printf("\n");
  char pl[96];
  snprintf(pl, sizeof pl, "lanes %u tok/CTA %u unroll %d vec %d", 1u << plan.params.lanes_log2,
           plan.params.tokens_per_block, plan.unroll, plan.vector_bytes);
  // kvref writes the reference caches (the same bytes every launch).
  set_current("kvref plan");
  timed_line("kvref plan (C API)", pl, c.bytes, "reference", kvref_launch);
  {
    const size_t half = static_cast<size_t>(c.bytes / 2);
    void *x, *y;
    CK(cudaMalloc(&x, half));
    CK(cudaMalloc(&y, half));
    CK(cudaMemsetAsync(x, 1, half, g_s));
    set_current("cudaMemcpyAsync");
    timed_line("cudaMemcpyAsync of the same bytes", "", c.bytes, "",
               [&] { CK(cudaMemcpyAsync(y, x, half, cudaMemcpyDeviceToDevice, g_s)); });
    CK(cudaFree(x));
    CK(cudaFree(y));
  }
  for (const VecCfg& v : vec) run_vec(c, v);
  for (const BulkCfg& b : bulk) run_bulk(c, b);

  for (int t = 0; t < c.tensors; ++t) {
    CK(cudaFree(c.src[t]));
    CK(cudaFree(c.cache[t]));
    CK(cudaFree(c.ref[t]));
  }
  CK(cudaFree(c.slots));
  CK(cudaFree(c.cnt));
}

double measure_copy_bandwidth() {
  const size_t bytes = size_t(2) << 30;
  void *src, *dst;
  CK(cudaMalloc(&src, bytes));
  CK(cudaMalloc(&dst, bytes));
  CK(cudaMemset(src, 1, bytes));
  Timer t(g_s);
  const double ms = t.ms_per_iter([&] { CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, g_s)); }, 10);
  CK(cudaFree(src));
  CK(cudaFree(dst));
  return 2.0 * bytes / (ms * 1e-3) / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  bool targets_only = false;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--targets")) {
      targets_only = true;
    } else {
      fprintf(stderr, "usage: %s [--targets]\n", argv[0]);
      return 2;
    }
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    printf("SKIP: no CUDA device\n");
    return 0;
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  if (prop.major < 9) {
    fprintf(stderr, "bulk_explore needs sm_90 (bulk copies); device %s is sm_%d%d\n", prop.name, prop.major,
            prop.minor);
    return 1;
  }
  g_sms = prop.multiProcessorCount;
  g_smem_optin = prop.sharedMemPerBlockOptin;
  CK(cudaStreamCreateWithFlags(&g_s, cudaStreamNonBlocking));
  setup_bulk_kernels();
  g_copy_gbs = measure_copy_bandwidth();
  printf("device %s, %d SMs, %zu B shared/CTA opt-in; cudaMemcpy D2D 2 GiB: %.1f GB/s (read + write)%s\n",
         prop.name, g_sms, g_smem_optin, g_copy_gbs, BULK_FENCE ? "" : "  [BULK_FENCE=0]");

  const uint32_t M = kMerge, L = kLaneIssue, R = kRanges, Z = kLag0, F = kNoFence;
  const uint32_t HL = kHintLoad, HS = kHintStore, HB = kHintLoad | kHintStore;
  // {chunk C, stages S, CTAs/SM (0: one chunk per CTA), flags}.
  // K/V: a stage holds C x (8 + 2 x 2048) bytes (C 2: 8 KiB, 4: 16 KiB, 8: 32 KiB, 16: 64 KiB, 32: 128 KiB).
  const std::vector<BulkCfg> kv_bulk = {
      // one chunk per CTA
      {2, 1, 0, M}, {4, 1, 0, M}, {8, 1, 0, M}, {16, 1, 0, M}, {32, 1, 0, M}, {16, 1, 0, 0}, {4, 1, 0, M | L},
      {4, 1, 0, M | HL}, {4, 1, 0, M | HS}, {4, 1, 0, M | F}, {16, 1, 0, M | HB},
      // persistent, strided chunks
      {16, 1, 3, M}, {8, 2, 1, M}, {8, 2, 2, M}, {8, 2, 3, M}, {8, 2, 2, M | Z}, {8, 3, 1, M}, {8, 3, 2, M},
      {16, 2, 1, M}, {16, 3, 1, M}, {4, 2, 4, M}, {4, 2, 6, M}, {4, 3, 2, M}, {4, 3, 4, M}, {4, 3, 4, M | Z},
      {4, 3, 4, M | F},
      // persistent, contiguous ranges
      {8, 2, 2, M | R}, {8, 3, 2, M | R}, {16, 2, 1, M | R}, {4, 3, 4, M | R}, {8, 2, 2, M | L | R}};
  // Records: C x (8 + R) bytes per stage (1152: C 16 = 18 KiB, C 32 = 36 KiB; 656: C 32 = 21 KiB).
  const std::vector<BulkCfg> rec_bulk = {
      // one chunk per CTA
      {8, 1, 0, M}, {16, 1, 0, M}, {32, 1, 0, M}, {32, 1, 0, 0}, {32, 1, 0, M | L}, {16, 1, 0, M | HL},
      {16, 1, 0, M | HS}, {16, 1, 0, M | HB}, {32, 1, 0, M | HL}, {32, 1, 0, M | HS}, {32, 1, 0, M | HB},
      {16, 1, 0, M | F},
      // persistent, strided chunks
      {32, 1, 4, M}, {16, 2, 2, M}, {16, 2, 4, M}, {32, 2, 1, M}, {32, 2, 2, M}, {32, 2, 3, M}, {32, 2, 2, M | Z},
      {32, 3, 1, M}, {32, 3, 2, M}, {16, 3, 4, M}, {16, 3, 6, M}, {16, 3, 4, M | Z}, {16, 3, 4, M | HS},
      {32, 2, 2, M | HB},
      // persistent, contiguous ranges
      {32, 2, 2, M | R}, {32, 3, 2, M | R}, {16, 3, 4, M | R}, {32, 2, 2, M | L | R}};
  const std::vector<VecCfg> vec = {{2, 2}, {4, 2}, {0, 2}, {4, 4}, {0, 4}};

  std::mt19937_64 rng(42);
  struct Spec {
    const char* name;
    bool kv;
    int64_t T, row, extra;
    double target;
  };
  const std::vector<Spec> specs = {
      {"bf16 K/V NHD 8 x 128, block 16", true, 16384, 2048, 0, 90},
      {"bf16 K/V NHD 8 x 128, block 16", true, 32768, 2048, 0, 0},
      {"bf16 K/V NHD 8 x 128, block 16", true, 65536, 2048, 0, 0},
      {"record bf16 MLA 1152 B, 64/page + 64 B", false, 16384, 1152, 64, 0},
      {"record bf16 MLA 1152 B, 64/page + 64 B", false, 32768, 1152, 64, 85},
      {"record bf16 MLA 1152 B, 64/page + 64 B", false, 65536, 1152, 64, 0},
      {"record fp8 MLA 656 B, 64/page", false, 16384, 656, 0, 0},
      {"record fp8 MLA 656 B, 64/page", false, 32768, 656, 0, 0},
      {"record fp8 MLA 656 B, 64/page", false, 65536, 656, 0, 85},
  };
  for (const Spec& s : specs) {
    if (targets_only && s.target == 0) continue;
    Case c;
    c.name = s.name;
    c.target = s.target;
    c.kv = s.kv;
    c.T = s.T;
    c.row = s.row;
    c.tensors = s.kv ? 2 : 1;
    c.page = s.kv ? 16 : 64;
    c.page_bytes = c.page * s.row + s.extra;
    c.pages = s.kv ? std::max<int64_t>((s.T + 15) / 16 * 2, 4096) : std::max<int64_t>((s.T + 63) / 64 * 2, 1024);
    run_case(rng, c, s.kv ? kv_bulk : rec_bulk, vec);
  }
  CK(cudaStreamDestroy(g_s));
  return 0;
}
