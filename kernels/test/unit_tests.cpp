// unit_tests.cpp - CPU reference implementation, dtype conversions and argument validation.
// Runs in CI (no GPU).  Links libkvref_cpu.so only.
#include <gtest/gtest.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "kvref/kvref.h"
#include "kvref/kvref_cpu.h"
#include "kvref/offsets.cuh"

namespace {

// ---------------------------------------------------------------------------------------------
// Offsets
TEST(Offsets, PageOffsetIs64Bit) {
  // The DeepSeek MLA incident: page 28,679 * 74,880 elements wraps in int32.
  const int32_t page = 28679;
  const int32_t stride = 74880;
  EXPECT_EQ(kvref::page_offset(page, stride), INT64_C(2147483520));
  EXPECT_EQ(kvref::page_offset(page + 1, stride), INT64_C(2147558400));
  EXPECT_GT(kvref::page_offset(page + 1, stride), static_cast<int64_t>(INT32_MAX));
  EXPECT_EQ(kvref::page_offset(INT32_MAX, INT32_MAX), INT64_C(4611686014132420609));
  EXPECT_EQ(kvref::page_offset(0, INT64_C(1) << 40), 0);
}

TEST(Offsets, DivmodFastAndSlowPaths) {
  const int64_t cases[][2] = {{0, 1},          {17, 16},         {INT64_C(4294967295), 7},
                              {INT64_C(4294967296), 7}, {INT64_C(1) << 45, 48}, {5, INT64_C(1) << 33}};
  for (const auto& c : cases) {
    int64_t q, r;
    kvref::divmod(c[0], c[1], q, r);
    EXPECT_EQ(q, c[0] / c[1]);
    EXPECT_EQ(r, c[0] % c[1]);
  }
}

// ---------------------------------------------------------------------------------------------
// Conversions
TEST(Dtypes, HalfToFloatMatchesHardwareExhaustively) {
  for (uint32_t b = 0; b < 65536; ++b) {
    _Float16 h;
    uint16_t bits = static_cast<uint16_t>(b);
    memcpy(&h, &bits, 2);
    const float want = static_cast<float>(h);
    const float got = kvref_half_to_float(bits);
    if (isnan(want)) {
      EXPECT_TRUE(isnan(got)) << b;
    } else {
      EXPECT_EQ(memcmp(&want, &got, 4), 0) << "bits " << b;
    }
  }
}

TEST(Dtypes, FloatToHalfMatchesHardware) {
  std::mt19937 rng(1);
  std::vector<float> values = {0.0f, -0.0f, 1.0f, 65504.0f, 65519.0f, 65520.0f, 1e-8f, 5.96e-8f,
                               2.98e-8f, 2.99e-8f, 6.1e-5f, -3.5f, INFINITY, -INFINITY};
  for (int i = 0; i < 200000; ++i) {
    uint32_t u = rng();
    float f;
    memcpy(&f, &u, 4);
    if (!isnan(f)) values.push_back(f);
  }
  for (float f : values) {
    const _Float16 h = static_cast<_Float16>(f);
    uint16_t want;
    memcpy(&want, &h, 2);
    EXPECT_EQ(kvref_float_to_half(f), want) << f;
  }
  EXPECT_EQ(kvref_float_to_half(NAN) & 0x7c00, 0x7c00);
}

TEST(Dtypes, Bfloat16) {
  EXPECT_EQ(kvref_float_to_bfloat16(1.0f), 0x3f80);
  EXPECT_EQ(kvref_float_to_bfloat16(-2.0f), 0xc000);
  EXPECT_EQ(kvref_bfloat16_to_float(0x3f80), 1.0f);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even -> 1.
  EXPECT_EQ(kvref_float_to_bfloat16(1.00390625f), 0x3f80);
  EXPECT_EQ(kvref_float_to_bfloat16(1.01171875f), 0x3f82);  // 1 + 3*2^-8 -> 1 + 2^-6
  EXPECT_TRUE(isnan(kvref_bfloat16_to_float(kvref_float_to_bfloat16(NAN))));
  for (uint32_t b = 0; b < 65536; ++b) {
    const float f = kvref_bfloat16_to_float(static_cast<uint16_t>(b));
    if (!isnan(f)) {
      EXPECT_EQ(kvref_float_to_bfloat16(f), b);
    }
  }
}

// Slow oracle: nearest representable e4m3 value, ties to the even code, saturating.
uint8_t slow_fp8(float x) {
  if (isnan(x)) return 0x7f;
  const uint8_t sign = signbit(x) ? 0x80 : 0;
  const double a = fabs(static_cast<double>(x));
  if (a >= 448.0) return sign | 0x7e;
  int best = 0;
  double best_err = 1e300;
  for (int code = 0; code <= 0x7e; ++code) {
    const double v = kvref_fp8_e4m3_to_float(static_cast<uint8_t>(code));
    const double err = fabs(v - a);
    if (err < best_err || (err == best_err && (code & 1) == 0)) {
      best = code;
      best_err = err;
    }
  }
  return static_cast<uint8_t>(sign | best);
}

TEST(Dtypes, Fp8E4m3KnownValues) {
  EXPECT_EQ(kvref_float_to_fp8_e4m3(1.0f), 0x38);
  EXPECT_EQ(kvref_float_to_fp8_e4m3(-2.0f), 0xc0);
  EXPECT_EQ(kvref_float_to_fp8_e4m3(448.0f), 0x7e);
  EXPECT_EQ(kvref_float_to_fp8_e4m3(500.0f), 0x7e);
  EXPECT_EQ(kvref_float_to_fp8_e4m3(INFINITY), 0x7e);
  EXPECT_EQ(kvref_float_to_fp8_e4m3(-INFINITY), 0xfe);
  EXPECT_EQ(kvref_float_to_fp8_e4m3(NAN), 0x7f);
  EXPECT_EQ(kvref_float_to_fp8_e4m3(0.001953125f), 0x01);  // 2^-9, smallest subnormal
  EXPECT_EQ(kvref_float_to_fp8_e4m3(0.0009765625f), 0x00); // 2^-10 ties to even 0
  EXPECT_EQ(kvref_float_to_fp8_e4m3(0.015625f), 0x08);     // 2^-6, smallest normal
  EXPECT_EQ(kvref_fp8_e4m3_to_float(0x7e), 448.0f);
  EXPECT_TRUE(isnan(kvref_fp8_e4m3_to_float(0x7f)));
}

TEST(Dtypes, Fp8E4m3MatchesSlowOracle) {
  // Every code, every midpoint between neighbours (ties), and random floats.
  std::vector<float> values;
  for (int c = 0; c < 0x7f; ++c) {
    const float v = kvref_fp8_e4m3_to_float(static_cast<uint8_t>(c));
    values.push_back(v);
    values.push_back(-v);
    if (c < 0x7e) {
      const float n = kvref_fp8_e4m3_to_float(static_cast<uint8_t>(c + 1));
      values.push_back((v + n) / 2);
      values.push_back(nextafterf((v + n) / 2, 0.0f));
      values.push_back(nextafterf((v + n) / 2, 1000.0f));
    }
  }
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-600.0f, 600.0f);
  std::uniform_real_distribution<float> small(-0.05f, 0.05f);
  for (int i = 0; i < 20000; ++i) {
    values.push_back(dist(rng));
    values.push_back(small(rng));
  }
  for (float f : values) EXPECT_EQ(kvref_float_to_fp8_e4m3(f), slow_fp8(f)) << f;
}

