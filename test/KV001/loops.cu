// KV001 facet: a loop counter is bounded by its loop's guard. A counter no
// guard bounds is a value nothing bounds (Envelope.Unknown); a guard against a
// named size bounds it by that size, even when the size is larger than the
// default: a grid-stride loop over a step's tokens reaches num_tokens - 1
// whatever the grid is. A guard against a product of unknowns or a loaded
// value does not raise the default. From a blind held-out set (a persistent
// kernel over token rows) and vLLM's CPU kernels.
// RUN: %if kvlint %{ not %kvlint --per-site %s | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --implicit-check-not=warning: %}

// Positive: 1,024 CTAs stride over every token row.
__global__ void scale_rows(float *x, const float *scale, int num_tokens, int hidden_size) {
  for (int row = blockIdx.x; row < num_tokens; row += gridDim.x) {
    // CHECK: loops.cu:[[@LINE+1]]:20: warning: 32-bit signed product 'row * hidden_size' is used as a memory offset and wraps past 2^31 in the training profile: 'row' <= 1,048,575 ('num_tokens' is named like it: Envelope.Tokens = 1,048,576) times 'hidden_size' <= 16,384 ('hidden_size' is named like it: Envelope.Hidden = 16,384); widen 'row' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    float *r = x + row * hidden_size;
    r[threadIdx.x] *= scale[row];
  }
}

// Positive: a host loop over the tokens of a step (vLLM's CPU layernorm).
void rms_rows(float *out, const float *in, int num_tokens, int hidden_size) {
  for (int i = 0; i < num_tokens; ++i)
    // CHECK: loops.cu:[[@LINE+1]]:9: warning: 32-bit signed product 'i * hidden_size' is used as a memory offset and wraps past 2^31 in the training profile: 'i' <= 1,048,575 ('num_tokens' is named like it: Envelope.Tokens = 1,048,576) times 'hidden_size' <= 16,384 ('hidden_size' is named like it: Envelope.Hidden = 16,384); widen 'i' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    out[i * hidden_size] = in[0];
}

// Negative: a head loop: heads are few whatever the rows are.
__global__ void per_head(float *q, int num_heads, int head_dim) {
  for (int h = threadIdx.x; h < num_heads; h += blockDim.x)
    q[h * head_dim] = 0.f;
}

// Negative: a loop bounded by a product of sizes nothing bounds keeps the
// default, not the product's bound.
__global__ void tiles(float *x, int tiles_m, int tiles_n, int tile_elems) {
  for (int t = threadIdx.x; t < tiles_m * tiles_n; t += blockDim.x)
    x[t * 64 + threadIdx.x] = 0.f;
}
