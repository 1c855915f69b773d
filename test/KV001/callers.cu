// KV001 facet: a launcher that every caller in the file calls under a
// condition. `if (size_m < 32) { launch_small<T>(..., size_m, ...); return; }`
// bounds size_m in launch_small, and so the grid and the arguments it
// launches its kernel with (vLLM's RDNA3 WMMA dispatch: the 16x16 kernel is
// the size_m < 32 fallback of the 32x16 launcher, itself the size_m < 64
// fallback of the 64x16 one). Taken only when the file holds every caller:
// a template or a function of internal linkage, never named but in calls.
// The conditions are branches and early returns (`if (n < 1 || n > 16)
// return 1;`, FlashInfer's router GEMM binding).
// Positive twins: an externally visible launcher, one whose address is taken,
// one caller without the condition, a condition that bounds another value, a
// value the caller changes after the condition.
// RUN: %if kvlint %{ not %kvlint --per-site %s | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --implicit-check-not=warning: %}
#include <cstdint>

template <typename T>
__global__ void gemm_small(const T *a, T *c, int size_m, int size_n, int size_k) {
  const int m = blockIdx.y * 16 + threadIdx.y;
  const int n = blockIdx.x * 16 + threadIdx.x;
  if (m >= size_m || n >= size_n) return;
  // Negative: size_m < 32 at every launch, so m * size_k and m * size_n are small.
  c[m * size_n + n] = a[m * size_k];
}

template <typename T>
void launch_small(const T *a, T *c, int size_m, int size_n, int size_k, cudaStream_t stream) {
  dim3 grid((size_n + 15) / 16, (size_m + 15) / 16);
  gemm_small<T><<<grid, dim3(16, 16), 0, stream>>>(a, c, size_m, size_n, size_k);
}

template <typename T>
__global__ void gemm_mid(const T *a, T *c, int size_m, int size_n, int size_k) {
  const int m = blockIdx.y * 32 + threadIdx.y;
  if (m >= size_m) return;
  // Negative: reached for 32 <= size_m < 64 only (two levels of fallback).
  c[m * size_n + threadIdx.x] = a[m * size_k];
}

template <typename T>
void launch_mid(const T *a, T *c, int size_m, int size_n, int size_k, cudaStream_t stream) {
  if (size_m < 32) {
    launch_small<T>(a, c, size_m, size_n, size_k, stream);
    return;
  }
  gemm_mid<T><<<dim3(size_n / 16, (size_m + 31) / 32), dim3(16, 32), 0, stream>>>(a, c, size_m, size_n,
                                                                                    size_k);
}

template <typename T>
__global__ void gemm_large(const T *a, T *c, int size_m, int size_n, int size_k) {
  const int m = blockIdx.y * 64 + threadIdx.y;
  if (m >= size_m) return;
  // Positive: the large kernel runs for any size_m >= 64.
  // CHECK: callers.cu:[[@LINE+2]]:5: warning: 32-bit signed product 'm * size_n' is used as a memory offset and wraps past 2^31 in the training profile: 'm' <= 1,048,574 ('size_m' is named like it: below Envelope.Tokens = 1,048,576) times 'size_n' <= 8,191 ('size_n' is bounded by no fact: below Envelope.Unknown = 8,192); widen 'm' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  // CHECK: callers.cu:[[@LINE+1]]:35: warning: 32-bit signed product 'm * size_k' is used as a memory offset and wraps past 2^31 in the training profile: 'm' <= 1,048,574 ('size_m' is named like it: below Envelope.Tokens = 1,048,576) times 'size_k' <= 8,191 ('size_k' is bounded by no fact: below Envelope.Unknown = 8,192); widen 'm' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  c[m * size_n + threadIdx.x] = a[m * size_k];
}

template <typename T>
void launch_gemm(const T *a, T *c, int size_m, int size_n, int size_k, cudaStream_t stream) {
  if (size_m < 64) {
    launch_mid<T>(a, c, size_m, size_n, size_k, stream);
    return;
  }
  gemm_large<T><<<dim3(size_n / 16, (size_m + 63) / 64), dim3(16, 64), 0, stream>>>(a, c, size_m, size_n,
                                                                                      size_k);
}

template void launch_gemm<float>(const float *, float *, int, int, int, cudaStream_t);

__global__ void fifo_rows(int64_t *fifo, int channel, int channel_count) {
  // Negative: the one caller passes channel 0 of 1 channel.
  fifo[(blockIdx.x * channel_count + channel) * 262144 + threadIdx.x] = 0;
}

static void launch_fifo(int64_t *fifo, int ranks, int channel, int channel_count) {
  fifo_rows<<<ranks, 256>>>(fifo, channel, channel_count);
}

void prepare(int64_t *fifo, int ranks) { launch_fifo(fifo, ranks, 0, 1); }

__global__ void router_rows(const float *x, float *out, int num_tokens, int hidden) {
  // Negative: the binding refuses all but 1-16 tokens before it dispatches
  // (FlashInfer's DeepSeek-V3 router GEMM), read through an early return.
  out[blockIdx.x * hidden + threadIdx.x] = x[blockIdx.x * hidden];
}

static void launch_router(const float *x, float *out, int num_tokens, int hidden) {
  router_rows<<<num_tokens, 256>>>(x, out, num_tokens, hidden);
}

int router_gemm(const float *x, float *out, int num_tokens, int hidden) {
  if (num_tokens < 1 || num_tokens > 16)
    return 1;
  launch_router(x, out, num_tokens, hidden);
  return 0;
}

