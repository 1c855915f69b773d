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

/* The host API launchers size their launches with (device attributes,
 * dynamic shared memory, occupancy, copies): undeclared, the launcher does
 * not parse, and its grid, its checks and the template arguments it
 * instantiates a kernel with are lost. */
enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
};
enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9,
  cudaFuncAttributeNonPortableClusterSizeAllowed = 12,
};
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};
enum cudaStreamCaptureStatus {
  cudaStreamCaptureStatusNone = 0,
  cudaStreamCaptureStatusActive = 1,
  cudaStreamCaptureStatusInvalidated = 2,
};
struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem, sharedMemPerBlock, sharedMemPerBlockOptin, sharedMemPerMultiprocessor;
  int multiProcessorCount, major, minor, maxThreadsPerBlock, maxThreadsPerMultiProcessor;
  int warpSize, regsPerBlock, l2CacheSize;
};
struct cudaFuncAttributes {
  size_t sharedSizeBytes, constSizeBytes, localSizeBytes;
  int maxThreadsPerBlock, numRegs, ptxVersion, binaryVersion, maxDynamicSharedSizeBytes;
};
extern "C" cudaError_t cudaGetDevice(int *);
extern "C" cudaError_t cudaSetDevice(int);
extern "C" cudaError_t cudaGetDeviceCount(int *);
extern "C" cudaError_t cudaDeviceGetAttribute(int *, cudaDeviceAttr, int);
extern "C" cudaError_t cudaGetDeviceProperties(cudaDeviceProp *, int);
extern "C" cudaError_t cudaDeviceSynchronize(void);
extern "C" cudaError_t cudaStreamSynchronize(cudaStream_t);
extern "C" cudaError_t cudaStreamIsCapturing(cudaStream_t, cudaStreamCaptureStatus *);
extern "C" cudaError_t cudaMalloc(void **, size_t);
extern "C" cudaError_t cudaFree(void *);
extern "C" cudaError_t cudaMemcpy(void *, const void *, size_t, cudaMemcpyKind);
extern "C" cudaError_t cudaMemcpyAsync(void *, const void *, size_t, cudaMemcpyKind,
                                       cudaStream_t = 0);
extern "C" cudaError_t cudaMemset(void *, int, size_t);
extern "C" cudaError_t cudaMemsetAsync(void *, int, size_t, cudaStream_t = 0);
template <class T> cudaError_t cudaFuncSetAttribute(T *, cudaFuncAttribute, int);
template <class T> cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *, T *);
template <class T>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *, T, int, size_t);
#endif
