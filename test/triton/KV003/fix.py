# KV003 fix-it (Triton): the slot test joins the store's mask, or becomes the
# mask when the store has none; after --fix (exit 0: nothing remains) a
# re-scan reports nothing.
# RUN: %if kvlint %{ cp %s %t.py && %kvlint --checks=KV003 --fix --unsafe-fixes %t.py 2>&1 | FileCheck %s --check-prefix=APPLY %}
# RUN: %if kvlint %{ %kvlint --checks=KV003 %t.py %}
# RUN: %if kvlint %{ FileCheck %s --check-prefix=FIXED < %t.py %}
# APPLY: kvlint: applied 3 edit(s) to
import triton
import triton.language as tl


@triton.jit
def store_no_mask(k_ptr, k_cache_ptr, slot_mapping_ptr, HEAD_DIM: tl.constexpr):
    t = tl.program_id(0)
    slot = tl.load(slot_mapping_ptr + t).to(tl.int64)
    d = tl.arange(0, HEAD_DIM)
    # FIXED: {{^}}    tl.store(k_cache_ptr + slot * HEAD_DIM + d, tl.load(k_ptr + t * HEAD_DIM + d), mask=slot >= 0)
    tl.store(k_cache_ptr + slot * HEAD_DIM + d, tl.load(k_ptr + t * HEAD_DIM + d))


@triton.jit
def store_dim_mask(k_ptr, k_cache_ptr, out_cache_loc_ptr, HEAD_DIM: tl.constexpr, D: tl.constexpr):
    t = tl.program_id(0)
    loc = tl.load(out_cache_loc_ptr + t).to(tl.int64)
    d = tl.arange(0, HEAD_DIM)
    # FIXED: {{^}}    tl.store(k_cache_ptr + loc * D + d, tl.load(k_ptr + t * D + d, mask=d < D), mask=(d < D) & (loc >= 0))
    tl.store(k_cache_ptr + loc * D + d, tl.load(k_ptr + t * D + d, mask=d < D), mask=d < D)


# The runner pads both tables with -1 for a CUDA-graph replay: the evidence
# that they can hold the pad, which the default level needs (issue 24).
def pad_for_replay(slot_mapping, out_cache_loc, n):
    slot_mapping[n:].fill_(-1)
    out_cache_loc[n:].fill_(-1)
