# KV002, the vLLM slot-mapping incident (model runner V2 shape, before its
# guard): the block-table column is `positions // page_size` and nothing
# bounds it by the row width, so a narrow KV-cache group reads the next
# request's row (or past the allocation at long positions).
# RUN: %if kvlint %{ not %kvlint --checks=KV002 %s | FileCheck %s --implicit-check-not=warning: %}
# GPU leg: both kernels run on a narrow second KV-cache group (2 columns).
# The buggy one maps request 0's positions past its row to request 1's block;
# the fixed one writes PAD_ID there.
# RUN: %if triton-gpu %{ %python %s | FileCheck %s --check-prefix=GPU %}
# GPU: buggy: slot[1][32] = 320 (request 1's block 20), expected -1
# GPU-NEXT: fixed: slot[1][32] = -1
# GPU-NEXT: fixed kernel matches the reference on all 64 tokens of both groups
import triton
import triton.language as tl


@triton.jit
def _load_ptr(ptr_to_ptr, elem_dtype):
    ptr = tl.load(ptr_to_ptr)
    ptr = tl.cast(ptr, tl.pointer_type(elem_dtype))
    return tl.multiple_of(ptr, 16)


@triton.jit
def _compute_slot_mappings_kernel(
    num_tokens,
    max_num_tokens,
    cu_num_tokens,  # [num_reqs + 1]
    pos,  # [num_tokens]
    block_table_ptrs,  # [num_kv_cache_groups]
    block_table_strides,  # [num_kv_cache_groups]
    page_sizes,  # [num_kv_cache_groups]
    slot_mappings_ptr,  # [num_kv_cache_groups, max_num_tokens]
    slot_mappings_stride,
    PAD_ID: tl.constexpr,
    TRITON_BLOCK_SIZE: tl.constexpr,
):
    group_id = tl.program_id(0)
    req_idx = tl.program_id(1)
    slot_mapping_ptr = slot_mappings_ptr + group_id * slot_mappings_stride

    if req_idx == tl.num_programs(1) - 1:
        for i in range(num_tokens, max_num_tokens, TRITON_BLOCK_SIZE):
            offset = i + tl.arange(0, TRITON_BLOCK_SIZE)
            tl.store(slot_mapping_ptr + offset, PAD_ID, mask=offset < max_num_tokens)
        return

    block_table_ptr = _load_ptr(block_table_ptrs + group_id, tl.int32)
    block_table_stride = tl.load(block_table_strides + group_id)
    page_size = tl.load(page_sizes + group_id)

    start_idx = tl.load(cu_num_tokens + req_idx)
    end_idx = tl.load(cu_num_tokens + req_idx + 1)
    for i in range(start_idx, end_idx, TRITON_BLOCK_SIZE):
        offset = i + tl.arange(0, TRITON_BLOCK_SIZE)
        positions = tl.load(pos + offset, mask=offset < end_idx, other=0)
        block_indices = positions // page_size
        # CHECK: incident_slot_mapping.py:[[@LINE+1]]:{{[0-9]+}}: warning: {{.*}}[kvlint-unguarded-table-load]
        block_numbers = tl.load(block_table_ptr + req_idx * block_table_stride + block_indices)
        slot_ids = block_numbers * page_size + positions % page_size
        tl.store(slot_mapping_ptr + offset, slot_ids, mask=offset < end_idx)