// ---------------------------------------------------------------------------------------------
// Status strings
TEST(Status, StringsAreDistinct) {
  std::set<std::string> seen;
  for (int s = KVREF_SUCCESS; s <= KVREF_ERROR_LAUNCH_FAILED; ++s) {
    const char* str = kvref_status_string(static_cast<kvref_status>(s));
    ASSERT_NE(str, nullptr);
    EXPECT_TRUE(seen.insert(str).second) << str;
  }
  EXPECT_NE(kvref_status_string(static_cast<kvref_status>(999)), nullptr);
}

// ---------------------------------------------------------------------------------------------
// Slot mapping: hand-checked cases
struct SlotCase {
  std::vector<int32_t> table;  // [rows, stride]
  std::vector<int32_t> idx, qsl;
  std::vector<int64_t> pos;
  std::vector<int64_t> out;
  kvref_slot_mapping_args args;
  SlotCase(int rows, int64_t stride, int width, int bs) {
    kvref_slot_mapping_args_init(&args);
    table.resize(static_cast<size_t>(rows * stride));
    for (size_t i = 0; i < table.size(); ++i) table[i] = 100 + static_cast<int32_t>(i);
    args.num_groups = 1;
    args.groups[0].row_stride = stride;
    args.groups[0].width = width;
    args.groups[0].block_size = bs;
    args.num_rows = rows;
  }
  kvref_status run(int64_t padded) {
    out.assign(static_cast<size_t>(padded), 12345);
    args.groups[0].block_table = table.data();
    args.groups[0].slot_mapping = out.data();
    args.idx_mapping = idx.data();
    args.query_start_loc = qsl.data();
    args.positions = pos.data();
    args.num_reqs = static_cast<int32_t>(idx.size());
    args.num_tokens = static_cast<int64_t>(pos.size());
    args.num_tokens_padded = padded;
    return kvref_cpu_slot_mapping(&args);
  }
};

