// kvref/kv_store.cuh - paged K/V store and record store kernels.
//
// Both stores are one "row scatter": token t's rows (one per head; one record for the record
// store) are copied from src + t * src_token_stride + h * src_head_stride to
//   dst + page_offset(page, dst_page_stride) + in_page * dst_slot_stride + h * dst_head_stride
// with page = slot / page_size, in_page = slot % page_size (all strides in bytes, all offsets
// 64-bit).  One launch stores K and V; a group of 2^lanes_log2 threads handles one token.  Each
// thread issues its loads - the slot, the fp8 scales and its 16-byte (or narrower, by
// alignment) source vectors - before its first store, so a token waits for one memory round
// trip, not two.  The host picks the kernel variant (unroll; K and V in one thread or in
// separate CTAs by blockIdx.y), the group size and the tokens per CTA (src/plan.h): decode-sized
// batches one vector per thread, spread over the SMs; prefill-sized batches 2-4 vectors per
// thread in 64/128-thread CTAs.
#ifndef KVREF_KV_STORE_CUH
#define KVREF_KV_STORE_CUH

#include "kvref/dtypes.cuh"
#include "kvref/offsets.cuh"
#include "kvref/portable.cuh"

namespace kvref {

constexpr int kStoreThreads = 256;  // the most threads per CTA the plan uses
// Default unroll: independent vectors a thread has in flight per iteration over all tensors.
constexpr int kStoreVectors = 8;

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
  ScatterTensor tensor[2];      // K and V; the record store uses tensor[0]
  const int64_t* slot_mapping;  // [num_tokens]
  int64_t num_tokens;
  int64_t num_slots;            // pages * page_size: slots at or past it are skipped
  int64_t page_size;
  int64_t dst_page_stride;      // bytes
  int64_t dst_slot_stride;      // bytes
  int64_t dst_head_stride;      // bytes
  uint64_t page_magic;          // ceil(2^64 / page_size) for page_size > 1 (fast division)
  uint32_t num_heads;           // rows per token
  uint32_t units_per_row;       // vectors (copy) or element groups (fp8) per row
  uint32_t lanes_log2;          // threads per token = 1 << lanes_log2 (0..8)
  uint32_t tokens_per_block;    // tokens per CTA (blockDim.x = tokens_per_block << lanes_log2)
};

// Lemire's multiply-high division: for page_size d > 1 and magic = ceil(2^64 / d),
// mulhi64(magic, n) == n / d for every n < 2^32.
KVREF_HOST_DEVICE inline uint64_t page_magic_for(int64_t d) {
  return d > 1 ? ~uint64_t(0) / static_cast<uint64_t>(d) + 1 : 0;
}
KVREF_HOST_DEVICE inline uint64_t mulhi64(uint64_t a, uint64_t b) {
#if defined(KVREF_CUDA) && defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  return static_cast<uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
}

#if defined(KVREF_GPU)

