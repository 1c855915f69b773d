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
// separate CTAs by blockIdx.y), the group size and the tokens per CTA (src/plan.h): prefill-sized
// batches 2-4 vectors per thread in 64/128-thread CTAs.  Decode-sized K/V stores with
// contiguous (NHD) rows use the scatter_*_decode_kernel family below instead: one vector (fp8:
// one or two 8-element units) per thread, one CTA per token (or per token and tensor), a
// smaller parameter block.  Prefill-sized record stores of 16-byte aligned records on sm_90+
// CUDA devices use record_store_bulk_kernel (bulk async copies through shared memory; end of
// this file).
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

// Parameters of the decode-sized K/V store kernels (scatter_*_decode_kernel): only what they
// read, the fields every call reads first (a kernel's parameters are fetched through the
// constant cache of each SM it runs on).
struct DecodeParams {
  const int64_t* slot_mapping;  // [num_tokens], one CTA per token
  const unsigned char* src[2];  // K, V
  unsigned char* dst[2];
  int64_t src_token_stride[2];  // bytes
  int64_t num_slots;            // slots at or past it are skipped
  int64_t dst_slot_stride;      // bytes
  uint32_t units_per_row;       // 16-byte vectors (copy) or 8-element units (fp8) per row
  uint32_t lanes_log2;          // threads per row (K or V) = 1 << lanes_log2
  const float* scale[2];        // fp8 only
  // Pages with a gap (dst_page_stride > page_size * dst_slot_stride) only:
  int64_t page_size;
  int64_t dst_page_stride;      // bytes
  uint64_t page_magic;
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
KVREF_DEVICE inline uint32_t load_early(const uint32_t* p) {
  uint32_t v;
  if (kNc) {
    asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(v) : "l"(p));
  } else {
    asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(p));
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

// A vector store; kStream: with the evict-first (".cs", streaming) cache hint on CUDA.
template <bool kStream, typename V>
KVREF_DEVICE inline void store_vec(V* p, const V& v) {
#if defined(KVREF_CUDA) && defined(__CUDA_ARCH__)
  if (kStream && sizeof(V) == 16) {
    const Vec16& w = reinterpret_cast<const Vec16&>(v);
    asm volatile("st.global.cs.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(w.x), "r"(w.y), "r"(w.z), "r"(w.w)
                 : "memory");
    return;
  }
#endif
  *p = v;
}

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
template <typename P>
KVREF_DEVICE inline int64_t paged_destination(const P& p, int64_t slot) {
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
KVREF_DEVICE inline int64_t slot_destination(const ScatterParams& p, int64_t slot) {
  return paged_destination(p, slot);
}

// How the threads of a store kernel share K and V (the kernels' kMode parameter):
//   kBoth      (2): a thread moves its units of K and of V;
//   kByBlockY  (1): blockIdx.y selects the tensor (K/V in separate CTAs; the record store);
//   kLaneSplit (3): a token has 2 << lanes_log2 threads, the low half moves K, the high half V
//                   (one CTA holds both tensors of its tokens: half the CTAs of kByBlockY).
constexpr int kByBlockY = 1;
constexpr int kBoth = 2;
constexpr int kLaneSplit = 3;
// Tensors each thread moves.
KVREF_HOST_DEVICE constexpr int tensors_per_thread(int mode) { return mode == kBoth ? 2 : 1; }

// Token handled by this thread (-1 past the end), and its lane in the token's thread group.
template <int kMode>
KVREF_DEVICE inline int64_t store_token(const ScatterParams& p, uint32_t& lane) {
  lane = dev::thread_x() & ((1u << p.lanes_log2) - 1u);
  const uint32_t group_log2 = p.lanes_log2 + (kMode == kLaneSplit ? 1u : 0u);
  const int64_t token =
      page_offset(dev::block_x(), p.tokens_per_block) + (dev::thread_x() >> group_log2);
  return token < p.num_tokens ? token : -1;
}

// Tensor t of the tensors a thread moves: with kBoth K and V (t = 0, 1); with kByBlockY the
// one the CTA's blockIdx.y selects; with kLaneSplit the one the thread's half of its token's
// group selects.
template <int kMode>
KVREF_DEVICE inline const ScatterTensor& store_tensor(const ScatterParams& p, int t) {
  if (kMode == kBoth) return p.tensor[t];
  if (kMode == kLaneSplit) return ((dev::thread_x() >> p.lanes_log2) & 1u) != 0 ? p.tensor[1] : p.tensor[0];
  return dev::block_y() != 0 ? p.tensor[1] : p.tensor[0];
}

// Plain copy, K and V shared among threads as kMode says, kU vectors per tensor and iteration;
// V is the widest vector type that the alignment of every pointer and stride allows.
template <typename V, int kMode, int kU = kStoreVectors / tensors_per_thread(kMode), bool kNc = true,
          bool kStreamStore = false>
KVREF_GLOBAL void scatter_copy_kernel(const ScatterParams p) {
  dev::wait_prerequisite_grids();
  constexpr int kTensors = tensors_per_thread(kMode);
  uint32_t lane;
  const int64_t token = store_token<kMode>(p, lane);
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
    const ScatterTensor& tt = store_tensor<kMode>(p, t);
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
          store_vec<kStreamStore>(reinterpret_cast<V*>(dst_base[t] + dst + dst_off[u]), r[t][u]);
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

// The kElems source elements of a unit, held as raw words w[] (2-byte sources: two per word;
// 4-byte sources: one), as floats.
template <int kSrc, int kElems>
KVREF_DEVICE inline void unit_floats(const uint32_t* w, float (&x)[kElems]) {
  typedef typename SrcElem<kSrc>::raw Raw;
#pragma unroll
  for (int e = 0; e < kElems; ++e) {
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
// |x / scale| >= 2^-10 with scale >= 2^-60 keeps every intermediate normal); the residual is
// formed negated so that zeros keep their sign (see below).  A unit holding a NaN or an infinity, or one whose q0
// overflows, yields a NaN quotient (inf - inf or inf * 0 on the way) and takes the reference
// path; a finite q0 whose corrected quotient overflows gives +-inf, which the saturating
// conversion maps to +-448 as the reference does.  Checked against the reference for
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

// The fast path's bytes of kElems (2, 4, 8) quotients: byte e of lo (e < 4) or hi (e >= 4) is
// e4m3(RN(x[e] / scale)) unless the unit is special (see quantize_unit); needs s.inv != 0 and
// sm_89+.  `nan` is set when a quotient is NaN (only used with !kNanBytes).
#if defined(KVREF_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
template <int kElems, bool kNanBytes>
KVREF_DEVICE inline void quantize_fast(const float (&x)[kElems], const Fp8Scale& s, uint32_t& lo, uint32_t& hi,
                                       bool& nan) {
  float q[kElems];
#pragma unroll
  for (int e = 0; e < kElems; ++e) {
    // nr = q0 * scale - x = -r, exactly; q = q0 + r * inv = RN(-nr * inv + q0).  Written
    // with -nr rather than r, the zeros come out signed as the quotient: x = -0 gives
    // q0 = -0, nr = +0 and q = -0 * inv + -0 = -0 (with r, +0 + -0 = +0).  No branch, no
    // select: the negations are free operand modifiers of the FMAs.
    const float q0 = __fmul_rn(x[e], s.inv);
    const float nr = __fmaf_rn(q0, s.scale, -x[e]);
    q[e] = __fmaf_rn(-nr, s.inv, q0);
    if (!kNanBytes) nan = nan || q[e] != q[e];
  }
  lo = 0;
  hi = 0;
#pragma unroll
  for (int e = 0; e < kElems; e += 2) {
    unsigned short pair;
    asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(pair) : "f"(q[e + 1]), "f"(q[e]));
    if (e < 4) lo |= static_cast<uint32_t>(pair) << (8 * e);
    else hi |= static_cast<uint32_t>(pair) << (8 * (e - 4));
  }
}
#endif

// Non-zero when a byte of w is 0x7f or 0xff (a NaN quotient): such a byte b has
// (b & 0x7f) + 1 == 0x80, and no carry crosses bytes.  OR the results of several words first.
KVREF_DEVICE inline uint32_t nan_byte_bits(uint32_t w) { return (w & 0x7f7f7f7fu) + 0x01010101u; }

// kElems (2, 4 or 8) fp8 bytes, element e in byte e of the result.  A NaN quotient (from a NaN
// or infinite x, or a q0 that overflows) converts to 0x7f or 0xff, bytes no finite quotient
// gives (the saturating conversion stops at 0x7e): such units take the reference path, found
// by testing the packed bytes (kNanBytes; a few integer operations per unit) or, as before,
// every quotient (!kNanBytes; kept for kvref_bench --explore).
template <int kElems, bool kNanBytes = true>
KVREF_DEVICE inline uint64_t quantize_unit(const float (&x)[kElems], const Fp8Scale& s) {
#if defined(KVREF_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  if (s.inv != 0.0f) {
    uint32_t lo, hi;
    bool special = false;
    quantize_fast<kElems, kNanBytes>(x, s, lo, hi, special);
    if (kNanBytes) special = ((nan_byte_bits(lo) | nan_byte_bits(hi)) & 0x80808080u) != 0;
    if (!special) return static_cast<uint64_t>(lo) | (static_cast<uint64_t>(hi) << 32);
  }
#endif
  float y[8];
#pragma unroll
  for (int e = 0; e < 8; ++e) y[e] = e < kElems ? x[e % kElems] : 0.0f;
  const Vec8 o = quantize_unit_reference(y[0], y[1], y[2], y[3], y[4], y[5], y[6], y[7], s.scale);
  return static_cast<uint64_t>(o.x) | (static_cast<uint64_t>(o.y) << 32);
}

// Two 8-element units as 16 fp8 bytes (unit 0 in x, y; unit 1 in z, w), exactly as
// quantize_unit<8> gives each: one test for special bytes covers both units.
KVREF_DEVICE inline Vec16 quantize_unit_pair(const float (&a)[8], const float (&b)[8], const Fp8Scale& s) {
  Vec16 o;
#if defined(KVREF_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  if (s.inv != 0.0f) {
    bool unused = false;
    quantize_fast<8, true>(a, s, o.x, o.y, unused);
    quantize_fast<8, true>(b, s, o.z, o.w, unused);
    const uint32_t m = nan_byte_bits(o.x) | nan_byte_bits(o.y) | nan_byte_bits(o.z) | nan_byte_bits(o.w);
    if ((m & 0x80808080u) == 0) return o;
  }
#endif
  const Vec8 p = quantize_unit_reference(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], s.scale);
  const Vec8 q = quantize_unit_reference(b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], s.scale);
  o.x = p.x;
  o.y = p.y;
  o.z = q.x;
  o.w = q.y;
  return o;
}

