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
#elif (defined(__CUDACC__) || defined(__CUDA__)) && defined(__HIP_PLATFORM_NVIDIA__)
// HIP's NVIDIA platform (nvcc with __HIP_PLATFORM_NVIDIA__, as hipcc drives it): the HIP host
// API and the HIP device code paths, on an NVIDIA GPU.  This is how kvref's HIP code executes
// on a machine without an AMD GPU (kernels/tools/hip_nvidia_check.sh); only the thread and
// block indices differ from the AMD build (the CUDA built-ins instead of the amdgcn builtins).
#define KVREF_HIP 1
#define KVREF_HIP_NVIDIA 1
#define KVREF_GPU 1
#elif defined(__CUDACC__) || defined(__CUDA__)
#define KVREF_CUDA 1
#define KVREF_GPU 1
#elif defined(KVREF_EMULATE)
// Host emulation (tests only): kernels become plain functions, run once per (block, thread)
// by kvref::emu::launch, so CI can execute the real kernel code without a GPU.
#define KVREF_GPU 1
#endif

#if defined(KVREF_HIP_NVIDIA)
#define KVREF_GLOBAL __global__
#define KVREF_DEVICE __device__
#define KVREF_HOST_DEVICE __host__ __device__
#elif defined(KVREF_HIP)
#define KVREF_GLOBAL __attribute__((global))
#define KVREF_DEVICE __attribute__((device))
#define KVREF_HOST_DEVICE __attribute__((host, device))
#elif defined(KVREF_CUDA)
#define KVREF_GLOBAL __global__
#define KVREF_DEVICE __device__
#define KVREF_HOST_DEVICE __host__ __device__
#else
#define KVREF_GLOBAL
#define KVREF_DEVICE
#define KVREF_HOST_DEVICE
#endif

// Rare paths of the kernels (64-bit division, the fp8 reference conversion) are kept out of
// line so that the common path stays small (decode-sized launches start with a cold
// instruction cache).
#if defined(KVREF_CUDA) || defined(KVREF_HIP)
#define KVREF_NOINLINE __attribute__((noinline))
#else
#define KVREF_NOINLINE
#endif

namespace kvref {
#if defined(KVREF_EMULATE) && !defined(KVREF_HIP) && !defined(KVREF_CUDA)
namespace emu {
inline thread_local uint32_t thread_x = 0, block_x = 0, block_y = 0;
// Runs kernel(args...) for every thread of a (grid_x, grid_y) x block_x launch, sequentially.
template <typename Kernel, typename... Args>
void launch(uint32_t grid_x, uint32_t grid_y, uint32_t block, Kernel kernel, const Args&... args) {
  for (uint32_t by = 0; by < grid_y; ++by)
    for (uint32_t bx = 0; bx < grid_x; ++bx)
      for (uint32_t tx = 0; tx < block; ++tx) {
        emu::block_y = by;
        emu::block_x = bx;
        emu::thread_x = tx;
        kernel(args...);
      }
}
}  // namespace emu
#endif

namespace dev {

#if defined(KVREF_GPU)
#if defined(KVREF_EMULATE) && !defined(KVREF_HIP) && !defined(KVREF_CUDA)
inline uint32_t thread_x() { return emu::thread_x; }
inline uint32_t block_x() { return emu::block_x; }
inline uint32_t block_y() { return emu::block_y; }
#elif defined(KVREF_HIP) && !defined(KVREF_HIP_NVIDIA)
KVREF_DEVICE inline uint32_t thread_x() { return __builtin_amdgcn_workitem_id_x(); }
KVREF_DEVICE inline uint32_t block_x() { return __builtin_amdgcn_workgroup_id_x(); }
KVREF_DEVICE inline uint32_t block_y() { return __builtin_amdgcn_workgroup_id_y(); }
#else
KVREF_DEVICE inline uint32_t thread_x() { return threadIdx.x; }
KVREF_DEVICE inline uint32_t block_x() { return blockIdx.x; }
KVREF_DEVICE inline uint32_t block_y() { return blockIdx.y; }
#endif
#endif  // KVREF_GPU

#if defined(KVREF_GPU)
// Programmatic dependent launch (CUDA, sm_90+): a kernel launched with the programmatic
// stream serialization attribute may start while the kernel before it in the stream drains;
// this waits until the grids it depends on have completed and their memory is visible.  For a
// launch without the attribute (and on HIP, in emulation, below sm_90) it returns at once.
// Every kvref kernel calls it before its first memory access.
KVREF_DEVICE inline void wait_prerequisite_grids() {
#if defined(KVREF_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
#endif  // KVREF_GPU

}  // namespace dev
}  // namespace kvref

#endif  // KVREF_PORTABLE_CUH
