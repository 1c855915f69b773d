// emulation_tests.cpp - the real kernels and entry points (src/kvref_launch.cu, compiled with
// KVREF_EMULATE so every launch runs its threads one after another on the CPU) against the CPU
// reference.  Runs in CI without a GPU; the GPU test (gpu_test.cu) repeats this on the device.
#define KVREF_EMULATE 1
#include "../src/kvref_launch.cu"  // kvref_slot_mapping, kvref_kv_store, kvref_record_store

#include <gtest/gtest.h>
#include <string.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "kvref/kvref_cpu.h"

namespace {

std::vector<uint8_t> random_bytes(std::mt19937_64& rng, size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(rng());
  return v;
}

TEST(Emulated, BackendName) { EXPECT_STREQ(kvref_backend(), "emulated"); }

TEST(Emulated, SlotMappingMatchesReference) {
  std::mt19937_64 rng(3);
  const int block_sizes[] = {1, 4, 16, 64};
  for (int trial = 0; trial < 120; ++trial) {
    kvref_slot_mapping_args a;
    kvref_slot_mapping_args_init(&a);
    a.cp_size = 1 << (trial % 3);
    a.cp_rank = static_cast<int32_t>(rng() % a.cp_size);
    a.num_groups = 1 + static_cast<int32_t>(rng() % 3);
    a.num_rows = 1 + static_cast<int32_t>(rng() % 8);
    a.num_reqs = 1 + static_cast<int32_t>(rng() % a.num_rows);
    std::vector<int> bs(a.num_groups), width(a.num_groups);
    std::vector<int64_t> stride(a.num_groups);
    for (int g = 0; g < a.num_groups; ++g) {
      bs[g] = block_sizes[rng() % 4];
      width[g] = 1 + static_cast<int>(rng() % 12);
      stride[g] = width[g] + static_cast<int64_t>(rng() % 3);
    }
    const int min_bs = *std::min_element(bs.begin(), bs.end());
    a.cp_interleave = (trial % 5 == 0) ? min_bs : 1;
    std::vector<int32_t> idx(a.num_rows);
    std::iota(idx.begin(), idx.end(), 0);
    std::shuffle(idx.begin(), idx.end(), rng);
    idx.resize(a.num_reqs);
    if (trial % 9 == 4) idx[0] = -2;
    std::vector<int32_t> qsl(a.num_reqs + 1, 0);
    std::vector<int64_t> pos;
    for (int b = 0; b < a.num_reqs; ++b) {
      const int len = static_cast<int>(rng() % 40);
      int64_t start = static_cast<int64_t>(rng() % (12 * 64 * 4 * 2));
      if (trial % 13 == 6) start += INT64_C(1) << 34;
      for (int i = 0; i < len; ++i) pos.push_back(start + i);
      qsl[b + 1] = qsl[b] + len;
    }
    a.num_tokens = static_cast<int64_t>(pos.size());
    a.num_tokens_padded = a.num_tokens + static_cast<int64_t>(rng() % 5);
    if (a.num_tokens_padded == 0) a.num_tokens_padded = 1;
    pos.push_back(0);
    std::vector<std::vector<int32_t>> tables(a.num_groups);
    std::vector<std::vector<int64_t>> want(a.num_groups), got(a.num_groups);
    kvref_slot_mapping_args c = a;
    for (int g = 0; g < a.num_groups; ++g) {
      tables[g].resize(static_cast<size_t>(a.num_rows * stride[g]));
      for (auto& v : tables[g]) v = (rng() % 40 == 0) ? -1 : static_cast<int32_t>(rng() % 0x7fffffff);
      want[g].assign(static_cast<size_t>(a.num_tokens_padded), 5);
      got[g].assign(static_cast<size_t>(a.num_tokens_padded), 6);
      a.groups[g] = {tables[g].data(), stride[g], width[g], bs[g], got[g].data()};
      c.groups[g] = {tables[g].data(), stride[g], width[g], bs[g], want[g].data()};
    }
    a.idx_mapping = c.idx_mapping = idx.data();
    a.query_start_loc = c.query_start_loc = qsl.data();
    a.positions = c.positions = pos.data();
    ASSERT_EQ(kvref_cpu_slot_mapping(&c), KVREF_SUCCESS);
    ASSERT_EQ(kvref_slot_mapping(&a, nullptr), KVREF_SUCCESS);
    for (int g = 0; g < a.num_groups; ++g) EXPECT_EQ(got[g], want[g]) << "trial " << trial << " group " << g;
  }
}

struct Shape {
  int heads, head_size, extra_token, extra_head, src_offset;
};

TEST(Emulated, KvStoreMatchesReference) {
  std::mt19937_64 rng(5);
  const kvref_dtype dts[] = {KVREF_DTYPE_F16, KVREF_DTYPE_BF16, KVREF_DTYPE_F32};
  const Shape shapes[] = {{4, 32, 0, 0, 0}, {3, 7, 0, 0, 0}, {2, 16, 24, 8, 0}, {2, 64, 0, 0, 1}, {1, 40, 0, 0, 0},
                          // rows over 1,024 units: a thread loops (more than one iteration)
                          {40, 128, 0, 0, 0}, {24, 128, 0, 128, 0}};
  int id = 0;
  for (kvref_dtype sd : dts)
    for (int fp8 = 0; fp8 < 2; ++fp8)
      for (int layout = 0; layout < 2; ++layout)
        for (const Shape& s : shapes) {
          ++id;
          const int es = kvref_dtype_size(sd);
          const kvref_dtype cd = fp8 ? KVREF_DTYPE_FP8_E4M3 : sd;
          const int ce = kvref_dtype_size(cd);
          const int bs = (id % 3 == 0) ? 1 : (id % 3 == 1 ? 4 : 5);
          // Every fourth case is prefill-sized (the plan's wide-thread path), the rest decode-sized.
          const bool big_row = s.heads * s.head_size > 4096;
          const int64_t T = (id % 4 == 0 && !big_row) ? kvref::kWideTokens + static_cast<int64_t>(rng() % 100)
                                          : 1 + static_cast<int64_t>(rng() % 40);
          const int64_t nb = (T + bs - 1) / bs * 2 + 1;
          const int64_t page = static_cast<int64_t>(bs) * s.heads * s.head_size;
          const int64_t bstride = (id % 4 == 0) ? page + 8 : 0;
          const int64_t cache_elems = nb * (bstride ? bstride : page);
          const int64_t hstride = s.head_size + s.extra_head;
          const int64_t tstride = s.heads * hstride + s.extra_token;
          std::vector<int64_t> all(static_cast<size_t>(nb * bs));
          std::iota(all.begin(), all.end(), 0);
          std::shuffle(all.begin(), all.end(), rng);
          std::vector<int64_t> slots(all.begin(), all.begin() + T);
          for (auto& v : slots) {
            const uint64_t r = rng() % 12;
            if (r == 0) v = -1;
            if (r == 1) v = nb * bs + 3;
          }
          std::vector<uint8_t> key = random_bytes(rng, static_cast<size_t>((s.src_offset + T * tstride) * es));
          std::vector<uint8_t> value = random_bytes(rng, key.size());
          std::vector<uint8_t> kc = random_bytes(rng, static_cast<size_t>(cache_elems * ce));
          std::vector<uint8_t> vc = random_bytes(rng, kc.size());
          std::vector<uint8_t> kc2 = kc, vc2 = vc;
          const float scales[2] = {0.75f, 3.0f};
          kvref_kv_store_args a;
          kvref_kv_store_args_init(&a);
          a.key = key.data() + s.src_offset * es;
          a.value = value.data() + s.src_offset * es;
          a.key_stride_token = a.value_stride_token = tstride;
          a.key_stride_head = a.value_stride_head = hstride;
          a.key_cache = kc.data();
          a.value_cache = vc.data();
          a.layout = layout ? KVREF_LAYOUT_HND : KVREF_LAYOUT_NHD;
          a.num_blocks = nb;
          a.block_size = bs;
          a.num_heads = s.heads;
          a.head_size = s.head_size;
          a.cache_block_stride = bstride;
          a.slot_mapping = slots.data();
          a.num_tokens = T;
          a.src_dtype = sd;
          a.cache_dtype = cd;
          a.k_scale = &scales[0];
          a.v_scale = &scales[1];
          kvref_kv_store_args c = a;
          c.key_cache = kc2.data();
          c.value_cache = vc2.data();
          ASSERT_EQ(kvref_cpu_kv_store(&c), KVREF_SUCCESS);
          ASSERT_EQ(kvref_kv_store(&a, nullptr), KVREF_SUCCESS);
          EXPECT_TRUE(kc == kc2) << "case " << id << " src " << sd << " fp8 " << fp8 << " layout " << layout;
          EXPECT_TRUE(vc == vc2) << "case " << id;
        }
}

TEST(Emulated, KvStorePicksVectorWidthsByAlignment) {
  kvref_kv_store_args a;
  kvref_kv_store_args_init(&a);
  alignas(16) static uint16_t buf[4096];
  a.key = a.value = buf;
  a.key_cache = a.value_cache = buf;
  a.key_stride_token = a.value_stride_token = 1024;
  a.key_stride_head = a.value_stride_head = 128;
  a.num_blocks = 1;
  a.block_size = 16;
  a.num_heads = 8;
  a.head_size = 128;
  a.src_dtype = a.cache_dtype = KVREF_DTYPE_BF16;
  kvref::StorePlan p = kvref::plan_kv_store(a);
  EXPECT_EQ(p.vector_bytes, 16);
  EXPECT_EQ(p.params.num_heads, 1u);  // NHD with dense heads: one 2 KiB row per token
  EXPECT_EQ(p.params.units_per_row, 128u);
  a.layout = KVREF_LAYOUT_HND;
  p = kvref::plan_kv_store(a);
  EXPECT_EQ(p.params.num_heads, 8u);
  EXPECT_EQ(p.params.units_per_row, 16u);
  a.key = buf + 1;  // 2-byte aligned source
  EXPECT_EQ(kvref::plan_kv_store(a).vector_bytes, 2);
  a.key = buf;
  a.head_size = 7;
  a.key_stride_head = a.value_stride_head = 7;
  a.key_stride_token = a.value_stride_token = 56;
  EXPECT_EQ(kvref::plan_kv_store(a).vector_bytes, 2);
  a.head_size = 128;
  a.key_stride_head = a.value_stride_head = 128;
  a.key_stride_token = a.value_stride_token = 1024;
  a.cache_dtype = KVREF_DTYPE_FP8_E4M3;
  EXPECT_EQ(kvref::plan_kv_store(a).vector_bytes, 8);
  a.head_size = 12;
  a.key_stride_head = a.value_stride_head = 12;
  a.key_stride_token = a.value_stride_token = 96;
  EXPECT_EQ(kvref::plan_kv_store(a).vector_bytes, 1);
}

// widest_vector takes the lowest bit of the values' OR; it must agree with its definition (the
// largest of 16/8/4/2/1 dividing every value) for any values, negative and zero included.
TEST(Emulated, WidestVectorIsTheLargestCommonPowerOfTwoDivisor) {
  std::mt19937_64 rng(17);
  const int64_t pool[] = {0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 4096, -16, -8, -4, -2, -1, -48, INT64_MIN,
                          INT64_MAX, int64_t(1) << 40};
  for (int iter = 0; iter < 20000; ++iter) {
    int64_t v[11];
    const int n = static_cast<int>(rng() % 12);
    for (int i = 0; i < n; ++i) {
      v[i] = rng() % 2 ? pool[rng() % (sizeof(pool) / sizeof(pool[0]))] : static_cast<int64_t>(rng() << (rng() % 6));
    }
    const int64_t row = iter % 3 == 0 ? pool[rng() % (sizeof(pool) / sizeof(pool[0]))] : static_cast<int64_t>(rng() % 4096);
    int expected = 1;
    for (int w = 16; w > 1 && expected == 1; w /= 2) {
      bool ok = row % w == 0;
      for (int i = 0; i < n && ok; ++i) ok = v[i] % w == 0;
      if (ok) expected = w;
    }
    ASSERT_EQ(kvref::widest_vector(v, n, row), expected) << "iteration " << iter;
  }
}

TEST(Emulated, RecordStoreMatchesReference) {
  std::mt19937_64 rng(9);
  for (int64_t R : {656, 132, 7, 64}) {
    for (int64_t extra : {0, 64, 3}) {
      const int page_size = (R + extra) % 2 ? 1 : 16;
      const int64_t page_bytes = page_size * R + extra;
      const int64_t T = (rng() % 3 == 0) ? kvref::kWideTokens + static_cast<int64_t>(rng() % 100)
                                           : 1 + static_cast<int64_t>(rng() % 50);
      const int64_t np = (T + page_size - 1) / page_size + 1;
      std::vector<int64_t> all(static_cast<size_t>(np * page_size));
      std::iota(all.begin(), all.end(), 0);
      std::shuffle(all.begin(), all.end(), rng);
      std::vector<int64_t> slots(all.begin(), all.begin() + T);
      slots[0] = -1;
      std::vector<uint8_t> src = random_bytes(rng, static_cast<size_t>(T * (R + 8)));
      std::vector<uint8_t> cache = random_bytes(rng, static_cast<size_t>(np * page_bytes));
      std::vector<uint8_t> cache2 = cache;
      kvref_record_store_args a;
      kvref_record_store_args_init(&a);
      a.src = src.data();
      a.src_stride = R + 8;
      a.record_bytes = R;
      a.cache = cache.data();
      a.num_pages = np;
      a.page_size = page_size;
      a.page_bytes = page_bytes;
      a.slot_mapping = slots.data();
      a.num_tokens = T;
      kvref_record_store_args c = a;
      c.cache = cache2.data();
      ASSERT_EQ(kvref_cpu_record_store(&c), KVREF_SUCCESS);
      ASSERT_EQ(kvref_record_store(&a, nullptr), KVREF_SUCCESS);
      EXPECT_TRUE(cache == cache2) << "R " << R << " extra " << extra;
    }
  }
}

TEST(Emulated, EntryPointsValidateBeforeLaunching) {
  kvref_kv_store_args a;
  kvref_kv_store_args_init(&a);
  EXPECT_EQ(kvref_kv_store(&a, nullptr), KVREF_ERROR_NULL_POINTER);
  EXPECT_EQ(kvref_kv_store(nullptr, nullptr), KVREF_ERROR_NULL_POINTER);
  kvref_slot_mapping_args s;
  kvref_slot_mapping_args_init(&s);
  EXPECT_EQ(kvref_slot_mapping(&s, nullptr), KVREF_ERROR_INVALID_VALUE);
  kvref_record_store_args r;
  kvref_record_store_args_init(&r);
  EXPECT_EQ(kvref_record_store(&r, nullptr), KVREF_ERROR_NULL_POINTER);
}

}  // namespace
