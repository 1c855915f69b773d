// host_pieces.cu - an empty kernel's launch cost, for kernels/bench/host_pieces.py.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>

__global__ void host_pieces_empty(int) {}

// µs per launch of n back-to-back launches of an empty kernel on `stream`, with or without the
// programmatic stream serialization attribute (kvref launches with it on sm_90+).
double empty_launch_loop_us(int64_t n, bool pdl, cudaStream_t stream) {
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(1);
  cfg.blockDim = dim3(32);
  cfg.stream = stream;
  cfg.attrs = attr;
  cfg.numAttrs = pdl ? 1 : 0;
  (void)cudaLaunchKernelEx(&cfg, host_pieces_empty, 0);
  (void)cudaStreamSynchronize(stream);
  const auto t0 = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < n; ++i) (void)cudaLaunchKernelEx(&cfg, host_pieces_empty, 0);
  const auto t1 = std::chrono::steady_clock::now();
  (void)cudaStreamSynchronize(stream);
  return std::chrono::duration<double, std::micro>(t1 - t0).count() / static_cast<double>(n);
}
