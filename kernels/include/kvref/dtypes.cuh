// kvref/dtypes.cuh - bit-exact scalar conversions shared by the kernels and the CPU reference.
//
// Written with integer operations only, so that CUDA, HIP and the host produce identical bits
// (the GPU tests compare the caches byte for byte against the CPU reference).
#ifndef KVREF_DTYPES_CUH
#define KVREF_DTYPES_CUH

#include "kvref/portable.cuh"

namespace kvref {

KVREF_HOST_DEVICE inline uint32_t float_bits(float f) {
  union {
    float f;
    uint32_t u;
  } c;
  c.f = f;
  return c.u;
}

KVREF_HOST_DEVICE inline float bits_float(uint32_t u) {
  union {
    uint32_t u;
    float f;
  } c;
  c.u = u;
  return c.f;
}

KVREF_HOST_DEVICE inline float half_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    if (mant == 0) return bits_float(sign);
    int e = -14;
    while ((mant & 0x400u) == 0) {
      mant <<= 1;
      --e;
    }
    mant &= 0x3ffu;
    return bits_float(sign | (static_cast<uint32_t>(e + 127) << 23) | (mant << 13));
  }
  if (exp == 31) return bits_float(sign | 0x7f800000u | (mant << 13));
  return bits_float(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

KVREF_HOST_DEVICE inline uint16_t float_to_half(float f) {
  uint32_t b = float_bits(f);
  uint32_t sign = (b >> 16) & 0x8000u;
  uint32_t a = b & 0x7fffffffu;
  if (a > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);  // NaN
  if (a >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520 -> inf
  int e = static_cast<int>(a >> 23) - 127;
  if (e >= -14) {
    uint32_t m = a & 0x7fffffu;
    uint32_t val = (static_cast<uint32_t>(e + 15) << 10) | (m >> 13);
    uint32_t rem = m & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (val & 1u))) ++val;
    return static_cast<uint16_t>(sign | val);
  }
  if (e < -25) return static_cast<uint16_t>(sign);
  uint32_t M = (a & 0x7fffffu) | 0x800000u;  // value = M * 2^(e-23); unit 2^-24
  uint32_t s = static_cast<uint32_t>(-1 - e);  // q = M >> (23 - (e + 24)) = M >> (-1 - e)
  uint32_t q = M >> s;
  uint32_t rem = M & ((1u << s) - 1u);
  uint32_t half = 1u << (s - 1u);
  if (rem > half || (rem == half && (q & 1u))) ++q;
  return static_cast<uint16_t>(sign | q);
}

KVREF_HOST_DEVICE inline float bfloat16_to_float(uint16_t h) {
  return bits_float(static_cast<uint32_t>(h) << 16);
}

KVREF_HOST_DEVICE inline uint16_t float_to_bfloat16(float f) {
  uint32_t b = float_bits(f);
  if ((b & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>(((b >> 16) & 0x8000u) | 0x7fc0u);
  uint32_t bias = 0x7fffu + ((b >> 16) & 1u);
  return static_cast<uint16_t>((b + bias) >> 16);
}

// float -> fp8 e4m3 (OCP "fn": no infinities, max 448), RNE, saturating to +-448.
// Every NaN becomes the canonical 0x7f (GPUs do not keep a NaN's sign through arithmetic).
KVREF_HOST_DEVICE inline uint8_t float_to_fp8_e4m3(float f) {
  uint32_t b = float_bits(f);
  uint32_t sign = (b >> 24) & 0x80u;
  uint32_t a = b & 0x7fffffffu;
  if (a > 0x7f800000u) return static_cast<uint8_t>(0x7fu);  // NaN
  if (a >= 0x43e00000u) return static_cast<uint8_t>(sign | 0x7eu);  // >= 448 (and inf)
  int e = static_cast<int>(a >> 23) - 127;
  if (e >= -6) {
    uint32_t m = a & 0x7fffffu;
    uint32_t val = (static_cast<uint32_t>(e + 7) << 3) | (m >> 20);
    uint32_t rem = m & 0xfffffu;
    if (rem > 0x80000u || (rem == 0x80000u && (val & 1u))) ++val;
    if (val > 0x7eu) val = 0x7eu;
    return static_cast<uint8_t>(sign | val);
  }
  if (e < -10) return static_cast<uint8_t>(sign);
  uint32_t M = (a & 0x7fffffu) | 0x800000u;   // value = M * 2^(e-23); subnormal unit 2^-9
  uint32_t s = static_cast<uint32_t>(14 - e);  // 21..24
  uint32_t q = M >> s;
  uint32_t rem = M & ((1u << s) - 1u);
  uint32_t half = 1u << (s - 1u);
  if (rem > half || (rem == half && (q & 1u))) ++q;
  return static_cast<uint8_t>(sign | q);
}

KVREF_HOST_DEVICE inline float fp8_e4m3_to_float(uint8_t v) {
  uint32_t sign = static_cast<uint32_t>(v & 0x80u) << 24;
  uint32_t e = (v >> 3) & 0xfu;
  uint32_t m = v & 0x7u;
  if (e == 0xfu && m == 0x7u) return bits_float(sign | 0x7fc00000u);
  if (e == 0) {
    if (m == 0) return bits_float(sign);
    // m * 2^-9, exact in float
    float r = static_cast<float>(m) * (1.0f / 512.0f);
    return sign ? -r : r;
  }
  return bits_float(sign | ((e - 7 + 127) << 23) | (m << 20));
}

// Source element (raw bits) -> float, for the three source dtypes (values of kvref_dtype).
template <int kDtype>
struct SrcElem;
template <>
struct SrcElem<0> {  // F16
  typedef uint16_t raw;
  KVREF_HOST_DEVICE static float to_float(uint16_t r) { return half_to_float(r); }
};
template <>
struct SrcElem<1> {  // BF16
  typedef uint16_t raw;
  KVREF_HOST_DEVICE static float to_float(uint16_t r) { return bfloat16_to_float(r); }
};
template <>
struct SrcElem<2> {  // F32
  typedef uint32_t raw;
  KVREF_HOST_DEVICE static float to_float(uint32_t r) { return bits_float(r); }
};

// The quantisation every fp8 store uses: saturate_e4m3(x / scale).
KVREF_HOST_DEVICE inline uint8_t quantize_fp8(float x, float scale) {
  return float_to_fp8_e4m3(x / scale);
}

}  // namespace kvref

#endif  // KVREF_DTYPES_CUH