TEST(CpuSlotMapping, Basic) {
  SlotCase c(/*rows=*/3, /*stride=*/4, /*width=*/4, /*bs=*/16);
  c.idx = {2, 0};
  c.qsl = {0, 3, 5};
  c.pos = {0, 17, 63, 5, 16};
  ASSERT_EQ(c.run(7), KVREF_SUCCESS);
  // row 2 = blocks 108..111, row 0 = 100..103
  EXPECT_EQ(c.out[0], 108 * 16 + 0);
  EXPECT_EQ(c.out[1], 109 * 16 + 1);
  EXPECT_EQ(c.out[2], 111 * 16 + 15);
  EXPECT_EQ(c.out[3], 100 * 16 + 5);
  EXPECT_EQ(c.out[4], 101 * 16 + 0);
  EXPECT_EQ(c.out[5], -1);  // padding
  EXPECT_EQ(c.out[6], -1);
}

TEST(CpuSlotMapping, WidthGuardPadsInsteadOfReadingNeighbourRow) {
  // Narrow group: 2 columns of 4 tokens, row stride 2 -> row 0's column 2 would be row 1's block.
  SlotCase c(2, 2, 2, 4);
  c.idx = {0};
  c.qsl = {0, 3};
  c.pos = {7, 8, 1000000};
  ASSERT_EQ(c.run(3), KVREF_SUCCESS);
  EXPECT_EQ(c.out[0], 101 * 4 + 3);
  EXPECT_EQ(c.out[1], -1);  // col 2 == width: pad, not the neighbour's 102
  EXPECT_EQ(c.out[2], -1);
}

TEST(CpuSlotMapping, RowStrideWiderThanWidth) {
  SlotCase c(2, 8, 3, 2);
  c.idx = {1};
  c.qsl = {0, 2};
  c.pos = {5, 6};
  ASSERT_EQ(c.run(2), KVREF_SUCCESS);
  EXPECT_EQ(c.out[0], (100 + 8 + 2) * 2 + 1);
  EXPECT_EQ(c.out[1], -1);  // col 3 >= width 3 although the stride is 8
}

TEST(CpuSlotMapping, LargeBlockIdsGive64BitSlots) {
  SlotCase c(1, 2, 2, 256);
  c.table = {INT32_MAX, 16777216};
  c.idx = {0};
  c.qsl = {0, 2};
  c.pos = {255, 256};
  ASSERT_EQ(c.run(2), KVREF_SUCCESS);
  EXPECT_EQ(c.out[0], static_cast<int64_t>(INT32_MAX) * 256 + 255);
  EXPECT_EQ(c.out[1], INT64_C(16777216) * 256);
  EXPECT_GT(c.out[1], static_cast<int64_t>(INT32_MAX));
}

TEST(CpuSlotMapping, NegativeBlockAndInvalidRowAndPositionPad) {
  SlotCase c(2, 2, 2, 4);
  c.table = {-1, 7, 3, 4};
  c.idx = {0, 5, 1};
  c.qsl = {0, 2, 3, 4};
  c.pos = {1, 5, 0, -3};
  ASSERT_EQ(c.run(4), KVREF_SUCCESS);
  EXPECT_EQ(c.out[0], -1);         // block -1
  EXPECT_EQ(c.out[1], 7 * 4 + 1);  // col 1
  EXPECT_EQ(c.out[2], -1);         // row 5 >= num_rows
  EXPECT_EQ(c.out[3], -1);         // negative position
}

// Context parallelism against the vLLM formula written out by hand for cp=2, interleave=1.
TEST(CpuSlotMapping, ContextParallelInterleave1) {
  for (int rank = 0; rank < 2; ++rank) {
    SlotCase c(1, 4, 4, 4);
    c.idx = {0};
    c.qsl = {0, 16};
    for (int p = 0; p < 16; ++p) c.pos.push_back(p);
    c.args.cp_size = 2;
    c.args.cp_rank = rank;
    ASSERT_EQ(c.run(16), KVREF_SUCCESS);
    for (int p = 0; p < 16; ++p) {
      // virtual block of 8 tokens: even positions on rank 0, odd on rank 1
      if (p % 2 != rank) {
        EXPECT_EQ(c.out[p], -1) << p;
      } else {
        EXPECT_EQ(c.out[p], (100 + p / 8) * 4 + (p % 8) / 2) << p;
      }
    }
  }
}