// Loads that the compiler must issue where they are written: the store kernels read the slot
// and the source rows before they look at the slot, and an ordinary load feeding only a store
// under `slot >= 0` could be sunk below that test (one more memory round trip per token).
// kNc: through the read-only (non-coherent) path; the sources are not written by the kernel.
template <bool kNc, typename T>
KVREF_DEVICE inline T load_early(const T* p) {
  return *p;
}
#if defined(KVREF_CUDA) && defined(__CUDA_ARCH__)
template <bool kNc>
KVREF_DEVICE inline Vec16 load_early(const Vec16* p) {
  Vec16 v;
  if (kNc) {
    asm volatile("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
  } else {
    asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
  }
  return v;
}
template <bool kNc>
KVREF_DEVICE inline Vec8 load_early(const Vec8* p) {
  Vec8 v;
  if (kNc) {
    asm volatile("ld.global.nc.v2.u32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "l"(p));
  } else {
    asm volatile("ld.global.v2.u32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "l"(p));
  }
  return v;
}
template <bool kNc>
KVREF_DEVICE inline float load_early(const float* p) {
  float v;
  if (kNc) {
    asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(v) : "l"(p));
  } else {
    asm volatile("ld.global.f32 %0, [%1];" : "=f"(v) : "l"(p));
  }
  return v;
}
template <bool kNc>
KVREF_DEVICE inline int64_t load_early(const int64_t* p) {
  int64_t v;
  if (kNc) {
    asm volatile("ld.global.nc.s64 %0, [%1];" : "=l"(v) : "l"(p));
  } else {
    asm volatile("ld.global.s64 %0, [%1];" : "=l"(v) : "l"(p));
  }
  return v;
}
#endif

// 64-bit division of a slot by the page size (slots at or past 2^32, or page size 1), out of
// line.
KVREF_DEVICE inline KVREF_NOINLINE int64_t slot_page_wide(int64_t slot, int64_t page_size) {
  int64_t page;
  int64_t in_page;
  divmod(slot, page_size, page, in_page);
  return page;
}

// Offset of token `slot`'s entry in a cache, or -1 when the slot is skipped (pad or past the
// last page).  Slots below 2^32 divide by the page size with one multiply-high.
KVREF_DEVICE inline int64_t slot_destination(const ScatterParams& p, int64_t slot) {
  if (slot < 0 || slot >= p.num_slots) return -1;
  int64_t page;
  if (p.page_magic != 0 && static_cast<uint64_t>(slot) <= 0xffffffffull) {
    page = static_cast<int64_t>(mulhi64(p.page_magic, static_cast<uint64_t>(slot)));
  } else {
    page = slot_page_wide(slot, p.page_size);
  }
  const int64_t in_page = slot - page * p.page_size;
  return page_offset(page, p.dst_page_stride) + page_offset(in_page, p.dst_slot_stride);
}

// Token handled by this thread (-1 past the end), and its lane in the token's thread group.
KVREF_DEVICE inline int64_t store_token(const ScatterParams& p, uint32_t& lane) {
  lane = dev::thread_x() & ((1u << p.lanes_log2) - 1u);
  const int64_t token =
      page_offset(dev::block_x(), p.tokens_per_block) + (dev::thread_x() >> p.lanes_log2);
  return token < p.num_tokens ? token : -1;
}

// Tensor t of the kTensors a thread moves: with kTensors == 2 both K and V (t = 0, 1); with
// kTensors == 1 the one the CTA's blockIdx.y selects (K/V split over CTAs, or the record store).
template <int kTensors>
KVREF_DEVICE inline const ScatterTensor& store_tensor(const ScatterParams& p, int t) {
  if (kTensors == 2) return p.tensor[t];
  return dev::block_y() != 0 ? p.tensor[1] : p.tensor[0];
}

// Plain copy of kTensors tensors per thread, kU vectors per tensor and iteration; V is the
// widest vector type that the alignment of every pointer and stride allows.
template <typename V, int kTensors, int kU = kStoreVectors / kTensors, bool kNc = true>
KVREF_GLOBAL void scatter_copy_kernel(const ScatterParams p) {
  uint32_t lane;
  const int64_t token = store_token(p, lane);
  if (token < 0) return;
  const int64_t slot = load_early<kNc>(p.slot_mapping + token);  // in flight with the rows below
  const uint32_t lanes = 1u << p.lanes_log2;
  const uint32_t upr = p.units_per_row;
  const uint32_t total = p.num_heads * upr;
  const unsigned char* src[kTensors];
  unsigned char* dst_base[kTensors];
  int64_t src_head_stride[kTensors];
#pragma unroll
  for (int t = 0; t < kTensors; ++t) {
    const ScatterTensor& tt = store_tensor<kTensors>(p, t);
    src[t] = tt.src + page_offset(token, tt.src_token_stride);
    dst_base[t] = tt.dst;
    src_head_stride[t] = tt.src_head_stride;
  }
  int64_t dst = -2;  // computed once, after the first loads are issued
  for (uint32_t base = lane; base < total; base += lanes * kU) {
    V r[kTensors][kU];
    int64_t dst_off[kU];
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      const uint32_t i = base + static_cast<uint32_t>(u) * lanes;
      const uint32_t h = p.num_heads == 1 ? 0u : i / upr;
      const int64_t c = static_cast<int64_t>(i - h * upr) * static_cast<int64_t>(sizeof(V));
      dst_off[u] = page_offset(h, p.dst_head_stride) + c;
      if (i < total) {
#pragma unroll
        for (int t = 0; t < kTensors; ++t) {
          r[t][u] = load_early<kNc>(reinterpret_cast<const V*>(src[t] + page_offset(h, src_head_stride[t]) + c));
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
        for (int t = 0; t < kTensors; ++t) {
          *reinterpret_cast<V*>(dst_base[t] + dst + dst_off[u]) = r[t][u];
        }
      }
    }
  }
}

// The quantiser's divisor: `scale`, and `inv` = RN(1 / scale) when the division-free path of
// quantize_unit may be used (2^-60 <= scale < 2^61), else 0.
struct Fp8Scale {
  float scale;
  float inv;
};
KVREF_DEVICE inline Fp8Scale fp8_scale(float scale) {
  Fp8Scale s;
  s.scale = scale;
  const uint32_t b = float_bits(scale);
  const uint32_t e = (b >> 23) & 0xffu;
  const bool ok = (b >> 31) == 0 && e >= 127u - 60u && e <= 127u + 60u;
  s.inv = ok ? 1.0f / scale : 0.0f;
  return s;
}

// Two quantised fp8 values packed as (e4m3(b / scale) << 8) | e4m3(a / scale), the way the CPU
// reference defines them: IEEE division, RNE, saturation to +-448, NaN -> 0x7f.  On sm_89+ the
// hardware conversion (RNE, saturating); NaNs are canonicalised to 0x7f on both paths.
KVREF_DEVICE inline uint32_t quantize_fp8_x2(float a, float b, const Fp8Scale& s) {
#if defined(KVREF_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  const float qa = a / s.scale;
  const float qb = b / s.scale;
  unsigned short r;
  asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(r) : "f"(qb), "f"(qa));
  uint32_t out = r;
  if (qa != qa) out = (out & 0xff00u) | 0x7fu;
  if (qb != qb) out = (out & 0x00ffu) | 0x7f00u;
  return out;
#else
  return static_cast<uint32_t>(quantize_fp8(a, s.scale)) |
         (static_cast<uint32_t>(quantize_fp8(b, s.scale)) << 8);
#endif
}

// Source element (raw bits) to float; the CUDA device path uses the exact hardware conversion.
template <int kSrc>
KVREF_DEVICE inline float src_to_float(typename SrcElem<kSrc>::raw r) {
#if defined(KVREF_CUDA) && defined(__CUDA_ARCH__)
  if (kSrc == 0) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(static_cast<unsigned short>(r)));
    return f;
  }
