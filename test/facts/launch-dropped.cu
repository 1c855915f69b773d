// Launches clang drops: a launch inside a dispatch macro from a missing
// header (scalar_t is undeclared, so the statement does not type-check),
// also when a macro of this file writes the launch. On vLLM some host
// functions lose their whole body too. Such launches are read from the
// tokens; locals resolve through the AST where it has them, else through
// their declarations' tokens.
// RUN: %if kvlint %{ %kvlint --dump-ir %s > %t || true %}
// RUN: %if kvlint %{ FileCheck %s < %t %}
#include <algorithm>
#include <torch/all.h>
namespace torch { struct Device; }

namespace vllm {
// CHECK-LABEL: function vllm::act (cuda, kernel)
// CHECK-DAG: (LaunchIdx:u32 blockIdx.x @num_tokens)
// CHECK-DAG: (Param:i32 d @d)
template <typename scalar_t>
__global__ void act(scalar_t *out, const scalar_t *in, int d) {
  out[blockIdx.x * d + threadIdx.x] = in[blockIdx.x * 2 * d + threadIdx.x];
}

// CHECK-LABEL: function vllm::paged (cuda, kernel)
// CHECK-DAG: (LaunchIdx:u32 blockIdx.x @num_seqs/4)
// CHECK-DAG: (LaunchIdx:u32 blockIdx.y [0,1023] @num_heads)
// CHECK-DAG: (Param:i32 block_size [16,16])
template <typename scalar_t, int BLOCK>
__global__ void paged(scalar_t *out, const int *table, int block_size, int stride) {
  out[(blockIdx.x * block_size + blockIdx.y) * stride] = table[blockIdx.x];
}

// Launched from a macro of this file, inside a dispatch lambda.
// CHECK-LABEL: function vllm::fused (cuda, kernel)
// CHECK-DAG: (LaunchIdx:u32 blockIdx.x @num_seqs)
// CHECK-DAG: (Param:i32 width [8,8])
// CHECK-DAG: (Param:i32 hidden @stride)
template <typename scalar_t, bool W>
__global__ void fused(scalar_t *out, int hidden, int width) {
  out[blockIdx.x * hidden + width] = 0;
}

// Launched from a macro that only another macro invokes: its body is read
// with the macro's parameters unknown and no local resolvable.
// CHECK-LABEL: function vllm::nested (cuda, kernel)
// CHECK-DAG: (LaunchIdx:u32 blockIdx.x @num_seqs)
// CHECK-DAG: (Param:i32 a [64,64])
// CHECK-DAG: (Param:i32 b @stride)
// CHECK-DAG: (Param:i32 c)
template <typename scalar_t, int V>
__global__ void nested(scalar_t *out, int a, int b, int c) {
  out[blockIdx.x * a + b * c] = 0;
}

// Negative: a grid the tokens cannot read (a product), a dim3 written
// after its declaration, and one declared in both branches of an #if.
// CHECK-LABEL: function vllm::opaque (cuda, kernel)
// CHECK: (LaunchIdx:u32 blockIdx.x)
// CHECK-LABEL: function vllm::rewritten (cuda, kernel)
// CHECK: (LaunchIdx:u32 blockIdx.x)
// CHECK-LABEL: function vllm::branches (cuda, kernel)
// CHECK: (LaunchIdx:u32 blockIdx.x)
template <typename scalar_t> __global__ void opaque(scalar_t *out, int d) { out[blockIdx.x * d] = 0; }
template <typename scalar_t> __global__ void rewritten(scalar_t *out, int d) { out[blockIdx.x * d] = 0; }
template <typename scalar_t> __global__ void branches(scalar_t *out, int d) { out[blockIdx.x * d] = 0; }
} // namespace vllm

// The function survives; the launch inside the dispatch lambda does not.
void act_and_mul(float *out, const float *in, int64_t num_tokens, int d, int at_type) {
  dim3 grid(num_tokens);
  dim3 block(1024);
  VLLM_DISPATCH_FLOATING_TYPES(at_type, "act", [&] {
    vllm::act<scalar_t><<<grid, block, 0, stream>>>(out_ptr<scalar_t>(), in, d);
  });
}

// Two directives in a row: the second's body is not code of the file.
#define LAUNCH_BRANCHES(g)                                                     \
  VLLM_DISPATCH_FLOATING_TYPES(out.scalar_type(), "branches", [&] {             \
    vllm::branches<scalar_t><<<g, 128>>>(out.data_ptr<scalar_t>(), stride);     \
  });
#define LAUNCH_FUSED(w, has_weight)                                             \
  VLLM_DISPATCH_FLOATING_TYPES(out.scalar_type(), "fused", [&] {                \
    vllm::fused<scalar_t, has_weight><<<g3, 256, 0, stream>>>(                  \
        out.data_ptr<scalar_t>(), stride, w);                                   \
  });

#define LAUNCH_NESTED_INNER(V, cc)                                              \
  vllm::nested<scalar_t, V><<<dim3(num_seqs), 64, 0, stream>>>(                \
      out.data_ptr<scalar_t>(), 64, stride, cc);
#define LAUNCH_NESTED(V)                                                        \
  VLLM_DISPATCH_FLOATING_TYPES(out.scalar_type(), "nested", [&] {               \
    LAUNCH_NESTED_INNER(V, num_heads)                                           \
  });

// torch::stable is not declared; the launches in the lambda are dropped.
void paged_launch(torch::stable::Tensor &out, torch::stable::Tensor &table, int num_seqs,
                  int num_heads, int stride) {
  const int block_size = 16;
  dim3 grid((num_seqs + 3) / 4, std::min(num_heads, 1024));
  dim3 g2(num_seqs);
  g2.y = 2;
  dim3 g3(num_seqs);
  LAUNCH_FUSED(8, true);
  // Read from tokens, g4 has two declarations: no fact.
#ifdef USE_ROCM
  dim3 g4(num_seqs);
#else
  dim3 g4(num_heads);
#endif
  LAUNCH_BRANCHES(g4);
  LAUNCH_NESTED(2);
  VLLM_DISPATCH_FLOATING_TYPES(out.scalar_type(), "paged", [&] {
    vllm::paged<scalar_t, 4><<<grid, 128, 0, stream>>>(
        out.data_ptr<scalar_t>(), table.data_ptr<int>(), block_size, stride);
    vllm::opaque<scalar_t><<<num_seqs * num_heads, 128>>>(out.data_ptr<scalar_t>(), stride);
    vllm::rewritten<scalar_t><<<g2, 128>>>(out.data_ptr<scalar_t>(), stride);
  });
}
