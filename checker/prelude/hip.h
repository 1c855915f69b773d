/* kvlint HIP prelude: what a kernel source needs to parse without the CUDA
 * toolkit's headers (ROCm is not needed). kvlint adds it with
 * -include; pass it yourself when running the clang-tidy plugin:
 *   clang-tidy-19 --load=libkvlint-tidy.so f.cu -- -x hip --cuda-device-only
 *     -nogpuinc -nogpulib --offload-arch=gfx90a -include <this file>
 * Only declarations: nothing here is analysed. */
#ifndef KVLINT_HIP_PRELUDE_H
#define KVLINT_HIP_PRELUDE_H
#define __HIPCC__ 1
#define __HIP__ 1
/* The installed HIP headers (if any) would clash with these declarations:
 * mark the common ones as already included. */
#define HIP_INCLUDE_HIP_HIP_RUNTIME_H
#define HIP_INCLUDE_HIP_HIP_RUNTIME_API_H
#define HIP_INCLUDE_HIP_HIP_FP16_H
#define HIP_INCLUDE_HIP_HIP_BF16_H
#include "common.h"

extern "C" int __hipPushCallConfiguration(dim3, dim3, size_t = 0, cudaStream_t = 0);
typedef struct ihipStream_t *hipStream_t;
typedef int hipError_t;
#define hipThreadIdx_x threadIdx.x
#define hipThreadIdx_y threadIdx.y
#define hipThreadIdx_z threadIdx.z
#define hipBlockIdx_x blockIdx.x
#define hipBlockIdx_y blockIdx.y
#define hipBlockIdx_z blockIdx.z
#define hipBlockDim_x blockDim.x
#define hipBlockDim_y blockDim.y
#define hipBlockDim_z blockDim.z
#define hipGridDim_x gridDim.x
#define hipGridDim_y gridDim.y
#define hipGridDim_z gridDim.z
template <class... A> void hipLaunchKernelGGL(A...);
template <class T> __device__ T __shfl_xor(T, int, int = 64);
template <class T> __device__ T __shfl(T, int, int = 64);
#endif