// A unit's source bytes (kBytes = elements x source size: 4..32) as the fewest aligned loads,
// and its fp8 destination (kElems bytes) as one store.
template <int kBytes>
struct UnitLoad {
  typedef Vec16 T;  // 16 and 32 bytes
  static constexpr int kCount = kBytes / 16;
};
template <>
struct UnitLoad<8> {
  typedef Vec8 T;
  static constexpr int kCount = 1;
};
template <>
struct UnitLoad<4> {
  typedef uint32_t T;
  static constexpr int kCount = 1;
};
KVREF_DEVICE inline void to_words(const Vec16& v, uint32_t* w) {
  w[0] = v.x;
  w[1] = v.y;
  w[2] = v.z;
  w[3] = v.w;
}
KVREF_DEVICE inline void to_words(const Vec8& v, uint32_t* w) {
  w[0] = v.x;
  w[1] = v.y;
}
KVREF_DEVICE inline void to_words(uint32_t v, uint32_t* w) { w[0] = v; }
KVREF_DEVICE inline void store_fp8_unit(unsigned char* d, uint64_t q, int elems) {
  if (elems == 8) {
    Vec8 o;
    o.x = static_cast<uint32_t>(q);
    o.y = static_cast<uint32_t>(q >> 32);
    *reinterpret_cast<Vec8*>(d) = o;
  } else if (elems == 4) {
    *reinterpret_cast<uint32_t*>(d) = static_cast<uint32_t>(q);
  } else {
    *reinterpret_cast<uint16_t*>(d) = static_cast<uint16_t>(q);
  }
}

