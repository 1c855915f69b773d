// kvref/slot_mapping.cuh - slot mapping for several KV-cache groups in one launch.
//
// Semantics: kvref.h (kvref_slot_mapping_args).  One thread per (token, group); grid
// (ceil(num_tokens_padded / kSlotMappingThreads), num_groups).
//
// The two bug classes kvlint looks for are avoided by construction:
//   * the block-table column is bounded by the row width before the table is read
//     (a position past the row width gets KVREF_PAD_SLOT and no load happens);
//   * block ids are widened to 64 bits (kvref::page_offset) before any multiply.
#ifndef KVREF_SLOT_MAPPING_CUH
#define KVREF_SLOT_MAPPING_CUH

#include "kvref/kvref.h"
#include "kvref/offsets.cuh"
#include "kvref/portable.cuh"

namespace kvref {

constexpr int kSlotMappingThreads = 256;

// Index b of the request holding token t (query_start_loc[b] <= t < query_start_loc[b + 1]),
// or -1 when no request holds it.  Shared by the kernel and the CPU reference.
KVREF_HOST_DEVICE inline int32_t find_request(const int32_t* query_start_loc, int32_t num_reqs,
                                              int64_t t) {
  if (num_reqs <= 0) return -1;
  int32_t lo = 0;
  int32_t hi = num_reqs;  // invariant: query_start_loc[lo] <= t (checked below), answer < hi
  while (hi - lo > 1) {
    int32_t mid = lo + (hi - lo) / 2;
    if (static_cast<int64_t>(query_start_loc[mid]) <= t) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  if (static_cast<int64_t>(query_start_loc[lo]) <= t &&
      t < static_cast<int64_t>(query_start_loc[lo + 1])) {
    return lo;
  }
  return -1;
}

// Slot of one token in one group.  `row` is the block-table row of the token's request.
// Shared by the kernel and the CPU reference.
KVREF_HOST_DEVICE inline int64_t slot_for_position(const kvref_slot_group& g, int32_t row,
                                                   int64_t pos, int32_t cp_size, int32_t cp_rank,
                                                   int32_t cp_interleave) {
  if (pos < 0) return KVREF_PAD_SLOT;
  const int64_t virtual_block = static_cast<int64_t>(g.block_size) * cp_size;
  const int64_t col = pos / virtual_block;
  const int64_t off = pos - col * virtual_block;
  // Width guard: a column at or past the row width is not in this group's table.
  if (col >= static_cast<int64_t>(g.width)) return KVREF_PAD_SLOT;
  int64_t local = off;
  if (cp_size > 1) {
    const int64_t stripe = off / cp_interleave;
    if (stripe % cp_size != cp_rank) return KVREF_PAD_SLOT;  // stored by another rank
    local = (stripe / cp_size) * cp_interleave + (off - stripe * cp_interleave);
  }
  const int32_t block = g.block_table[page_offset(row, g.row_stride) + col];
  if (block < 0) return KVREF_PAD_SLOT;
  return page_offset(static_cast<int64_t>(block), g.block_size) + local;
}

#if defined(KVREF_GPU)
KVREF_GLOBAL void slot_mapping_kernel(const kvref_slot_mapping_args args) {
  dev::wait_prerequisite_grids();
  const kvref_slot_group& g = args.groups[dev::block_y()];
  const int64_t t = page_offset(dev::block_x(), kSlotMappingThreads) + dev::thread_x();
  if (t >= args.num_tokens_padded) return;
  int64_t slot = KVREF_PAD_SLOT;
  if (t < args.num_tokens) {
    const int32_t b = find_request(args.query_start_loc, args.num_reqs, t);
    if (b >= 0) {
      const int32_t row = args.idx_mapping[b];
      if (row >= 0 && row < args.num_rows) {
        slot = slot_for_position(g, row, args.positions[t], args.cp_size, args.cp_rank,
                                 args.cp_interleave);
      }
    }
  }
  g.slot_mapping[t] = slot;
}
#endif  // KVREF_GPU

}  // namespace kvref

#endif  // KVREF_SLOT_MAPPING_CUH
