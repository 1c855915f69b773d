// KV001 facet: launch-index products are an opt-in tier (LaunchIndexTier):
// silent by default, reported when the option is on.
// RUN: %if kvlint %{ %kvlint %s | FileCheck %s --allow-empty --check-prefix=DEFAULT --implicit-check-not=warning: %}
// RUN: %if kvlint %{ not %kvlint --option=kvlint-narrowed-index-overflow.LaunchIndexTier=true %s | FileCheck %s --check-prefix=TIER --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -config="{CheckOptions: {kvlint-narrowed-index-overflow.LaunchIndexTier: true}}" -- %cuda-flags | FileCheck %s --check-prefix=TIER --implicit-check-not=warning: %}
#include <cstdint>
// DEFAULT-NOT: warning:

__global__ void act_and_mul(float *out, const float *in, int d) {
  // TIER: launch-tier.cu:[[@LINE+1]]:25: warning: {{.*}}index 'blockIdx.x' is a launch index
  const float *x = in + blockIdx.x * 2 * d;
  for (int i = threadIdx.x; i < d; i += blockDim.x)
    // TIER: launch-tier.cu:[[@LINE+1]]:9: warning: {{.*}}
    out[blockIdx.x * d + i] = x[i] * x[d + i];
}

// Silent in both tiers: the launch index widened.
__global__ void act_and_mul_fixed(float *out, const float *in, int d) {
  const int64_t token = blockIdx.x;
  out[token * d + threadIdx.x] = in[token * 2 * d + threadIdx.x];
}
