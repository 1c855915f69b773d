// KV003 evidence, negative: a dummy-slot engine. CUDA-graph padding goes to
// a reserved slot 0 that no request owns (SGLang's and TensorRT-LLM's
// idiom), nothing in the file writes a negative slot, and no consumer tests
// for one: the store is safe while that holds, so it is latent only, and
// the message says why.
// RUN: %if kvlint %{ %kvlint --checks=KV003 %s | FileCheck %s --check-prefix=DEFAULT --allow-empty --implicit-check-not=warning: %}
// RUN: %if kvlint %{ not %kvlint --checks=KV003 --level latent %s | FileCheck %s --check-prefix=LATENT --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --check-prefix=DEFAULT --allow-empty --implicit-check-not=warning: %}
// DEFAULT-NOT: warning:
#include <cstdint>

// Padded tokens of a replayed graph map to the dummy slot 0.
__global__ void pad_to_dummy(int64_t *out_cache_loc, int num_tokens, int padded) {
  int t = num_tokens + threadIdx.x;
  if (t < padded)
    out_cache_loc[t] = 0;
}

__global__ void set_kv_buffer(const float *k, float *k_buffer, const int64_t *out_cache_loc,
                              int64_t d) {
  int64_t loc = out_cache_loc[blockIdx.x];
  // LATENT: dummy-slot.cu:[[@LINE+1]]:3: warning: store address is computed from slot 'loc' read from 'out_cache_loc' with no guard that skips the pad slot (-1){{.*}}; latent: nothing in this file or the tree's Python writes a negative value or PAD_SLOT_ID into 'out_cache_loc' and no consumer tests it for the pad (an engine that pads to a real slot never stores at -1); store only when 'loc >= 0' [kvlint-unchecked-pad-slot]
  k_buffer[loc * d + threadIdx.x] = k[blockIdx.x * d + threadIdx.x];
}
