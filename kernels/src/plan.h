// plan.h - host-side planning of the store kernels (internal to kvref).
//
// Turns the public argument structs into kvref::ScatterParams (byte strides) and picks the
// widest vector the alignment of every pointer and stride allows.
#ifndef KVREF_SRC_PLAN_H
#define KVREF_SRC_PLAN_H

#include <stdint.h>

#include "kvref/kv_store.cuh"
#include "kvref/kvref.h"

namespace kvref {

struct StorePlan {
  ScatterParams params;
  int num_tensors;         // 2: K and V; 1: the record store
  int tensors_per_thread;  // 2: a thread moves K and V; 1: blockIdx.y picks the tensor
  int grid_y;              // num_tensors / tensors_per_thread
  int unroll;              // the kernel's units per tensor and iteration (1, 2 or 4)
  bool fp8;
  int src_dtype;
  int vector_bytes;  // copy: 16/8/4/2/1; fp8: 8 (elements per unit) or 1
  // Decode-sized K/V store with contiguous rows: the scatter_*_decode_kernel family, one CTA
  // per token (grid num_tokens x 1, 2 << decode.lanes_log2 threads), instead of `params`.
  bool decode;
  bool decode_dense;    // pages without gaps: the entry of a slot is slot * slot stride
  bool decode_split_y;  // K and V in separate CTAs (grid num_tokens x 2, 1 << lanes_log2 threads)
  int decode_pairs;     // fp8: 1 a pair of adjacent units per thread (K/V by CTA half), else 0
  DecodeParams dec;
  // Record store through record_store_bulk_kernel (CUDA, sm_90+): grid ceil(tokens / chunk) x
  // kBulkThreads, chunk = params.tokens_per_block, bulk_smem bytes of dynamic shared memory.
  bool bulk;
  int64_t bulk_smem;
};

inline bool multiple_of(int64_t v, int64_t a) { return v % a == 0; }
inline bool ptr_multiple_of(const void* p, int64_t a) {
  return reinterpret_cast<uintptr_t>(p) % static_cast<uintptr_t>(a) == 0;
}

// Largest of 16/8/4/2/1 dividing every value (pointers given as integers).  The widths are
// powers of two, so a width divides every value when it divides their bitwise OR (in two's
// complement, for negative values too): the lowest bit set in the OR, capped at 16.  (One pass
// instead of a remainder per value and width: plan_kv_store took 14 ns instead of 25 ns on the
// CPU machine; emulation_tests checks it against the remainders.)
inline int widest_vector(const int64_t* values, int n, int64_t row_bytes) {
  uint64_t bits = static_cast<uint64_t>(row_bytes) | 16u;
  for (int i = 0; i < n; ++i) bits |= static_cast<uint64_t>(values[i]);
  return static_cast<int>(bits & (~bits + 1u));  // the lowest set bit: 1, 2, 4, 8 or 16
}

// Batches below this many tokens are "decode-sized": latency, not bandwidth, decides.
constexpr int64_t kWideTokens = 2048;
// A decode-sized batch is spread so that it occupies at least this many CTAs (about one per SM
// of an H100 / H200 / MI300) before a CTA takes a second token.
constexpr int64_t kSpreadBlocks = 128;

inline uint32_t log2_ceil(uint64_t v) {
  uint32_t l = 0;
  while ((uint64_t(1) << l) < v) ++l;
  return l;
}

// Kernel variant, threads per token and tokens per CTA, as measured on an H200 (kvref_bench
// --explore; docs/kvref/performance.md).
//
// Decode-sized batches (< kWideTokens) that the decode kernels do not take (per-head rows as in
// HND, narrower vectors, records; see plan_decode): one unit per thread and a kernel without
// unrolling (the shortest chain from launch to store), up to 256 threads per token; up to
// kSplitTokens tokens, K and V in separate CTAs (blockIdx.y), one token per CTA; above, K and V
// in the same thread, two tokens per CTA.
// Prefill-sized batches: K and V in the same thread; bf16/f16/f32 copies about 2 units per
// thread (unroll 4) in 128-thread CTAs; the fp8 store about 4 units per thread (8 for rows of
// one head: HND), unroll 2, in 64-thread CTAs; records about 2.5 units per thread (the nearest
// power of two of lanes: 32 for 72-vector bf16 MLA records, 16 for 41-vector fp8 ones),
// unroll 4, in 64-thread CTAs.
// Vectors narrower than 16 bytes (unaligned inputs) use the unroll-4 kernels throughout.
constexpr int64_t kSplitTokens = 512;

inline uint32_t log2_floor(uint64_t v) {
  uint32_t l = 0;
  while ((uint64_t(2) << l) <= v) ++l;
  return l;
}

inline void plan_threads(StorePlan& plan) {
  ScatterParams& p = plan.params;
  const uint64_t units = static_cast<uint64_t>(p.num_heads) * p.units_per_row;
  const bool wide_vectors = plan.fp8 ? plan.vector_bytes == 8 : plan.vector_bytes == 16;
  const uint32_t max_log2 = 8;  // 256 threads per token at most (kStoreThreads)
  uint32_t l;
  int64_t tpb;
  plan.tensors_per_thread = plan.num_tensors;
  if (p.num_tokens < kWideTokens) {
    l = log2_ceil(units);
    if (l > max_log2) l = max_log2;
    const bool split = plan.num_tensors == 2 && p.num_tokens <= kSplitTokens && wide_vectors;
    if (split) plan.tensors_per_thread = 1;
    tpb = split ? 1 : 2;
    if ((tpb << l) > kStoreThreads) tpb = 1;
    plan.unroll = wide_vectors ? 1 : 4;
  } else {
    uint64_t target;  // units per thread, x2
    uint32_t threads;
    bool nearest = false;  // lanes: the power of two nearest to units / (target / 2), else below
    if (plan.fp8) {
      // Rows of one head (HND, or heads apart): ~8 units per thread, else ~4.
      target = p.num_heads > 1 ? 16 : 8;
      threads = 64;
      plan.unroll = 2;
    } else if (plan.num_tensors == 1) {
      target = 5;
      threads = 64;
      plan.unroll = 4;
      nearest = true;
    } else {
      target = 4;
      threads = 128;
      plan.unroll = 4;
    }
    const uint64_t want = units * 2 / target;
    l = log2_floor(want > 0 ? want : 1);
    if (nearest && want * 2 >= (uint64_t(3) << l)) ++l;
    if (l < 2) l = 2;
    if (l > max_log2) l = max_log2;
    tpb = (uint64_t(1) << l) >= threads ? 1 : static_cast<int64_t>(threads >> l);
    if (!wide_vectors) plan.unroll = 4;
  }
  plan.grid_y = plan.num_tensors / plan.tensors_per_thread;
  p.lanes_log2 = l;
  p.tokens_per_block = static_cast<uint32_t>(tpb);
}

inline int tokens_per_block(const StorePlan& plan) {
  return static_cast<int>(plan.params.tokens_per_block);
}

// Decode-sized K/V stores (fewer than kDecodeTokens tokens) whose rows are contiguous on both
// sides (the heads merged into one row: NHD) and wide (16-byte vectors, 8-element fp8 units)
// go to the decode kernels, one unit per thread and up to 256 threads per tensor row.  Up to
// kDecodeSplitTokens tokens K and V go to separate CTAs (blockIdx.y: twice the SMs at work
// while there are fewer CTAs than SMs), above that one CTA per token holds K in one half of its
// threads and V in the other.  fp8 above kDecodeSplitTokens: a pair of adjacent units per
// thread (scatter_fp8_decode_pairs_kernel: 16-byte stores, the fixed work of a thread and the
// test for special bytes shared by two units); rows with an odd number of units or
// destinations not 16-byte aligned keep one unit per thread, two (by the kernel's loop) from
// kDecodeFp8TwoTokens.  Thresholds from decode_explore runs on the H200
// (docs/kvref/performance.md).
constexpr int64_t kDecodeTokens = kWideTokens;
constexpr int64_t kDecodeSplitTokens = 32;
constexpr int64_t kDecodeFp8TwoTokens = 1024;

inline void plan_decode(StorePlan& plan) {
  const ScatterParams& p = plan.params;
  const bool wide_vectors = plan.fp8 ? plan.vector_bytes == 8 : plan.vector_bytes == 16;
  plan.decode = p.num_tokens < kDecodeTokens && plan.num_tensors == 2 && p.num_heads == 1 && wide_vectors;
  plan.decode_dense = false;
  plan.decode_split_y = false;
  plan.decode_pairs = 0;
  if (!plan.decode) return;
  DecodeParams& d = plan.dec;
  d.slot_mapping = p.slot_mapping;
  for (int t = 0; t < 2; ++t) {
    d.src[t] = p.tensor[t].src;
    d.dst[t] = p.tensor[t].dst;
    d.src_token_stride[t] = p.tensor[t].src_token_stride;
    d.scale[t] = p.tensor[t].scale;
  }
  d.num_slots = p.num_slots;
  d.dst_slot_stride = p.dst_slot_stride;
  d.units_per_row = p.units_per_row;
  plan.decode_split_y = p.num_tokens <= kDecodeSplitTokens;
  if (plan.fp8 && !plan.decode_split_y && multiple_of(p.units_per_row, 2) && ptr_multiple_of(d.dst[0], 16) &&
      ptr_multiple_of(d.dst[1], 16) && multiple_of(p.dst_slot_stride, 16) && multiple_of(p.dst_page_stride, 16)) {
    plan.decode_pairs = 1;
  }
  uint32_t l = log2_ceil(plan.decode_pairs != 0 ? (p.units_per_row + 1) / 2 : p.units_per_row);
  if (l > 8) l = 8;
  if (plan.fp8 && plan.decode_pairs == 0 && p.num_tokens >= kDecodeFp8TwoTokens && l > 5) --l;
  d.lanes_log2 = l;
  d.page_size = p.page_size;
  d.dst_page_stride = p.dst_page_stride;
  d.page_magic = p.page_magic;
  // page_size * slot stride cannot overflow: validation bounds the cache's byte size.
  plan.decode_dense = p.dst_page_stride == p.page_size * p.dst_slot_stride;
}

inline StorePlan plan_kv_store(const kvref_kv_store_args& a) {
  StorePlan plan;
  const int64_t src_es = kvref_dtype_size(a.src_dtype);
  const int64_t dst_es = kvref_dtype_size(a.cache_dtype);
  const int64_t head_size = a.head_size;
  const int64_t page_elems = static_cast<int64_t>(a.block_size) * a.num_heads * head_size;
  const int64_t page_stride = a.cache_block_stride != 0 ? a.cache_block_stride : page_elems;
  ScatterParams& p = plan.params;
  p.tensor[0].src = static_cast<const unsigned char*>(a.key);
  p.tensor[0].dst = static_cast<unsigned char*>(a.key_cache);
  p.tensor[0].src_token_stride = a.key_stride_token * src_es;
  p.tensor[0].src_head_stride = a.key_stride_head * src_es;
  p.tensor[0].scale = a.k_scale;
  p.tensor[1].src = static_cast<const unsigned char*>(a.value);
  p.tensor[1].dst = static_cast<unsigned char*>(a.value_cache);
  p.tensor[1].src_token_stride = a.value_stride_token * src_es;
  p.tensor[1].src_head_stride = a.value_stride_head * src_es;
  p.tensor[1].scale = a.v_scale;
  p.slot_mapping = a.slot_mapping;
  p.num_tokens = a.num_tokens;
  p.num_slots = a.num_blocks * a.block_size;
  p.page_size = a.block_size;
  p.page_magic = page_magic_for(a.block_size);
  p.dst_page_stride = page_stride * dst_es;
  if (a.layout == KVREF_LAYOUT_NHD) {
    p.dst_slot_stride = static_cast<int64_t>(a.num_heads) * head_size * dst_es;
    p.dst_head_stride = head_size * dst_es;
  } else {
    p.dst_slot_stride = head_size * dst_es;
    p.dst_head_stride = static_cast<int64_t>(a.block_size) * head_size * dst_es;
  }
  plan.num_tensors = 2;
  plan.fp8 = a.cache_dtype == KVREF_DTYPE_FP8_E4M3;
  plan.src_dtype = a.src_dtype;
  int64_t heads = a.num_heads;
  int64_t row_elems = head_size;
  // Heads contiguous on both sides (NHD with dense heads): one row of num_heads * head_size.
  if (heads > 1 && p.dst_head_stride == head_size * dst_es &&
      p.tensor[0].src_head_stride == head_size * src_es &&
      p.tensor[1].src_head_stride == head_size * src_es) {
    row_elems = heads * head_size;
    heads = 1;
    p.tensor[0].src_head_stride = p.tensor[1].src_head_stride = 0;
    p.dst_head_stride = 0;
  }
  p.num_heads = static_cast<uint32_t>(heads);
  if (!plan.fp8) {
    const int64_t v[] = {
        static_cast<int64_t>(reinterpret_cast<uintptr_t>(a.key)),
        static_cast<int64_t>(reinterpret_cast<uintptr_t>(a.value)),
        static_cast<int64_t>(reinterpret_cast<uintptr_t>(a.key_cache)),
        static_cast<int64_t>(reinterpret_cast<uintptr_t>(a.value_cache)),
        p.tensor[0].src_token_stride, p.tensor[0].src_head_stride, p.tensor[1].src_token_stride,
        p.tensor[1].src_head_stride, p.dst_page_stride, p.dst_slot_stride, p.dst_head_stride};
    plan.vector_bytes = widest_vector(v, 11, row_elems * src_es);
    p.units_per_row = static_cast<uint32_t>(row_elems * src_es / plan.vector_bytes);
  } else {
    // 8 elements per unit: src loads of 16 (or 2 x 16) bytes, dst stores of 8 bytes.
    const int64_t sv[] = {
        static_cast<int64_t>(reinterpret_cast<uintptr_t>(a.key)),
        static_cast<int64_t>(reinterpret_cast<uintptr_t>(a.value)),
        p.tensor[0].src_token_stride, p.tensor[0].src_head_stride, p.tensor[1].src_token_stride,
        p.tensor[1].src_head_stride};
    const int64_t dv[] = {
        static_cast<int64_t>(reinterpret_cast<uintptr_t>(a.key_cache)),
        static_cast<int64_t>(reinterpret_cast<uintptr_t>(a.value_cache)), p.dst_page_stride,
        p.dst_slot_stride, p.dst_head_stride};
    bool vec = multiple_of(row_elems, 8);
    for (int i = 0; i < 6 && vec; ++i) vec = multiple_of(sv[i], 16);
    for (int i = 0; i < 5 && vec; ++i) vec = multiple_of(dv[i], 8);
    plan.vector_bytes = vec ? 8 : 1;
    p.units_per_row = static_cast<uint32_t>(row_elems / plan.vector_bytes);
  }
  plan_threads(plan);
  plan_decode(plan);
  plan.bulk = false;
  plan.bulk_smem = 0;
  return plan;
}

// Bulk record store (record_store_bulk_kernel): taken when the bulk copies can move the
// records (src, cache, src_stride, record_bytes and page_bytes multiples of 16: vector_bytes
// 16), the batch has at least kBulkRecordTokens tokens, and the kernel can run on the device
// with a chunk's records in shared memory (bulk_smem_limit: the dynamic shared memory the
// kernel may take there, 0 where it cannot run - HIP, devices below compute capability 9.0,
// code built for an older architecture; kvref_launch.cu asks the runtime once per device).
// A chunk is bulk_record_chunk(record bytes) tokens (one CTA each).  Chosen on an H200 with
// kvref_bench --records (docs/kvref/performance.md): from 2,048 tokens the bulk kernel is ahead
// of scatter_copy_kernel for both MLA records (bf16 1,152 B, fp8 656 B), at 1-1,024 tokens
// behind by 0.04-0.43 us (a record's extra trip through shared memory and the mbarrier wait).
// Chunks of 8 tokens were ahead of 16 for the bf16 records in every run (32K: 85.7-86.1 % of
// copy against 85.0-85.3 %; 64K: +0.2-0.3 points, four runs), 16 ahead for the fp8 records
// (64K: 85.5-85.6 % against 84.4-84.7 %); 32 mostly behind.  L2 evict_first hints (the kernel's template
// flags) are not used: on the stores alone they gained up to 3 points at 32K and lost 1 at 64K
// (bf16); on loads and stores they gained 2-4 points at bf16 32K / fp8 64K but lost 2 at bf16
// 64K and 11-31 at the sizes whose source and cache stay in L2 between calls.
constexpr int64_t kBulkRecordTokens = 2048;
// Records of a KiB or more in chunks of 8 (9 KiB of shared memory per CTA for bf16 MLA), smaller
// ones in chunks of 16.
inline int64_t bulk_record_chunk(int64_t record_bytes) { return record_bytes >= 1024 ? 8 : 16; }

inline StorePlan plan_record_store(const kvref_record_store_args& a, int64_t bulk_smem_limit = 0) {
  StorePlan plan;
  ScatterParams& p = plan.params;
  p.tensor[0].src = static_cast<const unsigned char*>(a.src);
  p.tensor[0].dst = static_cast<unsigned char*>(a.cache);
  p.tensor[0].src_token_stride = a.src_stride;
  p.tensor[0].src_head_stride = 0;
  p.tensor[0].scale = nullptr;
  p.tensor[1] = p.tensor[0];
  p.slot_mapping = a.slot_mapping;
  p.num_tokens = a.num_tokens;
  p.num_slots = a.num_pages * a.page_size;
  p.page_size = a.page_size;
  p.page_magic = page_magic_for(a.page_size);
  p.dst_page_stride = a.page_bytes;
  p.dst_slot_stride = a.record_bytes;
  p.dst_head_stride = 0;
  p.num_heads = 1;
  plan.num_tensors = 1;
  plan.fp8 = false;
  plan.src_dtype = 0;
  const int64_t v[] = {static_cast<int64_t>(reinterpret_cast<uintptr_t>(a.src)),
                       static_cast<int64_t>(reinterpret_cast<uintptr_t>(a.cache)), a.src_stride,
                       a.page_bytes};
  plan.vector_bytes = widest_vector(v, 4, a.record_bytes);
  p.units_per_row = static_cast<uint32_t>(a.record_bytes / plan.vector_bytes);
  plan_threads(plan);
  plan.decode = false;
  plan.decode_dense = false;
  plan.decode_split_y = false;
  plan.decode_pairs = 0;
  const int64_t chunk = bulk_record_chunk(a.record_bytes);
  const int64_t smem = chunk * a.record_bytes;  // record_bytes < 2^31: no overflow
  plan.bulk = plan.vector_bytes == 16 && a.num_tokens >= kBulkRecordTokens && smem <= bulk_smem_limit;
  plan.bulk_smem = 0;
  if (plan.bulk) {
    p.tokens_per_block = static_cast<uint32_t>(chunk);
    p.lanes_log2 = 0;
    plan.grid_y = 1;
    plan.bulk_smem = smem;
  }
  return plan;
}

}  // namespace kvref

#endif  // KVREF_SRC_PLAN_H
