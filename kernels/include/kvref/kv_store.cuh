// kvref/kv_store.cuh - paged K/V store and record store kernels.
//
// Both stores are one "row scatter": token t's rows (one per head; one record for the record
// store) are copied from src + t * src_token_stride + h * src_head_stride to
//   dst + page_offset(page, dst_page_stride) + in_page * dst_slot_stride + h * dst_head_stride
// with page = slot / page_size, in_page = slot % page_size (all strides in bytes, all offsets
// 64-bit).  A group of 2^lanes_log2 threads (4..32, chosen by the host from the row size)
// handles one token; each thread moves kStoreUnroll independent 16-byte (or narrower, by
// alignment) vectors per iteration.
#ifndef KVREF_KV_STORE_CUH
#define KVREF_KV_STORE_CUH

#include "kvref/dtypes.cuh"
#include "kvref/offsets.cuh"
#include "kvref/portable.cuh"

namespace kvref {

constexpr int kStoreThreads = 256;
constexpr int kStoreUnroll = 4;

struct alignas(16) Vec16 {
  uint32_t x, y, z, w;
};
struct alignas(8) Vec8 {
  uint32_t x, y;
};

struct ScatterTensor {
  const unsigned char* src;
  unsigned char* dst;
  int64_t src_token_stride;  // bytes
  int64_t src_head_stride;   // bytes
  const float* scale;        // fp8 only
};

struct ScatterParams {
  ScatterTensor tensor[2];      // K and V (blockIdx.y); the record store uses one
  const int64_t* slot_mapping;  // [num_tokens]
  int64_t num_tokens;
  int64_t num_slots;            // pages * page_size: slots at or past it are skipped
  int64_t page_size;
  int64_t dst_page_stride;      // bytes
  int64_t dst_slot_stride;      // bytes
  int64_t dst_head_stride;      // bytes
  uint32_t num_heads;           // rows per token
  uint32_t units_per_row;       // vectors (copy) or element groups (fp8) per row
  uint32_t lanes_log2;          // threads per token = 1 << lanes_log2 (2..5)
};

#if defined(KVREF_GPU)

// Start of token `token`'s destination in the cache, or nullptr when the token is skipped.
KVREF_DEVICE inline unsigned char* token_destination(const ScatterParams& p, unsigned char* dst,
                                                     int64_t token) {
  const int64_t slot = p.slot_mapping[token];
  if (slot < 0 || slot >= p.num_slots) return nullptr;
  int64_t page;
  int64_t in_page;
  divmod(slot, p.page_size, page, in_page);
  return dst + page_offset(page, p.dst_page_stride) + page_offset(in_page, p.dst_slot_stride);
}

// Plain copy; V is the widest vector type that the alignment of every pointer and stride allows.
template <typename V>
KVREF_GLOBAL void scatter_copy_kernel(const ScatterParams p) {
  const ScatterTensor& tt = p.tensor[dev::block_y()];
  const uint32_t lanes = 1u << p.lanes_log2;
  const uint32_t lane = dev::thread_x() & (lanes - 1u);
  const int64_t token = page_offset(dev::block_x(), kStoreThreads >> p.lanes_log2) +
                        (dev::thread_x() >> p.lanes_log2);
  if (token >= p.num_tokens) return;
  unsigned char* dst = token_destination(p, tt.dst, token);
  if (dst == nullptr) return;
  const unsigned char* src = tt.src + page_offset(token, tt.src_token_stride);
  const uint32_t upr = p.units_per_row;
  const uint32_t total = p.num_heads * upr;
  for (uint32_t base = lane; base < total; base += lanes * kStoreUnroll) {
    V r[kStoreUnroll];
    int64_t src_off[kStoreUnroll];
    int64_t dst_off[kStoreUnroll];
#pragma unroll
    for (int u = 0; u < kStoreUnroll; ++u) {
      const uint32_t i = base + static_cast<uint32_t>(u) * lanes;
      const uint32_t h = p.num_heads == 1 ? 0u : i / upr;
      const int64_t c = static_cast<int64_t>(i - h * upr) * static_cast<int64_t>(sizeof(V));
      src_off[u] = page_offset(h, tt.src_head_stride) + c;
      dst_off[u] = page_offset(h, p.dst_head_stride) + c;
      if (i < total) r[u] = *reinterpret_cast<const V*>(src + src_off[u]);
    }
#pragma unroll
    for (int u = 0; u < kStoreUnroll; ++u) {
      const uint32_t i = base + static_cast<uint32_t>(u) * lanes;
      if (i < total) *reinterpret_cast<V*>(dst + dst_off[u]) = r[u];
    }
  }
}

// Two quantised fp8 values packed as (e4m3(b / scale) << 8) | e4m3(a / scale).  On sm_89+ the
// hardware conversion (RNE, saturating, as the software one); NaNs are canonicalised to 0x7f
// on both paths, so CUDA, HIP and the CPU reference agree bit for bit.
KVREF_DEVICE inline uint32_t quantize_fp8_x2(float a, float b, float scale) {
#if defined(KVREF_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  const float qa = a / scale;
  const float qb = b / scale;
  unsigned short r;
  asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(r) : "f"(qb), "f"(qa));
  uint32_t out = r;
  if (qa != qa) out = (out & 0xff00u) | 0x7fu;
  if (qb != qb) out = (out & 0x00ffu) | 0x7f00u;
  return out;
#else
  return static_cast<uint32_t>(quantize_fp8(a, scale)) |
         (static_cast<uint32_t>(quantize_fp8(b, scale)) << 8);
#endif
}