// Quantising K/V store to an fp8 e4m3 cache, kElems (8, 4 or 2) elements per unit (sources
// aligned to a unit's bytes, destinations to kElems bytes), K and V shared among threads as
// kMode says.  All loads first (slot, scales, K, V), then convert + store.
// Units per tensor and iteration of the fp8 kernel by default: kStoreVectors 16-byte loads over
// K and V.
constexpr int fp8_default_unroll(int src_dtype) { return src_dtype == 2 ? kStoreVectors / 4 : kStoreVectors / 2; }

template <int kSrc, int kMode, int kU = fp8_default_unroll(kSrc), bool kNc = true, int kElems = 8>
KVREF_GLOBAL void scatter_fp8_vec_kernel(const ScatterParams p) {
  dev::wait_prerequisite_grids();
  typedef typename SrcElem<kSrc>::raw Raw;
  constexpr int kTensors = tensors_per_thread(kMode);
  constexpr int kBytes = kElems * static_cast<int>(sizeof(Raw));
  typedef UnitLoad<kBytes> Load;
  typedef typename Load::T LoadT;
  constexpr int kLoads = Load::kCount;
  constexpr int kWords = kBytes / 4;
  uint32_t lane;
  const int64_t token = store_token<kMode>(p, lane);
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
    const ScatterTensor& tt = store_tensor<kMode>(p, t);
    src[t] = tt.src + page_offset(token, tt.src_token_stride);
    dst_base[t] = tt.dst;
    src_head_stride[t] = tt.src_head_stride;
    scale_value[t] = load_early<kNc>(tt.scale);  // in flight with the slot
  }
  int64_t dst = -2;
  Fp8Scale scale[kTensors];
  for (uint32_t base = lane; base < total; base += lanes * kU) {
    LoadT r[kTensors][kU][kLoads];
    int64_t dst_off[kU];
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      const uint32_t i = base + static_cast<uint32_t>(u) * lanes;
      const uint32_t h = p.num_heads == 1 ? 0u : i / upr;
      const int64_t c = static_cast<int64_t>(i - h * upr) * kElems;
      dst_off[u] = page_offset(h, p.dst_head_stride) + c;
      if (i < total) {
#pragma unroll
        for (int t = 0; t < kTensors; ++t) {
          const LoadT* q = reinterpret_cast<const LoadT*>(
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
          uint32_t w[kWords];
#pragma unroll
          for (int k = 0; k < kLoads; ++k) to_words(r[t][u][k], w + k * (kWords / kLoads));
          float x[kElems];
          unit_floats<kSrc, kElems>(w, x);
          store_fp8_unit(dst_base[t] + dst + dst_off[u], quantize_unit<kElems>(x, scale[t]), kElems);
        }
      }
    }
  }
}

