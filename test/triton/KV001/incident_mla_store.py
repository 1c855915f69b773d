# KV001, the DeepSeek MLA store incident in Triton: an int64 location is
# narrowed with .to(tl.int32), divided into a page, and the page is multiplied
# by the per-page stride (74,880 elements) in int32. It wraps at page 28,679.
# RUN: %if kvlint %{ not %kvlint --checks=KV001 %s | FileCheck %s --implicit-check-not=warning: %}
import triton
import triton.language as tl

BYTES_PER_PAGE = 74880


@triton.jit
def mla_store_buggy(cache_ptr, loc_ptr, src_ptr, PAGE_SIZE: tl.constexpr, DIM: tl.constexpr):
    t = tl.program_id(0)
    loc = tl.load(loc_ptr + t).to(tl.int32)
    page = loc // PAGE_SIZE
    slot = loc % PAGE_SIZE
    d = tl.arange(0, DIM)
    v = tl.load(src_ptr + t * DIM + d)
    # CHECK: incident_mla_store.py:[[@LINE+2]]:12: warning: 32-bit signed product 'page * BYTES_PER_PAGE' is used as a memory offset {{.*}}index 'page' {{.*}}[kvlint-narrowed-index-overflow]
    # CHECK: fix-it: {{.*}}page.to(tl.int64) * BYTES_PER_PAGE
    dst = (page * BYTES_PER_PAGE + slot * DIM + d)
    tl.store(cache_ptr + dst, v)


# The fix: widen the page before it multiplies. slot * DIM is an in-page
# offset (slot < PAGE_SIZE) and needs nothing.
@triton.jit
def mla_store_fixed(cache_ptr, loc_ptr, src_ptr, PAGE_SIZE: tl.constexpr, DIM: tl.constexpr):
    t = tl.program_id(0)
    loc = tl.load(loc_ptr + t).to(tl.int32)
    page = loc // PAGE_SIZE
    slot = loc % PAGE_SIZE
    d = tl.arange(0, DIM)
    v = tl.load(src_ptr + t * DIM + d)
    dst = (page.to(tl.int64) * BYTES_PER_PAGE + slot * DIM + d)
    tl.store(cache_ptr + dst, v)
