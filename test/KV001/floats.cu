// KV001 facet: floating-point arithmetic is no index math. An integer
// converted from a float (a grid cell from a scaled position, a rounded
// ratio) is bounded by no fact of the float expression: it is a value no
// fact bounds (Envelope.Unknown), not the product of the operands' bounds
// as if the multiplication were integral. Positive twins: the converted
// integer times a step's tokens, and an integer product beside a float one.
// RUN: %if kvlint %{ not %kvlint --per-site %s | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --implicit-check-not=warning: %}

// Negative: a loaded position scaled to a cell of a 64-wide table.
__global__ void grid_cell(const float *__restrict__ table, float *out, const int *token_pos, float scale) {
  int pos = token_pos[blockIdx.x];
  int cell = (int)(pos * scale);
  out[blockIdx.x * 64 + threadIdx.x] = table[cell * 64 + threadIdx.x];
}

// Negative: a float weight times an index feeds a value, not an address.
__global__ void weights(float *w, int n, float alpha) {
  int i = blockIdx.x * 256 + threadIdx.x;
  if (i < n)
    w[i] = alpha * i * 0.5f;
}

// Positive: a bucket picked by a rounded ratio, times the tokens of a step.
__global__ void bucket_rows(float *acts, float frac, int num_tokens) {
  int bucket = static_cast<int>(frac * 64.0f);
  // CHECK: floats.cu:[[@LINE+1]]:8: warning: 32-bit signed product 'bucket * num_tokens' is used as a memory offset and wraps past 2^31 in the training profile: 'bucket' <= 8,191 ('static_cast<int>(frac * 64.0f)' is converted from a floating-point value: below Envelope.Unknown = 8,192) times 'num_tokens' <= 1,048,576 ('num_tokens' is named like it: Envelope.Tokens = 1,048,576); widen 'bucket' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  acts[bucket * num_tokens + blockIdx.x] = 0.f;
}

// Positive: a token's logits row beside a float scale.
__global__ void scale_logits(float *logits, float temperature, int vocab_size) {
  int token = blockIdx.x;
  // CHECK: floats.cu:[[@LINE+1]]:10: warning: 32-bit signed product 'token * vocab_size' is used as a memory offset and wraps past 2^31 in the training profile: 'token' <= 65,535 ('blockIdx.x' spans a grid the launcher does not show: below Envelope.Grid = 65,536) times 'vocab_size' <= 262,144 ('vocab_size' is named like it: Envelope.Vocab = 262,144); widen 'token' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  logits[token * vocab_size + threadIdx.x] /= temperature * 0.5f;
}