// Decode-sized K/V stores (fewer than kWideTokens tokens; every head of a token one contiguous
// row on both sides, as NHD caches have it; 16-byte vectors or 8-element fp8 units): one CTA
// per token, whose 2 << lanes_log2 threads are a K half and a V half, one unit per thread (a
// loop covers rows wider than the half).  kDense: pages follow each other without a gap
// (dst_page_stride == page_size * dst_slot_stride), so a slot's entry sits at
// slot * dst_slot_stride and no division by the page size is needed.  Against the general
// kernels with the same thread shape these kernels read half the parameter bytes (a dense copy
// reads the first 80 of DecodeParams' 120; the general kernels' block is 160) and do less index
// arithmetic before the first load: 0.1-0.2 us per call under CUDA-graph replay at 16-256
// tokens on an H200 (docs/kvref/performance.md).  The fp8 kernels load the scale inside the
// row's predicated block: written unconditionally, its load was sunk by ptxas below the slot
// test (the SASS showed it issued after the slot arrived), a second memory round trip that cost
// 0.1-0.13 us per call at 1-64 tokens.  (A volatile load also stays in place, but then every
// warp's goes to L2 for the same line: 0.4-1.9 us slower at 256-1,024 tokens.)
template <bool kDense>
KVREF_DEVICE inline int64_t decode_destination(const DecodeParams& p, int64_t slot) {
  if (kDense) {
    if (slot < 0 || slot >= p.num_slots) return -1;
    return page_offset(slot, p.dst_slot_stride);
  }
  return paged_destination(p, slot);
}

