// KV001 facet: launch-index products are judged by magnitude, like any
// other: a grid the launcher does not show spans at most Envelope.Grid
// programs, so blockIdx.x * 2 * d (a token times an
// activation row) wraps, blockIdx.x * 128 + threadIdx.x (a tile) does not.
// RUN: %if kvlint %{ not %kvlint --per-site %s | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if kvlint %{ not %kvlint --per-site --option=Level=latent %s | FileCheck %s --check-prefixes=CHECK,LATENT --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -config="{CheckOptions: {Level: latent, Profile: training}}" -- %cuda-flags | FileCheck %s --check-prefixes=CHECK,LATENT --implicit-check-not=warning: %}
#include <cstdint>

// Positive: vLLM's act_and_mul before its fix (token x 2 x d in 32 bits).
__global__ void act_and_mul(float *out, const float *in, int d) {
  // CHECK: launch.cu:[[@LINE+1]]:25: warning: 32-bit unsigned product 'blockIdx.x * 2 * d' is used as a memory offset and wraps past 2^32 in the training profile: 'blockIdx.x * 2' <= 131,070 ('blockIdx.x' spans a grid the launcher does not show: below Envelope.Grid = 65,536) times 'd' <= 65,536 ('d' is named like it: Envelope.Intermediate = 65,536); widen 'blockIdx.x' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  const float *x = in + blockIdx.x * 2 * d;
  for (int i = threadIdx.x; i < d; i += blockDim.x)
    // The row alone (grid x d < 2^32) wraps only beyond the envelope.
    // LATENT: launch.cu:[[@LINE+1]]:9: warning: 32-bit unsigned product 'blockIdx.x * d' is used as a memory offset and wraps past 2^32 only beyond the training envelope: {{.*}} [kvlint-narrowed-index-overflow]
    out[blockIdx.x * d + i] = x[i] * x[d + i];
}

// Positive: a row of logits per token (token x vocabulary).
__global__ void logits_row(float *logits, const float *bias, int vocab_size) {
  // CHECK: launch.cu:[[@LINE+1]]:10: warning: 32-bit unsigned product 'blockIdx.x * vocab_size' is used as a memory offset and wraps past 2^32 in the training profile: 'blockIdx.x' <= 65,535 ('blockIdx.x' spans a grid the launcher does not show: below Envelope.Grid = 65,536) times 'vocab_size' <= 262,144 ('vocab_size' is named like it: Envelope.Vocab = 262,144); widen 'blockIdx.x' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  logits[blockIdx.x * vocab_size + threadIdx.x] += bias[threadIdx.x];
}

// Negative: the launch index widened (the fix).
__global__ void act_and_mul_fixed(float *out, const float *in, int d) {
  const int64_t token = blockIdx.x;
  out[token * d + threadIdx.x] = in[token * 2 * d + threadIdx.x];
}

// Negative: a grid-stride element index (grid x 1,024 threads < 2^28).
__global__ void elementwise(float *out, const float *in) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i];
}

// Negative: a tile of 128 elements per program.
__global__ void tiled(float *out) { out[blockIdx.x * 128 + threadIdx.x] = 0.f; }

// Latent: token x hidden_size fits 2^32 inside the envelope (131,071 x
// 16,384 < 2^32) and wraps only beyond it.
__global__ void hidden_row(float *out, int hidden_size) {
  // LATENT: launch.cu:[[@LINE+1]]:7: warning: 32-bit unsigned product 'blockIdx.x * hidden_size' is used as a memory offset and wraps past 2^32 only beyond the training envelope: {{.*}} [kvlint-narrowed-index-overflow]
  out[blockIdx.x * hidden_size + threadIdx.x] = 0.f;
}

// Negative at the default level: a tile index named like a block id spans
// the grid, not a KV pool of 8M pages: the name may shrink a launch index's
// bound, never grow it. Beyond the envelope the grid is large enough.
__global__ void tile_block(float *out, int row_stride) {
  const int block_id = blockIdx.x;
  // LATENT: launch.cu:[[@LINE+1]]:7: warning: 32-bit signed product 'block_id * row_stride' is used as a memory offset and wraps past 2^31 only beyond the training envelope: {{.*}} [kvlint-narrowed-index-overflow]
  out[block_id * row_stride + threadIdx.x] = 0.f;
}
