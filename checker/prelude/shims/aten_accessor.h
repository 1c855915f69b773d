/* kvlint shim for PyTorch's tensor accessors (<ATen/ATen.h>, <torch/torch.h>
 * and friends), served only when the real headers are not on the include path
 * (-idirafter): a kernel whose parameters are
 * `at::PackedTensorAccessor32<scalar_t, 4, at::RestrictPtrTraits>` otherwise
 * does not parse at all and is dropped. Only the accessor types; at::Tensor
 * and the host API stay undeclared, as without the header. */
#ifndef KVLINT_SHIM_ATEN_ACCESSOR_H
#define KVLINT_SHIM_ATEN_ACCESSOR_H
#include <stdint.h>
namespace at {
template <class T> struct DefaultPtrTraits { typedef T *PtrType; };
template <class T> struct RestrictPtrTraits { typedef T *__restrict PtrType; };
template <class T, unsigned N, template <class> class PtrTraits = DefaultPtrTraits,
          class index_t = int64_t>
struct GenericPackedTensorAccessor {
  T *data() const;
  index_t stride(index_t i) const;
  index_t size(index_t i) const;
};
template <class T, unsigned N, template <class> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor32 = GenericPackedTensorAccessor<T, N, PtrTraits, int32_t>;
template <class T, unsigned N, template <class> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor64 = GenericPackedTensorAccessor<T, N, PtrTraits, int64_t>;
} // namespace at
namespace torch {
using at::DefaultPtrTraits;
using at::GenericPackedTensorAccessor;
using at::PackedTensorAccessor32;
using at::PackedTensorAccessor64;
using at::RestrictPtrTraits;
} // namespace torch
#endif
