// Launch facts, host branches: an argument compared with a constant by the
// `if` the launch is in is bounded by it (vLLM's GPTQ kernels launch the
// small-M kernel under `if (size_m < 64)`). A launch in the else branch, or
// another launch without the branch, joins the sites and the fact is gone;
// an early return is not read; a value the launcher writes keeps no bound.
// RUN: %if kvlint %{ %kvlint --dump-ir %s > %t || true %}
// RUN: %if kvlint %{ FileCheck %s < %t %}
// The sizes are a 1M-token batch's: the training profile (issue 24).
// RUN: %if kvlint %{ not %kvlint --checks=KV001 --option=Profile=training %s | FileCheck %s --check-prefix=KV --implicit-check-not=warning: %}

// CHECK-LABEL: function gemm_guarded (cuda, kernel)
// CHECK-DAG: (Param:i32 size_m [0,63])
// CHECK-DAG: (Param:i32 size_n [0,8192])
__global__ void gemm_guarded(float *c, int size_m, int size_n) {
  int m = blockIdx.y * 16 + threadIdx.y;
  if (m >= size_m)
    return;
  c[m * size_n + threadIdx.x] = 0.f; // negative: m < 64, size_n <= 8192
}
void launch_guarded(float *c, int size_m, int size_n) {
  if (size_m < 64 && size_n <= 8192)
    gemm_guarded<<<dim3(1, 4), dim3(32, 16)>>>(c, size_m, size_n);
}

// CHECK-LABEL: function gemm_any (cuda, kernel)
// CHECK-NOT: [0,63]
// CHECK: function
__global__ void gemm_any(float *c, int size_m, int size_n) {
  int m = blockIdx.y * 16 + threadIdx.y;
  if (m >= size_m)
    return;
  // KV: launch-branches.cu:[[@LINE+1]]:5: warning: 32-bit signed product 'm * size_n' {{.*}} [kvlint-narrowed-index-overflow]
  c[m * size_n + threadIdx.x] = 0.f; // positive: the else branch launches any size
}
void launch_any(float *c, int size_m, int size_n) {
  if (size_m < 64)
    gemm_any<<<dim3(1, 4), dim3(32, 16)>>>(c, size_m, size_n);
  else
    gemm_any<<<dim3(1, (size_m + 15) / 16), dim3(32, 16)>>>(c, size_m, size_n);
}

__global__ void gemm_big(float *c, int size_m, int size_n) {
  int m = blockIdx.y * 16 + threadIdx.y;
  if (m >= size_m)
    return;
  // KV: launch-branches.cu:[[@LINE+1]]:5: warning: 32-bit signed product 'm * size_n' {{.*}} [kvlint-narrowed-index-overflow]
  c[m * size_n + threadIdx.x] = 0.f; // positive: size_m >= 64 is no upper bound
}
void launch_big(float *c, int size_m, int size_n) {
  if (size_m >= 64)
    gemm_big<<<dim3(1, (size_m + 15) / 16), dim3(32, 16)>>>(c, size_m, size_n);
}

// The branch conditions are read like the host checks (upperBounds): a
// negated comparison and __builtin_expect say the same bound.
// CHECK-LABEL: function gemm_negated (cuda, kernel)
// CHECK-DAG: (Param:i32 size_m [0,63])
// CHECK-DAG: (Param:i32 size_n [0,4096])
__global__ void gemm_negated(float *c, int size_m, int size_n) {
  int m = blockIdx.y * 16 + threadIdx.y;
  if (m >= size_m)
    return;
  c[m * size_n + threadIdx.x] = 0.f; // negative: m < 64, size_n <= 4096
}
void launch_negated(float *c, int size_m, int size_n) {
  if (!(size_m >= 64) && __builtin_expect(size_n <= 4096, 1))
    gemm_negated<<<dim3(1, 4), dim3(32, 16)>>>(c, size_m, size_n);
}

// A value the launcher changes after the condition bounded it: the condition
// says nothing of what the launch passes.
// CHECK-LABEL: function gemm_rescaled (cuda, kernel)
// CHECK-NOT: [0,63]
// CHECK: function
__global__ void gemm_rescaled(float *c, int size_m, int size_n) {
  int m = blockIdx.y * 16 + threadIdx.y;
  if (m >= size_m)
    return;
  // KV: launch-branches.cu:[[@LINE+1]]:5: warning: 32-bit signed product 'm * size_n' is used as a memory offset and wraps past 2^31 in the training profile: 'm' <= 1,048,574 ('size_m' is named like it: below Envelope.Tokens = 1,048,576) times 'size_n' <= 8,191 ('size_n' is bounded by no fact: below Envelope.Unknown = 8,192); widen 'm' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  c[m * size_n + threadIdx.x] = 0.f;
}
void launch_rescaled(float *c, int size_m, int size_n, int chunks) {
  if (size_m < 64) {
    size_m *= chunks;
    gemm_rescaled<<<dim3(1, (size_m + 15) / 16), dim3(32, 16)>>>(c, size_m, size_n);
  }
}