template <typename V, bool kDense, bool kSplitY = false>
KVREF_GLOBAL void scatter_copy_decode_kernel(const DecodeParams p) {
  dev::wait_prerequisite_grids();
  const uint32_t lanes = 1u << p.lanes_log2;
  // K in the low half of the CTA, V in the high half (kSplitY: K and V in separate CTAs,
  // blockIdx.y).  The parameters are selected, not indexed: an index into a kernel parameter
  // array would copy the array to local memory.
  const bool v = kSplitY ? dev::block_y() != 0 : (dev::thread_x() >> p.lanes_log2) != 0;
  const uint32_t lane = dev::thread_x() & (lanes - 1u);
  const int64_t token = dev::block_x();
  const int64_t slot = load_early<true>(p.slot_mapping + token);  // in flight with the row
  const V* src = reinterpret_cast<const V*>((v ? p.src[1] : p.src[0]) + page_offset(token, v ? p.src_token_stride[1] : p.src_token_stride[0]));
  const uint32_t upr = p.units_per_row;
  V r = V();
  if (lane < upr) r = load_early<true>(src + lane);
  const int64_t dst = decode_destination<kDense>(p, slot);
  if (dst < 0 || lane >= upr) return;
  V* out = reinterpret_cast<V*>((v ? p.dst[1] : p.dst[0]) + dst);
  out[lane] = r;
  for (uint32_t i = lane + lanes; i < upr; i += lanes) out[i] = src[i];
}

// One 8-element fp8 unit: source words -> e4m3 bytes at d.
template <int kSrc, int kWords>
KVREF_DEVICE inline void store_fp8_unit8(unsigned char* d, const uint32_t (&w)[kWords], const Fp8Scale& s) {
  float x[8];
  unit_floats<kSrc, 8>(w, x);
  store_fp8_unit(d, quantize_unit<8>(x, s), 8);
}

template <int kSrc, bool kDense, bool kSplitY = false>
KVREF_GLOBAL void scatter_fp8_decode_kernel(const DecodeParams p) {
  dev::wait_prerequisite_grids();
  typedef typename SrcElem<kSrc>::raw Raw;
  constexpr int kLoads = static_cast<int>(sizeof(Raw)) / 2;  // Vec16 loads per unit
  const uint32_t lanes = 1u << p.lanes_log2;
  // K in the low half of the CTA, V in the high half (kSplitY: K and V in separate CTAs,
  // blockIdx.y).  The parameters are selected, not indexed: an index into a kernel parameter
  // array would copy the array to local memory.
  const bool v = kSplitY ? dev::block_y() != 0 : (dev::thread_x() >> p.lanes_log2) != 0;
  const uint32_t lane = dev::thread_x() & (lanes - 1u);
  const int64_t token = dev::block_x();
  const int64_t slot = load_early<true>(p.slot_mapping + token);
  const float* scale_ptr = v ? p.scale[1] : p.scale[0];
  const Vec16* src = reinterpret_cast<const Vec16*>((v ? p.src[1] : p.src[0]) + page_offset(token, v ? p.src_token_stride[1] : p.src_token_stride[0]));
  const uint32_t upr = p.units_per_row;
  uint32_t w[4 * kLoads];
  Vec16 r[kLoads];
  float scale_value = 0.0f;
  if (lane < upr) {
    // The scale is loaded in the row's (predicated) block: ptxas sinks an unconditional load
    // whose value is used only below the slot test (even an asm volatile one) below that
    // test, and the scale would arrive a memory round trip after the slot.
    scale_value = load_early<true>(scale_ptr);
#pragma unroll
    for (int k = 0; k < kLoads; ++k) r[k] = load_early<true>(src + lane * kLoads + k);
  }
  const int64_t dst = decode_destination<kDense>(p, slot);
  if (dst < 0 || lane >= upr) return;
  const Fp8Scale s = fp8_scale(scale_value);
  unsigned char* out = (v ? p.dst[1] : p.dst[0]) + dst;
#pragma unroll
  for (int k = 0; k < kLoads; ++k) to_words(r[k], w + 4 * k);
  store_fp8_unit8<kSrc>(out + static_cast<int64_t>(lane) * 8, w, s);
  for (uint32_t i = lane + lanes; i < upr; i += lanes) {
#pragma unroll
    for (int k = 0; k < kLoads; ++k) to_words(src[i * kLoads + k], w + 4 * k);
    store_fp8_unit8<kSrc>(out + static_cast<int64_t>(i) * 8, w, s);
  }
}

