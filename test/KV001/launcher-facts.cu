// KV001 facet: facts the launcher in the same file shows decide a product's
// bound before any name does: the constants every launch passes, the grid
// (<<<num_tokens, ...>>>), the name of the value passed for a parameter, and
// host checks of a product (TORCH_CHECK(n * h * d <= INT_MAX) style) before
// the launch.
// RUN: %if kvlint %{ not %kvlint %s | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --implicit-check-not=warning: %}
#include <cstdint>

// Negative: every launch passes row = 64 and the grid spans 1,024 blocks;
// blockIdx.x * row (< 65,536) cannot wrap, whatever 'row' is called.
__global__ void const_row(float *out, int row) { out[blockIdx.x * row + threadIdx.x] = 0.f; }

// Positive: the grid spans num_tokens (Envelope.Tokens) and the parameter is
// passed vocab_size (Envelope.Vocab): a row of logits per token.
__global__ void logits(float *out, int n) {
  // CHECK: launcher-facts.cu:[[@LINE+1]]:7: warning: 32-bit unsigned product 'blockIdx.x * n' is used as a memory offset and wraps past 2^32 in the training profile: 'blockIdx.x' <= 1,048,575 (the grid spans num_tokens ('num_tokens' is named like it: Envelope.Tokens = 1,048,576)) times 'n' <= 262,144 ('vocab_size' is what the launcher passes (launch at launcher-facts.cu:32): Envelope.Vocab = 262,144); widen 'blockIdx.x' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  out[blockIdx.x * n + threadIdx.x] = 0.f;
}

// Negative: the host checks n * h * d against INT_MAX before it launches.
__global__ void checked(float *out, int n, int h, int d) { out[n * h * d + threadIdx.x] = 0.f; }

// Positive: the same check says nothing about four times the product.
__global__ void checked_times4(float *out, int n, int h, int d) {
  // CHECK: launcher-facts.cu:[[@LINE+1]]:7: warning: 32-bit signed product 'n * h * d * 4' is used as a memory offset and wraps past 2^31 in the training profile: 'n * h * d' <= 2,147,483,647 (a host check bounds it) times '4' = 4; it wraps once 'n * h * d' >= 536,870,912; widen 'n' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  out[n * h * d * 4 + threadIdx.x] = 0.f;
}

void launch(float *out, int num_tokens, int vocab_size, int n, int h, int d) {
  const_row<<<1024, 64>>>(out, 64);
  logits<<<num_tokens, 256>>>(out, vocab_size);
  if (!(static_cast<int64_t>(n) * h * d <= 2147483647)) throw 1;
  checked<<<n, 128>>>(out, n, h, d);
  checked_times4<<<n, 128>>>(out, n, h, d);
}

// A grid axis from a host helper whose every return is a constant (vLLM's
// GPTQ WMMA K-split, 4, 2 or 1): blockIdx.z is below 4, and a K segment
// starts below size_k. Negative: the packed weight row times N. Positive
// twin: the split the launcher takes as a parameter, which nothing bounds.
static int k_split_for(int size_k) {
  if (size_k >= 1024 && size_k % 64 == 0) return 4;
  if (size_k >= 512) return 2;
  return 1;
}
__global__ void split_k(const unsigned *b_q, unsigned *out, int size_k, int size_n) {
  const int k_start = blockIdx.z * (size_k / gridDim.z);
  out[threadIdx.x] = b_q[(k_start / 8) * size_n + threadIdx.x];
}
__global__ void split_k_any(const unsigned *b_q, unsigned *out, int size_k, int size_n) {
  const int k_start = blockIdx.z * (size_k / gridDim.z);
  // CHECK: launcher-facts.cu:[[@LINE+1]]:26: warning: 32-bit signed product '(k_start / 8) * size_n' is used as a memory offset and wraps past 2^31 in the training profile: 'k_start / 8' <= 67,098,624 (the grid spans splits ('splits' is bounded by no fact: below Envelope.Grid = 65,536)) times 'size_n' <= 8,191 ('size_n' is bounded by no fact: below Envelope.Unknown = 8,192); widen 'k_start / 8' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  out[threadIdx.x] = b_q[(k_start / 8) * size_n + threadIdx.x];
}
void launch_split(const unsigned *b_q, unsigned *out, int size_k, int size_n, int splits) {
  const int k_split = k_split_for(size_k);
  split_k<<<dim3(size_n / 16, 1, k_split), 32>>>(b_q, out, size_k, size_n);
  split_k_any<<<dim3(size_n / 16, 1, splits), 32>>>(b_q, out, size_k, size_n);
}