TEST(CpuSlotMapping, ContextParallelInterleave2Cp4) {
  // block 4, cp 4, interleave 2: virtual block 16; stripe = (p%16)/2; rank = stripe % 4;
  // local = (p%16)/8*2 + p%2
  for (int rank = 0; rank < 4; ++rank) {
    SlotCase c(1, 4, 4, 4);
    c.idx = {0};
    c.qsl = {0, 40};
    for (int p = 0; p < 40; ++p) c.pos.push_back(p);
    c.args.cp_size = 4;
    c.args.cp_rank = rank;
    c.args.cp_interleave = 2;
    ASSERT_EQ(c.run(40), KVREF_SUCCESS);
    int local_count = 0;
    for (int p = 0; p < 40; ++p) {
      const int v = p % 16;
      if ((v / 2) % 4 != rank) {
        EXPECT_EQ(c.out[p], -1);
      } else {
        ++local_count;
        EXPECT_EQ(c.out[p], (100 + p / 16) * 4 + (v / 8) * 2 + v % 2) << p;
      }
    }
    EXPECT_EQ(local_count, 10);
  }
}

TEST(CpuSlotMapping, SeveralGroups) {
  std::vector<int32_t> t0 = {0, 1, 2, 3, 10, 11, 12, 13};  // 2 rows x 4, block 16
  std::vector<int32_t> t1 = {50, 51, 60, 61};              // 2 rows x 2, block 32 (narrow)
  std::vector<int64_t> o0(4), o1(4);
  std::vector<int32_t> idx = {1};
  std::vector<int32_t> qsl = {0, 3};
  std::vector<int64_t> pos = {10, 40, 70};
  kvref_slot_mapping_args a;
  kvref_slot_mapping_args_init(&a);
  a.num_groups = 2;
  a.groups[0] = {t0.data(), 4, 4, 16, o0.data()};
  a.groups[1] = {t1.data(), 2, 2, 32, o1.data()};
  a.num_reqs = 1;
  a.num_rows = 2;
  a.idx_mapping = idx.data();
  a.query_start_loc = qsl.data();
  a.positions = pos.data();
  a.num_tokens = 3;
  a.num_tokens_padded = 4;
  ASSERT_EQ(kvref_cpu_slot_mapping(&a), KVREF_SUCCESS);
  EXPECT_EQ(o0[0], 10 * 16 + 10);
  EXPECT_EQ(o0[1], 12 * 16 + 8);
  EXPECT_EQ(o0[2], -1);  // 70 / 16 = 4 >= width 4
  EXPECT_EQ(o1[0], 60 * 32 + 10);
  EXPECT_EQ(o1[1], 61 * 32 + 8);
  EXPECT_EQ(o1[2], -1);  // 70 / 32 = 2 >= width 2
  EXPECT_EQ(o0[3], -1);
  EXPECT_EQ(o1[3], -1);
}

// ---------------------------------------------------------------------------------------------
// KV store: placement in NHD and HND pages, skipped slots, fp8.
struct KvCase {
  int H, D, bs, nb;
  std::vector<uint16_t> key, value;
  std::vector<uint16_t> kc, vc;
  std::vector<int64_t> slots;
  kvref_kv_store_args a;
  KvCase(int T, int H_, int D_, int bs_, int nb_, kvref_layout layout)
      : H(H_), D(D_), bs(bs_), nb(nb_) {
    key.resize(static_cast<size_t>(T * H * D));
    value.resize(key.size());
    for (size_t i = 0; i < key.size(); ++i) {
      key[i] = static_cast<uint16_t>(i + 1);
      value[i] = static_cast<uint16_t>(0x8000 + i);
    }
    kc.assign(static_cast<size_t>(nb * bs * H * D), 0xeeee);
    vc = kc;
    kvref_kv_store_args_init(&a);
    a.key = key.data();
    a.value = value.data();
    a.key_stride_token = a.value_stride_token = H * D;
    a.key_stride_head = a.value_stride_head = D;
    a.key_cache = kc.data();
    a.value_cache = vc.data();
    a.layout = layout;
    a.num_blocks = nb;
    a.block_size = bs;
    a.num_heads = H;
    a.head_size = D;
    a.num_tokens = T;
    a.src_dtype = a.cache_dtype = KVREF_DTYPE_F16;
  }
};

TEST(CpuKvStore, NhdPlacementAndSkippedSlots) {
  KvCase c(3, 2, 4, 4, 3, KVREF_LAYOUT_NHD);
  c.slots = {5, -1, 11};
  c.a.slot_mapping = c.slots.data();
  ASSERT_EQ(kvref_cpu_kv_store(&c.a), KVREF_SUCCESS);
  // token 0 -> page 1, in-page 1; element (h, d) at 1*32 + (1*2 + h)*4 + d
  for (int h = 0; h < 2; ++h)
    for (int d = 0; d < 4; ++d) {
      EXPECT_EQ(c.kc[32 + (2 + h) * 4 + d], c.key[h * 4 + d]);
      EXPECT_EQ(c.vc[32 + (2 + h) * 4 + d], c.value[h * 4 + d]);
      EXPECT_EQ(c.kc[2 * 32 + (3 * 2 + h) * 4 + d], c.key[16 + h * 4 + d]);  // token 2, slot 11
    }
  size_t written = 0;
  for (uint16_t v : c.kc) written += v != 0xeeee;
  EXPECT_EQ(written, 16u);  // token 1 (slot -1) not written
}

