/* Slot mapping for two requests with the CPU reference backend (kvref::cpu). */
#include <stdio.h>

#include "kvref/kvref.h"
#include "kvref/kvref_cpu.h"

int main(void) {
  const int32_t block_table[2 * 4] = {7, 8, 9, 10, 20, 21, 22, 23}; /* 2 rows, width 4 */
  const int32_t idx_mapping[2] = {1, 0};
  const int32_t query_start_loc[3] = {0, 2, 3};
  const int64_t positions[3] = {15, 16, 70}; /* 70 / 16 = 4 >= width: pad */
  int64_t slots[4];
  kvref_slot_mapping_args args;
  kvref_slot_mapping_args_init(&args);
  args.num_groups = 1;
  args.groups[0].block_table = block_table;
  args.groups[0].row_stride = 4;
  args.groups[0].width = 4;
  args.groups[0].block_size = 16;
  args.groups[0].slot_mapping = slots;
  args.num_reqs = 2;
  args.num_rows = 2;
  args.idx_mapping = idx_mapping;
  args.query_start_loc = query_start_loc;
  args.positions = positions;
  args.num_tokens = 3;
  args.num_tokens_padded = 4;
  kvref_status st = kvref_cpu_slot_mapping(&args);
  if (st != KVREF_SUCCESS) {
    fprintf(stderr, "kvref: %s\n", kvref_status_string(st));
    return 1;
  }
  printf("slots: %lld %lld %lld %lld\n", (long long)slots[0], (long long)slots[1],
         (long long)slots[2], (long long)slots[3]);
  /* row 1: 20*16+15, 21*16+0; row 0: position 70 is past the row -> -1; padding -1 */
  return (slots[0] == 335 && slots[1] == 336 && slots[2] == -1 && slots[3] == -1) ? 0 : 1;
}
