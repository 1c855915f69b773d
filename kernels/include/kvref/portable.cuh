// kvref/portable.cuh - one source for CUDA (nvcc), HIP (clang -x hip) and plain host C++.
//
// Device code in kvref never touches threadIdx/blockIdx (or HIP's index objects, which call
// into ROCm's device libraries) directly: it asks this header.  Under HIP the indices come from
// the amdgcn builtins, so the library builds with `-nogpuinc -nogpulib` for gfx90a and gfx942
// without a ROCm device-library install (see docs/kvref/README.md).
#ifndef KVREF_PORTABLE_CUH
#define KVREF_PORTABLE_CUH

#include <stdint.h>

#if defined(__HIP__)
#define KVREF_HIP 1
#define KVREF_GPU 1
#elif defined(__CUDACC__)
#define KVREF_CUDA 1
#define KVREF_GPU 1
#endif

#if defined(KVREF_HIP)
#define KVREF_GLOBAL __attribute__((global))
#define KVREF_DEVICE __attribute__((device))
#define KVREF_HOST_DEVICE __attribute__((host, device))
#elif defined(KVREF_CUDA)
#define KVREF_GLOBAL __global__
#define KVREF_DEVICE __device__
#define KVREF_HOST_DEVICE __host__ __device__
#else
#define KVREF_HOST_DEVICE
#endif

namespace kvref {
namespace dev {

#if defined(KVREF_GPU)
#if defined(KVREF_HIP)
KVREF_DEVICE inline uint32_t thread_x() { return __builtin_amdgcn_workitem_id_x(); }
KVREF_DEVICE inline uint32_t block_x() { return __builtin_amdgcn_workgroup_id_x(); }
KVREF_DEVICE inline uint32_t block_y() { return __builtin_amdgcn_workgroup_id_y(); }
#else
KVREF_DEVICE inline uint32_t thread_x() { return threadIdx.x; }
KVREF_DEVICE inline uint32_t block_x() { return blockIdx.x; }
KVREF_DEVICE inline uint32_t block_y() { return blockIdx.y; }
#endif
#endif  // KVREF_GPU

}  // namespace dev
}  // namespace kvref

#endif  // KVREF_PORTABLE_CUH