TEST(CpuKvStore, HndPlacementAndPaddedPages) {
  KvCase c(2, 2, 4, 4, 3, KVREF_LAYOUT_HND);
  c.kc.assign(static_cast<size_t>(3 * 40), 0xeeee);  // pages padded to 40 elements
  c.vc = c.kc;
  c.a.key_cache = c.kc.data();
  c.a.value_cache = c.vc.data();
  c.a.cache_block_stride = 40;
  c.slots = {6, 9};
  c.a.slot_mapping = c.slots.data();
  ASSERT_EQ(kvref_cpu_kv_store(&c.a), KVREF_SUCCESS);
  for (int h = 0; h < 2; ++h)
    for (int d = 0; d < 4; ++d) {
      EXPECT_EQ(c.kc[40 + (h * 4 + 2) * 4 + d], c.key[h * 4 + d]);          // page 1, slot 2
      EXPECT_EQ(c.vc[80 + (h * 4 + 1) * 4 + d], c.value[8 + h * 4 + d]);    // page 2, slot 1
    }
  for (int i = 32; i < 40; ++i) EXPECT_EQ(c.kc[40 + i], 0xeeee);  // page padding untouched
}

TEST(CpuKvStore, Fp8WithScale) {
  std::vector<float> key = {1.0f, 2.0f, -4.0f, 1000.0f}, value = {0.5f, 0.25f, 3.0f, -8.0f};
  std::vector<uint8_t> kc(8, 0xaa), vc(8, 0xaa);
  std::vector<int64_t> slots = {1};
  const float ks = 2.0f, vs = 0.5f;
  kvref_kv_store_args a;
  kvref_kv_store_args_init(&a);
  a.key = key.data();
  a.value = value.data();
  a.key_stride_token = a.value_stride_token = 4;
  a.key_stride_head = a.value_stride_head = 4;
  a.key_cache = kc.data();
  a.value_cache = vc.data();
  a.num_blocks = 1;
  a.block_size = 2;
  a.num_heads = 1;
  a.head_size = 4;
  a.slot_mapping = slots.data();
  a.num_tokens = 1;
  a.src_dtype = KVREF_DTYPE_F32;
  a.cache_dtype = KVREF_DTYPE_FP8_E4M3;
  a.k_scale = &ks;
  a.v_scale = &vs;
  ASSERT_EQ(kvref_cpu_kv_store(&a), KVREF_SUCCESS);
  EXPECT_EQ(kc[4], kvref_float_to_fp8_e4m3(0.5f));
  EXPECT_EQ(kc[5], 0x38);  // 2/2 = 1
  EXPECT_EQ(kc[6], kvref_float_to_fp8_e4m3(-2.0f));
  EXPECT_EQ(kc[7], 0x7e);  // 500 saturates
  EXPECT_EQ(vc[4], 0x38);  // 0.5/0.5
  EXPECT_EQ(vc[7], kvref_float_to_fp8_e4m3(-16.0f));
  EXPECT_EQ(kc[0], 0xaa);
}

TEST(CpuRecordStore, PagesWithTrailingScales) {
  // 3 records of 6 bytes per page, pages of 24 bytes (6 bytes of per-page extras).
  std::vector<uint8_t> src(4 * 8);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i);
  std::vector<uint8_t> cache(2 * 24, 0xcc);
  std::vector<int64_t> slots = {4, -1, 2, 6};
  kvref_record_store_args a;
  kvref_record_store_args_init(&a);
  a.src = src.data();
  a.src_stride = 8;
  a.record_bytes = 6;
  a.cache = cache.data();
  a.num_pages = 2;
  a.page_size = 3;
  a.page_bytes = 24;
  a.slot_mapping = slots.data();
  a.num_tokens = 4;
  ASSERT_EQ(kvref_cpu_record_store(&a), KVREF_SUCCESS);
  for (int b = 0; b < 6; ++b) {
    EXPECT_EQ(cache[24 + 6 + b], src[0 + b]);  // slot 4: page 1, record 1
    EXPECT_EQ(cache[12 + b], src[16 + b]);     // slot 2: page 0, record 2
  }
  for (int b = 18; b < 24; ++b) {
    EXPECT_EQ(cache[b], 0xcc);       // page extras untouched
    EXPECT_EQ(cache[24 + b], 0xcc);
  }
  // slot 6 is past num_pages * page_size: skipped
  size_t written = 0;
  for (uint8_t v : cache) written += v != 0xcc;
  EXPECT_LE(written, 12u);
}

