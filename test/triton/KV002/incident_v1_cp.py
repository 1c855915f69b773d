# KV002, the vLLM V1 slot-mapping kernel with context parallelism (before its
# guard): the column divides the position by block_size * CP world size.
# RUN: %if kvlint %{ not %kvlint --checks=KV002 %s | FileCheck %s --implicit-check-not=warning: %}
import triton
import triton.language as tl


@triton.jit
def _compute_slot_mapping_kernel(
    num_tokens,
    max_num_tokens,
    query_start_loc_ptr,
    positions_ptr,
    block_table_ptr,
    block_table_stride,
    block_size,
    slot_mapping_ptr,
    TOTAL_CP_WORLD_SIZE: tl.constexpr,
    TOTAL_CP_RANK: tl.constexpr,
    CP_KV_CACHE_INTERLEAVE_SIZE: tl.constexpr,
    PAD_ID: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
):
    req_idx = tl.program_id(0)
    if req_idx == tl.num_programs(0) - 1:
        for i in range(num_tokens, max_num_tokens, BLOCK_SIZE):
            offset = i + tl.arange(0, BLOCK_SIZE)
            tl.store(slot_mapping_ptr + offset, PAD_ID, mask=offset < max_num_tokens)
        return

    start_idx = tl.load(query_start_loc_ptr + req_idx).to(tl.int64)
    end_idx = tl.load(query_start_loc_ptr + req_idx + 1).to(tl.int64)
    virtual_block_size = block_size * TOTAL_CP_WORLD_SIZE
    for i in range(start_idx, end_idx, BLOCK_SIZE):
        offset = i + tl.arange(0, BLOCK_SIZE)
        pos = tl.load(positions_ptr + offset, mask=offset < end_idx, other=0)
        block_indices = pos // virtual_block_size
        # CHECK: incident_v1_cp.py:[[@LINE+1]]:{{[0-9]+}}: warning: {{.*}}[kvlint-unguarded-table-load]
        block_numbers = tl.load(block_table_ptr + req_idx * block_table_stride + block_indices,
                                mask=offset < end_idx, other=0)
        virtual_block_offsets = pos % virtual_block_size
        is_local = (virtual_block_offsets // CP_KV_CACHE_INTERLEAVE_SIZE) % TOTAL_CP_WORLD_SIZE == TOTAL_CP_RANK
        local_block_offsets = virtual_block_offsets // TOTAL_CP_WORLD_SIZE
        slot_ids = block_numbers * block_size + local_block_offsets
        slot_ids = tl.where(is_local, slot_ids, PAD_ID)
        tl.store(slot_mapping_ptr + offset, slot_ids, mask=offset < end_idx)


# The fix: the mask bounds the column by the table's row stride.
@triton.jit
def _compute_slot_mapping_kernel_fixed(
    num_tokens,
    max_num_tokens,
    query_start_loc_ptr,
    positions_ptr,
    block_table_ptr,
    block_table_stride,
    block_size,
    slot_mapping_ptr,
    TOTAL_CP_WORLD_SIZE: tl.constexpr,
    PAD_ID: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
):
    req_idx = tl.program_id(0)
    start_idx = tl.load(query_start_loc_ptr + req_idx).to(tl.int64)
    end_idx = tl.load(query_start_loc_ptr + req_idx + 1).to(tl.int64)
    virtual_block_size = block_size * TOTAL_CP_WORLD_SIZE
    for i in range(start_idx, end_idx, BLOCK_SIZE):
        offset = i + tl.arange(0, BLOCK_SIZE)
        pos = tl.load(positions_ptr + offset, mask=offset < end_idx, other=0)
        block_indices = pos // virtual_block_size
        valid = (offset < end_idx) & (block_indices < block_table_stride)
        block_numbers = tl.load(block_table_ptr + req_idx * block_table_stride + block_indices,
                                mask=valid, other=0)
        slot_ids = block_numbers * block_size + pos % virtual_block_size
        slot_ids = tl.where(valid, slot_ids, PAD_ID)
        tl.store(slot_mapping_ptr + offset, slot_ids, mask=offset < end_idx)
