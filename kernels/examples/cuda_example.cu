/* cuda_example.cu - the complete example of docs/kvref/README.md (built by CMake, run by
 * kernels/tools/gpu_check.sh). */
#include <cuda_runtime.h>
#include <stdio.h>
#include "kvref/kvref.h"

int main(void) {
  enum { T = 3, H = 2, D = 64, BS = 16, NB = 8 };
  const int32_t table[2 * 4] = {7, 3, 5, 1, 6, 2, 0, 4};  /* 2 rows, width 4 */
  const int32_t idx[2] = {1, 0}, qsl[3] = {0, 2, 3};
  const int64_t pos[T] = {15, 16, 70};                    /* 70 / 16 = 4 >= width: pad */
  int32_t *d_table, *d_idx, *d_qsl; int64_t *d_pos, *d_slots;
  uint16_t *d_k, *d_v, *d_kc, *d_vc;                        /* bf16 bits */
  cudaMalloc((void**)&d_table, sizeof table); cudaMalloc((void**)&d_idx, sizeof idx);
  cudaMalloc((void**)&d_qsl, sizeof qsl); cudaMalloc((void**)&d_pos, sizeof pos);
  cudaMalloc((void**)&d_slots, T * sizeof(int64_t));
  cudaMalloc((void**)&d_k, T * H * D * 2); cudaMalloc((void**)&d_v, T * H * D * 2);
  cudaMalloc((void**)&d_kc, NB * BS * H * D * 2); cudaMalloc((void**)&d_vc, NB * BS * H * D * 2);
  cudaMemcpy(d_table, table, sizeof table, cudaMemcpyHostToDevice);
  cudaMemcpy(d_idx, idx, sizeof idx, cudaMemcpyHostToDevice);
  cudaMemcpy(d_qsl, qsl, sizeof qsl, cudaMemcpyHostToDevice);
  cudaMemcpy(d_pos, pos, sizeof pos, cudaMemcpyHostToDevice);
  cudaMemset(d_k, 0x3f, T * H * D * 2); cudaMemset(d_v, 0x40, T * H * D * 2);

  kvref_slot_mapping_args sm;
  kvref_slot_mapping_args_init(&sm);
  sm.num_groups = 1;
  sm.groups[0].block_table = d_table; sm.groups[0].row_stride = 4; sm.groups[0].width = 4;
  sm.groups[0].block_size = BS;       sm.groups[0].slot_mapping = d_slots;
  sm.num_reqs = 2; sm.num_rows = 2;
  sm.idx_mapping = d_idx; sm.query_start_loc = d_qsl; sm.positions = d_pos;
  sm.num_tokens = T; sm.num_tokens_padded = T;
  kvref_status st = kvref_slot_mapping(&sm, NULL);
  if (st != KVREF_SUCCESS) { fprintf(stderr, "%s\n", kvref_status_string(st)); return 1; }

  kvref_kv_store_args kv;
  kvref_kv_store_args_init(&kv);            /* NHD, bf16 -> bf16 */
  kv.key = d_k; kv.value = d_v;
  kv.key_stride_token = kv.value_stride_token = H * D;
  kv.key_stride_head = kv.value_stride_head = D;
  kv.key_cache = d_kc; kv.value_cache = d_vc;
  kv.num_blocks = NB; kv.block_size = BS; kv.num_heads = H; kv.head_size = D;
  kv.slot_mapping = d_slots; kv.num_tokens = T;
  st = kvref_kv_store(&kv, NULL);           /* token 2 has slot -1: skipped */
  if (st != KVREF_SUCCESS) { fprintf(stderr, "%s\n", kvref_status_string(st)); return 1; }

  int64_t slots[T];
  cudaMemcpy(slots, d_slots, sizeof slots, cudaMemcpyDeviceToHost);
  printf("slots %lld %lld %lld\n", (long long)slots[0], (long long)slots[1], (long long)slots[2]);
  /* prints: slots 111 32 -1  (6*16+15, 2*16+0, pad) */
  return (slots[0] == 111 && slots[1] == 32 && slots[2] == -1) ? 0 : 1;
}
