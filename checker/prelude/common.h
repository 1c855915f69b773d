/* kvlint prelude, the part CUDA and HIP share: attribute macros, the launch
 * variables, vector and half types, and the intrinsics kernels call. Included
 * by cuda.h and hip.h; only declarations, nothing here is analysed. */
#ifndef KVLINT_COMMON_PRELUDE_H
#define KVLINT_COMMON_PRELUDE_H
#include <stddef.h>
#include <stdint.h>

/* Code that only a real compiler should see (a test's host main) can hide
 * behind #ifndef __KVLINT__. */
#define __KVLINT__ 1

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
/* Thread-block clusters and register caps (sm_90 kernels): undefined, the
 * kernel's declaration would not parse and the whole kernel would be lost. */
#define __cluster_dims__(...)
#define __maxnreg__(n)
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
#define __grid_constant__

/* Loop-unroll macros of headers a single-file scan often lacks (CUTLASS, CuTe,
 * TurboMind): an undefined PRAGMA_UNROLL line before a loop makes clang drop
 * the loop. A real header's definition still wins (a redefinition is only a
 * warning). */
#define CUTLASS_PRAGMA_UNROLL
#define CUTLASS_PRAGMA_NO_UNROLL
#define CUTE_UNROLL
#define CUTE_NO_UNROLL
#define PRAGMA_UNROLL
#define PRAGMA_NO_UNROLL

/* Function attribute macros of CUTLASS and CuTe (helper_macros.hpp,
 * cute/config.hpp), which kernels outside those libraries use too (FlashInfer's
 * Hopper attention, TensorRT-LLM's kernels): undefined, every function declared
 * with one does not parse, and a template that calls it is never instantiated. */
#define CUTLASS_HOST_DEVICE __forceinline__ __host__ __device__
#define CUTLASS_DEVICE __forceinline__ __device__
#define CUTLASS_HOST __host__
#define CUTLASS_GLOBAL __global__
#define CUTE_HOST_DEVICE __forceinline__ __host__ __device__
#define CUTE_DEVICE __forceinline__ __device__
#define CUTE_HOST __forceinline__ __host__

struct __kvlint_uint3 { unsigned int x, y, z; };
typedef struct __kvlint_uint3 uint3;
struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};
extern const __device__ uint3 threadIdx;
extern const __device__ uint3 blockIdx;
extern const __device__ dim3 blockDim;
extern const __device__ dim3 gridDim;
extern const __device__ int warpSize;

typedef struct CUstream_st *cudaStream_t;
typedef int cudaError_t;
extern "C" int cudaConfigureCall(dim3, dim3, size_t = 0, cudaStream_t = 0);
extern "C" int __cudaPushCallConfiguration(dim3, dim3, size_t = 0, cudaStream_t = 0);

/* The launch-config API (FlashInfer launches most kernels with it): declared
 * so that `cudaLaunchConfig_t config; config.gridDim = nblks;
 * cudaLaunchKernelEx(&config, kernel, ...)` parses and its grid is read. */
enum cudaLaunchAttributeID {
  cudaLaunchAttributeIgnore = 0,
  cudaLaunchAttributeAccessPolicyWindow = 1,
  cudaLaunchAttributeCooperative = 2,
  cudaLaunchAttributeClusterDimension = 4,
  cudaLaunchAttributeProgrammaticStreamSerialization = 5,
  cudaLaunchAttributeProgrammaticEvent = 6,
  cudaLaunchAttributePriority = 8,
  cudaLaunchAttributeMemSyncDomain = 10,
};
union cudaLaunchAttributeValue {
  int cooperative;
  int priority;
  unsigned int programmaticStreamSerializationAllowed;
  struct { unsigned int x, y, z; } clusterDim;
  char pad[64];
};
struct cudaLaunchAttribute {
  cudaLaunchAttributeID id;
  cudaLaunchAttributeValue val;
};
typedef struct cudaLaunchConfig_st {
  dim3 gridDim;
  dim3 blockDim;
  size_t dynamicSmemBytes;
  cudaStream_t stream;
  cudaLaunchAttribute *attrs;
  unsigned int numAttrs;
} cudaLaunchConfig_t;
template <typename... ExpTypes, typename... ActTypes>
cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *config, void (*kernel)(ExpTypes...),
                               ActTypes &&...args);

