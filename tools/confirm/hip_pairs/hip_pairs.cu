//===- hip_pairs.cu - the lit suite's HIP buggy/fixed pairs on an NVIDIA GPU -===//
//
// Includes test/KV001/hip.hip and test/KV003/hip.hip (with -I to the
// stand-in hip/hip_runtime.h beside this file) and runs each buggy kernel and
// its fixed twin at the size where the bug shows:
//   KV001: page x page_stride 16,384 past 2^32 floats (page 262,144): the
//          buggy store lands at the wrapped address (row 0), the fixed one at
//          the page.  At 2^31 (page 131,072) it is run too, for the record: the
//          signed product overflows there, but `+ hipThreadIdx_x` (unsigned)
//          turns the sum unsigned, so the address is right until 2^32;
//   KV003: slot -1 (the pad): the buggy store lands one head before the cache,
//          the checked twin stores nothing.
// Prints one line per kernel and "hip_pairs: N of M as expected".
//
//===----------------------------------------------------------------------===//
#include "../drivers/confirm.cuh"
namespace kv001 {
#include "KV001/hip.hip"
}
namespace kv003 {
#include "KV003/hip.hip"
}

static int expected = 0, total = 0;

static void report(const char* name, bool buggy, bool right_place, const std::string& canary, bool counts = true) {
  // buggy kernels must be visibly wrong, fixed ones right
  bool wrong = !right_place || !canary.empty();
  bool as_expected = buggy ? wrong : !wrong;
  if (counts) {
    ++total;
    expected += as_expected;
  }
  printf("%-40s %-6s %s; %s -> %s\n", name, buggy ? "buggy" : "fixed",
         right_place ? "value at the 64-bit address" : "value NOT at the 64-bit address",
         canary.empty() ? "canaries intact" : canary.c_str(),
         !counts ? "(record only)" : as_expected ? "as expected" : "UNEXPECTED");
}

template <typename K>
static void kv001_case(const char* name, bool buggy, K kernel, int page, bool counts) {
  const int stride = 16384;
  size_t n = (size_t)(page + 1) * stride;
  confirm::Guarded<float> cache;
  cache.alloc(n);
  confirm::fill_value<<<4096, 256>>>(cache.t, n, 1.0f);
  int* table;
  confirm::must(cudaMalloc(&table, sizeof(int)), "cudaMalloc");
  confirm::must(cudaMemcpy(table, &page, sizeof(int), cudaMemcpyHostToDevice), "memcpy");
  kernel<<<1, 32>>>(cache.t, table, stride);
  confirm::sync_or_fault(name);
  float h[32];
  confirm::must(cudaMemcpy(h, cache.t + (size_t)page * stride, sizeof h, cudaMemcpyDeviceToHost), "memcpy");
  bool at = true;
  for (float v : h) at &= v == 0.f;
  float h0[32];  // the wrapped address of the 2^32 case is row 0
  confirm::must(cudaMemcpy(h0, cache.t, sizeof h0, cudaMemcpyDeviceToHost), "memcpy");
  bool row0 = true;
  for (float v : h0) row0 &= v == 1.f;
  std::string can = confirm::check_canaries(cache, "cache");
  if (!row0) can += "row 0 overwritten; ";
  char full[96];
  snprintf(full, sizeof full, "%s (page %d)", name, page);
  report(full, buggy, at, can, counts);
  cudaFree(cache.buf);
  cudaFree(table);
}

template <typename K>
static void kv003_case(const char* name, bool buggy, K kernel) {
  const int64_t head = 128, tokens = 4;
  confirm::Guarded<float> key, cache;
  key.alloc(tokens * head);
  cache.alloc(16 * head);
  confirm::fill_value<<<64, 256>>>(key.t, tokens * head, 3.0f);
  confirm::fill_value<<<64, 256>>>(cache.t, 16 * head, 1.0f);
  int64_t slots[tokens] = {-1, 2, 5, 7};  // token 0 is padding
  int64_t* d;
  confirm::must(cudaMalloc(&d, sizeof slots), "cudaMalloc");
  confirm::must(cudaMemcpy(d, slots, sizeof slots, cudaMemcpyHostToDevice), "memcpy");
  kernel<<<tokens, head>>>(key.t, cache.t, d, head);
  confirm::sync_or_fault(name);
  float h[16 * 128];
  confirm::must(cudaMemcpy(h, cache.t, sizeof h, cudaMemcpyDeviceToHost), "memcpy");
  bool ok = true;
  for (int s = 0; s < 16; ++s)
    for (int c = 0; c < head; ++c)
      ok &= h[s * head + c] == ((s == 2 || s == 5 || s == 7) ? 3.0f : 1.0f);
  report(name, buggy, ok, confirm::check_canaries(cache, "key_cache"));
  cudaFree(d);
}

int main() {
  confirm::which_name() = "at";
  kv001_case("KV001/hip.hip hip_store", true, kv001::hip_store, 131072, false);
  kv001_case("KV001/hip.hip hip_store", true, kv001::hip_store, 262144, true);
  kv001_case("KV001/hip.hip amdgcn_store", true, kv001::amdgcn_store, 262144, true);
  kv001_case("KV001/hip.hip hip_store_fixed", false, kv001::hip_store_fixed, 262144, true);
  kv003_case("KV003/hip.hip hip_store", true, kv003::hip_store);
  kv003_case("KV003/hip.hip hip_store_checked", false, kv003::hip_store_checked);
  printf("hip_pairs: %d of %d as expected\n", expected, total);
  return expected == total ? 0 : 1;
}
