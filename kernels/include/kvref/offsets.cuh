// kvref/offsets.cuh - the one place where kvref turns an index into a memory offset.
//
// Every page / row / block offset in kvref goes through page_offset().  Both parameters are
// int64_t, and each factor is widened with static_cast<int64_t> before the multiply, so an
// int32 page id read from a block table or slot mapping can never be multiplied in 32 bits
// (kvlint rule KV001, kvlint-narrowed-index-overflow).
#ifndef KVREF_OFFSETS_CUH
#define KVREF_OFFSETS_CUH

#include "kvref/portable.cuh"

namespace kvref {

// Offset (in units of `stride`) of entry `index` in an array of `stride`-sized pages or rows.
KVREF_HOST_DEVICE inline int64_t page_offset(int64_t index, int64_t stride) {
  return static_cast<int64_t>(index) * static_cast<int64_t>(stride);
}

// q = a / b, r = a % b for a >= 0, b > 0; 32-bit division when both operands fit (the
// common case), 64-bit otherwise.
KVREF_HOST_DEVICE inline void divmod(int64_t a, int64_t b, int64_t& q, int64_t& r) {
  if (static_cast<uint64_t>(a) <= 0xffffffffull && static_cast<uint64_t>(b) <= 0xffffffffull) {
    const uint32_t a32 = static_cast<uint32_t>(a);
    const uint32_t b32 = static_cast<uint32_t>(b);
    const uint32_t q32 = a32 / b32;
    q = q32;
    r = a32 - q32 * b32;
  } else {
    q = a / b;
    r = a - q * b;
  }
}

}  // namespace kvref

#endif  // KVREF_OFFSETS_CUH
