// KV001 facet: lambdas. A lambda's body is inlined where it is called, like a
// helper's: its parameters take the call's arguments and its captures are
// the enclosing function's locals (also in a template, where the call is
// dependent and the variable's type is not deduced yet). The same product
// with a bounded row stays silent.
// RUN: %if kvlint %{ not %kvlint --checks=KV001 %s | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --implicit-check-not=warning: %}

__global__ void captured(float *c, const int *pages, int size_n) {
  int page = pages[blockIdx.x];
  // CHECK: lambdas.cu:[[@LINE+1]]:42: warning: 32-bit signed product 'row * size_n' is used as a memory offset and wraps past 2^31 in the training profile: 'row' <= 8,388,607 ('pages' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'size_n' <= 8,191 ('size_n' is bounded by no fact: below Envelope.Unknown = 8,192); widen 'row' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  auto store = [&](int row, float v) { c[row * size_n + threadIdx.x] = v; };
  store(page, 1.f);
  store(threadIdx.y, 2.f);
}

template <typename T>
__global__ void in_template(T *c, const int *pages, int size_n) {
  int page = pages[blockIdx.x];
  // CHECK: lambdas.cu:[[@LINE+1]]:45: warning: 32-bit signed product 'row * size_n' is used as a memory offset and wraps past 2^31 in the training profile: 'row' <= 8,388,607 ('pages' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'size_n' <= 8,191 ('size_n' is bounded by no fact: below Envelope.Unknown = 8,192); widen 'row' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  auto store = [&](const T &v, int row) { c[row * size_n + threadIdx.x] = v; };
  T x = c[0];
  store(x, page);
}

__global__ void bounded(float *c, int size_n) {
  auto store = [&](int row, float v) { c[row * size_n + threadIdx.x] = v; };
  store(threadIdx.y, 1.f); // negative: a row of the block times a row width
}

__global__ void widened(float *c, const int *pages, int size_n) {
  int page = pages[blockIdx.x];
  // negative: the fixed form, the row widened before it multiplies
  auto store = [&](int64_t row, float v) { c[row * size_n + threadIdx.x] = v; };
  store(page, 1.f);
}
