//===- hip/hip_runtime.h - HIP spellings on CUDA, for the lit HIP pairs ----===//
//
// Stand-in for HIP's NVIDIA platform (hip/nvidia_detail), whose ROCm 5.2 copy
// in Debian does not compile with CUDA 13's nvcc (45 errors in
// nvidia_hip_runtime_api.h: cudaMemPrefetchAsync/cudaMemAdvise take a
// cudaMemLocation, cudaDeviceProp lost clockRate/memoryClockRate/computeMode).
// Only what the suite's .hip files use: the index spellings as
// nvidia_detail defines them, and the amdgcn index builtins mapped to the
// same CUDA registers (on AMD they are the workgroup/workitem ids).
//
//===----------------------------------------------------------------------===//
#pragma once
#include <cuda_runtime.h>
#define hipThreadIdx_x threadIdx.x
#define hipThreadIdx_y threadIdx.y
#define hipBlockIdx_x blockIdx.x
#define hipBlockIdx_y blockIdx.y
#define hipBlockDim_x blockDim.x
#define hipGridDim_x gridDim.x
#define __builtin_amdgcn_workitem_id_x() threadIdx.x
#define __builtin_amdgcn_workitem_id_y() threadIdx.y
#define __builtin_amdgcn_workgroup_id_x() blockIdx.x
#define __builtin_amdgcn_workgroup_id_y() blockIdx.y