// ---------------------------------------------------------------------------------------------
// Validation
class Validation : public ::testing::Test {
 protected:
  alignas(16) int32_t table[64] = {};
  alignas(16) int64_t out[64] = {};
  alignas(16) int32_t idx[4] = {};
  alignas(16) int32_t qsl[5] = {0, 1, 2, 3, 4};
  alignas(16) int64_t pos[4] = {};
  alignas(16) uint16_t kv[256] = {};
  alignas(16) uint16_t cache[1024] = {};
  alignas(16) float scale[2] = {1.0f, 1.0f};
  kvref_slot_mapping_args sm;
  kvref_kv_store_args kvs;
  kvref_record_store_args rs;

  void SetUp() override {
    kvref_slot_mapping_args_init(&sm);
    sm.num_groups = 1;
    sm.groups[0] = {table, 8, 8, 16, out};
    sm.num_reqs = 4;
    sm.num_rows = 8;
    sm.idx_mapping = idx;
    sm.query_start_loc = qsl;
    sm.positions = pos;
    sm.num_tokens = 4;
    sm.num_tokens_padded = 8;
    kvref_kv_store_args_init(&kvs);
    kvs.key = kv;
    kvs.value = kv;
    kvs.key_stride_token = kvs.value_stride_token = 16;
    kvs.key_stride_head = kvs.value_stride_head = 8;
    kvs.key_cache = cache;
    kvs.value_cache = cache + 512;
    kvs.num_blocks = 2;
    kvs.block_size = 16;
    kvs.num_heads = 2;
    kvs.head_size = 8;
    kvs.slot_mapping = out;
    kvs.num_tokens = 4;
    kvs.src_dtype = kvs.cache_dtype = KVREF_DTYPE_F16;
    kvref_record_store_args_init(&rs);
    rs.src = kv;
    rs.src_stride = 64;
    rs.record_bytes = 64;
    rs.cache = cache;
    rs.num_pages = 2;
    rs.page_size = 4;
    rs.page_bytes = 256;
    rs.slot_mapping = out;
    rs.num_tokens = 4;
  }
};

TEST_F(Validation, ValidArgumentsPass) {
  EXPECT_EQ(kvref_validate_slot_mapping(&sm), KVREF_SUCCESS);
  EXPECT_EQ(kvref_validate_kv_store(&kvs), KVREF_SUCCESS);
  EXPECT_EQ(kvref_validate_record_store(&rs), KVREF_SUCCESS);
}

TEST_F(Validation, SlotMappingNullPointers) {
  EXPECT_EQ(kvref_validate_slot_mapping(nullptr), KVREF_ERROR_NULL_POINTER);
  sm.positions = nullptr;
  EXPECT_EQ(kvref_validate_slot_mapping(&sm), KVREF_ERROR_NULL_POINTER);
  SetUp();
  sm.groups[0].block_table = nullptr;
  EXPECT_EQ(kvref_validate_slot_mapping(&sm), KVREF_ERROR_NULL_POINTER);
  SetUp();
  sm.groups[0].slot_mapping = nullptr;
  EXPECT_EQ(kvref_validate_slot_mapping(&sm), KVREF_ERROR_NULL_POINTER);
  SetUp();
  sm.query_start_loc = nullptr;
  EXPECT_EQ(kvref_validate_slot_mapping(&sm), KVREF_ERROR_NULL_POINTER);
}

TEST_F(Validation, SlotMappingSizes) {
  struct Mut {
    const char* what;
    void (*apply)(kvref_slot_mapping_args&);
  };
  const Mut muts[] = {
      {"groups 0", [](kvref_slot_mapping_args& a) { a.num_groups = 0; }},
      {"groups 9", [](kvref_slot_mapping_args& a) { a.num_groups = KVREF_MAX_GROUPS + 1; }},
      {"width 0", [](kvref_slot_mapping_args& a) { a.groups[0].width = 0; }},
      {"block 0", [](kvref_slot_mapping_args& a) { a.groups[0].block_size = 0; }},
      {"block -16", [](kvref_slot_mapping_args& a) { a.groups[0].block_size = -16; }},
      {"stride<width", [](kvref_slot_mapping_args& a) { a.groups[0].row_stride = 7; }},
      {"rows 0", [](kvref_slot_mapping_args& a) { a.num_rows = 0; }},
      {"reqs -1", [](kvref_slot_mapping_args& a) { a.num_reqs = -1; }},
      {"reqs 0 with tokens", [](kvref_slot_mapping_args& a) { a.num_reqs = 0; }},
      {"tokens -1", [](kvref_slot_mapping_args& a) { a.num_tokens = -1; }},
      {"padded<tokens", [](kvref_slot_mapping_args& a) { a.num_tokens_padded = 3; }},
      {"cp 0", [](kvref_slot_mapping_args& a) { a.cp_size = 0; }},
      {"rank>=cp", [](kvref_slot_mapping_args& a) { a.cp_rank = 1; }},
      {"rank<0", [](kvref_slot_mapping_args& a) { a.cp_rank = -1; }},
      {"interleave 0", [](kvref_slot_mapping_args& a) { a.cp_interleave = 0; }},
      {"interleave !| block", [](kvref_slot_mapping_args& a) { a.cp_size = 2; a.cp_interleave = 3; }},
  };
  for (const Mut& m : muts) {
    SetUp();
    m.apply(sm);
    EXPECT_EQ(kvref_validate_slot_mapping(&sm), KVREF_ERROR_INVALID_VALUE) << m.what;
    EXPECT_EQ(kvref_cpu_slot_mapping(&sm), KVREF_ERROR_INVALID_VALUE) << m.what;
  }
}

