/* kvlint shim for <cute/tensor.hpp>, served only when the real CuTe is not on
 * the include path (-idirafter): enough for `Tensor gQ = make_tensor(
 * make_gmem_ptr(ptr + row_offset), Shape<...>{}, make_stride(...))` to parse,
 * so that the pointer arithmetic inside is analysed. Nothing here is
 * analysed itself; a real CuTe found by -I or a compilation database wins. */
#ifndef KVLINT_SHIM_CUTE_H
#define KVLINT_SHIM_CUTE_H
#define KVLINT_HD __attribute__((host)) __attribute__((device))
namespace cute {
template <int N> struct C { static constexpr int value = N; };
template <int N> using Int = C<N>;
using _0 = Int<0>; using _1 = Int<1>; using _2 = Int<2>; using _4 = Int<4>;
using _8 = Int<8>; using _16 = Int<16>; using _32 = Int<32>; using _64 = Int<64>;
using _128 = Int<128>; using _256 = Int<256>;
template <class... T> struct tuple {};
template <class... T> using Shape = tuple<T...>;
template <class... T> using Stride = tuple<T...>;
template <class... T> using Step = tuple<T...>;
template <class... T> using Coord = tuple<T...>;
template <class S, class D = void> struct Layout {};
struct Tensor {
  template <class... A> KVLINT_HD Tensor(A &&...) {}
};
template <class T> KVLINT_HD T *make_gmem_ptr(T *p) { return p; }
template <class T> KVLINT_HD T *make_smem_ptr(T *p) { return p; }
template <class... A> KVLINT_HD Tensor make_tensor(A &&...) { return Tensor(); }
template <class... A> KVLINT_HD tuple<A...> make_stride(A &&...) { return {}; }
template <class... A> KVLINT_HD tuple<A...> make_shape(A &&...) { return {}; }
template <class... A> KVLINT_HD tuple<A...> make_coord(A &&...) { return {}; }
template <class A, class B> KVLINT_HD constexpr A ceil_div(A a, B b) { return (a + b - 1) / b; }
} // namespace cute
#undef KVLINT_HD
#endif
