/* kvlint shim for PyTorch's stable ABI (<torch/csrc/stable/tensor.h>,
 * <torch/headeronly/...> and friends), served only when the real headers are
 * not on the include path (-idirafter). vLLM's csrc/libtorch_stable launchers
 * take torch::stable::Tensor and dispatch with THO_DISPATCH_SWITCH; without
 * these declarations a launcher does not parse, so its grid
 * (`dim3 grid(num_tokens, num_groups)`), its STD_TORCH_CHECKs and the
 * template arguments it instantiates a kernel with are lost. Only the host
 * API a launcher reads (sizes, strides, dtypes, data pointers, the dispatch
 * macros); nothing here is analysed. */
#ifndef KVLINT_SHIM_TORCH_STABLE_H
#define KVLINT_SHIM_TORCH_STABLE_H
#include <stddef.h>
#include <stdint.h>

namespace c10 {
struct Half { unsigned short x; Half() = default; Half(float); operator float() const; };
struct BFloat16 { unsigned short x; BFloat16() = default; BFloat16(float); operator float() const; };
struct Float8_e4m3fn { unsigned char x; Float8_e4m3fn() = default; Float8_e4m3fn(float); operator float() const; };
struct Float8_e5m2 { unsigned char x; Float8_e5m2() = default; Float8_e5m2(float); operator float() const; };
struct Float8_e4m3fnuz { unsigned char x; Float8_e4m3fnuz() = default; Float8_e4m3fnuz(float); operator float() const; };
} // namespace c10

namespace torch {
namespace headeronly {
enum class ScalarType : int8_t {
  Byte, Char, Short, Int, Long, Half, Float, Double, ComplexHalf, ComplexFloat,
  ComplexDouble, Bool, QInt8, QUInt8, QInt32, BFloat16, QUInt4x2, QUInt2x4, Bits1x8,
  Bits2x4, Bits4x2, Bits8, Bits16, Float8_e5m2, Float8_e4m3fn, Float8_e5m2fnuz,
  Float8_e4m3fnuz, UInt16, UInt32, UInt64, Float8_e8m0fnu, Float4_e2m1fn_x2, Undefined,
};
using c10::BFloat16;
using c10::Float8_e4m3fn;
using c10::Float8_e4m3fnuz;
using c10::Float8_e5m2;
using c10::Half;
template <class T> struct HeaderOnlyArrayRef {
  const T *data() const;
  size_t size() const;
  T operator[](size_t) const;
  const T *begin() const;
  const T *end() const;
};
using IntHeaderOnlyArrayRef = HeaderOnlyArrayRef<int64_t>;
} // namespace headeronly

namespace stable {
using headeronly::ScalarType;
struct Device {
  int32_t index() const;
  bool is_cuda() const;
};
class Tensor {
public:
  int64_t size(int64_t dim) const;
  int64_t stride(int64_t dim) const;
  headeronly::IntHeaderOnlyArrayRef sizes() const;
  headeronly::IntHeaderOnlyArrayRef strides() const;
  int64_t numel() const;
  int64_t dim() const;
  int64_t element_size() const;
  ScalarType scalar_type() const;
  bool is_contiguous() const;
  bool is_cuda() const;
  bool defined() const;
  Device device() const;
  int32_t get_device() const;
  int32_t get_device_index() const;
  void *data_ptr() const;
  void *mutable_data_ptr() const;
  const void *const_data_ptr() const;
  template <class T> T *data_ptr() const;
  template <class T> T *mutable_data_ptr() const;
  template <class T> const T *const_data_ptr() const;
};
// ops.h: tensors the launcher allocates or views; their sizes are not modelled.
template <class... A> Tensor empty(A &&...);
template <class... A> Tensor empty_like(A &&...);
template <class... A> Tensor zeros(A &&...);
template <class... A> Tensor new_empty(A &&...);
template <class... A> Tensor new_zeros(A &&...);
template <class... A> Tensor zero_(A &&...);
template <class... A> Tensor fill_(A &&...);
template <class... A> Tensor contiguous(A &&...);
template <class... A> Tensor transpose(A &&...);
template <class... A> Tensor narrow(A &&...);
template <class... A> Tensor view(A &&...);
template <class... A> Tensor reshape(A &&...);
template <class... A> Tensor copy_(A &&...);
template <class... A> Tensor to(A &&...);
namespace accelerator {
struct DeviceGuard {
  template <class... A> explicit DeviceGuard(A &&...);
};
template <class... A> void *getCurrentStream(A &&...);
} // namespace accelerator
struct Library {
  template <class... A> Library &def(A &&...);
  template <class... A> Library &impl(A &&...);
};
} // namespace stable
} // namespace torch

