// KV001 facet: a product the launcher checks before the launch. The check
// names the launcher's values; a factor the kernel gets as an argument is
// its parameter, a factor that is the grid's extent along an axis is the
// launch index along it (blockIdx.x < num_tokens), and a value a guard keeps
// below a checked size (`if (id >= vocab_size) return;`) is bounded by that
// size's check. An `if (...) return` that leaves the launcher before the
// launch is a check too, unless the branch launches something itself.
// Negatives from a blind held-out set (row kernels guarded on the host, an
// embedding table rejected when too large); each has a positive twin.
// RUN: %if kvlint %{ not %kvlint --per-site %s | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --implicit-check-not=warning: %}
#include <climits>
#include <cstdint>
// c10's TORCH_CHECK as a function (the macro's header is not here).
void TORCH_CHECK(bool cond, const char *msg = "");

// Negative: TORCH_CHECK(num_tokens * hidden_size <= INT_MAX), one block per
// token.
__global__ void scale_rows(float *x, const float *scale, int hidden_size) {
  int token = blockIdx.x;
  x[token * hidden_size + threadIdx.x] *= scale[threadIdx.x];
}
void scale_rows_launch(float *x, const float *scale, int64_t num_tokens, int64_t hidden_size) {
  TORCH_CHECK(num_tokens * hidden_size <= INT_MAX, "too large for 32-bit offsets");
  scale_rows<<<num_tokens, 256>>>(x, scale, static_cast<int>(hidden_size));
}

// Positive twin: the kernel's rows are twice what the check counted.
__global__ void gate_up_rows(float *x, int hidden_size) {
  int token = blockIdx.x;
  // CHECK: checked.cu:[[@LINE+1]]:5: warning: 32-bit signed product 'token * 2 * hidden_size' is used as a memory offset and wraps past 2^31 in the training profile: 'token * 2' <= 2,097,150 (the grid spans num_tokens ('num_tokens' is named like it: Envelope.Tokens = 1,048,576)) times 'hidden_size' <= 16,384 ('hidden_size' is named like it: Envelope.Hidden = 16,384); widen 'token' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  x[token * 2 * hidden_size + threadIdx.x] = 0.f;
}
void gate_up_launch(float *x, int64_t num_tokens, int64_t hidden_size) {
  TORCH_CHECK(num_tokens * hidden_size <= INT_MAX);
  gate_up_rows<<<num_tokens, 256>>>(x, static_cast<int>(hidden_size));
}

// Negative: the launcher returns an error unless rows * stride fits.
__global__ void gelu_rows(float *x, int row_stride) {
  int row = blockIdx.x;
  x[row * row_stride + threadIdx.x] = 0.f;
}
cudaError_t gelu_rows_launch(float *x, int num_rows, int row_stride) {
  if (static_cast<int64_t>(num_rows) * row_stride > INT_MAX)
    return cudaErrorInvalidValue;
  gelu_rows<<<num_rows, 256>>>(x, row_stride);
  return cudaGetLastError();
}

// Positive twin: a branch that launches its own kernel and returns is a
// dispatch; its kernel runs exactly when the product is large.
__global__ void relu_rows(float *x, int row_stride) {
  int row = blockIdx.x;
  // CHECK: checked.cu:[[@LINE+1]]:5: warning: 32-bit signed product 'row * row_stride' is used as a memory offset and wraps past 2^31 in the training profile: 'row' <= 1,048,575 (the grid spans num_rows ('num_rows' is named like it: Envelope.Tokens = 1,048,576)) times 'row_stride' <= 16,384 ('row_stride' is named like it: Envelope.Stride = 16,384); widen 'row' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  x[row * row_stride + threadIdx.x] = 0.f;
}
__global__ void relu_rows_narrow(float *x, int row_stride) {
  int row = blockIdx.x;
  x[row * row_stride + threadIdx.x] = 1.f;
}
void relu_rows_launch(float *x, int num_rows, int row_stride) {
  if (static_cast<int64_t>(num_rows) * row_stride > INT_MAX) {
    relu_rows<<<num_rows, 256>>>(x, row_stride);
    return;
  }
  relu_rows_narrow<<<num_rows, 256>>>(x, row_stride);
}

// Negative: an id the kernel keeps below vocab_size, and the launcher
// rejects a table of more than INT_MAX elements.
__global__ void embed(float *out, const float *weight, const int *ids, int vocab_size, int hidden_size) {
  int id = ids[blockIdx.x];
  if (id < 0 || id >= vocab_size)
    return;
  out[static_cast<int64_t>(blockIdx.x) * hidden_size + threadIdx.x] = weight[id * hidden_size + threadIdx.x];
}
int embed_launch(float *out, const float *weight, const int *ids, int num_tokens, int vocab_size,
                 int hidden_size) {
  if (static_cast<int64_t>(vocab_size) * hidden_size > INT_MAX)
    return 1;
  embed<<<num_tokens, 256>>>(out, weight, ids, vocab_size, hidden_size);
  return 0;
}

// Positive twin: the same kernel, launched without the check.
__global__ void embed_unchecked(float *out, const float *weight, const int *ids, int vocab_size,
                                int hidden_size) {
  int id = ids[blockIdx.x];
  if (id < 0 || id >= vocab_size)
    return;
  // CHECK: checked.cu:[[@LINE+1]]:78: warning: 32-bit signed product 'id * hidden_size' is used as a memory offset and wraps past 2^31 in the training profile: 'id' <= 131,071 ('ids' is loaded from a table no name explains: below Envelope.Loaded = 131,072) times 'hidden_size' <= 16,384 ('hidden_size' is named like it: Envelope.Hidden = 16,384); the product reaches 17,179,852,800 (an index times a hidden-size row is a token's row, and a token is below Envelope.Tokens); widen 'id' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  out[static_cast<int64_t>(blockIdx.x) * hidden_size + threadIdx.x] = weight[id * hidden_size + threadIdx.x];
}
void embed_unchecked_launch(float *out, const float *weight, const int *ids, int num_tokens, int vocab_size,
                            int hidden_size) {
  embed_unchecked<<<num_tokens, 256>>>(out, weight, ids, vocab_size, hidden_size);
}
