// One suppression syntax in the CLI and the clang-tidy plugin: NOLINT,
// NOLINT-NEXTLINE and NOLINT-BEGIN/END with check names, codes or globs,
// `kvlint: ignore[...]` and `# noqa: KV001` hide the same findings in both
// legs; a comment for another check hides nothing. Each kernel below has one
// product that wraps; only the ones marked CHECK are reported.
//
// RUN: %if kvlint %{ not %kvlint --per-site --checks=KV001 %s 2>&1 | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy --checks=-*,kvlint-narrowed-index-overflow %s -- %cuda-flags 2>&1 | FileCheck %s --implicit-check-not=warning: %}

__global__ void nolint_name(float *c, const int *slots, int page_stride) {
  int page = slots[blockIdx.x];
  c[page * page_stride] = 0.f; // NOLINT(kvlint-narrowed-index-overflow)
}
__global__ void nolint_code(float *c, const int *slots, int page_stride) {
  int page = slots[blockIdx.x];
  c[page * page_stride] = 0.f; // NOLINT(KV001)
}
__global__ void nolint_glob(float *c, const int *slots, int page_stride) {
  int page = slots[blockIdx.x];
  c[page * page_stride] = 0.f; // NOLINT(kvlint-*)
}
__global__ void nolint_bare(float *c, const int *slots, int page_stride) {
  int page = slots[blockIdx.x];
  c[page * page_stride] = 0.f; // NOLINT
}
__global__ void nextline_name(float *c, const int *slots, int page_stride) {
  int page = slots[blockIdx.x];
  // NOLINTNEXTLINE(kvlint-narrowed-index-overflow)
  c[page * page_stride] = 0.f;
}
__global__ void nextline_code(float *c, const int *slots, int page_stride) {
  int page = slots[blockIdx.x];
  // NOLINTNEXTLINE(KV001)
  c[page * page_stride] = 0.f;
}
// NOLINTBEGIN(kvlint-narrowed-index-overflow)
__global__ void begin_name(float *c, const int *slots, int page_stride) {
  int page = slots[blockIdx.x];
  c[page * page_stride] = 0.f;
}
// NOLINTEND(kvlint-narrowed-index-overflow)
// NOLINTBEGIN(KV001)
__global__ void begin_code(float *c, const int *slots, int page_stride) {
  int page = slots[blockIdx.x];
  c[page * page_stride] = 0.f;
}
// NOLINTEND(KV001)
__global__ void ignore_code(float *c, const int *slots, int page_stride) {
  int page = slots[blockIdx.x];
  c[page * page_stride] = 0.f; // kvlint: ignore[KV001]
}
__global__ void ignore_name(float *c, const int *slots, int page_stride) {
  int page = slots[blockIdx.x];
  c[page * page_stride] = 0.f; // kvlint: ignore[kvlint-narrowed-index-overflow]
}
__global__ void ignore_bare(float *c, const int *slots, int page_stride) {
  int page = slots[blockIdx.x];
  c[page * page_stride] = 0.f; // kvlint: ignore
}
__global__ void noqa_code(float *c, const int *slots, int page_stride) {
  int page = slots[blockIdx.x];
  c[page * page_stride] = 0.f; // noqa: KV001
}
// Not suppressed: another check, another code, a range that ended.
__global__ void other_check(float *c, const int *slots, int page_stride) {
  int page = slots[blockIdx.x];
  // CHECK: suppress-forms.cu:[[@LINE+1]]:5: warning: 32-bit signed product 'page * page_stride'
  c[page * page_stride] = 0.f; // NOLINT(bugprone-foo)
}
__global__ void other_code(float *c, const int *slots, int page_stride) {
  int page = slots[blockIdx.x];
  // CHECK: suppress-forms.cu:[[@LINE+1]]:5: warning: 32-bit signed product 'page * page_stride'
  c[page * page_stride] = 0.f; // kvlint: ignore[KV002]
}
__global__ void after_end(float *c, const int *slots, int page_stride) {
  int page = slots[blockIdx.x];
  // CHECK: suppress-forms.cu:[[@LINE+1]]:5: warning: 32-bit signed product 'page * page_stride'
  c[page * page_stride] = 0.f;
}