// The dispatch macros: one case per dtype, each naming the dispatched type
// (scalar_t, or the hint) so that the launch inside is instantiated with it.
namespace kvlint_tho {
template <torch::headeronly::ScalarType S> struct cpp { using type = float; };
#define KVLINT_THO_TYPE(E, T) \
  template <> struct cpp<torch::headeronly::ScalarType::E> { using type = T; };
KVLINT_THO_TYPE(Byte, uint8_t)
KVLINT_THO_TYPE(Char, int8_t)
KVLINT_THO_TYPE(Short, int16_t)
KVLINT_THO_TYPE(Int, int32_t)
KVLINT_THO_TYPE(Long, int64_t)
KVLINT_THO_TYPE(UInt16, uint16_t)
KVLINT_THO_TYPE(UInt32, uint32_t)
KVLINT_THO_TYPE(UInt64, uint64_t)
KVLINT_THO_TYPE(Bool, bool)
KVLINT_THO_TYPE(Double, double)
KVLINT_THO_TYPE(Half, c10::Half)
KVLINT_THO_TYPE(BFloat16, c10::BFloat16)
KVLINT_THO_TYPE(Float8_e4m3fn, c10::Float8_e4m3fn)
KVLINT_THO_TYPE(Float8_e5m2, c10::Float8_e5m2)
KVLINT_THO_TYPE(Float8_e4m3fnuz, c10::Float8_e4m3fnuz)
#undef KVLINT_THO_TYPE
} // namespace kvlint_tho
#define THO_PRIVATE_CASE_TYPE_USING_HINT(enum_type, HINT, ...)            \
  case enum_type: {                                                       \
    using HINT [[maybe_unused]] = typename ::kvlint_tho::cpp<enum_type>::type; \
    return __VA_ARGS__();                                                 \
  }
#define THO_DISPATCH_CASE(enum_type, ...) \
  THO_PRIVATE_CASE_TYPE_USING_HINT(enum_type, scalar_t, __VA_ARGS__)
#define THO_DISPATCH_SWITCH(TYPE, NAME, ...) \
  [&] {                                      \
    switch (TYPE) {                          \
      __VA_ARGS__                            \
    default:                                 \
      break;                                 \
    }                                        \
  }()

// Checks: a failing condition leaves the launcher (LaunchFacts reads the
// condition from the expansion, by the macro's name).
#define STD_TORCH_CHECK(cond, ...) \
  do {                             \
    if (!(cond))                   \
      __builtin_abort();           \
  } while (0)
#define TORCH_ERROR_CODE_CHECK(x) ((void)(x))
#define STD_CUDA_KERNEL_LAUNCH_CHECK() ((void)0)
#define STD_CUDA_CHECK(x) ((void)(x))
typedef int32_t AOTITorchError;
extern "C" AOTITorchError aoti_torch_get_current_cuda_stream(int32_t, void **);
#define STABLE_TORCH_LIBRARY(ns, m) static void kvlint_stable_library_##ns(::torch::stable::Library &m)
#define STABLE_TORCH_LIBRARY_FRAGMENT(ns, m) \
  static void kvlint_stable_fragment_##ns(::torch::stable::Library &m)
#define STABLE_TORCH_LIBRARY_IMPL(ns, k, m) \
  static void kvlint_stable_impl_##ns##_##k(::torch::stable::Library &m)
#define TORCH_BOX(f) (f)
#endif
