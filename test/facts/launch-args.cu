// Launch facts, arguments: the constants and names a launcher passes for a
// kernel's integer parameters become hints on its Param nodes.
// RUN: %if kvlint %{ %kvlint --dump-ir %s > %t || true %}
// RUN: %if kvlint %{ FileCheck %s < %t %}
#include <cstdint>

struct Params {
  int num_tokens;
  int hidden;
};

// CHECK-LABEL: function act (cuda, kernel)
// CHECK-DAG: (Param:i32 d @hidden_size)
// CHECK-DAG: (Param:i32 page [16,16])
__global__ void act(float *out, const float *in, int d, int page) {
  out[blockIdx.x * d + threadIdx.x] = in[blockIdx.x * page + threadIdx.x];
}

// Constants at several sites are unioned; a local that is never written
// again is its initializer; a member passed is named by the member.
// CHECK-LABEL: function heads (cuda, kernel)
// CHECK-DAG: (Param:i32 head_dim [64,128])
// CHECK-DAG: (Param:i32 stride @hidden)
__global__ void heads(float *out, int head_dim, int stride) {
  out[blockIdx.x * stride + head_dim] = 0.f;
}

// Negative: a site that passes an expression, two sites with different
// names, and a name at one site and a constant at another.
// CHECK-LABEL: function mixed (cuda, kernel)
// CHECK-DAG: (Param:i32 a)
// CHECK-DAG: (Param:i32 b)
// CHECK-DAG: (Param:i32 c)
__global__ void mixed(float *out, int a, int b, int c) { out[a * b + c] = 0.f; }

// Two launches in one macro invocation are two sites.
// CHECK-LABEL: function twice (cuda, kernel)
// CHECK: (Param:i32 k [32,64])
__global__ void twice(float *out, int k) { out[blockIdx.x * k] = 0.f; }
#define LAUNCH_TWICE(c)                                                        \
  if (c)                                                                       \
    twice<<<1, 32>>>(out, 32);                                                 \
  else                                                                         \
    twice<<<1, 32>>>(out, 64);

// A launch in a macro that another macro invokes: the AST has it; its body
// is not read again as a launch of its own.
// CHECK-LABEL: function nested (cuda, kernel)
// CHECK-DAG: (LaunchIdx:u32 blockIdx.x @x)
// CHECK-DAG: (Param:i32 k [48,48])
__global__ void nested(float *out, int k) { out[blockIdx.x * k] = 0.f; }
#define LAUNCH_INNER(v) nested<<<grid_n, 32>>>(out, v);
#define LAUNCH_OUTER(v) LAUNCH_INNER(v)

// A template kernel launched from a template launcher (a dependent call).
// CHECK-LABEL: function tk (cuda, kernel)
// CHECK: (Param:i32 n @num_tokens)
template <typename T> __global__ void tk(T *out, int n) { out[blockIdx.x * n] = T(0); }

template <typename T> void launch_t(T *out, int num_tokens) {
  tk<T><<<num_tokens, 32>>>(out, num_tokens);
}
template void launch_t<float>(float *, int);

void launch(float *out, const float *in, int hidden_size, int x, int y, Params p) {
  act<<<x, 256>>>(out, in, hidden_size, 16);
  int hd = 64;
  heads<<<x, 32>>>(out, hd, p.hidden);
  heads<<<x, 32>>>(out, 128, p.hidden);
  mixed<<<x, 32>>>(out, x + 1, x, x);
  mixed<<<x, 32>>>(out, x, y, 4);
  LAUNCH_TWICE(x > y)
  dim3 grid_n(x);
  LAUNCH_OUTER(48)
}