#endif
  return SrcElem<kSrc>::to_float(r);
}

// The 8 source elements of a unit, held as raw words w[] (2-byte sources: 4 words; 4-byte
// sources: 8 words), as floats.
template <int kSrc>
KVREF_DEVICE inline void unit_floats(const uint32_t* w, float (&x)[8]) {
  typedef typename SrcElem<kSrc>::raw Raw;
#pragma unroll
  for (int e = 0; e < 8; ++e) {
    Raw r;
    if (sizeof(Raw) == 2) {
      r = static_cast<Raw>((w[e / 2] >> (16 * (e % 2))) & 0xffffu);
    } else {
      r = static_cast<Raw>(w[e]);
    }
    x[e] = src_to_float<kSrc>(r);
  }
}

// 8 fp8 bytes from 8 floats, exactly as quantize_fp8_x2 (the reference: the IEEE quotient
// x / scale in fp32, then e4m3 RNE) gives them.
//
// Fast path (CUDA sm_89+, 0 < scale in [2^-60, 2^60]): the fp32 quotient without a division.
// With inv = RN(1 / scale), q0 = RN(x * inv) is within 1 ulp of x / scale, the residual
// r = x - q0 * scale is exact in one FMA, and RN(q0 + r * inv) is the correctly rounded quotient
// (Markstein's theorem; it needs no underflow, which holds wherever e4m3 can tell values apart:
// |x / scale| >= 2^-10 with scale >= 2^-60 keeps every intermediate normal).  r == 0 keeps q0
// (the quotient is exact; this also keeps the sign of -0).  Units holding a NaN or an infinity,
// or whose quotient overflows, take the reference path.  Checked against the reference for
// every bf16 and f16 value and 2^20 random f32 values at ten scales on the GPU
// (kvref_gpu_tests), and for 3,000 random scales on the host during development.
// The reference conversion of a unit (IEEE division), out of line on the GPU (arguments by
// value: they travel in registers).
KVREF_DEVICE inline KVREF_NOINLINE Vec8 quantize_unit_reference(float x0, float x1, float x2, float x3,
                                                               float x4, float x5, float x6, float x7,
                                                               float scale) {
  Fp8Scale s;
  s.scale = scale;
  s.inv = 0.0f;
  Vec8 o;
  o.x = quantize_fp8_x2(x0, x1, s) | (quantize_fp8_x2(x2, x3, s) << 16);
  o.y = quantize_fp8_x2(x4, x5, s) | (quantize_fp8_x2(x6, x7, s) << 16);
  return o;
}

