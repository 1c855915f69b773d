# Plain Python (no @triton.jit) is never analysed, even when it imports
# triton and does index arithmetic that would be a finding in a kernel.
# RUN: %if kvlint %{ %kvlint %s | FileCheck %s --allow-empty --implicit-check-not=warning: %}
import torch
import triton
import triton.language as tl

PAGE_BYTES = 74880


def host_offsets(block_table: torch.Tensor, stride: int) -> torch.Tensor:
    page = block_table[0].to(torch.int32)
    return page * PAGE_BYTES + page * stride


class Launcher:
    def launch(self, pages, stride):
        return [p * stride for p in pages]


@torch.compile
def compiled(page, stride):
    return page * stride


def jit_in_name_only(page_ptr, STRIDE):
    return tl.load(page_ptr + page_ptr * STRIDE)
