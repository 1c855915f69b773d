// KV001 facet: a tile of a grid whose block size is a launcher value. A grid
// of cdiv(n, b) blocks (`(n + b - 1) / b`, `n / b`, a ceil-div helper)
// launched with the same b passed to the kernel keeps `blockIdx.x * b` below
// n, whatever b is: a group of quantisation groups per CTA (vLLM's
// per-token-group quant: `num_groups / groups_per_block` blocks), rows per
// CTA picked at run time. Positive twins (what the fact does not cover): the
// tile start times a row, a grid divided by another value than the one the
// kernel multiplies by.
// RUN: %if kvlint %{ not %kvlint --per-site %s | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --implicit-check-not=warning: %}
#include <cstdint>

__global__ void row_groups(const float *in, float *out, int num_tokens, int rows_per_block) {
  // Negative: blockIdx.x < cdiv(num_tokens, rows_per_block).
  const int first = blockIdx.x * rows_per_block;
  const int row = first + threadIdx.x / 32;
  if (row < num_tokens)
    out[row] = in[first + threadIdx.x % 32];
}

void launch_row_groups(const float *in, float *out, int num_tokens, int rows_per_block,
                       cudaStream_t stream) {
  const int blocks = (num_tokens + rows_per_block - 1) / rows_per_block;
  row_groups<<<blocks, rows_per_block * 32, 0, stream>>>(in, out, num_tokens, rows_per_block);
}

__global__ void token_rows(const float *in, float *out, int num_tokens, int rows_per_block,
                           int hidden_size) {
  const int first = blockIdx.x * rows_per_block;
  // Positive: the tile start is below num_tokens; times the hidden size it is not.
  // CHECK: tiles.cu:[[@LINE+1]]:7: warning: 32-bit unsigned product '(first + threadIdx.y) * hidden_size' is used as a memory offset and wraps past 2^32 in the training profile: 'first + threadIdx.y' <= 1,049,598 ('blockIdx.x * rows_per_block' is a tile of a grid of cdiv(num_tokens, rows_per_block) programs, below num_tokens ('num_tokens' is named like it: Envelope.Tokens = 1,048,576)) times 'hidden_size' <= 16,384 ('hidden_size' is named like it: Envelope.Hidden = 16,384); widen 'first + threadIdx.y' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  out[(first + threadIdx.y) * hidden_size + threadIdx.x] = 0.f;
}

void launch_token_rows(const float *in, float *out, int num_tokens, int rows_per_block,
                       int hidden_size, cudaStream_t stream) {
  token_rows<<<(num_tokens + rows_per_block - 1) / rows_per_block, dim3(32, rows_per_block), 0,
               stream>>>(in, out, num_tokens, rows_per_block, hidden_size);
}

__global__ void other_divisor(float *out, int num_tokens, int rows_per_block, int tile) {
  // Positive: the grid divides by rows_per_block; the kernel multiplies by tile.
  // CHECK: tiles.cu:[[@LINE+1]]:7: warning: 32-bit unsigned product 'blockIdx.x * tile * 4096' is used as a memory offset and wraps past 2^32 in the training profile: 'blockIdx.x * tile' <= 8,588,877,825 (the grid spans num_tokens ('num_tokens' is named like it: Envelope.Tokens = 1,048,576)) times '4096' = 4,096; it wraps once 'blockIdx.x * tile' >= 1,048,576; widen 'blockIdx.x' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  out[blockIdx.x * tile * 4096 + threadIdx.x] = 0.f;
}

void launch_other_divisor(float *out, int num_tokens, int rows_per_block, int tile,
                          cudaStream_t stream) {
  other_divisor<<<num_tokens / rows_per_block, 128, 0, stream>>>(out, num_tokens, rows_per_block, tile);
}
