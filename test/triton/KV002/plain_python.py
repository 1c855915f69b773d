# KV002: plain Python that indexes a block table on the host is not a kernel
# and stays silent; so do kernels that only mention the table in strings.
# RUN: %if kvlint %{ %kvlint --checks=KV002 %s | FileCheck %s --allow-empty --implicit-check-not=warning: %}
import torch
import triton
import triton.language as tl


def host_slot_mapping(block_table: torch.Tensor, positions: torch.Tensor, block_size: int):
    cols = positions // block_size
    return block_table[0, cols] * block_size + positions % block_size


@triton.jit
def documented(out_ptr, n):
    """tl.load(block_table_ptr + row * stride + pos // BLOCK_SIZE) is the bug."""
    offs = tl.arange(0, 64)
    tl.store(out_ptr + offs, 0, mask=offs < n)