#define KVLINT_VEC2(T, N) struct __align__(2 * sizeof(T)) N { T x, y; };
#define KVLINT_VEC4(T, N) struct __align__(4 * sizeof(T)) N { T x, y, z, w; };
KVLINT_VEC2(float, float2) KVLINT_VEC4(float, float4)
KVLINT_VEC2(int, int2) KVLINT_VEC4(int, int4)
KVLINT_VEC2(unsigned int, uint2) KVLINT_VEC4(unsigned int, uint4)
KVLINT_VEC2(double, double2) KVLINT_VEC2(long long, longlong2)
KVLINT_VEC2(unsigned short, ushort2) KVLINT_VEC4(unsigned short, ushort4)
KVLINT_VEC4(unsigned char, uchar4) KVLINT_VEC4(signed char, char4)
#undef KVLINT_VEC2
#undef KVLINT_VEC4

struct __half { unsigned short __x; };
struct __half2 { __half x, y; };
typedef __half half;
typedef __half2 half2;
struct __nv_bfloat16 { unsigned short __x; };
struct __nv_bfloat162 { __nv_bfloat16 x, y; };
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;
struct __nv_fp8_e4m3 { unsigned char __x; };
struct __nv_fp8_e5m2 { unsigned char __x; };
typedef unsigned char __nv_fp8_storage_t;

template <class T> __device__ T __ldg(const T *);
template <class T> __device__ T __ldcg(const T *);
template <class T> __device__ T __ldca(const T *);
template <class T> __device__ T __ldcs(const T *);
template <class T> __device__ T __ldlu(const T *);
template <class T> __device__ T __ldcv(const T *);
template <class T> __device__ void __stcg(T *, T);
template <class T> __device__ void __stcs(T *, T);
template <class T> __device__ void __stwt(T *, T);
__device__ void __syncthreads();
__device__ void __syncwarp(unsigned = 0xffffffffu);
__device__ void __threadfence();
__device__ void __trap();
template <class T> __device__ T atomicAdd(T *, T);
template <class T> __device__ T atomicSub(T *, T);
template <class T> __device__ T atomicMax(T *, T);
template <class T> __device__ T atomicMin(T *, T);
template <class T> __device__ T atomicExch(T *, T);
template <class T> __device__ T atomicCAS(T *, T, T);
template <class T> __device__ T __shfl_sync(unsigned, T, int, int = 32);
template <class T> __device__ T __shfl_xor_sync(unsigned, T, int, int = 32);
template <class T> __device__ T __shfl_down_sync(unsigned, T, unsigned, int = 32);
template <class T> __device__ T __shfl_up_sync(unsigned, T, unsigned, int = 32);
__device__ unsigned __ballot_sync(unsigned, int);
__device__ int __popc(unsigned);
__device__ int __clz(int);
__device__ int __ffs(int);

/* Conversions and fast-math intrinsics (cuda_bf16.h, cuda_fp16.h, the device
 * math headers) and the device side of the runtime: a kernel that calls one
 * undeclared loses the statement, and a template kernel with such an error is
 * never instantiated, so its tile sizes stay unknown. */
