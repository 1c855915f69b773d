#include <cuda_runtime.h>
#include <cstdint>

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kVec = 4;
constexpr int kItems = 4;  // rows up to kItems * kVec * kThreads = 4,096 columns

// in, out: [num_rows, n] with n <= 4,096; one CTA per row
__global__ void softmax_kernel(float* __restrict__ out, const float* __restrict__ in, const int n) {
  __shared__ float s_red[kWarps * 33];
  float vals[kItems * kVec];
  const int64_t row = static_cast<int64_t>(blockIdx.x) * n;
  const int lane = threadIdx.x % 32;
  const int warp_id = threadIdx.x / 32;
  float sum = 0.0f;
  for (int i = 0; i < kItems; ++i) {
    const int col = (i * kThreads + threadIdx.x) * kVec;
    for (int v = 0; v < kVec; ++v) {
      vals[i * kVec + v] = col + v < n ? __expf(in[row + col + v]) : 0.0f;
      sum += vals[i * kVec + v];
    }
  }
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  if (lane == 0) s_red[warp_id * 33] = sum;
  __syncthreads();
  float total = 0.0f;
  for (int w = 0; w < kWarps; ++w) total += s_red[w * 33];
  const float inv = 1.0f / total;
  for (int i = 0; i < kItems; ++i) {
    const int col = (i * kThreads + threadIdx.x) * kVec;
    for (int v = 0; v < kVec; ++v) {
      if (col + v < n) out[row + col + v] = vals[i * kVec + v] * inv;
    }
  }
}

void softmax(float* out, const float* in, int64_t num_rows, int n, cudaStream_t stream) {
  softmax_kernel<<<num_rows, kThreads, 0, stream>>>(out, in, n);
}