KVREF_DEVICE inline Vec8 quantize_unit(const float (&x)[8], const Fp8Scale& s) {
#if defined(KVREF_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  if (s.inv != 0.0f) {
    float q[8];
    bool special = false;
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      const float q0 = __fmul_rn(x[e], s.inv);
      const float r = __fmaf_rn(-q0, s.scale, x[e]);
      q[e] = r != 0.0f ? __fmaf_rn(r, s.inv, q0) : q0;
      special = special || (float_bits(q[e]) & 0x7fffffffu) >= 0x7f800000u;
    }
    if (!special) {
      Vec8 o;
      o.x = 0;
      o.y = 0;
#pragma unroll
      for (int e = 0; e < 4; e += 2) {
        unsigned short lo, hi;
        asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(lo) : "f"(q[e + 1]), "f"(q[e]));
        asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(hi) : "f"(q[e + 5]), "f"(q[e + 4]));
        o.x |= static_cast<uint32_t>(lo) << (8 * e);
        o.y |= static_cast<uint32_t>(hi) << (8 * e);
      }
      return o;
    }
  }
#endif
  return quantize_unit_reference(x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7], s.scale);
}

// Quantising K/V store to an fp8 e4m3 cache, 8 elements per unit (16-byte aligned sources,
// 8-byte aligned destinations), kTensors tensors per thread (2: K and V; 1: blockIdx.y picks).
// All loads first (slot, K, V), then convert + store.
// Units per tensor and iteration of the fp8 kernel by default: kStoreVectors 16-byte loads over
// K and V.
constexpr int fp8_default_unroll(int src_dtype) { return src_dtype == 2 ? kStoreVectors / 4 : kStoreVectors / 2; }

