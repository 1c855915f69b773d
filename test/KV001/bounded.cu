// KV001 facet: products of bounded values, round-downs and host arithmetic
// stay silent. Every kernel here is correct code from real kernel idioms.
// RUN: %if kvlint %{ %kvlint %s | FileCheck %s --allow-empty --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --allow-empty --implicit-check-not=warning: %}
#include <cstdint>

constexpr int PAGE = 64;
constexpr int kSlotBytes = 656;

// In-page offset: loc % PAGE is below 64.
__global__ void in_page(uint8_t *cache, const int64_t *locs) {
  int64_t loc = locs[blockIdx.x];
  int slot = loc % PAGE;
  int64_t page = loc / PAGE;
  cache[page * PAGE * kSlotBytes + slot * kSlotBytes] = 0;
}

// In-page offset by mask.
__global__ void in_page_mask(uint8_t *cache, const int64_t *locs, int64_t page_bytes) {
  int64_t loc = locs[blockIdx.x];
  int slot = loc & (PAGE - 1);
  cache[(loc >> 6) * page_bytes + slot * kSlotBytes] = 0;
}

// Lane arithmetic: bounded by the block.
__global__ void lanes(float *out, int64_t base) {
  int lane = threadIdx.x % 32;
  out[base + lane * 8] = 0.f;
  out[base + threadIdx.x * 4 + threadIdx.y * 128] = 0.f;
}

// Rounding down to a multiple is never larger than the value.
__global__ void round_down(float *out, int64_t n, int vec) {
  int tail = (threadIdx.x / 4) * 4;
  out[tail] = 0.f;
}

// A clamp to a small constant bounds the index.
__global__ void clamped(float *out, const int *idx) {
  int i = min(idx[blockIdx.x], 255);
  out[i * 1024] = 0.f;
}

// Host code: size arithmetic that never forms an address.
int64_t cache_bytes(int num_blocks, int block_size, int head_size) {
  int elems = num_blocks * block_size * head_size;
  return int64_t(elems) * 2;
}

// Host code: launch configuration.
void launch_dims(int num_tokens, int num_heads, int *grid) {
  grid[0] = num_tokens * num_heads;
}

// A product whose known bounds fit in 32 bits.
__global__ void small_product(float *out, const int *idx) {
  int i = idx[blockIdx.x] & 0xffff;
  out[i * 16384] = 0.f;
}

// An int8 table entry.
__global__ void tiny_table(float *out, const signed char *idx) {
  out[idx[blockIdx.x] * 4096] = 0.f;
}
