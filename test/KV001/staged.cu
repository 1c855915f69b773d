// KV001 facet: values whose bound a fact inside the kernel decides.
//  - `c ? x : y`: x holds where c does. A position picked only when it is
//    below gridDim.y is a grid index (at most 65,535), whatever table it was
//    read from (FlashInfer's KDA decode: `ok = pos >= 0 && pos < gridDim.y`).
//  - a value read back from shared memory is one of the values the kernel
//    stored there: a token position staged for the CTA keeps its bound.
// Positives beside each: the same products where no such fact holds.
// RUN: %if kvlint %{ not %kvlint %s | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --implicit-check-not=warning: %}

__global__ void select_arm(float *q, const int *cu_seqlens, int H) {
  int n = blockIdx.y, t = threadIdx.x;
  int raw = cu_seqlens[n];
  bool has_token = raw >= 0 && raw < gridDim.y;
  int pos = has_token ? raw : 0;
  q[(pos * H + t) * 128] = 0.f;     // negative: pos < gridDim.y <= 65,535
  int any = raw > 0 ? raw : 0;
  // CHECK: staged.cu:[[@LINE+1]]:5: warning: 32-bit signed product '(any * H + t) * 128' is used as a memory offset and wraps past 2^31 in the training profile: 'any * H + t' <= 134,218,751 ('cu_seqlens' is an entry of a table named like it: Envelope.Tokens = 1,048,576) times '128' = 128; it wraps once 'any * H + t' >= 16,777,216; widen 'any' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  q[(any * H + t) * 128] = 1.f;     // positive: only the lower end is guarded
  int flipped = raw >= gridDim.y ? 0 : raw;
  q[(flipped * H + t) * 128] = 2.f; // negative: the else arm holds raw < gridDim.y
}

__global__ void staged_in_shared(float *out, const int *cu_seqlens, int HV) {
  __shared__ int s_token[4];
  __shared__ int s_raw[4];
  int raw = cu_seqlens[blockIdx.y], b = blockIdx.x;
  int pos = raw < gridDim.y ? raw : 0;
  if (threadIdx.x < 4) {
    s_token[threadIdx.x] = pos;
    s_raw[threadIdx.x] = raw;
  }
  __syncthreads();
  out[(s_token[0] * HV + b) * 128] = 0.f; // negative: what was stored is below gridDim.y
  // CHECK: staged.cu:[[@LINE+1]]:7: warning: 32-bit signed product '(s_raw[0] * HV + b) * 128' is used as a memory offset and wraps past 2^31 in the training profile: 's_raw[0] * HV + b' <= 134,221,823 (staged on chip: 'cu_seqlens' is an entry of a table named like it: Envelope.Tokens = 1,048,576) times '128' = 128; it wraps once 's_raw[0] * HV + b' >= 16,777,216; widen 's_raw[0]' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  out[(s_raw[0] * HV + b) * 128] = 1.f;   // positive: a raw table entry was stored
}

__global__ void staged_by_asm(float *out, const int *cu_seqlens, int HV) {
  extern __shared__ int s_tok[];
  int *p = s_tok, b = blockIdx.x;
  // The array is filled by a copy the kernel does not show as a store: its
  // entries are bounded only by their table's name.
  asm volatile("" ::"r"(cu_seqlens[blockIdx.y]));
  // CHECK: staged.cu:[[@LINE+1]]:7: warning: 32-bit signed product '(p[0] * HV + b) * 128' is used as a memory offset and wraps past 2^31 in the training profile: 'p[0] * HV + b' <= 16,781,183 ('p' is loaded from a table no name explains: below Envelope.Loaded = 131,072) times '128' = 128; it wraps once 'p[0] * HV + b' >= 16,777,216; widen 'p[0]' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  out[(p[0] * HV + b) * 128] = 1.f;
}