__global__ void fifo_rows_extern(int64_t *fifo, int channel, int channel_count) {
  // Positive: launch_fifo_extern may be called from another file.
  // CHECK: callers.cu:[[@LINE+1]]:8: warning: 32-bit unsigned product '(blockIdx.x * channel_count + channel) * 262144' is used as a memory offset and wraps past 2^32 in the training profile: 'blockIdx.x * channel_count + channel' <= 8,388,607 ('channel_count' is bounded by no fact: Envelope.Unknown = 8,192) times '262144' = 262,144; it wraps once 'blockIdx.x * channel_count + channel' >= 16,384; widen 'blockIdx.x' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  fifo[(blockIdx.x * channel_count + channel) * 262144 + threadIdx.x] = 0;
}

void launch_fifo_extern(int64_t *fifo, int ranks, int channel, int channel_count) {
  fifo_rows_extern<<<ranks, 256>>>(fifo, channel, channel_count);
}

void prepare_extern(int64_t *fifo, int ranks) { launch_fifo_extern(fifo, ranks, 0, 1); }

__global__ void fifo_rows_pointer(int64_t *fifo, int channel, int channel_count) {
  // Positive: launch_fifo_pointer's address is taken, so it has callers the file does not show.
  // CHECK: callers.cu:[[@LINE+1]]:8: warning: 32-bit unsigned product '(blockIdx.x * channel_count + channel) * 262144' is used as a memory offset and wraps past 2^32 in the training profile: 'blockIdx.x * channel_count + channel' <= 8,388,607 ('channel_count' is bounded by no fact: Envelope.Unknown = 8,192) times '262144' = 262,144; it wraps once 'blockIdx.x * channel_count + channel' >= 16,384; widen 'blockIdx.x' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  fifo[(blockIdx.x * channel_count + channel) * 262144 + threadIdx.x] = 0;
}

static void launch_fifo_pointer(int64_t *fifo, int ranks, int channel, int channel_count) {
  fifo_rows_pointer<<<ranks, 256>>>(fifo, channel, channel_count);
}

void (*fifo_launcher)(int64_t *, int, int, int) = launch_fifo_pointer;

void prepare_pointer(int64_t *fifo, int ranks) { launch_fifo_pointer(fifo, ranks, 0, 1); }

__global__ void rows_some(float *out, int num_tokens, int hidden) {
  // Positive: one of the two callers passes any number of rows.
  // CHECK: callers.cu:[[@LINE+1]]:7: warning: 32-bit unsigned product 'blockIdx.x * hidden' is used as a memory offset and wraps past 2^32 in the training profile: 'blockIdx.x' <= 1,048,575 (the grid spans num_tokens ('num_tokens' is named like it: Envelope.Tokens = 1,048,576)) times 'hidden' <= 16,384 ('hidden' is named like it: Envelope.Hidden = 16,384); widen 'blockIdx.x' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  out[blockIdx.x * hidden + threadIdx.x] = 0.f;
}

static void launch_rows_some(float *out, int num_tokens, int hidden) {
  rows_some<<<num_tokens, 256>>>(out, num_tokens, hidden);
}

void rows_twice(float *out, int num_tokens, int hidden) {
  if (num_tokens < 16)
    launch_rows_some(out, num_tokens, hidden);
  launch_rows_some(out, num_tokens, hidden);
}

__global__ void rows_other(float *out, int num_tokens, int hidden) {
  // Positive: the condition bounds the hidden size, not the rows.
  // CHECK: callers.cu:[[@LINE+1]]:7: warning: 32-bit unsigned product 'blockIdx.x * hidden' is used as a memory offset and wraps past 2^32 in the training profile: 'blockIdx.x' <= 1,048,575 (the grid spans num_tokens ('num_tokens' is named like it: Envelope.Tokens = 1,048,576)) times 'hidden' <= 8,192 (launch at callers.cu:149); widen 'blockIdx.x' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  out[blockIdx.x * hidden + threadIdx.x] = 0.f;
}

static void launch_rows_other(float *out, int num_tokens, int hidden) {
  rows_other<<<num_tokens, 256>>>(out, num_tokens, hidden);
}

void rows_by_hidden(float *out, int num_tokens, int hidden_size) {
  if (hidden_size <= 8192)
    launch_rows_other(out, num_tokens, hidden_size);
}

__global__ void rows_rescaled(float *out, int num_tokens, int hidden) {
  // Positive: the caller scales the value after the condition bounded it.
  // CHECK: callers.cu:[[@LINE+1]]:7: warning: 32-bit unsigned product 'blockIdx.x * hidden' is used as a memory offset and wraps past 2^32 in the training profile: 'blockIdx.x' <= 1,048,575 (the grid spans num_tokens ('num_tokens' is named like it: Envelope.Tokens = 1,048,576)) times 'hidden' <= 16,384 ('hidden' is named like it: Envelope.Hidden = 16,384); widen 'blockIdx.x' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  out[blockIdx.x * hidden + threadIdx.x] = 0.f;
}

static void launch_rows_rescaled(float *out, int num_tokens, int hidden) {
  rows_rescaled<<<num_tokens, 256>>>(out, num_tokens, hidden);
}

void rows_chunks(float *out, int num_tokens, int chunks, int hidden) {
  if (num_tokens < 16) {
    num_tokens *= chunks;
    launch_rows_rescaled(out, num_tokens, hidden);
  }
}
