// KV003 on a state cache: a recurrent (conv) state row written at
// state_indices[b]. The engine marks batch entries without a state with
// PAD_SLOT_ID, and a sibling kernel of the file skips them
// (`if (idx == pad_slot_id) return;`, vLLM's and FlashInfer's Mamba
// kernels): the indices can hold the pad, so the unguarded writer is
// reported at the default level.
// RUN: %if kvlint %{ not %kvlint --checks=KV003 %s | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --implicit-check-not=warning: %}
#include <cstdint>

__global__ void conv_state_update(float *conv_state, const float *x, const int *state_indices,
                                  int pad_slot_id, int dim, int width) {
  int idx = state_indices[blockIdx.x];
  if (idx == pad_slot_id)
    return;
  conv_state[(int64_t)idx * dim * width + threadIdx.x] = x[blockIdx.x * dim + threadIdx.x];
}

__global__ void ssm_state_write(float *ssm_state, const float *h, const int *state_indices,
                                int dstate) {
  int idx = state_indices[blockIdx.x];
  // CHECK: state-cache.cu:[[@LINE+1]]:3: warning: store address is computed from slot 'idx' read from 'state_indices'{{.*}}; 'state_indices' can hold the pad: function 'conv_state_update' (state-cache.cu:16) tests it for the pad{{.*}}[kvlint-unchecked-pad-slot]
  ssm_state[(int64_t)idx * dstate + threadIdx.x] = h[blockIdx.x * dstate + threadIdx.x];
}
