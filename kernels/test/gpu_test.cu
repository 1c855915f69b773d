// gpu_test.cu - every kvref kernel against the CPU reference, on a GPU.
//
//   kvref_gpu_tests [--memcheck] [--no-large] [--seed N] [--section TEXT]
//
// Exits 77 (ctest: skipped) when no CUDA device is present (CI), 0 when every check passed,
// 1 otherwise.  --memcheck is for runs under compute-sanitizer: same checks, but the
// whole-cache stray-write scans of the large tests (billions of bytes) are left out.
// --section runs only the sections whose name contains TEXT.
//
// The record store's bulk path (record_store_bulk_kernel, sm_90+) is an internal choice of the
// plan; the record sections ask src/plan.h which of their cases take it (with the shared memory
// limit the library reads off the device the same way) and check that some do on sm_90+.
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "kvref/kvref.h"
#include "kvref/kvref_cpu.h"
#include "plan.h"  // internal (src/): which record stores take the bulk path

namespace {

long g_checks = 0;
long g_failures = 0;
bool g_memcheck = false;
// The dynamic shared memory record_store_bulk_kernel may take on this device, 0 where it cannot
// run: what kvref_launch.cu's bulk_record_smem_limit() gives the plan.
int64_t g_bulk_smem = 0;

void read_bulk_smem_limit(const cudaDeviceProp& prop) {
#if defined(KVREF_HIP)
  (void)prop;  // HIP (here its NVIDIA platform) has no bulk record store: the plan never takes it
#else
  cudaFuncAttributes fa;
  if (prop.major >= 9 &&
      cudaFuncGetAttributes(&fa, reinterpret_cast<const void*>(&kvref::record_store_bulk_kernel<false, false>)) ==
          cudaSuccess &&
      fa.ptxVersion >= 90) {
    g_bulk_smem = fa.maxDynamicSharedSizeBytes;
  }
  (void)cudaGetLastError();
#endif
}

// Whether kvref_record_store(&a) goes through the bulk kernel on this device.
bool takes_bulk_path(const kvref_record_store_args& a) { return kvref::plan_record_store(a, g_bulk_smem).bulk; }

#define CHECK(cond, ...)                                               \
  do {                                                                 \
    ++g_checks;                                                        \
    if (!(cond)) {                                                     \
      ++g_failures;                                                    \
      if (g_failures < 50) {                                           \
        fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
        fprintf(stderr, __VA_ARGS__);                                  \
        fprintf(stderr, "\n");                                         \
      }                                                                \
    }                                                                  \
  } while (0)

#define CUDA_OK(expr)                                                                   \
  do {                                                                                  \
    cudaError_t e_ = (expr);                                                            \
    if (e_ != cudaSuccess) {                                                            \
      fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorString(e_), __FILE__, \
              __LINE__, #expr);                                                         \
      exit(1);                                                                          \
    }                                                                                   \
  } while (0)

template <typename T>
struct DevBuf {
  T* p = nullptr;
  size_t n = 0;
  explicit DevBuf(size_t count) : n(count) {
    CUDA_OK(cudaMalloc(&p, std::max<size_t>(count, 1) * sizeof(T)));
  }
  DevBuf(const std::vector<T>& h) : DevBuf(h.size()) { upload(h); }
  ~DevBuf() { cudaFree(p); }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  void upload(const std::vector<T>& h) {
    CUDA_OK(cudaMemcpy(p, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> h(n);
    CUDA_OK(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
  }
};

std::vector<uint8_t> random_bytes(std::mt19937_64& rng, size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; i += 8) {
    uint64_t r = rng();
    memcpy(&v[i], &r, std::min<size_t>(8, n - i));
  }
  return v;
}

// ------------------------------------------------------------------------------------------------
// Slot mapping
void test_slot_mapping_random(std::mt19937_64& rng, int trials) {
  const int block_sizes[] = {1, 4, 16, 32, 64, 256};
  const int cps[] = {1, 2, 4};
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreate(&stream));
  for (int trial = 0; trial < trials; ++trial) {
    kvref_slot_mapping_args a;
    kvref_slot_mapping_args_init(&a);
    a.cp_size = cps[trial % 3];
    a.cp_rank = static_cast<int32_t>(rng() % a.cp_size);
    const int interleave_choice = static_cast<int>(rng() % 3);
    a.num_groups = 1 + static_cast<int32_t>(rng() % 4);
    a.num_rows = 1 + static_cast<int32_t>(rng() % 24);
    a.num_reqs = 1 + static_cast<int32_t>(rng() % a.num_rows);
    // Group shapes first (cp_interleave must divide every block size).
    std::vector<int> bs(a.num_groups), width(a.num_groups);
    std::vector<int64_t> stride(a.num_groups);
    for (int g = 0; g < a.num_groups; ++g) {
      bs[g] = block_sizes[rng() % 6];
      width[g] = (rng() % 3 == 0) ? 1 + static_cast<int>(rng() % 4) : 1 + static_cast<int>(rng() % 64);
      stride[g] = width[g] + static_cast<int64_t>(rng() % 3);
    }
    const int min_bs = *std::min_element(bs.begin(), bs.end());
    a.cp_interleave = interleave_choice == 0 ? 1 : interleave_choice == 1 ? std::min(2, min_bs) : min_bs;
    for (int g = 0; g < a.num_groups; ++g) {
      if (bs[g] % a.cp_interleave != 0) bs[g] = a.cp_interleave;
    }
    // Requests: rows, lengths, positions (some start past the narrowest group's width).
    std::vector<int32_t> rows(a.num_rows);
    std::iota(rows.begin(), rows.end(), 0);
    std::shuffle(rows.begin(), rows.end(), rng);
    std::vector<int32_t> idx(rows.begin(), rows.begin() + a.num_reqs);
    if (trial % 7 == 3) idx[0] = a.num_rows + 3;  // invalid row -> pad
    std::vector<int32_t> qsl(a.num_reqs + 1, 0);
    std::vector<int64_t> pos;
    const int64_t max_span = static_cast<int64_t>(*std::max_element(width.begin(), width.end())) *
                             256 * a.cp_size;
    for (int b = 0; b < a.num_reqs; ++b) {
      const int len = (rng() % 4 == 0) ? 1 : static_cast<int>(rng() % 300);
      int64_t start = static_cast<int64_t>(rng() % static_cast<uint64_t>(max_span * 3 / 2 + 1));
      if (trial % 11 == 5) start += INT64_C(1) << 33;  // far past any row: 64-bit division path
      for (int i = 0; i < len; ++i) pos.push_back(start + i);
      qsl[b + 1] = qsl[b] + len;
    }
    a.num_tokens = static_cast<int64_t>(pos.size());
    a.num_tokens_padded = a.num_tokens + static_cast<int64_t>(rng() % 20);
    if (a.num_tokens_padded == 0) a.num_tokens_padded = 1;
    if (pos.empty()) pos.push_back(0);  // keep the buffer non-empty
    // Tables: exact-size allocations (an unguarded read past the last row is out of bounds).
    std::vector<std::vector<int32_t>> tables(a.num_groups);
    std::vector<std::vector<int64_t>> cpu_out(a.num_groups);
    std::vector<DevBuf<int32_t>*> d_tables;
    std::vector<DevBuf<int64_t>*> d_out;
    const bool big_ids = trial % 2 == 1;
    for (int g = 0; g < a.num_groups; ++g) {
      tables[g].resize(static_cast<size_t>(a.num_rows * stride[g]));
      for (auto& v : tables[g]) {
        v = big_ids ? static_cast<int32_t>(rng() % 0x7fffffffu) : static_cast<int32_t>(rng() % 100000);
        if (rng() % 50 == 0) v = -1;
      }
      cpu_out[g].assign(static_cast<size_t>(a.num_tokens_padded), 777);
      d_tables.push_back(new DevBuf<int32_t>(tables[g]));
      d_out.push_back(new DevBuf<int64_t>(static_cast<size_t>(a.num_tokens_padded)));
      CUDA_OK(cudaMemset(d_out[g]->p, 0x3c, d_out[g]->n * sizeof(int64_t)));
    }
    DevBuf<int32_t> d_idx(idx), d_qsl(qsl);
    DevBuf<int64_t> d_pos(pos);
    // CPU
    kvref_slot_mapping_args c = a;
    c.idx_mapping = idx.data();
    c.query_start_loc = qsl.data();
    c.positions = pos.data();
    for (int g = 0; g < a.num_groups; ++g) {
      c.groups[g] = {tables[g].data(), stride[g], width[g], bs[g], cpu_out[g].data()};
      a.groups[g] = {d_tables[g]->p, stride[g], width[g], bs[g], d_out[g]->p};
    }
    a.idx_mapping = d_idx.p;
    a.query_start_loc = d_qsl.p;
    a.positions = d_pos.p;
    CHECK(kvref_cpu_slot_mapping(&c) == KVREF_SUCCESS, "trial %d", trial);
    const kvref_status st = kvref_slot_mapping(&a, trial % 2 ? stream : nullptr);
    CHECK(st == KVREF_SUCCESS, "trial %d: %s", trial, kvref_status_string(st));
    CUDA_OK(cudaDeviceSynchronize());
    for (int g = 0; g < a.num_groups; ++g) {
      const std::vector<int64_t> got = d_out[g]->download();
      int64_t bad = -1, pads = 0, past = 0;
      for (size_t t = 0; t < got.size(); ++t) {
        if (got[t] != cpu_out[g][t] && bad < 0) bad = static_cast<int64_t>(t);
        pads += got[t] == -1;
        past += got[t] > INT32_MAX;
      }
      CHECK(bad < 0, "slot mapping trial %d group %d token %lld: gpu %lld cpu %lld", trial, g,
            (long long)bad, bad < 0 ? 0LL : (long long)got[bad], bad < 0 ? 0LL : (long long)cpu_out[g][bad]);
      (void)pads;
      (void)past;
      delete d_tables[g];
      delete d_out[g];
    }
  }
  CUDA_OK(cudaStreamDestroy(stream));
}

// Positions past a narrow row at the last row of an exact-size table: the width guard must
// pad them (the neighbour row does not exist; memcheck would flag an unguarded read).
void test_slot_mapping_tail_group() {
  const int rows = 4, width = 32, bs = 16;
  std::vector<int32_t> table(rows * width);
  std::iota(table.begin(), table.end(), 1000);
  std::vector<int32_t> idx = {3, 2};
  std::vector<int32_t> qsl = {0, 3, 4};
  std::vector<int64_t> pos = {511, 512, 351000, 20};
  DevBuf<int32_t> dt(table), di(idx), dq(qsl);
  DevBuf<int64_t> dp(pos), out(6);
  kvref_slot_mapping_args a;
  kvref_slot_mapping_args_init(&a);
  a.num_groups = 1;
  a.groups[0] = {dt.p, width, width, bs, out.p};
  a.num_reqs = 2;
  a.num_rows = rows;
  a.idx_mapping = di.p;
  a.query_start_loc = dq.p;
  a.positions = dp.p;
  a.num_tokens = 4;
  a.num_tokens_padded = 6;
  CHECK(kvref_slot_mapping(&a, nullptr) == KVREF_SUCCESS, "tail group launch");
  CUDA_OK(cudaDeviceSynchronize());
  const std::vector<int64_t> got = out.download();
  const int64_t want[] = {(1000 + 3 * 32 + 31) * 16 + 15, -1, -1, (1000 + 2 * 32 + 1) * 16 + 4, -1, -1};
  for (int i = 0; i < 6; ++i) CHECK(got[i] == want[i], "tail group token %d: %lld", i, (long long)got[i]);
}

// ------------------------------------------------------------------------------------------------
// KV store
struct KvShape {
  int heads, head_size;
  int extra_token, extra_head;  // source padding (non-contiguous key/value)
  int src_offset;               // elements; 1 -> source not 16-byte aligned
};

void test_kv_store_random(std::mt19937_64& rng) {
  const kvref_dtype src_dtypes[] = {KVREF_DTYPE_F16, KVREF_DTYPE_BF16, KVREF_DTYPE_F32};
  const KvShape shapes[] = {{8, 128, 0, 0, 0}, {4, 80, 0, 0, 0}, {3, 7, 0, 0, 0},
                            {2, 64, 96, 16, 0}, {8, 128, 256, 0, 1}, {1, 576, 0, 0, 0},
                            {40, 128, 0, 0, 0}, {24, 128, 0, 128, 0}};  // a thread loops
  const int block_sizes[] = {16, 1, 5};
  int case_id = 0;
  for (kvref_dtype sd : src_dtypes) {
    for (int fp8 = 0; fp8 < 2; ++fp8) {
      for (int layout = 0; layout < 2; ++layout) {
        for (const KvShape& s : shapes) {
          ++case_id;
          const int es = kvref_dtype_size(sd);
          const kvref_dtype cd = fp8 ? KVREF_DTYPE_FP8_E4M3 : sd;
          const int ce = kvref_dtype_size(cd);
          const int bs = block_sizes[case_id % 3];
          // Every fourth case is prefill-sized (>= 2,048 tokens: the wide-thread plan), the rest
          // decode-sized (the decode kernels for NHD rows: K and V in separate CTAs up to 32
          // tokens, in CTA halves above; fp8 above 32 tokens a pair of units per thread where
          // the cache is 16-byte aligned, else one, two from 1,024 tokens).  Prefill
          // cases and every other decode case have pages with a gap (the decode kernel's page
          // division), the others dense pages (slot * slot stride).
          const int64_t T = (case_id % 4 == 0) ? 2048 + static_cast<int64_t>(rng() % 3000)
                            : (case_id % 4 == 3) ? 1024 + static_cast<int64_t>(rng() % 1024)
                                                 : 1 + static_cast<int64_t>(rng() % 300);
          const int64_t num_blocks = (T + bs - 1) / bs * 2 + 3;
          const int64_t page_elems = static_cast<int64_t>(bs) * s.heads * s.head_size;
          const int64_t block_stride = (case_id % 2 == 0) ? page_elems + 8 : 0;
          const int64_t page_stride = block_stride ? block_stride : page_elems;
          const int64_t cache_elems = num_blocks * page_stride;
          const int64_t head_stride = s.head_size + s.extra_head;
          const int64_t tok_stride = s.heads * head_stride + s.extra_token;
          const int64_t src_elems = s.src_offset + T * tok_stride;
          // Unique random slots, ~10% pad, a few past the end (skipped).
          std::vector<int64_t> all(static_cast<size_t>(num_blocks * bs));
          std::iota(all.begin(), all.end(), 0);
          std::shuffle(all.begin(), all.end(), rng);
          std::vector<int64_t> slots(all.begin(), all.begin() + T);
          for (auto& v : slots) {
            const uint64_t r = rng() % 20;
            if (r == 0) v = -1;
            if (r == 1) v = num_blocks * bs + static_cast<int64_t>(rng() % 100);
          }
          std::vector<uint8_t> key = random_bytes(rng, static_cast<size_t>(src_elems * es));
          std::vector<uint8_t> value = random_bytes(rng, key.size());
          std::vector<uint8_t> kc = random_bytes(rng, static_cast<size_t>(cache_elems * ce));
          std::vector<uint8_t> vc = random_bytes(rng, kc.size());
          const float scales[2] = {0.37f + static_cast<float>(case_id % 5), 1.5f};
          DevBuf<uint8_t> dk(key), dv(value), dkc(kc), dvc(vc);
          DevBuf<int64_t> ds(slots);
          DevBuf<float> dsc(std::vector<float>(scales, scales + 2));
          kvref_kv_store_args a;
          kvref_kv_store_args_init(&a);
          a.key_stride_token = a.value_stride_token = tok_stride;
          a.key_stride_head = a.value_stride_head = head_stride;
          a.layout = layout ? KVREF_LAYOUT_HND : KVREF_LAYOUT_NHD;
          a.num_blocks = num_blocks;
          a.block_size = bs;
          a.num_heads = s.heads;
          a.head_size = s.head_size;
          a.cache_block_stride = block_stride;
          a.num_tokens = T;
          a.src_dtype = sd;
          a.cache_dtype = cd;
          kvref_kv_store_args c = a;
          c.key = key.data() + s.src_offset * es;
          c.value = value.data() + s.src_offset * es;
          c.key_cache = kc.data();
          c.value_cache = vc.data();
          c.slot_mapping = slots.data();
          c.k_scale = &scales[0];
          c.v_scale = &scales[1];
          a.key = dk.p + s.src_offset * es;
          a.value = dv.p + s.src_offset * es;
          a.key_cache = dkc.p;
          a.value_cache = dvc.p;
          a.slot_mapping = ds.p;
          a.k_scale = dsc.p;
          a.v_scale = dsc.p + 1;
          CHECK(kvref_cpu_kv_store(&c) == KVREF_SUCCESS, "case %d cpu", case_id);
          const kvref_status st = kvref_kv_store(&a, nullptr);
          CHECK(st == KVREF_SUCCESS, "case %d: %s", case_id, kvref_status_string(st));
          CUDA_OK(cudaDeviceSynchronize());
          const std::vector<uint8_t> gk = dkc.download(), gv = dvc.download();
          CHECK(gk == kc, "kv store case %d (src %d, fp8 %d, %s, H %d D %d bs %d) key cache differs",
                case_id, sd, fp8, layout ? "HND" : "NHD", s.heads, s.head_size, bs);
          CHECK(gv == vc, "kv store case %d value cache differs", case_id);
        }
      }
    }
  }
}

// One record store of random source rows into a randomly pre-filled cache at `slots`, on the
// GPU and through the CPU reference, compared byte for byte. Returns whether the plan took the
// bulk path.
bool record_case(std::mt19937_64& rng, const char* what, int case_id, int64_t R, int page_size,
                 int64_t page_bytes, int64_t num_pages, int64_t src_stride,
                 const std::vector<int64_t>& slots) {
  const int64_t T = static_cast<int64_t>(slots.size());
  std::vector<uint8_t> src = random_bytes(rng, static_cast<size_t>(T * src_stride));
  std::vector<uint8_t> cache = random_bytes(rng, static_cast<size_t>(num_pages * page_bytes));
  DevBuf<uint8_t> dsrc(src), dcache(cache);
  DevBuf<int64_t> ds(slots);
  kvref_record_store_args a;
  kvref_record_store_args_init(&a);
  a.src_stride = src_stride;
  a.record_bytes = R;
  a.num_pages = num_pages;
  a.page_size = page_size;
  a.page_bytes = page_bytes;
  a.num_tokens = T;
  kvref_record_store_args c = a;
  c.src = src.data();
  c.cache = cache.data();
  c.slot_mapping = slots.data();
  a.src = dsrc.p;
  a.cache = dcache.p;
  a.slot_mapping = ds.p;
  CHECK(kvref_cpu_record_store(&c) == KVREF_SUCCESS, "%s case %d cpu", what, case_id);
  const bool bulk = takes_bulk_path(a);
  const kvref_status st = kvref_record_store(&a, nullptr);
  CHECK(st == KVREF_SUCCESS, "%s case %d: %s", what, case_id, kvref_status_string(st));
  CUDA_OK(cudaDeviceSynchronize());
  CHECK(dcache.download() == cache,
        "%s case %d (R %lld, page bytes %lld, stride %lld, T %lld) differs", what, case_id,
        (long long)R, (long long)page_bytes, (long long)src_stride, (long long)T);
  return bulk;
}

void test_record_store_random(std::mt19937_64& rng) {
  const int64_t records[] = {656, 1152, 132, 7, 64};
  const int64_t extras[] = {0, 256, 3};
  int case_id = 0, bulk_cases = 0;
  for (int64_t R : records) {
    for (int64_t extra : extras) {
      ++case_id;
      const int page_size = (case_id % 2) ? 64 : 1;
      const int64_t page_bytes = page_size * R + extra;
      const int64_t T = (case_id % 3 == 0) ? 2048 + static_cast<int64_t>(rng() % 3000)
                                           : 1 + static_cast<int64_t>(rng() % 400);
      const int64_t num_pages = (T + page_size - 1) / page_size + 2;
      const int64_t src_stride = R + (case_id % 3 == 0 ? 16 : 0);
      std::vector<int64_t> all(static_cast<size_t>(num_pages * page_size));
      std::iota(all.begin(), all.end(), 0);
      std::shuffle(all.begin(), all.end(), rng);
      std::vector<int64_t> slots(all.begin(), all.begin() + T);
      for (auto& v : slots) {
        if (rng() % 15 == 0) v = -1;
      }
      bulk_cases += record_case(rng, "record store", case_id, R, page_size, page_bytes, num_pages,
                                src_stride, slots);
    }
  }
  printf("  record store random: %d of %d cases on the bulk path\n", bulk_cases, case_id);
}

// Prefill-sized record stores of 16-byte aligned records (the bulk path on sm_90+; elsewhere
// scatter_copy_kernel), against the CPU reference byte for byte: slots in runs of consecutive
// slots starting mid-page, the pages in a shuffled order or back to back (so that runs cross
// page boundaries inside a chunk: one store where pages have no gap, two where they have),
// slot -1 tokens inside chunks, on chunk boundaries, first and last, slots past the cache
// (skipped), a last chunk shorter than the others, and source rows back to back (one bulk load
// per chunk) or apart (one per token).
void test_record_store_bulk(std::mt19937_64& rng) {
  struct Shape {
    int64_t R, extra;
  };
  const Shape shapes[] = {{1152, 64}, {656, 0}, {64, 0}, {2048, 16}};
  // Chunk boundaries of both chunk sizes the plan takes (8 tokens for records of a KiB or
  // more, 16 below).
  const int64_t sizes[] = {kvref::kBulkRecordTokens, kvref::kBulkRecordTokens + 13,
                           2 * kvref::kBulkRecordTokens + 37};
  int case_id = 0, bulk_cases = 0;
  for (const Shape& sh : shapes) {
    for (const int64_t stride_extra : {INT64_C(0), INT64_C(48)}) {
      for (const int64_t T : sizes) {
        ++case_id;
        const int page_size = 64;
        const int64_t R = sh.R;
        const int64_t page_bytes = page_size * R + sh.extra;
        const int64_t num_pages = (T + page_size - 1) / page_size + 3;
        const int64_t num_slots = num_pages * page_size;
        const int64_t src_stride = R + stride_extra;
        std::vector<int64_t> order(static_cast<size_t>(num_pages));
        std::iota(order.begin(), order.end(), 0);
        if (case_id % 2 == 1) std::shuffle(order.begin(), order.end(), rng);
        const int64_t start = static_cast<int64_t>(rng() % page_size);  // runs start mid-page
        std::vector<int64_t> slots(static_cast<size_t>(T));
        for (int64_t t = 0; t < T; ++t) {
          const int64_t u = t + start;
          slots[t] = order[u / page_size] * page_size + u % page_size;
          if (rng() % 23 == 0) slots[t] = -1;
          else if (rng() % 97 == 0) slots[t] = num_slots + static_cast<int64_t>(rng() % 1000);
        }
        for (const int64_t t : {INT64_C(0), INT64_C(7), INT64_C(8), INT64_C(9), INT64_C(15), INT64_C(16),
                                INT64_C(17), INT64_C(47), INT64_C(87), T - 1})
          slots[t] = -1;
        bulk_cases += record_case(rng, "bulk record store", case_id, R, page_size, page_bytes,
                                  num_pages, src_stride, slots);
      }
    }
  }
  printf("  record store bulk: %d of %d cases on the bulk path\n", bulk_cases, case_id);
  if (g_bulk_smem > 0) CHECK(bulk_cases == case_id, "bulk path not taken (%d of %d cases)", bulk_cases, case_id);
}

// ------------------------------------------------------------------------------------------------
// Large caches: > 2^31 and > 2^32 elements, slots on both sides of the int32 crossing.
__global__ void count_not_equal(const uint4* p, int64_t n16, uint32_t fill, unsigned long long* out) {
  unsigned long long local = 0;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n16;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const uint4 v = p[i];
    const uint32_t w[4] = {v.x, v.y, v.z, v.w};
    for (int k = 0; k < 4; ++k)
      for (int b = 0; b < 4; ++b) local += ((w[k] >> (8 * b)) & 0xffu) != (fill & 0xffu);
  }
  atomicAdd(out, local);
}

const uint8_t kFill = 0x5a;

uint64_t count_changed(const uint8_t* dev, int64_t bytes) {
  // bytes is padded to a multiple of 16 by the allocation
  unsigned long long* d = nullptr;
  CUDA_OK(cudaMalloc(&d, sizeof(*d)));
  CUDA_OK(cudaMemset(d, 0, sizeof(*d)));
  count_not_equal<<<132 * 8, 256>>>(reinterpret_cast<const uint4*>(dev), (bytes + 15) / 16,
                                    0x5a5a5a5au, d);
  CUDA_OK(cudaGetLastError());
  unsigned long long h = 0;
  CUDA_OK(cudaMemcpy(&h, d, sizeof(h), cudaMemcpyDeviceToHost));
  cudaFree(d);
  return h;
}

// Slots for a large test: the last slots, slots whose first element sits just before / after the
// 2^31 and 2^32 element crossings, and random ones.
std::vector<int64_t> crossing_slots(std::mt19937_64& rng, int64_t num_slots, int64_t elems_per_slot_row,
                                    int count) {
  std::vector<int64_t> s;
  for (int64_t k = 1; k <= 4; ++k) s.push_back(num_slots - k);
  for (int64_t cross : {INT64_C(1) << 31, INT64_C(1) << 32}) {
    const int64_t c = cross / elems_per_slot_row;
    for (int64_t d = -2; d <= 2; ++d) {
      if (c + d >= 0 && c + d < num_slots) s.push_back(c + d);
    }
  }
  while (static_cast<int>(s.size()) < count) s.push_back(static_cast<int64_t>(rng() % num_slots));
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  std::shuffle(s.begin(), s.end(), rng);
  s.push_back(-1);  // a pad token
  return s;
}

struct LargeCase {
  const char* name;
  kvref_dtype src, cache;
  kvref_layout layout;
  int heads, head_size, block_size;
  int64_t target_elems;  // cache elements, 2^31 +- k or 2^32 +- k
};

void test_large_kv(std::mt19937_64& rng, uint8_t* kcache, uint8_t* vcache, int64_t capacity) {
  const int64_t k31 = INT64_C(1) << 31, k32 = INT64_C(1) << 32;
  const LargeCase cases[] = {
      {"f16 NHD 2^31-16", KVREF_DTYPE_F16, KVREF_DTYPE_F16, KVREF_LAYOUT_NHD, 1, 16, 1, k31 - 16},
      {"f16 NHD 2^31+16", KVREF_DTYPE_F16, KVREF_DTYPE_F16, KVREF_LAYOUT_NHD, 1, 16, 1, k31 + 16},
      {"bf16 NHD 2^32-16", KVREF_DTYPE_BF16, KVREF_DTYPE_BF16, KVREF_LAYOUT_NHD, 1, 16, 1, k32 - 16},
      {"bf16 NHD 2^32+16", KVREF_DTYPE_BF16, KVREF_DTYPE_BF16, KVREF_LAYOUT_NHD, 1, 16, 1, k32 + 16},
      {"bf16 HND 2^32+2048", KVREF_DTYPE_BF16, KVREF_DTYPE_BF16, KVREF_LAYOUT_HND, 4, 32, 16, k32 + 2048},
      {"f32 NHD 2^31+128 (8 GiB+)", KVREF_DTYPE_F32, KVREF_DTYPE_F32, KVREF_LAYOUT_NHD, 8, 128, 16,
       k31 + 16384},
      {"f16->fp8 NHD 2^32+64", KVREF_DTYPE_F16, KVREF_DTYPE_FP8_E4M3, KVREF_LAYOUT_NHD, 2, 32, 1, k32 + 64},
      {"bf16->fp8 HND 2^32-4096", KVREF_DTYPE_BF16, KVREF_DTYPE_FP8_E4M3, KVREF_LAYOUT_HND, 8, 64, 8,
       k32 - 4096},
  };
  for (const LargeCase& lc : cases) {
    const int es = kvref_dtype_size(lc.src), ce = kvref_dtype_size(lc.cache);
    const int64_t page_elems = static_cast<int64_t>(lc.block_size) * lc.heads * lc.head_size;
    const int64_t num_blocks = lc.target_elems / page_elems;
    const int64_t cache_elems = num_blocks * page_elems;
    const int64_t cache_bytes = cache_elems * ce;
    if (cache_bytes > capacity) {
      CHECK(false, "large case %s needs %lld bytes, have %lld", lc.name, (long long)cache_bytes,
            (long long)capacity);
      continue;
    }
    CUDA_OK(cudaMemset(kcache, kFill, static_cast<size_t>(capacity)));
    CUDA_OK(cudaMemset(vcache, kFill, static_cast<size_t>(capacity)));
    const int64_t num_slots = num_blocks * lc.block_size;
    // elements per slot row in the "first element of the slot" sense (NHD): H*D
    const std::vector<int64_t> slots =
        crossing_slots(rng, num_slots, static_cast<int64_t>(lc.heads) * lc.head_size, 48);
    const int64_t T = static_cast<int64_t>(slots.size());
    const int64_t row = static_cast<int64_t>(lc.heads) * lc.head_size;
    std::vector<uint8_t> key = random_bytes(rng, static_cast<size_t>(T * row * es));
    std::vector<uint8_t> value = random_bytes(rng, key.size());
    if (lc.src == KVREF_DTYPE_F16 || lc.src == KVREF_DTYPE_BF16) {
      // keep values finite and moderate so fp8 codes vary
      for (size_t i = 1; i < key.size(); i += 2) {
        key[i] = static_cast<uint8_t>(0x38 + (key[i] & 0x7) + (key[i] & 0x80));
        value[i] = static_cast<uint8_t>(0x38 + (value[i] & 0x7) + (value[i] & 0x80));
      }
    }
    DevBuf<uint8_t> dk(key), dv(value);
    DevBuf<int64_t> ds(slots);
    const float sc[2] = {0.5f, 2.0f};
    DevBuf<float> dsc(std::vector<float>(sc, sc + 2));
    kvref_kv_store_args a;
    kvref_kv_store_args_init(&a);
    a.key = dk.p;
    a.value = dv.p;
    a.key_stride_token = a.value_stride_token = row;
    a.key_stride_head = a.value_stride_head = lc.head_size;
    a.key_cache = kcache;
    a.value_cache = vcache;
    a.layout = lc.layout;
    a.num_blocks = num_blocks;
    a.block_size = lc.block_size;
    a.num_heads = lc.heads;
    a.head_size = lc.head_size;
    a.slot_mapping = ds.p;
    a.num_tokens = T;
    a.src_dtype = lc.src;
    a.cache_dtype = lc.cache;
    a.k_scale = dsc.p;
    a.v_scale = dsc.p + 1;
    const kvref_status st = kvref_kv_store(&a, nullptr);
    CHECK(st == KVREF_SUCCESS, "%s: %s", lc.name, kvref_status_string(st));
    CUDA_OK(cudaDeviceSynchronize());
    // Expected pages, from the CPU reference run on a one-page cache per touched page (with
    // every token that lands in that page), compared with the page read back from the GPU.
    uint64_t expect_changed_k = 0, expect_changed_v = 0;
    int64_t past_int32 = 0;
    std::vector<int64_t> pages;
    for (int64_t t = 0; t < T; ++t) {
      if (slots[t] >= 0) pages.push_back(slots[t] / lc.block_size);
    }
    std::sort(pages.begin(), pages.end());
    pages.erase(std::unique(pages.begin(), pages.end()), pages.end());
    for (int64_t page : pages) {
      std::vector<int64_t> local(static_cast<size_t>(T), -1);
      for (int64_t t = 0; t < T; ++t) {
        if (slots[t] >= 0 && slots[t] / lc.block_size == page) local[t] = slots[t] % lc.block_size;
      }
      std::vector<uint8_t> pk(static_cast<size_t>(page_elems * ce), kFill), pv(pk);
      kvref_kv_store_args c = a;
      c.key = key.data();
      c.value = value.data();
      c.key_cache = pk.data();
      c.value_cache = pv.data();
      c.num_blocks = 1;
      c.slot_mapping = local.data();
      c.k_scale = &sc[0];
      c.v_scale = &sc[1];
      CHECK(kvref_cpu_kv_store(&c) == KVREF_SUCCESS, "%s cpu", lc.name);
      std::vector<uint8_t> gk(pk.size()), gv(pv.size());
      const int64_t off = page * page_elems * ce;
      if (off >= (INT64_C(1) << 31)) ++past_int32;
      CUDA_OK(cudaMemcpy(gk.data(), kcache + off, gk.size(), cudaMemcpyDeviceToHost));
      CUDA_OK(cudaMemcpy(gv.data(), vcache + off, gv.size(), cudaMemcpyDeviceToHost));
      CHECK(gk == pk, "%s: page %lld key page differs", lc.name, (long long)page);
      CHECK(gv == pv, "%s: page %lld value page differs", lc.name, (long long)page);
      for (size_t i = 0; i < pk.size(); ++i) {
        expect_changed_k += pk[i] != kFill;
        expect_changed_v += pv[i] != kFill;
      }
    }
    CHECK(past_int32 > 0, "%s: no slot past the int32 crossing", lc.name);
    if (!g_memcheck) {
      // No stray writes anywhere in the whole cache (a wrapped offset lands inside it).
      CHECK(count_changed(kcache, capacity) == expect_changed_k, "%s: stray key-cache writes", lc.name);
      CHECK(count_changed(vcache, capacity) == expect_changed_v, "%s: stray value-cache writes", lc.name);
    }
    printf("  large kv store %-28s cache %lld elements (%.2f GiB), %lld tokens: done\n", lc.name,
           (long long)cache_elems, cache_bytes / 1073741824.0, (long long)T);
  }
}

// Slots for a prefill-sized large record test: runs of consecutive slots across the 2^31 and
// 2^32 byte crossings and at the end of the cache, random runs elsewhere, every 37th token a
// pad; `tokens` in all, no slot twice.
std::vector<int64_t> crossing_runs(std::mt19937_64& rng, int64_t num_slots, int64_t page_size, int64_t page_bytes,
                                   int64_t tokens) {
  std::vector<int64_t> s;
  std::vector<bool> used(static_cast<size_t>(num_slots), false);
  auto run = [&](int64_t first, int64_t len) {
    for (int64_t i = std::max<int64_t>(first, 0); i < first + len && i < num_slots; ++i) {
      if (!used[i] && static_cast<int64_t>(s.size()) < tokens) {
        used[i] = true;
        s.push_back(i);
      }
    }
  };
  for (const int64_t cross : {INT64_C(1) << 31, INT64_C(1) << 32}) {
    const int64_t page = cross / page_bytes;
    if (page < num_slots / page_size) run(page * page_size - page_size / 2, 2 * page_size);
  }
  run(num_slots - 80, 80);
  while (static_cast<int64_t>(s.size()) < tokens) {
    run(static_cast<int64_t>(rng() % static_cast<uint64_t>(num_slots)), 1 + static_cast<int64_t>(rng() % 64));
  }
  for (size_t t = 5; t < s.size(); t += 37) s[t] = -1;
  return s;
}

void test_large_record(std::mt19937_64& rng, uint8_t* cache, int64_t capacity) {
  const int64_t R = 656, page_size = 64, page_bytes = page_size * R + 128;
  for (int64_t target : {(INT64_C(1) << 31) + 4096, (INT64_C(1) << 32) + 65536}) {
   // A decode-sized batch (scatter_copy_kernel) and a prefill-sized one (the bulk path on sm_90+).
   for (const bool prefill : {false, true}) {
    const int64_t num_pages = target / page_bytes + 1;
    const int64_t bytes = num_pages * page_bytes;
    if (bytes > capacity) {
      CHECK(false, "record capacity");
      continue;
    }
    CUDA_OK(cudaMemset(cache, kFill, static_cast<size_t>(capacity)));
    const std::vector<int64_t> slots =
        prefill ? crossing_runs(rng, num_pages * page_size, page_size, page_bytes, kvref::kBulkRecordTokens + 5)
                : crossing_slots(rng, num_pages * page_size, R, 40);
    const int64_t T = static_cast<int64_t>(slots.size());
    std::vector<uint8_t> src = random_bytes(rng, static_cast<size_t>(T * R));
    for (auto& b : src)
      if (b == kFill) b = 0x11;
    DevBuf<uint8_t> dsrc(src);
    DevBuf<int64_t> ds(slots);
    kvref_record_store_args a;
    kvref_record_store_args_init(&a);
    a.src = dsrc.p;
    a.src_stride = R;
    a.record_bytes = R;
    a.cache = cache;
    a.num_pages = num_pages;
    a.page_size = static_cast<int32_t>(page_size);
    a.page_bytes = page_bytes;
    a.slot_mapping = ds.p;
    a.num_tokens = T;
    const bool bulk = takes_bulk_path(a);
    if (prefill && g_bulk_smem > 0) CHECK(bulk, "large record: bulk path not taken");
    CHECK(kvref_record_store(&a, nullptr) == KVREF_SUCCESS, "large record");
    CUDA_OK(cudaDeviceSynchronize());
    uint64_t written = 0;
    int64_t past_int32 = 0;
    std::vector<uint8_t> got(static_cast<size_t>(R));
    for (int64_t t = 0; t < T; ++t) {
      if (slots[t] < 0) continue;
      written += R;
      const int64_t off = (slots[t] / page_size) * page_bytes + (slots[t] % page_size) * R;
      past_int32 += off >= (INT64_C(1) << 31);
      CUDA_OK(cudaMemcpy(got.data(), cache + off, R, cudaMemcpyDeviceToHost));
      CHECK(memcmp(got.data(), src.data() + t * R, R) == 0, "large record slot %lld", (long long)slots[t]);
    }
    CHECK(past_int32 > 0, "large record: no slot past the int32 crossing");
    if (!g_memcheck) CHECK(count_changed(cache, capacity) == written, "large record: stray writes");
    printf("  large record store %.2f GiB cache (%lld bytes), %lld tokens%s: done\n", bytes / 1073741824.0,
           (long long)bytes, (long long)T, bulk ? " (bulk path)" : "");
   }
  }
}

void test_large_slot_mapping() {
  // Block ids near INT32_MAX with block size 256: slots up to ~2^39.
  std::vector<int32_t> table = {INT32_MAX - 1, 8388607, 8388608, 16777216};
  std::vector<int32_t> idx = {0}, qsl = {0, 4};
  std::vector<int64_t> pos = {3, 256, 512 + 255, 768};
  DevBuf<int32_t> dt(table), di(idx), dq(qsl);
  DevBuf<int64_t> dp(pos), out(4);
  kvref_slot_mapping_args a;
  kvref_slot_mapping_args_init(&a);
  a.num_groups = 1;
  a.groups[0] = {dt.p, 4, 4, 256, out.p};
  a.num_reqs = 1;
  a.num_rows = 1;
  a.idx_mapping = di.p;
  a.query_start_loc = dq.p;
  a.positions = dp.p;
  a.num_tokens = a.num_tokens_padded = 4;
  CHECK(kvref_slot_mapping(&a, nullptr) == KVREF_SUCCESS, "large slot mapping");
  CUDA_OK(cudaDeviceSynchronize());
  const std::vector<int64_t> got = out.download();
  CHECK(got[0] == static_cast<int64_t>(INT32_MAX - 1) * 256 + 3, "large slot 0 %lld", (long long)got[0]);
  CHECK(got[1] == INT64_C(8388607) * 256, "large slot 1 %lld", (long long)got[1]);
  CHECK(got[2] == INT64_C(8388608) * 256 + 255, "large slot 2 (2^31 + 255) %lld", (long long)got[2]);
  CHECK(got[3] == INT64_C(16777216) * 256, "large slot 3 (2^32) %lld", (long long)got[3]);
}

void test_errors_do_not_launch() {
  kvref_kv_store_args a;
  kvref_kv_store_args_init(&a);
  CHECK(kvref_kv_store(&a, nullptr) == KVREF_ERROR_NULL_POINTER, "null kv store");
  kvref_slot_mapping_args s;
  kvref_slot_mapping_args_init(&s);
  CHECK(kvref_slot_mapping(&s, nullptr) == KVREF_ERROR_INVALID_VALUE, "0 groups");
  CHECK(cudaDeviceSynchronize() == cudaSuccess, "device still healthy");
}

// Every bf16 and every f16 bit pattern (and 2^20 random f32 patterns) through the fp8 store,
// with scales that exercise both halves of the device quantiser (the multiply-by-reciprocal
// path and its exact-division fallback near e4m3 rounding boundaries, and scales whose
// reciprocal is not a normal float), compared byte for byte with the CPU reference
// (e4m3(x / scale), IEEE division).
void test_fp8_exhaustive(std::mt19937_64& rng) {
  const float scales[] = {1.0f, 0.37f, 1.3f, 3.0e-3f, 7.1e5f, 0.0625f, 1.0e-39f /* subnormal */,
                          3.0e38f, 0.99999994f, 448.0f / 0.73f};
  const kvref_dtype dts[] = {KVREF_DTYPE_BF16, KVREF_DTYPE_F16, KVREF_DTYPE_F32};
  // Rows of 2,048, 1,024 and 128 elements: 32 / 64 / 512 tokens (bf16, f16) and 512 / 1,024 /
  // 8,192 (f32), so that the fp8 decode kernels with one unit per thread (K and V by
  // blockIdx.y) and with a pair of units per thread (K and V by CTA half), and the prefill
  // kernel, all run.
  for (const int D : {2048, 1024, 128}) {
   for (kvref_dtype sd : dts) {
    const int H = 1, bs = 16;
    const int es = kvref_dtype_size(sd);
    const int64_t n = sd == KVREF_DTYPE_F32 ? (INT64_C(1) << 20) : 65536;
    const int64_t T = n / D;
    std::vector<uint8_t> src(static_cast<size_t>(n * es));
    if (sd == KVREF_DTYPE_F32) {
      src = random_bytes(rng, src.size());
    } else {
      for (int64_t i = 0; i < n; ++i) {
        const uint16_t b = static_cast<uint16_t>(i);
        memcpy(&src[static_cast<size_t>(i) * 2], &b, 2);
      }
    }
    std::vector<int64_t> slots(static_cast<size_t>(T));
    std::iota(slots.begin(), slots.end(), 0);
    std::shuffle(slots.begin(), slots.end(), rng);
    const int64_t nb = (T + bs - 1) / bs;
    DevBuf<uint8_t> dsrc(src), dkc(static_cast<size_t>(nb * bs * D)), dvc(static_cast<size_t>(nb * bs * D));
    DevBuf<int64_t> ds(slots);
    for (float scale : scales) {
      std::vector<uint8_t> kc(static_cast<size_t>(nb * bs * D), 0x55), vc = kc;
      dkc.upload(kc);
      dvc.upload(vc);
      const float sc[2] = {scale, scale};
      DevBuf<float> dsc(std::vector<float>(sc, sc + 2));
      kvref_kv_store_args a;
      kvref_kv_store_args_init(&a);
      a.key_stride_token = a.value_stride_token = H * D;
      a.key_stride_head = a.value_stride_head = D;
      a.num_blocks = nb;
      a.block_size = bs;
      a.num_heads = H;
      a.head_size = D;
      a.num_tokens = T;
      a.src_dtype = sd;
      a.cache_dtype = KVREF_DTYPE_FP8_E4M3;
      kvref_kv_store_args c = a;
      c.key = c.value = src.data();
      c.key_cache = kc.data();
      c.value_cache = vc.data();
      c.slot_mapping = slots.data();
      c.k_scale = &sc[0];
      c.v_scale = &sc[1];
      a.key = a.value = dsrc.p;
      a.key_cache = dkc.p;
      a.value_cache = dvc.p;
      a.slot_mapping = ds.p;
      a.k_scale = dsc.p;
      a.v_scale = dsc.p + 1;
      CHECK(kvref_cpu_kv_store(&c) == KVREF_SUCCESS, "cpu");
      CHECK(kvref_kv_store(&a, nullptr) == KVREF_SUCCESS, "launch");
      CUDA_OK(cudaDeviceSynchronize());
      const std::vector<uint8_t> gk = dkc.download();
      size_t diff = 0, first = 0;
      for (size_t i = 0; i < gk.size(); ++i) {
        if (gk[i] != kc[i]) {
          if (diff++ == 0) first = i;
        }
      }
      CHECK(diff == 0, "fp8 src %d D %d scale %g: %zu bytes differ (first at %zu: gpu 0x%02x cpu 0x%02x)", sd, D,
            static_cast<double>(scale), diff, first, diff ? gk[first] : 0, diff ? kc[first] : 0);
      CHECK(dvc.download() == vc, "fp8 src %d D %d scale %g: value cache differs", sd, D, static_cast<double>(scale));
    }
   }
  }
}

// ------------------------------------------------------------------------------------------------
// Programmatic dependent launch.  On sm_90+ kvref launches its kernels so that they may start
// while the kernel before them in the stream drains, and each kernel waits for that kernel
// before its first memory access (dev::wait_prerequisite_grids).  late_writer lets its
// dependents launch at once, then waits ~200 us and only then writes the inputs of the kvref
// call launched right after it on the same stream: a kvref kernel that read before waiting
// would see the stale inputs (slots -1, sources zero) and store nothing.  Every case compares
// the result with the same call made on inputs already in place.  The probe shows that the race
// is real on this device: a kernel launched the same way that does not wait reads the flag
// late_writer has not written yet.
struct LateCopy {
  void* dst;
  const void* src;
  size_t bytes;
};
constexpr int kLateCopies = 3;
struct LateCopies {
  LateCopy c[kLateCopies];
};
constexpr long long kLateNs = 200000;

__global__ void late_writer(LateCopies copies, long long ns) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
  if (threadIdx.x == 0) {
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (static_cast<long long>(t - t0) < ns);
  }
  __syncthreads();
  for (int i = 0; i < kLateCopies; ++i) {
    const LateCopy& c = copies.c[i];
    for (size_t b = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; b < c.bytes;
         b += static_cast<size_t>(gridDim.x) * blockDim.x) {
      static_cast<uint8_t*>(c.dst)[b] = static_cast<const uint8_t*>(c.src)[b];
    }
  }
}