template <int kSrc, int kTensors, int kU = fp8_default_unroll(kSrc), bool kNc = true>
KVREF_GLOBAL void scatter_fp8_vec_kernel(const ScatterParams p) {
  typedef typename SrcElem<kSrc>::raw Raw;
  constexpr int kLoads = static_cast<int>(sizeof(Raw)) / 2;  // Vec16 loads per unit
  uint32_t lane;
  const int64_t token = store_token(p, lane);
  if (token < 0) return;
  const int64_t slot = load_early<kNc>(p.slot_mapping + token);
  const uint32_t lanes = 1u << p.lanes_log2;
  const uint32_t upr = p.units_per_row;
  const uint32_t total = p.num_heads * upr;
  const unsigned char* src[kTensors];
  unsigned char* dst_base[kTensors];
  int64_t src_head_stride[kTensors];
  float scale_value[kTensors];
#pragma unroll
  for (int t = 0; t < kTensors; ++t) {
    const ScatterTensor& tt = store_tensor<kTensors>(p, t);
    src[t] = tt.src + page_offset(token, tt.src_token_stride);
    dst_base[t] = tt.dst;
    src_head_stride[t] = tt.src_head_stride;
    scale_value[t] = load_early<kNc>(tt.scale);  // in flight with the slot
  }
  int64_t dst = -2;
  Fp8Scale scale[kTensors];
  for (uint32_t base = lane; base < total; base += lanes * kU) {
    Vec16 r[kTensors][kU][kLoads];
    int64_t dst_off[kU];
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      const uint32_t i = base + static_cast<uint32_t>(u) * lanes;
      const uint32_t h = p.num_heads == 1 ? 0u : i / upr;
      const int64_t c = static_cast<int64_t>(i - h * upr) * 8;
      dst_off[u] = page_offset(h, p.dst_head_stride) + c;
      if (i < total) {
#pragma unroll
        for (int t = 0; t < kTensors; ++t) {
          const Vec16* q = reinterpret_cast<const Vec16*>(
              src[t] + page_offset(h, src_head_stride[t]) + c * static_cast<int64_t>(sizeof(Raw)));
#pragma unroll
          for (int k = 0; k < kLoads; ++k) r[t][u][k] = load_early<kNc>(q + k);
        }
      }
    }
    if (dst == -2) {
      dst = slot_destination(p, slot);
#pragma unroll
      for (int t = 0; t < kTensors; ++t) scale[t] = fp8_scale(scale_value[t]);
    }
    if (dst < 0) return;
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      const uint32_t i = base + static_cast<uint32_t>(u) * lanes;
      if (i < total) {
#pragma unroll
        for (int t = 0; t < kTensors; ++t) {
          uint32_t w[4 * kLoads];
#pragma unroll
          for (int k = 0; k < kLoads; ++k) {
            w[4 * k + 0] = r[t][u][k].x;
            w[4 * k + 1] = r[t][u][k].y;
            w[4 * k + 2] = r[t][u][k].z;
            w[4 * k + 3] = r[t][u][k].w;
          }
          float x[8];
          unit_floats<kSrc>(w, x);
          *reinterpret_cast<Vec8*>(dst_base[t] + dst + dst_off[u]) = quantize_unit(x, scale[t]);
        }
      }
    }
  }
}

// Quantising K/V store, one element per unit (any alignment).
template <int kSrc>
KVREF_GLOBAL void scatter_fp8_scalar_kernel(const ScatterParams p) {
  typedef typename SrcElem<kSrc>::raw Raw;
  uint32_t lane;
  const int64_t token = store_token(p, lane);
  if (token < 0) return;
  const int64_t slot = p.slot_mapping[token];
  const uint32_t lanes = 1u << p.lanes_log2;
  const uint32_t upr = p.units_per_row;
  const uint32_t total = p.num_heads * upr;
  const int64_t dst = slot_destination(p, slot);
  if (dst < 0) return;
#pragma unroll
  for (int t = 0; t < 2; ++t) {
    const unsigned char* src = p.tensor[t].src + page_offset(token, p.tensor[t].src_token_stride);
    const float scale = *p.tensor[t].scale;
    for (uint32_t i = lane; i < total; i += lanes) {
      const uint32_t h = p.num_heads == 1 ? 0u : i / upr;
      const int64_t c = static_cast<int64_t>(i - h * upr);
      const Raw r = *reinterpret_cast<const Raw*>(src + page_offset(h, p.tensor[t].src_head_stride) +
                                                  c * static_cast<int64_t>(sizeof(Raw)));
      p.tensor[t].dst[dst + page_offset(h, p.dst_head_stride) + c] =
          quantize_fp8(src_to_float<kSrc>(r), scale);
    }
  }
}

#endif  // KVREF_GPU

}  // namespace kvref

#endif  // KVREF_KV_STORE_CUH