// Loads kElems source elements (raw bits) starting at p.
template <int kSrc, int kElems>
KVREF_DEVICE inline void load_elems(const unsigned char* p, float (&out)[kElems]) {
  typedef typename SrcElem<kSrc>::raw Raw;
  if (kElems == 8) {
    uint32_t w[sizeof(Raw) * 2];
    const Vec16* q = reinterpret_cast<const Vec16*>(p);
#pragma unroll
    for (int k = 0; k < static_cast<int>(sizeof(Raw)) / 2; ++k) {
      const Vec16 v = q[k];
      w[4 * k + 0] = v.x;
      w[4 * k + 1] = v.y;
      w[4 * k + 2] = v.z;
      w[4 * k + 3] = v.w;
    }
#pragma unroll
    for (int e = 0; e < kElems; ++e) {
      Raw r;
      if (sizeof(Raw) == 2) {
        r = static_cast<Raw>((w[e / 2] >> (16 * (e % 2))) & 0xffffu);
      } else {
        r = static_cast<Raw>(w[e]);
      }
      out[e] = SrcElem<kSrc>::to_float(r);
    }
  } else {
#pragma unroll
    for (int e = 0; e < kElems; ++e) {
      out[e] = SrcElem<kSrc>::to_float(reinterpret_cast<const Raw*>(p)[e]);
    }
  }
}

// Quantising store to an fp8 e4m3 cache, kElems (8 or 1) elements per unit.
template <int kSrc, int kElems>
KVREF_GLOBAL void scatter_fp8_kernel(const ScatterParams p) {
  typedef typename SrcElem<kSrc>::raw Raw;
  const ScatterTensor& tt = p.tensor[dev::block_y()];
  const uint32_t lanes = 1u << p.lanes_log2;
  const uint32_t lane = dev::thread_x() & (lanes - 1u);
  const int64_t token = page_offset(dev::block_x(), kStoreThreads >> p.lanes_log2) +
                        (dev::thread_x() >> p.lanes_log2);
  if (token >= p.num_tokens) return;
  unsigned char* dst = token_destination(p, tt.dst, token);
  if (dst == nullptr) return;
  const unsigned char* src = tt.src + page_offset(token, tt.src_token_stride);
  const float scale = *tt.scale;
  const uint32_t upr = p.units_per_row;
  const uint32_t total = p.num_heads * upr;
  // kUnits independent units per thread and iteration: all loads first, then convert + store.
  // 8-element units are converted one at a time (register pressure: measured faster on H200).
  constexpr int kUnits = kElems == 8 ? 1 : kStoreUnroll;
  for (uint32_t base = lane; base < total; base += lanes * kUnits) {
    float x[kUnits][kElems];
    int64_t dst_off[kUnits];
#pragma unroll
    for (int u = 0; u < kUnits; ++u) {
      const uint32_t i = base + static_cast<uint32_t>(u) * lanes;
      const uint32_t h = p.num_heads == 1 ? 0u : i / upr;
      const int64_t c = static_cast<int64_t>(i - h * upr) * kElems;
      dst_off[u] = page_offset(h, p.dst_head_stride) + c;
      if (i < total) {
        load_elems<kSrc, kElems>(
            src + page_offset(h, tt.src_head_stride) + c * static_cast<int64_t>(sizeof(Raw)), x[u]);
      }
    }
#pragma unroll
    for (int u = 0; u < kUnits; ++u) {
      const uint32_t i = base + static_cast<uint32_t>(u) * lanes;
      if (i >= total) continue;
      unsigned char* d = dst + dst_off[u];
      if (kElems == 8) {
        Vec8 o;
        o.x = 0;
        o.y = 0;
#pragma unroll
        for (int e = 0; e < 4; e += 2) {
          o.x |= quantize_fp8_x2(x[u][e], x[u][e + 1], scale) << (8 * e);
          o.y |= quantize_fp8_x2(x[u][e + 4], x[u][e + 5], scale) << (8 * e);
        }
        *reinterpret_cast<Vec8*>(d) = o;
      } else {
#pragma unroll
        for (int e = 0; e < kElems; ++e) d[e] = quantize_fp8(x[u][e], scale);
      }
    }
  }
}

#endif  // KVREF_GPU

}  // namespace kvref

#endif  // KVREF_KV_STORE_CUH