TEST_F(Validation, SlotMappingMisaligned) {
  sm.positions = reinterpret_cast<const int64_t*>(reinterpret_cast<const char*>(pos) + 4);
  EXPECT_EQ(kvref_validate_slot_mapping(&sm), KVREF_ERROR_MISALIGNED);
  SetUp();
  sm.groups[0].slot_mapping = reinterpret_cast<int64_t*>(reinterpret_cast<char*>(out) + 2);
  EXPECT_EQ(kvref_validate_slot_mapping(&sm), KVREF_ERROR_MISALIGNED);
  SetUp();
  sm.groups[0].block_table = reinterpret_cast<const int32_t*>(reinterpret_cast<const char*>(table) + 1);
  EXPECT_EQ(kvref_validate_slot_mapping(&sm), KVREF_ERROR_MISALIGNED);
}

TEST_F(Validation, SlotMappingEmptyBatchIsValid) {
  sm.num_reqs = 0;
  sm.num_tokens = 0;
  sm.idx_mapping = nullptr;
  sm.positions = nullptr;
  sm.query_start_loc = nullptr;
  EXPECT_EQ(kvref_validate_slot_mapping(&sm), KVREF_SUCCESS);
  ASSERT_EQ(kvref_cpu_slot_mapping(&sm), KVREF_SUCCESS);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(out[i], -1);
}

