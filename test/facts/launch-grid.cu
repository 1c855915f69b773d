// Launch facts, grids: the grid a host function launches a kernel with
// bounds blockIdx along each axis. --dump-ir prints the hint on the node:
// [lo,hi] for a constant range, @name or @name/div for "below the
// launcher's quantity name (divided by div, rounded up)", @name/(param) when
// the divisor is what the kernel's parameter param is passed.
// RUN: %if kvlint %{ %kvlint --dump-ir %s > %t || true %}
// RUN: %if kvlint %{ FileCheck %s < %t %}
#include <cstdint>
#define DIVUP(a, b) (((a) + (b) - 1) / (b))
template <typename T> constexpr T ceil_div(T a, T b) { return (a + b - 1) / b; }

// A scalar grid: x below num_tokens; y and z are 1.
// CHECK-LABEL: function by_tokens (cuda, kernel)
// CHECK: (LaunchIdx:u32 blockIdx.x @num_tokens)
// CHECK: (LaunchIdx:u32 blockIdx.y [0,0])
__global__ void by_tokens(float *out, int d) {
  out[blockIdx.x * d + blockIdx.y] = 0.f;
}

// A local dim3 with a rounded-up division and a name.
// CHECK-LABEL: function by_dim3 (cuda, kernel)
// CHECK: (LaunchIdx:u32 blockIdx.x @n/128)
// CHECK: (LaunchIdx:u32 blockIdx.y @h)
// CHECK: (LaunchIdx:u32 blockIdx.z [0,0])
__global__ void by_dim3(float *out, int d) {
  out[(blockIdx.x * d + blockIdx.y) * d + blockIdx.z] = 0.f;
}

// Constant grids, a ceil-div helper, min(n, C), (n + 255) / 256 and
// min(a, b), which is below a.
// CHECK-LABEL: function by_const (cuda, kernel)
// CHECK: (LaunchIdx:u32 blockIdx.x [0,107])
// CHECK: (LaunchIdx:u32 blockIdx.y [0,3])
__global__ void by_const(float *out, int d) { out[blockIdx.x * d + blockIdx.y] = 0.f; }

// CHECK-LABEL: function by_helper (cuda, kernel)
// CHECK: (LaunchIdx:u32 blockIdx.x @rows/64)
// CHECK: (LaunchIdx:u32 blockIdx.y [0,65534] @batch)
__global__ void by_helper(float *out, int d) { out[blockIdx.x * d + blockIdx.y] = 0.f; }

// CHECK-LABEL: function by_expr (cuda, kernel)
// CHECK: (LaunchIdx:u32 blockIdx.x @num_tokens/256)
// CHECK: (LaunchIdx:u32 blockIdx.y @rows)
__global__ void by_expr(float *out, int d) { out[blockIdx.x * d + blockIdx.y] = 0.f; }

// A template kernel: the facts are the primary template's, and every
// instantiation gets them. The file instantiates it, so the instantiation
// is what is lowered (the pattern is dropped): one function, with the facts.
// CHECK-LABEL: function templ (cuda, kernel)
// CHECK: (LaunchIdx:u32 blockIdx.x @num_heads)
// CHECK-NOT: function templ (cuda, kernel)
template <typename T, int B> __global__ void templ(T *out, int d) { out[blockIdx.x * d] = T(0); }

// Two sites that agree on the name keep it; two constants give their union.
// CHECK-LABEL: function agree (cuda, kernel)
// CHECK: (LaunchIdx:u32 blockIdx.x @num_tokens)
// CHECK: (LaunchIdx:u32 blockIdx.y [0,7])
__global__ void agree(float *out, int d) { out[blockIdx.x * d + blockIdx.y] = 0.f; }

// Negative: sites that disagree, a grid computed elsewhere, a product, and
// a dim3 the launcher changes after declaring it say nothing.
// CHECK-LABEL: function disagree (cuda, kernel)
// CHECK: (LaunchIdx:u32 blockIdx.x)
// CHECK-LABEL: function product (cuda, kernel)
// CHECK: (LaunchIdx:u32 blockIdx.x)
// CHECK-LABEL: function changed (cuda, kernel)
// CHECK: (LaunchIdx:u32 blockIdx.x)
// CHECK-LABEL: function never_launched (cuda, kernel)
// CHECK: (LaunchIdx:u32 blockIdx.x)
__global__ void disagree(float *out, int d) { out[blockIdx.x * d] = 0.f; }
__global__ void product(float *out, int d) { out[blockIdx.x * d] = 0.f; }
__global__ void changed(float *out, int d) { out[blockIdx.x * d] = 0.f; }
__global__ void never_launched(float *out, int d) { out[blockIdx.x * d] = 0.f; }

dim3 grid_for(int n);

// A grid divided by a value the kernel is passed: blockIdx.x * rows_per_block
// is below num_tokens (/(rows_per_block) names the parameter); a divisor
// passed as no parameter gives no such name.
// CHECK-LABEL: function by_param_tile (cuda, kernel)
// CHECK: (LaunchIdx:u32 blockIdx.x @num_tokens/(rows_per_block))
// CHECK: (LaunchIdx:u32 blockIdx.y @rows)
__global__ void by_param_tile(float *out, int rows_per_block) {
  out[blockIdx.x * rows_per_block + blockIdx.y] = 0.f;
}

void launch(float *out, int num_tokens, int n, int h, int rows, int batch, int num_heads,
            int hidden, cudaStream_t stream) {
  by_tokens<<<num_tokens, 256, 0, stream>>>(out, hidden);
  dim3 grid(DIVUP(n, 128), h);
  by_dim3<<<grid, 256>>>(out, hidden);
  by_const<<<dim3(108, 4), 128>>>(out, hidden);
  by_helper<<<dim3(ceil_div(rows, 64), min(batch, 65535)), 128>>>(out, hidden);
  const int blocks = (num_tokens + 255) / 256;
  const int tiles = min(rows, num_heads * 4);
  by_expr<<<dim3(blocks, tiles), 256>>>(out, hidden);
  templ<float, 4><<<num_heads, 128>>>(out, hidden);
  agree<<<dim3(num_tokens, 4), 32>>>(out, hidden);
  agree<<<dim3(num_tokens, 8), 32>>>(out, hidden);
  disagree<<<num_tokens, 32>>>(out, hidden);
  disagree<<<num_heads, 32>>>(out, hidden);
  product<<<num_tokens * num_heads, 32>>>(out, hidden);
  dim3 g2(num_tokens);
  g2.x = num_heads * 2;
  changed<<<g2, 32>>>(out, hidden);
  by_param_tile<<<dim3((num_tokens + hidden - 1) / hidden, rows / num_heads), 32>>>(out, hidden);
  (void)grid_for;
}
