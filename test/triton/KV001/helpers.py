# KV001 facet: @triton.jit helpers are analysed inlined with their callers'
# argument facts; findings point into the helper where the product is.
# RUN: %if kvlint %{ not %kvlint --checks=KV001 %s | FileCheck %s --implicit-check-not=warning: %}
import triton
import triton.language as tl


@triton.jit
def _page_offset(page, stride):
    # CHECK: helpers.py:[[@LINE+1]]:12: warning: 32-bit signed product 'page * stride' is used as a memory offset and wraps past 2^31 in the inference profile: 'page' <= 8,388,607 ('page' is named like it: below Envelope.KvPages = 8,388,608) times 'stride' <= 16,384 ('stride_page' is named like it: Envelope.Stride = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    return page * stride


@triton.jit
def _store_row(cache_ptr, row, stride_row, val):
    # CHECK: helpers.py:[[@LINE+1]]:26: warning: 32-bit signed product 'row * stride_row' is used as a memory offset and wraps past 2^31 in the inference profile: 'row' <= 8,388,607 ('block_table_ptr' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'stride_row' <= 16,384 ('stride_row' is named like it: Envelope.Stride = 16,384); widen 'row' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(cache_ptr + row * stride_row, val)


@triton.jit
def _pid64():
    return tl.program_id(0).to(tl.int64)


@triton.jit
def _widen(x):
    return x.to(tl.int64)


# Positive: a helper returns the 32-bit product of a loaded page.
@triton.jit
def helper_returns_product(cache_ptr, table_ptr, stride_page):
    page = tl.load(table_ptr + tl.program_id(0))
    tl.store(cache_ptr + _page_offset(page, stride_page), 0)


# Positive: a helper does the store; the index is a page the caller loads
# from its block table.
@triton.jit
def helper_stores(cache_ptr, block_table_ptr, stride_row):
    row = tl.load(block_table_ptr + tl.program_id(0))
    _store_row(cache_ptr, row, stride_row, 1)


# Negative: the same helper called with a widened index.
@triton.jit
def helper_stores_widened(cache_ptr, block_table_ptr, stride_row):
    row = tl.load(block_table_ptr + tl.program_id(0)).to(tl.int64)
    _store_row(cache_ptr, row, stride_row, 1)


# Negative: a helper that widens is a safe source.
@triton.jit
def helper_widens(cache_ptr, table_ptr, stride_row):
    row = _widen(tl.load(table_ptr + tl.program_id(0)))
    tl.store(cache_ptr + row * stride_row, 0)


# Negative: a helper that returns an int64 program id is a safe source.
@triton.jit
def helper_pid64(x_ptr, table_ptr, stride_row):
    pid = _pid64()
    tl.store(x_ptr + pid * stride_row, 0)


# Negative: a helper given a bounded lane offset.
@triton.jit
def helper_bounded(cache_ptr, stride):
    lane = tl.arange(0, 32)
    tl.store(cache_ptr + _page_offset(lane, 4), 0)