// The decode fp8 store with kPairs (1 or 2) pairs of adjacent units per thread: 32 source
// bytes (bf16/f16; 64 for f32) in, one 16-byte store out per pair, all loads (slot, scale, rows)
// issued before the slot test.  Pair j of a thread is pair lane + j * lanes of its row; a loop
// covers rows wider than kPairs * lanes pairs.  Needs an even number of units per row and
// 16-byte aligned destinations (plan_decode).  Per pair, a thread's fixed work (indices, slot
// test, reciprocal of the scale) is paid once, and the two units share one test for special
// bytes and one store.  On the H200 (decode_explore) this is level with one unit per thread at
// 64 tokens and ahead by 0.05 us at 256, 0.17 us at 1,024 and 0.15-0.2 us at 1,536; the plan
// uses kPairs = 1 with K and V by CTA half above kDecodeSplitTokens.
template <int kSrc, int kWords>
KVREF_DEVICE inline Vec16 quantize_pair_words(const uint32_t (&w)[kWords], const Fp8Scale& s) {
  float a[8], b[8];
  unit_floats<kSrc, 8>(w, a);
  unit_floats<kSrc, 8>(w + kWords / 2, b);
  return quantize_unit_pair(a, b, s);
}

template <int kSrc, bool kDense, bool kSplitY, int kPairs>
KVREF_GLOBAL void scatter_fp8_decode_pairs_kernel(const DecodeParams p) {
  dev::wait_prerequisite_grids();
  typedef typename SrcElem<kSrc>::raw Raw;
  constexpr int kLoads = static_cast<int>(sizeof(Raw));  // Vec16 loads per pair: 2 or 4
  const uint32_t lanes = 1u << p.lanes_log2;
  const bool v = kSplitY ? dev::block_y() != 0 : (dev::thread_x() >> p.lanes_log2) != 0;
  const uint32_t lane = dev::thread_x() & (lanes - 1u);
  const int64_t token = dev::block_x();
  const int64_t slot = load_early<true>(p.slot_mapping + token);
  const float* scale_ptr = v ? p.scale[1] : p.scale[0];
  const Vec16* src = reinterpret_cast<const Vec16*>((v ? p.src[1] : p.src[0]) + page_offset(token, v ? p.src_token_stride[1] : p.src_token_stride[0]));
  const uint32_t ppr = p.units_per_row >> 1;  // pairs per row
  Vec16 r[kPairs][kLoads];
  float scale_value = 0.0f;
#pragma unroll
  for (int j = 0; j < kPairs; ++j) {
    const uint32_t i = lane + static_cast<uint32_t>(j) * lanes;
    if (i < ppr) {
      if (j == 0) scale_value = load_early<true>(scale_ptr);  // in the predicated block: see above
#pragma unroll
      for (int k = 0; k < kLoads; ++k) r[j][k] = load_early<true>(src + i * kLoads + k);
    }
  }
  const int64_t dst = decode_destination<kDense>(p, slot);
  if (dst < 0 || lane >= ppr) return;
  const Fp8Scale s = fp8_scale(scale_value);
  Vec16* out = reinterpret_cast<Vec16*>((v ? p.dst[1] : p.dst[0]) + dst);
#pragma unroll
  for (int j = 0; j < kPairs; ++j) {
    const uint32_t i = lane + static_cast<uint32_t>(j) * lanes;
    if (j == 0 || i < ppr) {
      uint32_t w[4 * kLoads];
#pragma unroll
      for (int k = 0; k < kLoads; ++k) to_words(r[j][k], w + 4 * k);
      out[i] = quantize_pair_words<kSrc>(w, s);
    }
  }
  for (uint32_t i = lane + kPairs * lanes; i < ppr; i += lanes) {
    uint32_t w[4 * kLoads];
#pragma unroll
    for (int k = 0; k < kLoads; ++k) to_words(src[i * kLoads + k], w + 4 * k);
    out[i] = quantize_pair_words<kSrc>(w, s);
  }
}

