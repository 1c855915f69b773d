# Known gaps of the Triton frontend, pinned so that a change of scope shows
# in the diff. Each FIXME states what a precise analysis would report.
# RUN: %if kvlint %{ %kvlint --checks=KV001 %s | FileCheck %s --allow-empty --implicit-check-not=warning: %}
import triton
import triton.language as tl

from .common import page_offset  # a @triton.jit helper defined in another file


# FIXME (missed): helpers imported from other modules are opaque calls; the
# product inside page_offset is only analysed in its own file, without this
# caller's facts (page is loaded here).
@triton.jit
def cross_file_helper(cache_ptr, table_ptr, STRIDE: tl.constexpr):
    page = tl.load(table_ptr)
    tl.store(cache_ptr + page_offset(page, STRIDE), 0)


# Only the first 3 constexpr flags whose branches assign values are
# specialised; IS_VARLEN is the 4th, so its int64 varlen arm and int32 dense
# arm merge into one Phi. That used to report i_t * BT (a false positive);
# the bounds analysis now bounds i_t by the loop (i_t < cdiv(T, BT)), so
# i_t * BT <= T + BT and nothing is reported. The merge itself remains.
@triton.jit
def fourth_flag(x_ptr, cu_ptr, T, BT: tl.constexpr, A: tl.constexpr, B: tl.constexpr,
               C: tl.constexpr, IS_VARLEN: tl.constexpr):
    i_n = tl.program_id(0).to(tl.int64)
    if A:
        a = 1
    if B:
        b = 2
    if C:
        c = 3
    if IS_VARLEN:
        bos = tl.load(cu_ptr + i_n).to(tl.int64)
        T = (tl.load(cu_ptr + i_n + 1).to(tl.int64) - bos)
    else:
        bos = i_n * T
    for i_t in range(tl.cdiv(T, BT)):
        tl.store(x_ptr + bos + i_t * BT, 0)
