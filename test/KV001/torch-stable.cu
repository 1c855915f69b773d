// KV001 facet: launchers written against PyTorch's stable ABI (vLLM's
// csrc/libtorch_stable): torch::stable::Tensor parameters, THO_DISPATCH_SWITCH
// and STD_TORCH_CHECK. Without the headers, kvlint serves a stand-in so that
// the launcher parses: its grid and the kernel's instantiation are facts.
// RUN: %if kvlint %{ not %kvlint --per-site %s | FileCheck %s --implicit-check-not=warning: %}
#include <torch/csrc/stable/tensor.h>
#include <torch/headeronly/core/Dispatch.h>
#include <torch/headeronly/core/ScalarType.h>
#include <torch/headeronly/util/Exception.h>

// A state chunk of a [slots, DimV, DimK] recurrent state (vLLM's GDN decode):
// chunk < 4 and the chunk sizes are the constants the kernel instantiates
// it with.
template <typename StateT, int ChunkV, int DimK>
__device__ __forceinline__ void copy_state_chunk(StateT *dst, const StateT *state, int chunk) {
  for (int e = threadIdx.x; e < ChunkV * DimK; e += blockDim.x)
    dst[e] = state[chunk * ChunkV * DimK + e];
}

template <typename StateT>
__global__ void gdn_state_copy(StateT *dst, const StateT *state, const int64_t *slots) {
  const StateT *s = state + slots[blockIdx.x] * (128 * 128);
  // Negative: only instantiated, through the launcher's dispatch, are ChunkV
  // and DimK known (32, 128); the helper alone would multiply two unknown
  // compile-time constants by an unknown chunk.
  for (int chunk = 0; chunk < 4; ++chunk)
    copy_state_chunk<StateT, 32, 128>(dst + chunk * 32 * 128, s, chunk);
}

void gdn_state_copy_launch(torch::stable::Tensor &dst, const torch::stable::Tensor &state,
                           const torch::stable::Tensor &slots) {
  const int num_reqs = slots.size(0);
  THO_DISPATCH_SWITCH(state.scalar_type(), "gdn_state_copy",
                      THO_DISPATCH_CASE(torch::headeronly::ScalarType::Float, [&] {
                        gdn_state_copy<scalar_t><<<num_reqs, 128>>>(
                            dst.mutable_data_ptr<scalar_t>(), state.const_data_ptr<scalar_t>(),
                            slots.const_data_ptr<int64_t>());
                      }));
}

template <typename scalar_t, int group_size>
__global__ void silu_mul_group_quant(float *scales, scalar_t *out, const scalar_t *input,
                                     int hidden_size) {
  const int token_idx = blockIdx.x;  // the grid spans num_tokens
  const int group_idx = blockIdx.y;  // and hidden_size / group_size
  const int num_groups = gridDim.y;
  const int input_stride = hidden_size * 2;
  // Positive: a token of the launcher's num_tokens times two hidden rows
  // (1M x 32,768).
  // CHECK: torch-stable.cu:[[@LINE+1]]:32: warning: 32-bit signed product 'token_idx * input_stride' is used as a memory offset and wraps past 2^31 in the training profile: 'token_idx' <= 1,048,575 (the grid spans num_tokens ('num_tokens' is named like it: Envelope.Tokens = 1,048,576)) times 'input_stride' <= 32,768 ('hidden_size' is named like it: Envelope.Hidden = 16,384); widen 'token_idx' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  const scalar_t *in = input + token_idx * input_stride + group_idx * group_size;
  // Negative: the scales row is num_groups = hidden_size / 128 wide (at most
  // 128 groups at hidden 16,384): the launcher's grid says so.
  scales[token_idx * num_groups + group_idx] = 0.f;
  out[threadIdx.x] = in[threadIdx.x];
}

void silu_mul_group_quant_launch(torch::stable::Tensor &out, torch::stable::Tensor &scales,
                                 const torch::stable::Tensor &input) {
  STD_TORCH_CHECK(input.dim() == 2, "input must be [tokens, 2 * hidden]");
  const int num_tokens = input.size(0);
  const int hidden_size = input.size(1) / 2;
  const int num_groups = hidden_size / 128;
  dim3 grid(num_tokens, num_groups);
  dim3 block(128);
  THO_DISPATCH_SWITCH(input.scalar_type(), "silu_mul_group_quant",
                      THO_DISPATCH_CASE(torch::headeronly::ScalarType::Float, [&] {
                        silu_mul_group_quant<scalar_t, 128><<<grid, block>>>(
                            scales.mutable_data_ptr<float>(), out.mutable_data_ptr<scalar_t>(),
                            input.const_data_ptr<scalar_t>(), hidden_size);
                      }));
}