// Quantising K/V store, one element per unit (any alignment).
template <int kSrc>
KVREF_GLOBAL void scatter_fp8_scalar_kernel(const ScatterParams p) {
  dev::wait_prerequisite_grids();
  typedef typename SrcElem<kSrc>::raw Raw;
  uint32_t lane;
  const int64_t token = store_token<kBoth>(p, lane);
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

// ---------------------------------------------------------------------------------------------
// Bulk record store (CUDA only; the code exists for sm_90 and up).  Hopper's bulk async copies
// (cp.async.bulk, no tensor map) move a chunk of records global -> shared -> global with no
// register traffic.  One warp per CTA, one chunk of up to 32 consecutive tokens per CTA
// (p.tokens_per_block, one lane per token), the chunk's records back to back in dynamic shared
// memory (tokens_per_block x record bytes):
//   1. lane j loads token j's slot (an ordinary load, in flight with the rows); lane 0 sets up
//      the CTA's mbarrier to expect the chunk's bytes, then one bulk copy brings the chunk's
//      records (source rows back to back, src_token_stride == record bytes), or lane j brings
//      record j (rows apart);
//   2. each lane computes its token's destination with paged_destination (64-bit; -1 for a
//      slot < 0 or past the cache, and for lanes past the last token) and waits on the mbarrier
//      (bounded: traps after kBulkWaitNs rather than hang);
//   3. a token whose destination directly follows the previous token's (the next slot of the
//      page, or the first of the next page when pages have no gap) joins the previous token's
//      run, and the lane that starts a run stores all of it with one bulk copy shared -> global
//      (one store per token was 3-7 points of copy bandwidth slower in bulk_explore);
//   4. each lane waits until its stores have read shared memory, which must outlive them.
// Needs src, cache, src_token_stride, record bytes and page bytes to be multiples of 16 (a bulk
// copy moves a multiple of 16 bytes between 16-byte aligned addresses); src/plan.h checks that,
// the device (compute capability 9.0+) and the shared memory, and picks this kernel only for
// prefill-sized batches.  kHintLoads / kHintStores: an L2 evict_first cache policy on the bulk
// loads / stores (kernels/bench: kvref_bench --records; the plan uses neither).  Measured on an
// H200 in docs/kvref/performance.md.
#if defined(KVREF_CUDA)
constexpr uint32_t kBulkThreads = 32;               // one warp per CTA
constexpr uint32_t kBulkMaxChunk = kBulkThreads;    // tokens per CTA: one per lane
constexpr uint64_t kBulkWaitNs = 2000000000ull;     // 2 s: a chunk arrives in microseconds

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
KVREF_DEVICE inline uint32_t shared_address(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

KVREF_DEVICE inline bool mbarrier_try_wait(uint32_t bar, uint32_t parity) {
  uint32_t done;
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
      "selp.b32 %0, 1, 0, p;\n\t}"
      : "=r"(done)
      : "r"(bar), "r"(parity)
      : "memory");
  return done != 0;
}

// Until the mbarrier's phase of the given parity has completed; traps (the launch fails with
// an error) after kBulkWaitNs of %globaltimer instead of hanging.  Out of line: the first
// try_wait in mbarrier_wait normally succeeds or suspends until the bytes arrive.
KVREF_DEVICE inline KVREF_NOINLINE void mbarrier_wait_slow(uint32_t bar, uint32_t parity) {
  uint64_t t0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  while (!mbarrier_try_wait(bar, parity)) {
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    if (t - t0 > kBulkWaitNs) __trap();
  }
}
KVREF_DEVICE inline void mbarrier_wait(uint32_t bar, uint32_t parity) {
  if (!mbarrier_try_wait(bar, parity)) mbarrier_wait_slow(bar, parity);
}

// global -> shared, `bytes` (a multiple of 16) counted on the mbarrier `bar` on arrival.
template <bool kHint>
KVREF_DEVICE inline void bulk_load(uint32_t dst, const unsigned char* src, uint32_t bytes, uint32_t bar,
                                   uint64_t policy) {
  if (kHint) {
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1], %2, [%3], %4;" ::"r"(dst),
        "l"(src), "r"(bytes), "r"(bar), "l"(policy)
        : "memory");
  } else {
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
                 "l"(src), "r"(bytes), "r"(bar)
                 : "memory");
  }
}

