// Host checks: products the launching function checks before the launch
// become Function::Checked on the kernel, in the kernel's parameter names.
// --dump-ir prints them as "checked a * b <= MAX (what at file:line)".
// RUN: %if kvlint %{ %kvlint --dump-ir %s > %t || true %}
// RUN: %if kvlint %{ FileCheck %s < %t %}
#include <cassert>
#include <climits>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <torch/all.h> // not found: TORCH_CHECK stays an unresolved call

inline int64_t CheckedInt32Product(std::initializer_list<int64_t> factors, const char *name) {
  int64_t p = 1;
  for (int64_t f : factors)
    p *= f;
  return p;
}

// The launcher's names map to the kernel's through the launch arguments;
// constant factors fold into the bound (16384 * 128 <= INT_MAX / 128).
// CHECK-LABEL: function scale (cuda, kernel)
// CHECK-NEXT: checked n * h * d <= 2147483647 (TORCH_CHECK at host-checks.cu:[[#@LINE+12]])
// CHECK-NEXT: checked n * h <= 16777215 (TORCH_CHECK at host-checks.cu:[[#@LINE+12]])
// CHECK-NEXT: checked numel(out) <= 2147483646 (TORCH_CHECK at host-checks.cu:[[#@LINE+12]])
// CHECK-NEXT: checked n * h <= 2147483647 (CheckedInt32Product at host-checks.cu:[[#@LINE+12]])
// CHECK-NEXT: checked n <= 65535 (assert at host-checks.cu:[[#@LINE+12]])
// CHECK-NEXT: checked d <= 1048576 (check at host-checks.cu:[[#@LINE+12]])
__global__ void scale(float *out, int n, int h, int d) {
  out[(blockIdx.x * h + blockIdx.y) * d + threadIdx.x] = 0.f;
}

void run(torch::Tensor &x, float *out, int num_tokens, int num_heads, int head_dim) {
  int64_t total = num_tokens;
  TORCH_CHECK(num_tokens * num_heads * head_dim <= INT_MAX, "too large");
  TORCH_CHECK((int64_t)num_tokens * num_heads * 128 <= std::numeric_limits<int32_t>::max());
  TORCH_CHECK(x.numel() < std::numeric_limits<int>::max(), "x too large");
  CheckedInt32Product({total, num_heads}, "q extent");
  assert(num_tokens <= 65535 && head_dim > 0);
  if (head_dim > (1 << 20))
    throw 1;
  scale<<<dim3(num_tokens, num_heads), 128>>>(x.data_ptr<float>(), num_tokens, num_heads,
                                              head_dim);
}

// Negative: a check after the launch, a bound that is not a constant, a
// lower bound, a plain if (a dispatch, not a check), and factors the kernel
// is not passed.
// CHECK-LABEL: function unchecked (cuda, kernel)
// CHECK-NOT: checked
__global__ void unchecked(float *out, int n, int h) { out[blockIdx.x * h + n] = 0.f; }

// The launcher's n and h are not what the kernel's n and h get: the check
// of n * h says nothing about them; the check of w does.
// CHECK-LABEL: function renamed (cuda, kernel)
// CHECK-NEXT: checked h <= 1073741823 (TORCH_CHECK at host-checks.cu:[[#@LINE+5]])
// CHECK-NOT: checked
__global__ void renamed(float *out, int n, int h) { out[blockIdx.x * h + n] = 0.f; }
void run3(float *out, int n, int h, int w) {
  TORCH_CHECK((long)n * h <= INT_MAX);
  TORCH_CHECK((long)w * 2 <= INT_MAX);
  renamed<<<1, 32>>>(out, n / 2, w);
}

void run2(float *out, int n, int h, int limit, int other, int more) {
  TORCH_CHECK(n * h <= limit);
  TORCH_CHECK(n * h >= 1);
  TORCH_CHECK(other * more <= INT_MAX);
  if (n * h > INT_MAX) {
    n = 0;
  }
  unchecked<<<n, 32>>>(out, n, h);
  TORCH_CHECK(n * h <= INT_MAX);
}