__global__ void pdl_probe(const int* flag, int* seen) { *seen = *reinterpret_cast<const volatile int*>(flag); }

// Launches kernel(args...) with the programmatic stream serialization attribute, as kvref
// launches its kernels (late_writer too: then it precedes the kvref call the way one kvref
// kernel precedes the next).
template <typename... KArgs, typename... Args>
void launch_with_pdl(void (*kernel)(KArgs...), dim3 grid, dim3 block, cudaStream_t s, Args... args) {
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.stream = s;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  CUDA_OK(cudaLaunchKernelEx(&cfg, kernel, args...));
}

// Whether a kernel launched with the attribute after late_writer, without waiting, runs before
// late_writer's writes (1 if it does; that is the race the kvref kernels must close).
bool pdl_race_observed(cudaStream_t s) {
  DevBuf<int> flag(1), seen(1), one(std::vector<int>{1});
  CUDA_OK(cudaMemset(flag.p, 0, sizeof(int)));
  CUDA_OK(cudaMemset(seen.p, 0xff, sizeof(int)));
  LateCopies lc = {};
  lc.c[0] = {flag.p, one.p, sizeof(int)};
  // Once without delay first: the first launch of a kernel loads its module (CUDA's lazy
  // loading), and that serialised the two launches in the first version of this probe.
  launch_with_pdl(late_writer, dim3(1), dim3(32), s, LateCopies{}, 0LL);
  launch_with_pdl(pdl_probe, dim3(1), dim3(1), s, static_cast<const int*>(flag.p), seen.p);
  CUDA_OK(cudaDeviceSynchronize());
  CUDA_OK(cudaMemset(seen.p, 0xff, sizeof(int)));
  CUDA_OK(cudaDeviceSynchronize());
  launch_with_pdl(late_writer, dim3(1), dim3(32), s, lc, kLateNs);
  launch_with_pdl(pdl_probe, dim3(1), dim3(1), s, static_cast<const int*>(flag.p), seen.p);
  CUDA_OK(cudaStreamSynchronize(s));
  return seen.download()[0] == 0;
}

