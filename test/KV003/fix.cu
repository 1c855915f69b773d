// KV003 fix-it: it guards the store, not the thread. The store statement is
// wrapped in `if (slot >= 0) { ... }`, one statement per line in the file's
// indentation, so the __syncthreads() after it is still reached by every
// thread (an early return there would hang the block). The fix-it is
// unsafe (it skips work): JSON says so. After --fix the file compiles and a
// re-scan reports nothing.
// --fix alone applies only safe fix-its, so this one stays (exit 1);
// --unsafe-fixes applies it and leaves nothing (exit 0).
// RUN: %if kvlint %{ cp %s %t-safe.cu && not %kvlint --checks=KV003 --fix %t-safe.cu 2>&1 | FileCheck %s --check-prefix=SAFE %}
// SAFE: kvlint: {{[0-9]+}} unsafe fix-it(s) not applied (--unsafe-fixes applies them; review the diff)
// RUN: %if kvlint %{ diff %s %t-safe.cu %}
// RUN: %if kvlint %{ not %kvlint --checks=KV003 --format=json %s | FileCheck %s --check-prefix=JSON %}
// RUN: %if kvlint %{ cp %s %t.cu && %kvlint --checks=KV003 --fix --unsafe-fixes %t.cu 2>&1 | FileCheck %s --check-prefix=APPLY %}
// RUN: %if kvlint %{ %kvlint --checks=KV003 %t.cu %}
// RUN: %if kvlint %{ FileCheck %s --check-prefix=FIXED < %t.cu %}
// RUN: %if kvlint && clang %{ %clang-ptx %t.cu > /dev/null %}
// APPLY: kvlint: applied 4 edit(s) to
// JSON: "if (slot_idx >= 0) {\n      "
// JSON: "\n    }"
#include <cstdint>
#define PAD_SLOT_ID -1

// The slot-mapping kernel of the same engine writes the pad: the table can
// hold it, so its consumers are reported at the default level.
__global__ void pad_tail(int64_t *slot_mapping, int num_tokens, int padded) {
  int t = num_tokens + threadIdx.x;
  if (t < padded)
    slot_mapping[t] = PAD_SLOT_ID;
}

__global__ void store_then_reduce(const float *key, float *key_cache, float *sums,
                                  const int64_t *slot_mapping, int64_t block_size,
                                  int64_t block_stride, int64_t n) {
  __shared__ float part[256];
  const int64_t slot_idx = slot_mapping[blockIdx.x];
  const int64_t block_idx = slot_idx / block_size;
  const int64_t block_offset = slot_idx % block_size;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    // FIXED: {{^}}    if (slot_idx >= 0) {{[{]}}{{$}}
    // FIXED-NEXT: {{^}}      key_cache[block_idx * block_stride + block_offset * n + i] = key[blockIdx.x * n + i];{{$}}
    // FIXED-NEXT: {{^}}    }{{$}}
    key_cache[block_idx * block_stride + block_offset * n + i] = key[blockIdx.x * n + i];
  }
  part[threadIdx.x] = key[blockIdx.x * n + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0)
    sums[blockIdx.x] = part[0] + part[1];
}

// A store on a line of its own without braces around it: the guard opens
// and closes on lines of their own too.
__global__ void store_one(const float *v, float *v_cache, const int64_t *slot_mapping, int64_t d) {
  const int64_t slot = slot_mapping[blockIdx.x];
  // FIXED: {{^}}  if (slot >= 0) {{[{]}}{{$}}
  // FIXED-NEXT: {{^}}    v_cache[slot * d + threadIdx.x] = v[blockIdx.x * d + threadIdx.x];{{$}}
  // FIXED-NEXT: {{^}}  }{{$}}
  v_cache[slot * d + threadIdx.x] = v[blockIdx.x * d + threadIdx.x];
  __syncwarp();
}
