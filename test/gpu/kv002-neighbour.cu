// KV002 end to end: kvlint flags the unguarded slot mapping and not the
// guarded one, and on a GPU the unguarded kernel returns the neighbour
// request's block where the pad slot was expected. compute-sanitizer cannot
// see this: the read stays inside the allocation.
// RUN: %if kvlint %{ not %kvlint %s | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if cuda-gpu %{ %nvcc %s -o %t && %t | FileCheck %s --check-prefix=GPU %}
#include <cstdint>

__global__ void slot_mapping_buggy(int64_t *slots, const int *block_table, const int64_t *positions,
                                   int width, int block_size) {
  int64_t pos = positions[threadIdx.x];
  // CHECK: kv002-neighbour.cu:[[@LINE+1]]:19: warning: table load reads column 'pos / block_size'{{.*}}[kvlint-unguarded-table-load]
  int64_t block = block_table[blockIdx.x * width + pos / block_size];
  slots[threadIdx.x] = block * block_size + pos % block_size;
}

__global__ void slot_mapping_fixed(int64_t *slots, const int *block_table, const int64_t *positions,
                                   int width, int block_size) {
  int64_t pos = positions[threadIdx.x];
  int64_t col = pos / block_size;
  if (col >= width) {
    slots[threadIdx.x] = -1; // PAD_SLOT_ID: consumers skip it
    return;
  }
  int64_t block = block_table[blockIdx.x * (int64_t)width + col];
  slots[threadIdx.x] = block * block_size + pos % block_size;
}

#ifndef __KVLINT__
#include <cstdio>
#include <cuda_runtime.h>

// GPU: buggy: pos 70 -> slot 326
// GPU: fixed: pos 70 -> slot -1
int main() {
  // Two requests, a narrow group of 4 columns each; block size 16.
  const int width = 4, block_size = 16;
  const int table[8] = {10, 11, 12, 13, 20, 21, 22, 23};
  const int64_t pos = 70; // column 4: one past request 0's row
  int *d_table;
  int64_t *d_pos, *d_slot;
  cudaMalloc(&d_table, sizeof table);
  cudaMalloc(&d_pos, sizeof pos);
  cudaMalloc(&d_slot, sizeof(int64_t));
  cudaMemcpy(d_table, table, sizeof table, cudaMemcpyHostToDevice);
  cudaMemcpy(d_pos, &pos, sizeof pos, cudaMemcpyHostToDevice);
  for (int fixed = 0; fixed < 2; ++fixed) {
    if (fixed)
      slot_mapping_fixed<<<1, 1>>>(d_slot, d_table, d_pos, width, block_size);
    else
      slot_mapping_buggy<<<1, 1>>>(d_slot, d_table, d_pos, width, block_size);
    int64_t slot = 0;
    if (cudaMemcpy(&slot, d_slot, sizeof slot, cudaMemcpyDeviceToHost) != cudaSuccess) {
      printf("kernel failed\n");
      return 1;
    }
    printf("%s: pos %lld -> slot %lld\n", fixed ? "fixed" : "buggy", (long long)pos,
           (long long)slot);
  }
  return 0;
}
#endif
