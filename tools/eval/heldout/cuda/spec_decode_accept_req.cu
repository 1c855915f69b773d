#include <cuda_runtime.h>
#include <cstdint>

// output_token_ids: [batch_size, max_spec_len + 1]
// draft_token_ids, target_argmax: flattened over all draft tokens (cu_num_draft_tokens)
__global__ void accept_greedy_kernel(int* __restrict__ output_token_ids,
                                     const int* __restrict__ cu_num_draft_tokens,
                                     const int* __restrict__ draft_token_ids,
                                     const int* __restrict__ target_argmax,
                                     const int* __restrict__ bonus_token_ids,
                                     const int max_spec_len) {
  const int req = blockIdx.x;
  if (threadIdx.x != 0) return;
  const int start = req == 0 ? 0 : cu_num_draft_tokens[req - 1];
  const int end = cu_num_draft_tokens[req];
  int* out = output_token_ids + req * (max_spec_len + 1);
  bool rejected = false;
  for (int pos = 0; pos < end - start; ++pos) {
    const int target = target_argmax[start + pos];
    out[pos] = target;
    if (draft_token_ids[start + pos] != target) {
      rejected = true;
      break;
    }
  }
  if (!rejected) out[end - start] = bonus_token_ids[req];
}

void accept_greedy(int* output_token_ids, const int* cu_num_draft_tokens,
                   const int* draft_token_ids, const int* target_argmax,
                   const int* bonus_token_ids, int batch_size, int max_spec_len,
                   cudaStream_t stream) {
  accept_greedy_kernel<<<batch_size, 32, 0, stream>>>(output_token_ids, cu_num_draft_tokens,
                                                      draft_token_ids, target_argmax,
                                                      bonus_token_ids, max_spec_len);
}