TEST_F(Validation, KvStore) {
  EXPECT_EQ(kvref_validate_kv_store(nullptr), KVREF_ERROR_NULL_POINTER);
  struct Mut {
    const char* what;
    kvref_status want;
    void (*apply)(kvref_kv_store_args&);
  };
  const Mut muts[] = {
      {"key null", KVREF_ERROR_NULL_POINTER, [](kvref_kv_store_args& a) { a.key = nullptr; }},
      {"value null", KVREF_ERROR_NULL_POINTER, [](kvref_kv_store_args& a) { a.value = nullptr; }},
      {"kcache null", KVREF_ERROR_NULL_POINTER, [](kvref_kv_store_args& a) { a.key_cache = nullptr; }},
      {"vcache null", KVREF_ERROR_NULL_POINTER, [](kvref_kv_store_args& a) { a.value_cache = nullptr; }},
      {"slots null", KVREF_ERROR_NULL_POINTER, [](kvref_kv_store_args& a) { a.slot_mapping = nullptr; }},
      {"fp8 no scale", KVREF_ERROR_NULL_POINTER,
       [](kvref_kv_store_args& a) { a.cache_dtype = KVREF_DTYPE_FP8_E4M3; }},
      {"heads 0", KVREF_ERROR_INVALID_VALUE, [](kvref_kv_store_args& a) { a.num_heads = 0; }},
      {"head_size -1", KVREF_ERROR_INVALID_VALUE, [](kvref_kv_store_args& a) { a.head_size = -1; }},
      {"block 0", KVREF_ERROR_INVALID_VALUE, [](kvref_kv_store_args& a) { a.block_size = 0; }},
      {"blocks 0", KVREF_ERROR_INVALID_VALUE, [](kvref_kv_store_args& a) { a.num_blocks = 0; }},
      {"tokens -1", KVREF_ERROR_INVALID_VALUE, [](kvref_kv_store_args& a) { a.num_tokens = -1; }},
      {"neg stride", KVREF_ERROR_INVALID_VALUE, [](kvref_kv_store_args& a) { a.key_stride_token = -16; }},
      {"overlapping heads", KVREF_ERROR_INVALID_VALUE, [](kvref_kv_store_args& a) { a.value_stride_head = 4; }},
      {"overlapping pages", KVREF_ERROR_INVALID_VALUE, [](kvref_kv_store_args& a) { a.cache_block_stride = 100; }},
      {"huge cache", KVREF_ERROR_INVALID_VALUE, [](kvref_kv_store_args& a) { a.num_blocks = INT64_MAX / 4; }},
      {"layout 7", KVREF_ERROR_UNSUPPORTED, [](kvref_kv_store_args& a) { a.layout = static_cast<kvref_layout>(7); }},
      {"f16->bf16", KVREF_ERROR_UNSUPPORTED, [](kvref_kv_store_args& a) { a.cache_dtype = KVREF_DTYPE_BF16; }},
      {"fp8 src", KVREF_ERROR_UNSUPPORTED, [](kvref_kv_store_args& a) { a.src_dtype = KVREF_DTYPE_FP8_E4M3; }},
      {"dtype 9", KVREF_ERROR_UNSUPPORTED, [](kvref_kv_store_args& a) { a.src_dtype = static_cast<kvref_dtype>(9); }},
      {"key misaligned", KVREF_ERROR_MISALIGNED,
       [](kvref_kv_store_args& a) { a.key = static_cast<const char*>(a.key) + 1; }},
      {"cache misaligned", KVREF_ERROR_MISALIGNED,
       [](kvref_kv_store_args& a) { a.value_cache = static_cast<char*>(a.value_cache) + 1; }},
      {"slots misaligned", KVREF_ERROR_MISALIGNED,
       [](kvref_kv_store_args& a) { a.slot_mapping = reinterpret_cast<const int64_t*>(reinterpret_cast<const char*>(a.slot_mapping) + 4); }},
  };
  for (const Mut& m : muts) {
    SetUp();
    m.apply(kvs);
    EXPECT_EQ(kvref_validate_kv_store(&kvs), m.want) << m.what;
    EXPECT_EQ(kvref_cpu_kv_store(&kvs), m.want) << m.what;
  }
  SetUp();
  kvs.cache_dtype = KVREF_DTYPE_FP8_E4M3;
  kvs.k_scale = scale;
  kvs.v_scale = reinterpret_cast<const float*>(reinterpret_cast<const char*>(scale) + 2);
  EXPECT_EQ(kvref_validate_kv_store(&kvs), KVREF_ERROR_MISALIGNED);
  kvs.v_scale = scale + 1;
  EXPECT_EQ(kvref_validate_kv_store(&kvs), KVREF_SUCCESS);
  kvs.num_tokens = 0;  // nothing to do is valid
  EXPECT_EQ(kvref_validate_kv_store(&kvs), KVREF_SUCCESS);
}

TEST_F(Validation, RecordStore) {
  EXPECT_EQ(kvref_validate_record_store(nullptr), KVREF_ERROR_NULL_POINTER);
  struct Mut {
    const char* what;
    kvref_status want;
    void (*apply)(kvref_record_store_args&);
  };
  const Mut muts[] = {
      {"src null", KVREF_ERROR_NULL_POINTER, [](kvref_record_store_args& a) { a.src = nullptr; }},
      {"cache null", KVREF_ERROR_NULL_POINTER, [](kvref_record_store_args& a) { a.cache = nullptr; }},
      {"slots null", KVREF_ERROR_NULL_POINTER, [](kvref_record_store_args& a) { a.slot_mapping = nullptr; }},
      {"R 0", KVREF_ERROR_INVALID_VALUE, [](kvref_record_store_args& a) { a.record_bytes = 0; }},
      {"pages 0", KVREF_ERROR_INVALID_VALUE, [](kvref_record_store_args& a) { a.num_pages = 0; }},
      {"page size 0", KVREF_ERROR_INVALID_VALUE, [](kvref_record_store_args& a) { a.page_size = 0; }},
      {"page too small", KVREF_ERROR_INVALID_VALUE, [](kvref_record_store_args& a) { a.page_bytes = 255 - 64; }},
      {"neg stride", KVREF_ERROR_INVALID_VALUE, [](kvref_record_store_args& a) { a.src_stride = -1; }},
      {"tokens -2", KVREF_ERROR_INVALID_VALUE, [](kvref_record_store_args& a) { a.num_tokens = -2; }},
      {"slots misaligned", KVREF_ERROR_MISALIGNED,
       [](kvref_record_store_args& a) { a.slot_mapping = reinterpret_cast<const int64_t*>(reinterpret_cast<const char*>(a.slot_mapping) + 1); }},
  };
  for (const Mut& m : muts) {
    SetUp();
    m.apply(rs);
    EXPECT_EQ(kvref_validate_record_store(&rs), m.want) << m.what;
    EXPECT_EQ(kvref_cpu_record_store(&rs), m.want) << m.what;
  }
}

}  // namespace