// shared -> global, tracked by the issuing thread's bulk async-groups.
template <bool kHint>
KVREF_DEVICE inline void bulk_store(unsigned char* dst, uint32_t src, uint32_t bytes, uint64_t policy) {
  if (kHint) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%0], [%1], %2, %3;" ::"l"(dst), "r"(src),
                 "r"(bytes), "l"(policy)
                 : "memory");
  } else {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(src), "r"(bytes)
                 : "memory");
  }
}
#endif  // __CUDA_ARCH__ >= 900

template <bool kHintLoads = false, bool kHintStores = false>
__global__ void __launch_bounds__(kBulkThreads) record_store_bulk_kernel(const ScatterParams p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  dev::wait_prerequisite_grids();
  extern __shared__ __align__(128) unsigned char rows[];  // the chunk's records, back to back
  __shared__ __align__(8) uint64_t arrived;               // mbarrier: the records are in `rows`
  const ScatterTensor& tt = p.tensor[0];
  const uint32_t lane = dev::thread_x();
  const uint32_t record = static_cast<uint32_t>(p.dst_slot_stride);  // plan: <= 48 KiB / chunk
  const int64_t first = page_offset(dev::block_x(), p.tokens_per_block);
  const int64_t left = p.num_tokens - first;
  const uint32_t n = left < p.tokens_per_block ? static_cast<uint32_t>(left) : p.tokens_per_block;
  int64_t slot = -1;
  if (lane < n) slot = load_early<true>(p.slot_mapping + first + lane);
  const uint32_t bar = shared_address(&arrived);
  const uint32_t smem = shared_address(rows);
  const uint32_t my_row = smem + static_cast<uint32_t>(page_offset(lane, record));  // < 48 KiB
  uint64_t policy = 0;
  if (kHintLoads || kHintStores) {
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  }
  if (lane == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
    // The initialised mbarrier, visible to the bulk copies (the async proxy).
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
                 "r"(static_cast<uint32_t>(page_offset(n, record)))
                 : "memory");
  }
  __syncwarp();
  if (tt.src_token_stride == p.dst_slot_stride) {
    if (lane == 0) {
      bulk_load<kHintLoads>(smem, tt.src + page_offset(first, record),
                            static_cast<uint32_t>(page_offset(n, record)), bar, policy);
    }
  } else if (lane < n) {
    bulk_load<kHintLoads>(my_row, tt.src + page_offset(first + lane, tt.src_token_stride), record, bar, policy);
  }
  const int64_t dst = paged_destination(p, slot);  // while the records are on their way
  mbarrier_wait(bar, 0);
  // Orders the bulk loads' writes before the bulk stores' reads of `rows` (both in the async
  // proxy; conservative: without it bulk_explore timed the same).
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  // Runs of consecutive destinations: token j joins token j - 1's run when its entry follows
  // that one's; the lane starting a run stores 1 + the joining lanes right after it.
  const int64_t prev = __shfl_up_sync(0xffffffffu, dst, 1);
  const bool joins = lane > 0 && dst >= 0 && prev >= 0 && prev + record == dst;
  const uint32_t joined = __ballot_sync(0xffffffffu, joins);
  if (dst >= 0 && !joins) {
    const uint32_t after = lane == 31 ? 0u : joined >> (lane + 1);
    const uint32_t run = static_cast<uint32_t>(__ffs(~after));  // 1 + trailing ones of `after`
    bulk_store<kHintStores>(tt.dst + dst, my_row, static_cast<uint32_t>(page_offset(run, record)), policy);
  }
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
#else
  __trap();  // never launched: the plan picks this kernel only where its code is sm_90+
#endif
}
#endif  // KVREF_CUDA

#endif  // KVREF_GPU

}  // namespace kvref

#endif  // KVREF_KV_STORE_CUH
