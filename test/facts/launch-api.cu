// Launch facts from the runtime API: cudaLaunchKernel((void *)k, grid,
// block, args, smem, stream) with a local `void *args[] = {&a, ...}`, and
// cudaLaunchKernelEx(&config, k, args...) with config.gridDim set before.
// RUN: %if kvlint %{ %kvlint --dump-ir %s > %t || true %}
// RUN: %if kvlint %{ FileCheck %s < %t %}
#include <cstdint>

struct LaunchConfig { dim3 gridDim, blockDim; };
template <typename... A> int cudaLaunchKernelEx(const LaunchConfig *, void (*)(A...), A...);

// CHECK-LABEL: function PackBits (cuda, kernel)
// CHECK-DAG: (LaunchIdx:u32 blockIdx.x @num_elements/2048)
// CHECK-DAG: (Param:i32 stride @row_stride)
template <int ORDER>
__global__ void PackBits(const bool *input, uint8_t *output, int num_elements, int stride) {
  output[blockIdx.x * stride] = input[num_elements];
}

// CHECK-LABEL: function RmsNorm (cuda, kernel)
// CHECK-DAG: (LaunchIdx:u32 blockIdx.x @batch_size)
// CHECK-DAG: (Param:i32 d @d)
template <typename T> __global__ void RmsNorm(T *out, int d, int stride) {
  out[blockIdx.x * stride + d] = T(0);
}

template <int ORDER>
int pack(bool *input, uint8_t *output, int num_elements, int row_stride, cudaStream_t stream) {
  auto kernel = PackBits<ORDER>;
  const dim3 nthrs(256);
  const dim3 nblks((num_elements + 2047) / 2048);
  void *args[] = {&input, &output, &num_elements, &row_stride};
  return cudaLaunchKernel((void *)kernel, nblks, nthrs, args, 0, stream);
}
template int pack<0>(bool *, uint8_t *, int, int, cudaStream_t);

int norm(float *out, int batch_size, int d, int stride) {
  LaunchConfig config;
  config.gridDim = dim3(batch_size);
  config.blockDim = dim3(128);
  auto kernel = RmsNorm<float>;
  return cudaLaunchKernelEx(&config, kernel, out, d, stride);
}

// The runtime's own launch-config API, declared by kvlint's prelude (the
// toolkit's headers are hidden): FlashInfer's norm launchers.
// CHECK-LABEL: function NormKernel (cuda, kernel)
// CHECK-DAG: (LaunchIdx:u32 blockIdx.x @num_tokens)
template <unsigned VEC, typename T> __global__ void NormKernel(T *out, unsigned stride) {
  out[blockIdx.x * stride + threadIdx.x] = T(0);
}

template <typename T> cudaError_t Norm(T *out, unsigned num_tokens, unsigned stride, bool pdl) {
  dim3 nblks(num_tokens);
  cudaLaunchConfig_t config;
  config.gridDim = nblks;
  config.blockDim = dim3(128);
  config.dynamicSmemBytes = 0;
  config.stream = nullptr;
  cudaLaunchAttribute attrs[1];
  attrs[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attrs[0].val.programmaticStreamSerializationAllowed = pdl;
  config.numAttrs = 1;
  config.attrs = attrs;
  auto kernel = NormKernel<8, T>;
  return cudaLaunchKernelEx(&config, kernel, out, stride);
}
template cudaError_t Norm<float>(float *, unsigned, unsigned, bool);