__device__ float __bfloat162float(__nv_bfloat16);
__device__ __nv_bfloat16 __float2bfloat16(float);
__device__ __nv_bfloat16 __float2bfloat16_rn(float);
__device__ __nv_bfloat162 __floats2bfloat162_rn(float, float);
__device__ __nv_bfloat162 __float22bfloat162_rn(float2);
__device__ float2 __bfloat1622float2(__nv_bfloat162);
__device__ __half __float2half_rn(float);
__device__ __half2 __floats2half2_rn(float, float);
__device__ __half2 __float22half2_rn(float2);
__device__ float2 __half22float2(__half2);
__device__ float __low2float(__half2);
__device__ float __high2float(__half2);
__device__ float __expf(float);
__device__ float __logf(float);
__device__ float __powf(float, float);
__device__ float __fdividef(float, float);
__device__ float __frcp_rn(float);
__device__ float __saturatef(float);
__device__ float __int_as_float(int);
__device__ int __float_as_int(float);
__device__ float __uint_as_float(unsigned);
__device__ unsigned __float_as_uint(float);
/* <math.h>'s constants, which a strict -std=c++17 parse does not define. */
#ifndef M_LOG2E
#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440
#endif
#define KVLINT_MATH1(F) __device__ float F(float);
KVLINT_MATH1(sqrtf) KVLINT_MATH1(rsqrtf) KVLINT_MATH1(expf) KVLINT_MATH1(exp2f)
KVLINT_MATH1(logf) KVLINT_MATH1(log2f) KVLINT_MATH1(log1pf) KVLINT_MATH1(tanhf)
KVLINT_MATH1(fabsf) KVLINT_MATH1(floorf) KVLINT_MATH1(ceilf) KVLINT_MATH1(roundf)
KVLINT_MATH1(truncf) KVLINT_MATH1(rintf) KVLINT_MATH1(erff) KVLINT_MATH1(sinf)
KVLINT_MATH1(cosf) KVLINT_MATH1(expm1f)
#undef KVLINT_MATH1
__device__ float powf(float, float);
__device__ float fmaf(float, float, float);
__host__ __device__ float2 make_float2(float, float);
__host__ __device__ float4 make_float4(float, float, float, float);
__host__ __device__ int2 make_int2(int, int);
__host__ __device__ int4 make_int4(int, int, int, int);
__host__ __device__ uint2 make_uint2(unsigned, unsigned);
__host__ __device__ uint4 make_uint4(unsigned, unsigned, unsigned, unsigned);
__device__ size_t __cvta_generic_to_shared(const void *);
__device__ void *__cvta_shared_to_generic(size_t);
__device__ unsigned __nvvm_get_smem_pointer(void *);
__device__ void cudaGridDependencySynchronize(void);
__device__ void cudaTriggerProgrammaticLaunchCompletion(void);
extern "C" __device__ int printf(const char *, ...);
extern "C" __device__ void __assert_fail(const char *, const char *, unsigned, const char *);

/* Cooperative groups (<cooperative_groups.h>, part of the toolkit): the
 * groups kernels take their rank in. A block's rank in its cluster is a
 * hardware range (at most 16 blocks). */
namespace cooperative_groups {
struct thread_block {
  __device__ void sync() const;
  __device__ unsigned thread_rank() const;
  __device__ unsigned size() const;
  __device__ unsigned num_threads() const;
  __device__ dim3 group_index() const;
  __device__ dim3 thread_index() const;
  __device__ dim3 group_dim() const;
};
struct cluster_group {
  __device__ void sync() const;
  __device__ void barrier_arrive() const;
  __device__ void barrier_wait() const;
  __device__ unsigned block_rank() const;
  __device__ unsigned num_blocks() const;
  __device__ unsigned thread_rank() const;
  __device__ unsigned num_threads() const;
  __device__ dim3 block_index() const;
  __device__ dim3 dim_blocks() const;
  template <class T> __device__ T *map_shared_rank(T *, unsigned) const;
};
struct grid_group {
  __device__ void sync() const;
  __device__ unsigned long long thread_rank() const;
  __device__ unsigned long long num_threads() const;
  __device__ unsigned long long block_rank() const;
  __device__ unsigned long long num_blocks() const;
};
template <unsigned N, class P = void> struct thread_block_tile {
  __device__ void sync() const;
  __device__ unsigned thread_rank() const;
  __device__ unsigned size() const;
  __device__ unsigned num_threads() const;
  __device__ unsigned meta_group_rank() const;
  __device__ unsigned meta_group_size() const;
  template <class T> __device__ T shfl(T, int) const;
  template <class T> __device__ T shfl_down(T, unsigned) const;
  template <class T> __device__ T shfl_xor(T, unsigned) const;
};
__device__ thread_block this_thread_block();
__device__ cluster_group this_cluster();
__device__ grid_group this_grid();
template <unsigned N, class P> __device__ thread_block_tile<N, P> tiled_partition(const P &);
} // namespace cooperative_groups

#define KVLINT_MINMAX(T)                                                        \
  __host__ __device__ T min(T, T);                                              \
  __host__ __device__ T max(T, T);
KVLINT_MINMAX(int) KVLINT_MINMAX(unsigned int) KVLINT_MINMAX(long)
KVLINT_MINMAX(unsigned long) KVLINT_MINMAX(long long)
KVLINT_MINMAX(unsigned long long) KVLINT_MINMAX(float) KVLINT_MINMAX(double)
#undef KVLINT_MINMAX
__host__ __device__ float fminf(float, float);
__host__ __device__ float fmaxf(float, float);
__host__ __device__ int umin(unsigned, unsigned);
__host__ __device__ int umax(unsigned, unsigned);
#endif
