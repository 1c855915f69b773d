// KV003 end to end: kvlint flags the store that does not skip the pad slot
// and not the one that does; on a GPU, with a canary region on both sides of
// a paged cache, the pad token of the unguarded store overwrites the canary
// (slot -1: page 0, offset -1 in C++ arithmetic), while the guarded store and
// kvref's store (kernels/include/kvref/kv_store.cuh, which skips slots < 0)
// leave every byte outside the live tokens' slots as it was.
// RUN: %if kvlint %{ not %kvlint %s | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if cuda-gpu %{ %nvcc -I%S/../../kernels/include %s -o %t && %t | FileCheck %s --check-prefix=GPU %}
#include <cstdint>

constexpr int kPage = 4;      // slots per page
constexpr int kDim = 4;       // floats per slot (one head of 4)
constexpr int kPages = 2;
constexpr int kCanary = 64;   // floats on each side of the cache

__global__ void store_buggy(const float *key, float *key_cache, const int64_t *slot_mapping,
                            int64_t page_stride) {
  const int64_t slot = slot_mapping[blockIdx.x];
  const int64_t page = slot / kPage;
  const int64_t off = slot % kPage;
  key_cache[page * page_stride + off * kDim + threadIdx.x] = key[blockIdx.x * kDim + threadIdx.x];
  // CHECK: kv003-pad-slot.cu:[[@LINE-1]]:3: warning: store address is computed from slot 'slot' read from 'slot_mapping' with no guard that skips the pad slot (-1){{.*}}[kvlint-unchecked-pad-slot]
}

__global__ void store_fixed(const float *key, float *key_cache, const int64_t *slot_mapping,
                            int64_t page_stride) {
  const int64_t slot = slot_mapping[blockIdx.x];
  if (slot < 0)
    return; // the pad slot: a padded token, nothing to store
  const int64_t page = slot / kPage;
  const int64_t off = slot % kPage;
  key_cache[page * page_stride + off * kDim + threadIdx.x] = key[blockIdx.x * kDim + threadIdx.x];
}

#ifndef __KVLINT__
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#include "kvref/kv_store.cuh"

// GPU: buggy: pad token changed 4 canary floats (before the cache) and 0 cache floats outside live slots; live slots ok
// GPU: fixed: pad token changed 0 canary floats and 0 cache floats outside live slots; live slots ok
// GPU: kvref: pad token changed 0 canary floats and 0 cache floats outside live slots; live slots ok

constexpr int kTokens = 3;
constexpr int kCache = kPages * kPage * kDim;
constexpr int kTotal = kCanary + kCache + kCanary;
const int64_t kSlots[kTokens] = {5, -1, 2}; // token 1 is a padded token

static void report(const char *name, const float *got) {
  float want[kTotal];
  for (int i = 0; i < kTotal; ++i)
    want[i] = 7777.f;
  for (int t = 0; t < kTokens; ++t) {
    if (kSlots[t] < 0)
      continue;
    for (int d = 0; d < kDim; ++d)
      want[kCanary + kSlots[t] * kDim + d] = 100.f * (t + 1) + d;
  }
  int canary_before = 0, canary_after = 0, cache_other = 0;
  bool live_ok = true;
  for (int i = 0; i < kTotal; ++i) {
    if (memcmp(&got[i], &want[i], sizeof(float)) == 0)
      continue;
    if (i < kCanary)
      ++canary_before;
    else if (i >= kCanary + kCache)
      ++canary_after;
    else if (want[i] == 7777.f)
      ++cache_other;
    else
      live_ok = false;
  }
  if (canary_before + canary_after)
    printf("%s: pad token changed %d canary floats (%s the cache) and %d cache floats outside "
           "live slots; live slots %s\n",
           name, canary_before + canary_after, canary_before ? "before" : "after", cache_other,
           live_ok ? "ok" : "WRONG");
  else
    printf("%s: pad token changed 0 canary floats and %d cache floats outside live slots; live "
           "slots %s\n",
           name, cache_other, live_ok ? "ok" : "WRONG");
}

int main() {
  float key[kTokens * kDim];
  for (int t = 0; t < kTokens; ++t)
    for (int d = 0; d < kDim; ++d)
      key[t * kDim + d] = 100.f * (t + 1) + d;
  float init[kTotal];
  for (int i = 0; i < kTotal; ++i)
    init[i] = 7777.f;
  float *d_key, *d_buf;
  int64_t *d_slots;
  cudaMalloc(&d_key, sizeof key);
  cudaMalloc(&d_buf, sizeof init);
  cudaMalloc(&d_slots, sizeof kSlots);
  cudaMemcpy(d_key, key, sizeof key, cudaMemcpyHostToDevice);
  cudaMemcpy(d_slots, kSlots, sizeof kSlots, cudaMemcpyHostToDevice);
  float *d_cache = d_buf + kCanary;
  for (int which = 0; which < 3; ++which) {
    cudaMemcpy(d_buf, init, sizeof init, cudaMemcpyHostToDevice);
    if (which == 0) {
      store_buggy<<<kTokens, kDim>>>(d_key, d_cache, d_slots, kPage * kDim);
    } else if (which == 1) {
      store_fixed<<<kTokens, kDim>>>(d_key, d_cache, d_slots, kPage * kDim);
    } else {
      // kvref's paged store, one head of kDim floats per token: one 16-byte
      // vector per row, 4 threads per token, 64 tokens per CTA, K only.
      kvref::ScatterParams p{};
      p.tensor[0].src = reinterpret_cast<const unsigned char *>(d_key);
      p.tensor[0].dst = reinterpret_cast<unsigned char *>(d_cache);
      p.tensor[0].src_token_stride = kDim * sizeof(float);
      p.tensor[0].src_head_stride = kDim * sizeof(float);
      p.tensor[1] = p.tensor[0];
      p.slot_mapping = d_slots;
      p.num_tokens = kTokens;
      p.num_slots = kPages * kPage;
      p.page_size = kPage;
      p.dst_page_stride = kPage * kDim * sizeof(float);
      p.dst_slot_stride = kDim * sizeof(float);
      p.dst_head_stride = kDim * sizeof(float);
      p.num_heads = 1;
      p.units_per_row = 1;
      p.lanes_log2 = 2;
      p.tokens_per_block = 64;
      p.page_magic = kvref::page_magic_for(kPage);
      kvref::scatter_copy_kernel<kvref::Vec16, 1, 1><<<dim3(1, 1), 64 << 2>>>(p);
    }
    float got[kTotal];
    if (cudaMemcpy(got, d_buf, sizeof got, cudaMemcpyDeviceToHost) != cudaSuccess) {
      printf("kernel failed\n");
      return 1;
    }
    report(which == 0 ? "buggy" : which == 1 ? "fixed" : "kvref", got);
  }
  return 0;
}
#endif