// Runs `call(inputs_ready)` twice: once on the real inputs (the reference), once on stale copies
// (slots -1, everything else zero) that late_writer overwrites with the real ones only after a
// delay, the call launched right after it on stream s.  `inputs` lists (stale copy, real) pairs
// (the first one stale as first_fill bytes);
// `outputs` the buffers the call writes, compared byte for byte between the two runs.
template <typename Call>
void pdl_case(const char* name, cudaStream_t s, std::vector<LateCopy> inputs, std::vector<LateCopy> outputs,
              Call call, int first_fill = 0xff) {
  // Reference: the real inputs in place.  `outputs` holds (buffer, saved initial contents).
  for (const LateCopy& in : inputs) CUDA_OK(cudaMemcpy(in.dst, in.src, in.bytes, cudaMemcpyDeviceToDevice));
  CUDA_OK(cudaDeviceSynchronize());
  CHECK(call(s) == KVREF_SUCCESS, "%s: reference call", name);
  CUDA_OK(cudaStreamSynchronize(s));
  std::vector<std::vector<uint8_t>> ref;
  for (const LateCopy& out : outputs) {
    std::vector<uint8_t> h(out.bytes);
    CUDA_OK(cudaMemcpy(h.data(), out.dst, out.bytes, cudaMemcpyDeviceToHost));
    ref.push_back(h);
    CUDA_OK(cudaMemcpy(out.dst, out.src, out.bytes, cudaMemcpyDeviceToDevice));  // initial contents
  }
  // Stale inputs, then late_writer and the call back to back.
  for (size_t i = 0; i < inputs.size(); ++i) CUDA_OK(cudaMemset(inputs[i].dst, i == 0 ? first_fill : 0, inputs[i].bytes));
  CUDA_OK(cudaDeviceSynchronize());
  LateCopies lc = {};
  for (size_t i = 0; i < inputs.size() && i < kLateCopies; ++i) lc.c[i] = inputs[i];
  launch_with_pdl(late_writer, dim3(8), dim3(256), s, lc, kLateNs);
  CHECK(call(s) == KVREF_SUCCESS, "%s: call after late_writer", name);
  CUDA_OK(cudaStreamSynchronize(s));
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::vector<uint8_t> h(outputs[i].bytes);
    CUDA_OK(cudaMemcpy(h.data(), outputs[i].dst, outputs[i].bytes, cudaMemcpyDeviceToHost));
    size_t diff = 0;
    for (size_t b = 0; b < h.size(); ++b) diff += h[b] != ref[i][b];
    CHECK(diff == 0, "%s: output %zu: %zu bytes differ from the call on inputs in place", name, i, diff);
  }
}

