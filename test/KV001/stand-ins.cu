// KV001 facet: kernels that only parse with headers a single-file scan lacks.
//  * CuTe: `Tensor gQ = make_tensor(make_gmem_ptr(ptr + off), ...)` is a
//    declaration clang drops whole without <cute/tensor.hpp>; kvlint serves a
//    stand-in (only when no real CuTe is on the include path), so the pointer
//    arithmetic inside is analysed.
//  * PyTorch accessors: a kernel taking `at::PackedTensorAccessor32<...>`
//    does not parse without ATen; the stand-in declares the accessor types.
//  * A params struct whose type a missing header declares (`params.dim`) or
//    a template parameter leaves unknown: its non-stride members are taken
//    as int, as engines declare them (DependentMemberBits).
//  * A member call on a dependent object (`binfo.q_offset(a * b, c, bidb)`)
//    has no body to inline: a product in its arguments is in the offset.
// RUN: %if kvlint %{ not %kvlint %s 2>%t.err | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if kvlint %{ not %kvlint -v %s 2>&1 >/dev/null | FileCheck %s --check-prefix=VERBOSE %}
#include <cute/tensor.hpp>
#include <ATen/Tensor.h>
#include "ssm_params_not_here.h"
#include <cstdint>

// VERBOSE: headers not found, analysed without them: ATen/Tensor.h (kvlint's stand-in used) cute/tensor.hpp (kvlint's stand-in used) ssm_params_not_here.h

using namespace cute;

// Positive: the dQ accumulator's row offset, rows x heads x head dim in int
// (FlashAttention's backward before the fix).
template <typename Params>
__global__ void dq_accum(const Params params, int m_block) {
  const int bidb = blockIdx.y, bidh = blockIdx.z;
  // CHECK: stand-ins.cu:[[@LINE+1]]:23: warning: 32-bit signed product '(m_block * 128 + 128 * bidb) * params.h * params.d_rounded' is used as a memory offset and wraps past 2^31 in the training profile: '(m_block * 128 + 128 * bidb) * params.h' <= 201,293,824 ('m_block' is bounded by no fact: below Envelope.Unknown = 8,192) times 'params.d_rounded' <= 576 ('d_rounded' is named like it: Envelope.HeadDim = 576); widen 'm_block' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  const int64_t row = (m_block * 128 + 128 * bidb) * params.h * params.d_rounded + bidh * params.d_rounded;
  Tensor g = make_tensor(make_gmem_ptr(reinterpret_cast<float *>(params.dq_accum_ptr) + row),
                         Shape<Int<128>, Int<128>>{}, make_stride(params.h * params.d_rounded, _1{}));
}

// Negative: the fix widens the row first; strides are index_t already.
template <typename Params>
__global__ void dq_accum_fixed(const Params params, int m_block) {
  const int bidb = blockIdx.y, bidh = blockIdx.z;
  const int64_t row = (int64_t(m_block) * 128 + 128 * int64_t(bidb)) * params.h * params.d_rounded +
                      bidh * params.d_rounded;
  const int64_t q = m_block * 128 * params.q_row_stride + bidh * params.q_head_stride;
  Tensor g = make_tensor(make_gmem_ptr(reinterpret_cast<float *>(params.dq_accum_ptr) + row + q),
                         Shape<Int<128>, Int<128>>{}, make_stride(params.h * params.d_rounded, _1{}));
}

// Positive: the batch offset passed to a helper of a dependent object.
template <typename Params, typename BlockInfo>
__global__ void dq_accum_helper(const Params params, const BlockInfo binfo) {
  const int bidb = blockIdx.y;
  float *p = reinterpret_cast<float *>(params.dq_accum_ptr) +
             // CHECK: stand-ins.cu:[[@LINE+1]]:29: warning: 32-bit signed product 'params.seqlen_q_rounded * params.h * params.d_rounded' is used as a memory offset and wraps past 2^31 in the training profile: 'params.seqlen_q_rounded * params.h' <= 134,217,600 ('seqlen_q_rounded' is named like it: below Envelope.Tokens = 1,048,576) times 'params.d_rounded' <= 576 ('d_rounded' is named like it: Envelope.HeadDim = 576); widen 'params.seqlen_q_rounded' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
             binfo.q_offset(params.seqlen_q_rounded * params.h * params.d_rounded, params.h * params.d_rounded, bidb);
  p[threadIdx.x] = 0.f;
}

// Positive: a params struct from a missing header (mamba's selective scan).
__global__ void selective_scan(SSMParamsBase params) {
  const int batch_id = blockIdx.x, dim_id = blockIdx.y;
  // CHECK: stand-ins.cu:[[@LINE+1]]:56: warning: 32-bit signed product '(batch_id * params.dim + dim_id) * params.n_chunks * params.dstate' is used as a memory offset and wraps past 2^31 in the training profile: '(batch_id * params.dim + dim_id) * params.n_chunks' <= 550,158,458,880 ('params.dim' is named like it: Envelope.Hidden = 16,384) times 'params.dstate' <= 576 ('params.dstate' is named like it: Envelope.HeadDim = 576); widen 'batch_id' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  float *x = reinterpret_cast<float *>(params.x_ptr) + (batch_id * params.dim + dim_id) * params.n_chunks * params.dstate;
  x[threadIdx.x] = 0.f;
}

