/* kvlint CUDA prelude: what a kernel source needs to parse without the CUDA
 * toolkit's headers (clang 19 cannot parse CUDA 13's). kvlint adds it with
 * -include; pass it yourself when running the clang-tidy plugin:
 *   clang-tidy-19 --load=libkvlint-tidy.so f.cu -- -x cuda --cuda-device-only
 *     -nocudainc -nocudalib --cuda-gpu-arch=sm_90 -include <this file>
 * Only declarations: nothing here is analysed. */
#ifndef KVLINT_CUDA_PRELUDE_H
#define KVLINT_CUDA_PRELUDE_H
#define __CUDACC__ 1
#include "common.h"

/* The runtime's error codes and calls a launcher returns or checks
 * (`if (n * h > INT_MAX) return cudaErrorInvalidValue;`, `return
 * cudaGetLastError();`): undeclared, the statement would not parse and the
 * check it makes would be lost. */
enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorLaunchFailure = 719,
  cudaErrorNotSupported = 801,
  cudaErrorUnknown = 999,
};
extern "C" cudaError_t cudaGetLastError(void);
extern "C" cudaError_t cudaPeekAtLastError(void);
extern "C" const char *cudaGetErrorString(cudaError_t);
__device__ __half __float2half(float);
__device__ float __half2float(__half);
#endif