void test_pdl_ordering(std::mt19937_64& rng) {
  cudaStream_t s;
  CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const bool race = pdl_race_observed(s);
  printf("  a kernel launched with programmatic serialization that does not wait %s\n",
         race ? "runs before late_writer's writes: the race is real here" : "did not overlap (no early launch here)");
  // (compute-sanitizer serialises launches: under --memcheck the cases still run, the probe
  // is not required to see the race.)
  if (g_bulk_smem > 0 && !g_memcheck) {
    CHECK(race, "sm_90+ device, but the probe saw no early launch: these cases cannot fail");
  }
  // K/V stores: the decode kernels (K/V by CTA y, CTA halves, fp8 pairs), the general kernel
  // (HND rows) and the prefill-sized kernels (copy and fp8).
  struct Kv {
    int64_t T;
    kvref_layout layout;
    kvref_dtype cache;
  };
  const Kv kvs[] = {{16, KVREF_LAYOUT_NHD, KVREF_DTYPE_BF16},    {300, KVREF_LAYOUT_NHD, KVREF_DTYPE_BF16},
                    {100, KVREF_LAYOUT_HND, KVREF_DTYPE_BF16},   {4096, KVREF_LAYOUT_NHD, KVREF_DTYPE_BF16},
                    {64, KVREF_LAYOUT_NHD, KVREF_DTYPE_FP8_E4M3}, {4096, KVREF_LAYOUT_HND, KVREF_DTYPE_FP8_E4M3}};
  const int H = 8, D = 128, bs = 16;
  for (const Kv& c : kvs) {
    const int64_t num_blocks = (c.T + bs - 1) / bs * 2 + 1;
    const size_t src_bytes = static_cast<size_t>(c.T * H * D * 2);
    const size_t cache_bytes = static_cast<size_t>(num_blocks * bs * H * D * kvref_dtype_size(c.cache));
    std::vector<int64_t> all(static_cast<size_t>(num_blocks * bs));
    std::iota(all.begin(), all.end(), 0);
    std::shuffle(all.begin(), all.end(), rng);
    std::vector<int64_t> slots(all.begin(), all.begin() + c.T);
    std::vector<uint8_t> key = random_bytes(rng, src_bytes), value = random_bytes(rng, src_bytes);
    for (size_t i = 1; i < key.size(); i += 2) {  // finite bf16 values for the fp8 cases
      key[i] &= 0x3f;
      value[i] &= 0x3f;
    }
    const std::vector<uint8_t> init = random_bytes(rng, cache_bytes);
    DevBuf<int64_t> real_slots(slots), in_slots(slots.size());
    DevBuf<uint8_t> real_k(key), real_v(value), in_k(src_bytes), in_v(src_bytes);
    DevBuf<uint8_t> kc(init), vc(init), kc0(init), vc0(init);
    DevBuf<float> scale(std::vector<float>{0.37f, 1.3f});
    kvref_kv_store_args a;
    kvref_kv_store_args_init(&a);
    a.key = in_k.p;
    a.value = in_v.p;
    a.key_stride_token = a.value_stride_token = H * D;
    a.key_stride_head = a.value_stride_head = D;
    a.key_cache = kc.p;
    a.value_cache = vc.p;
    a.layout = c.layout;
    a.num_blocks = num_blocks;
    a.block_size = bs;
    a.num_heads = H;
    a.head_size = D;
    a.slot_mapping = in_slots.p;
    a.num_tokens = c.T;
    a.src_dtype = KVREF_DTYPE_BF16;
    a.cache_dtype = c.cache;
    a.k_scale = scale.p;
    a.v_scale = scale.p + 1;
    char name[96];
    snprintf(name, sizeof name, "kv store %lld tokens %s%s", (long long)c.T, c.layout == KVREF_LAYOUT_NHD ? "NHD" : "HND",
             c.cache == KVREF_DTYPE_FP8_E4M3 ? " fp8" : "");
    pdl_case(name, s,
             {{in_slots.p, real_slots.p, slots.size() * 8}, {in_k.p, real_k.p, src_bytes}, {in_v.p, real_v.p, src_bytes}},
             {{kc.p, kc0.p, cache_bytes}, {vc.p, vc0.p, cache_bytes}},
             [&](cudaStream_t st) { return kvref_kv_store(&a, st); });
  }
  // Record stores: scatter_copy_kernel (41 tokens) and the bulk kernel on sm_90+ (2,053).
  for (int64_t T : {int64_t(41), int64_t(2053)}) {
    const int64_t R = 656, page_size = 64, num_pages = (T + page_size - 1) / page_size * 2 + 1;
    const size_t cache_bytes = static_cast<size_t>(num_pages * page_size * R);
    std::vector<int64_t> slots(static_cast<size_t>(T));
    std::iota(slots.begin(), slots.end(), page_size + 5);  // runs across pages
    const std::vector<uint8_t> src = random_bytes(rng, static_cast<size_t>(T * R));
    const std::vector<uint8_t> init = random_bytes(rng, cache_bytes);
    DevBuf<int64_t> real_slots(slots), in_slots(slots.size());
    DevBuf<uint8_t> real_src(src), in_src(src.size()), cache(init), cache0(init);
    kvref_record_store_args a;
    kvref_record_store_args_init(&a);
    a.src = in_src.p;
    a.src_stride = R;
    a.record_bytes = R;
    a.cache = cache.p;
    a.num_pages = num_pages;
    a.page_size = static_cast<int32_t>(page_size);
    a.page_bytes = page_size * R;
    a.slot_mapping = in_slots.p;
    a.num_tokens = T;
    char name[96];
    snprintf(name, sizeof name, "record store %lld tokens%s", (long long)T, takes_bulk_path(a) ? " (bulk path)" : "");
    pdl_case(name, s, {{in_slots.p, real_slots.p, slots.size() * 8}, {in_src.p, real_src.p, src.size()}},
             {{cache.p, cache0.p, cache_bytes}}, [&](cudaStream_t st) { return kvref_record_store(&a, st); });
  }
  // Slot mapping: the positions arrive late (stale: 0, the first slot of each row's first block).
  {
    const int rows = 64, width = 128, bs16 = 16;
    std::vector<int32_t> table(rows * width);
    std::iota(table.begin(), table.end(), 7);
    std::vector<int32_t> idx(rows), qsl(rows + 1);
    std::iota(idx.begin(), idx.end(), 0);
    std::shuffle(idx.begin(), idx.end(), rng);
    for (int r = 0; r <= rows; ++r) qsl[r] = r * 8;
    std::vector<int64_t> pos(rows * 8);
    for (size_t i = 0; i < pos.size(); ++i) pos[i] = static_cast<int64_t>(rng() % (width * bs16));
    DevBuf<int32_t> dt(table), di(idx), dq(qsl);
    DevBuf<int64_t> real_pos(pos), in_pos(pos.size());
    const std::vector<int64_t> init(pos.size() + 8, 12345);
    DevBuf<int64_t> out(init), out0(init);
    kvref_slot_mapping_args a;
    kvref_slot_mapping_args_init(&a);
    a.num_groups = 1;
    a.groups[0] = {dt.p, width, width, bs16, out.p};
    a.num_reqs = rows;
    a.num_rows = rows;
    a.idx_mapping = di.p;
    a.query_start_loc = dq.p;
    a.positions = in_pos.p;
    a.num_tokens = static_cast<int64_t>(pos.size());
    a.num_tokens_padded = a.num_tokens + 8;
    pdl_case("slot mapping", s, {{in_pos.p, real_pos.p, pos.size() * 8}}, {{out.p, out0.p, init.size() * 8}},
             [&](cudaStream_t st) { return kvref_slot_mapping(&a, st); }, 0);
  }
  CUDA_OK(cudaStreamDestroy(s));
}

}  // namespace