// Negative: the same struct's strides are 64-bit in every engine.
__global__ void selective_scan_fixed(SSMParamsBase params) {
  const int batch_id = blockIdx.x, dim_id = blockIdx.y;
  float *x = reinterpret_cast<float *>(params.x_ptr) + batch_id * params.x_batch_stride +
             dim_id * params.x_d_stride;
  x[threadIdx.x] = 0.f;
}

// Positive: a kernel over PyTorch accessors (xformers' HIP decoder): the
// position times a row stride.
template <typename scalar_t>
__global__ void decoder(at::PackedTensorAccessor32<scalar_t, 4, at::RestrictPtrTraits> cache_K,
                        const int *seq_positions, int K_stride_1) {
  const int t = seq_positions[blockIdx.x];
  const scalar_t *base = cache_K.data();
  // CHECK: stand-ins.cu:[[@LINE+1]]:32: warning: 32-bit signed product 't * K_stride_1' is used as a memory offset and wraps past 2^31 in the training profile: 't' <= 1,048,575 ('seq_positions' is an entry of a table named like it: below Envelope.Context = 1,048,576) times 'K_stride_1' <= 16,384 ('K_stride_1' is named like it: Envelope.Stride = 16,384); widen 't' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  const scalar_t *row = base + t * K_stride_1;
  (void)row;
}

// Negative: widened.
template <typename scalar_t>
__global__ void decoder_fixed(at::PackedTensorAccessor32<scalar_t, 4, at::RestrictPtrTraits> cache_K,
                              const int *seq_positions, int64_t K_stride_1) {
  const int t = seq_positions[blockIdx.x];
  const scalar_t *row = cache_K.data() + t * K_stride_1;
  (void)row;
}

// Thread-block clusters (sm_90): `__cluster_dims__` and `__maxnreg__` come
// from the toolkit's headers; without the prelude's stand-ins the kernel's
// declaration does not parse and the kernel is lost (FlashInfer's
// fast_topk_clusters_exact). Positive: a row of the logits per cluster.
template <int NClusters>
__global__ __launch_bounds__(1024) void __cluster_dims__(NClusters, 1, 1)
    topk_clusters(const float *logits, float *out, int vocab_size) {
  const int cluster_id = blockIdx.x / NClusters;
  // CHECK: stand-ins.cu:[[@LINE+1]]:29: warning: 32-bit signed product 'cluster_id * vocab_size' is used as a memory offset and wraps past 2^31 in the training profile: 'cluster_id' <= 65,535 ('blockIdx.x' spans a grid the launcher does not show: below Envelope.Grid = 65,536) times 'vocab_size' <= 262,144 ('vocab_size' is named like it: Envelope.Vocab = 262,144); widen 'cluster_id' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  out[threadIdx.x] = logits[cluster_id * vocab_size + threadIdx.x];
}

// Negative: a block's rank inside its cluster (cooperative groups, which the
// prelude declares) is a hardware range: at most 16 blocks, so block_id *
// 1M stays below 2^31 although 'block_id' is named like a KV page.
__global__ void __cluster_dims__(8, 1, 1) cluster_slices(float *scratch) {
  namespace cg = cooperative_groups;
  const int block_id = cg::this_cluster().block_rank();
  const int blocks = cg::this_cluster().num_blocks();
  scratch[block_id * 1048576 + blocks * 1024 + threadIdx.x] = 0.f;
}

// Positive twin: the block's index in the grid is no cluster rank.
__global__ void grid_slices(float *scratch) {
  const int block_id = blockIdx.x;
  // CHECK: stand-ins.cu:[[@LINE+1]]:11: warning: 32-bit signed product 'block_id * 1048576' is used as a memory offset and wraps past 2^31 in the training profile: 'block_id' <= 65,535 ('blockIdx.x' spans a grid the launcher does not show: below Envelope.Grid = 65,536) times '1048576' = 1,048,576; it wraps once 'block_id' >= 2,048; widen 'block_id' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  scratch[block_id * 1048576 + threadIdx.x] = 0.f;
}

// Positive: the same with a register cap.
__global__ void __maxnreg__(64) capped_rows(const float *logits, float *out, int vocab_size) {
  // CHECK: stand-ins.cu:[[@LINE+1]]:29: warning: 32-bit unsigned product 'blockIdx.x * vocab_size' is used as a memory offset and wraps past 2^32 in the training profile: 'blockIdx.x' <= 65,535 ('blockIdx.x' spans a grid the launcher does not show: below Envelope.Grid = 65,536) times 'vocab_size' <= 262,144 ('vocab_size' is named like it: Envelope.Vocab = 262,144); widen 'blockIdx.x' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  out[threadIdx.x] = logits[blockIdx.x * vocab_size + threadIdx.x];
}