# The fix: bound the column by the row width in the mask and write PAD_ID
# for the lanes past it.
@triton.jit
def _compute_slot_mappings_kernel_fixed(
    num_tokens,
    max_num_tokens,
    cu_num_tokens,
    pos,
    block_table_ptrs,
    block_table_strides,
    page_sizes,
    slot_mappings_ptr,
    slot_mappings_stride,
    PAD_ID: tl.constexpr,
    TRITON_BLOCK_SIZE: tl.constexpr,
):
    group_id = tl.program_id(0)
    req_idx = tl.program_id(1)
    slot_mapping_ptr = slot_mappings_ptr + group_id * slot_mappings_stride

    if req_idx == tl.num_programs(1) - 1:
        for i in range(num_tokens, max_num_tokens, TRITON_BLOCK_SIZE):
            offset = i + tl.arange(0, TRITON_BLOCK_SIZE)
            tl.store(slot_mapping_ptr + offset, PAD_ID, mask=offset < max_num_tokens)
        return

    block_table_ptr = _load_ptr(block_table_ptrs + group_id, tl.int32)
    block_table_stride = tl.load(block_table_strides + group_id)
    page_size = tl.load(page_sizes + group_id)

    start_idx = tl.load(cu_num_tokens + req_idx)
    end_idx = tl.load(cu_num_tokens + req_idx + 1)
    for i in range(start_idx, end_idx, TRITON_BLOCK_SIZE):
        offset = i + tl.arange(0, TRITON_BLOCK_SIZE)
        positions = tl.load(pos + offset, mask=offset < end_idx, other=0)
        block_indices = positions // page_size
        in_row = block_indices < block_table_stride
        block_numbers = tl.load(block_table_ptr + req_idx * block_table_stride + block_indices,
                                mask=(offset < end_idx) & in_row, other=0)
        slot_ids = block_numbers * page_size + positions % page_size
        slot_ids = tl.where(in_row, slot_ids, PAD_ID)
        tl.store(slot_mapping_ptr + offset, slot_ids, mask=offset < end_idx)


if __name__ == "__main__":
    import torch

    PAGE, PAD = 16, -1
    dev = "cuda"
    # Group 0: 8 columns per request; group 1 (a narrow tail group): 2.
    widths = [8, 2]
    tables = [torch.arange(100 * g, 100 * g + 2 * w, dtype=torch.int32, device=dev).view(2, w)
              for g, w in enumerate(widths)]
    tables[1] = torch.tensor([[10, 11], [20, 21]], dtype=torch.int32, device=dev)
    ptrs = torch.tensor([t.data_ptr() for t in tables], dtype=torch.int64, device=dev)
    strides = torch.tensor(widths, dtype=torch.int32, device=dev)
    pages = torch.tensor([PAGE, PAGE], dtype=torch.int32, device=dev)
    # Request 0: 48 tokens (positions 0..47, columns 0..2); request 1: 16.
    pos = torch.cat([torch.arange(48), torch.arange(16)]).to(device=dev, dtype=torch.int64)
    cu = torch.tensor([0, 48, 64], dtype=torch.int32, device=dev)

    def reference():
        out = torch.full((2, 64), PAD, dtype=torch.int64)
        for g, t in enumerate(tables):
            for r, (a, b) in enumerate([(0, 48), (48, 64)]):
                for i in range(a, b):
                    p = int(pos[i])
                    if p // PAGE < widths[g]:
                        out[g, i] = int(t[r, p // PAGE]) * PAGE + p % PAGE
        return out

    def run(kernel):
        out = torch.full((2, 64), 7777, dtype=torch.int64, device=dev)
        kernel[(2, 3)](64, 64, cu, pos, ptrs, strides, pages, out, 64, PAD_ID=PAD, TRITON_BLOCK_SIZE=64)
        torch.cuda.synchronize()
        return out.cpu()

    ref = reference()
    buggy = run(_compute_slot_mappings_kernel)
    fixed = run(_compute_slot_mappings_kernel_fixed)
    print("buggy: slot[1][32] = %d (request 1's block %d), expected %d"
          % (buggy[1, 32], buggy[1, 32] // PAGE, ref[1, 32]))
    print("fixed: slot[1][32] = %d" % fixed[1, 32])
    assert not torch.equal(buggy, ref), "the buggy kernel should misbehave"
    assert torch.equal(fixed, ref), (fixed, ref)
    print("fixed kernel matches the reference on all 64 tokens of both groups")