int main(int argc, char** argv) {
  bool large = true;
  uint64_t seed = 20261129;
  const char* only = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--memcheck")) g_memcheck = true;
    else if (!strcmp(argv[i], "--no-large")) large = false;
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], nullptr, 10);
    else if (!strcmp(argv[i], "--section") && i + 1 < argc) only = argv[++i];
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    printf("SKIP: no CUDA device (kvref_gpu_tests needs a GPU)\n");
    return 77;
  }
  cudaDeviceProp prop;
  CUDA_OK(cudaGetDeviceProperties(&prop, 0));
  read_bulk_smem_limit(prop);
  printf("kvref_gpu_tests on %s (backend %s), seed %llu%s; record store bulk path %s\n", prop.name,
         kvref_backend(), (unsigned long long)seed, g_memcheck ? ", memcheck mode" : "",
         g_bulk_smem > 0 ? "available" : "not available");
  std::mt19937_64 rng(seed);

  struct Section { const char* name; long before; };
  auto wanted = [&](const char* name) { return only == nullptr || strstr(name, only) != nullptr; };
  auto section = [&](const char* name, auto fn) {
    if (!wanted(name)) return;
    const long c0 = g_checks, f0 = g_failures;
    fn();
    printf("[%s] %-28s %ld checks, %ld failed\n", g_failures == f0 ? "PASS" : "FAIL", name,
           g_checks - c0, g_failures - f0);
    fflush(stdout);
  };
  section("errors", [&] { test_errors_do_not_launch(); });
  section("slot mapping random", [&] { test_slot_mapping_random(rng, g_memcheck ? 60 : 300); });
  section("slot mapping tail group", [&] { test_slot_mapping_tail_group(); });
  section("slot mapping 64-bit slots", [&] { test_large_slot_mapping(); });
  section("kv store random", [&] { test_kv_store_random(rng); });
  section("record store random", [&] { test_record_store_random(rng); });
  section("record store bulk", [&] { test_record_store_bulk(rng); });
  section("fp8 quantiser exhaustive", [&] { test_fp8_exhaustive(rng); });
  section("dependent launch ordering", [&] { test_pdl_ordering(rng); });
  if (large && (wanted("large kv store") || wanted("large record store"))) {
    const int64_t capacity = ((INT64_C(1) << 33) + (INT64_C(1) << 20));  // 8 GiB + 1 MiB each
    uint8_t* k = nullptr;
    uint8_t* v = nullptr;
    CUDA_OK(cudaMalloc(&k, static_cast<size_t>(capacity)));
    CUDA_OK(cudaMalloc(&v, static_cast<size_t>(capacity)));
    section("large kv store", [&] { test_large_kv(rng, k, v, capacity); });
    section("large record store", [&] { test_large_record(rng, k, capacity); });
    cudaFree(k);
    cudaFree(v);
  }
  printf("kvref_gpu_tests: %ld checks, %ld failed -> %s\n", g_checks, g_failures,
         g_failures ? "FAIL" : "PASS");
  return g_failures ? 1 : 0;
}
