// Slot mapping for a paged KV cache (KV002, kvlint-unguarded-table-load).
//
// For every scheduled token, look up the physical block that holds its
// position in the request's block-table row and write the cache slot
// (block * block_size + pos % block_size) to slot_mapping.
//
// block_table is [num_reqs, max_num_blocks], int32. A cache group whose row
// is narrower than the sequence in raw positions (sliding window, a narrow
// hybrid-model group, context parallelism) makes pos / block_size run past
// the row: the unguarded kernel then reads the NEXT request's row (a valid-
// looking block id, so no sanitizer sees it) or past the allocation.
//
// compute_slot_mapping_unguarded is the bug; compute_slot_mapping is its
// guarded twin, which bounds the column by the row width and writes the pad
// slot -1 for positions outside the row.
#include <cstdint>

constexpr int64_t kPadSlot = -1;

// BUG (KV002): nothing bounds pos / block_size by max_num_blocks.
__global__ void compute_slot_mapping_unguarded(int64_t *__restrict__ slot_mapping,
                                               const int *__restrict__ block_table,
                                               const int *__restrict__ positions,
                                               const int *__restrict__ query_start_loc,
                                               int max_num_blocks, int block_size) {
  const int req = blockIdx.x;
  const int start = query_start_loc[req];
  const int end = query_start_loc[req + 1];
  for (int i = start + threadIdx.x; i < end; i += blockDim.x) {
    const int pos = positions[i];
    const int block = block_table[req * max_num_blocks + pos / block_size];
    slot_mapping[i] = static_cast<int64_t>(block) * block_size + pos % block_size;
  }
}

// Fixed: the column is checked against the row width before the load, and
// out-of-row positions get the pad slot, which the store kernels skip.
__global__ void compute_slot_mapping(int64_t *__restrict__ slot_mapping,
                                     const int *__restrict__ block_table,
                                     const int *__restrict__ positions,
                                     const int *__restrict__ query_start_loc,
                                     int max_num_blocks, int block_size) {
  const int req = blockIdx.x;
  const int start = query_start_loc[req];
  const int end = query_start_loc[req + 1];
  for (int i = start + threadIdx.x; i < end; i += blockDim.x) {
    const int pos = positions[i];
    const int col = pos / block_size;
    if (col >= max_num_blocks) {
      slot_mapping[i] = kPadSlot;
      continue;
    }
    const int block = block_table[req * max_num_blocks + col];
    slot_mapping[i] = static_cast<int64_t>(block) * block_size + pos % block_size;
  }
}
