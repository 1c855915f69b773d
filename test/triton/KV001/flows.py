# KV001 facet: how the product reaches the address (variables, tuples,
# tl.where, casts after the multiply, 2-D broadcasts, loop-carried pointers).
# RUN: %if kvlint %{ not %kvlint --checks=KV001 %s | FileCheck %s --implicit-check-not=warning: %}
import triton
import triton.language as tl


# Positive: the product is kept in a variable, then added to the pointer.
@triton.jit
def via_variable(cache_ptr, table_ptr, STRIDE: tl.constexpr):
    page = tl.load(table_ptr + tl.program_id(0))
    # CHECK: flows.py:[[@LINE+1]]:11: warning: 32-bit signed product 'page * STRIDE' is used as a memory offset and wraps past 2^31 in the inference profile: 'page' <= 8,388,607 ('page' is named like it: below Envelope.KvPages = 8,388,608) times 'STRIDE' <= 16,384 ('STRIDE' is named like it: Envelope.Stride = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    off = page * STRIDE + tl.arange(0, 16)
    tl.store(cache_ptr + off, 0)


# Negative: the product is stored as a value, never used as an address.
@triton.jit
def value_not_address(out_ptr, table_ptr, STRIDE: tl.constexpr):
    i = tl.program_id(0)
    page = tl.load(table_ptr + i)
    tl.store(out_ptr + i, page * STRIDE)


# Positive: tuple assignment unpacks page and in-page slot.
@triton.jit
def tuple_unpack(cache_ptr, loc_ptr, PAGE: tl.constexpr, PAGE_BYTES: tl.constexpr):
    loc = tl.load(loc_ptr + tl.program_id(0))
    page, slot = loc // PAGE, loc % PAGE
    # CHECK: flows.py:[[@LINE+1]]:26: warning: 32-bit signed product 'page * PAGE_BYTES' is used as a memory offset and wraps past 2^31 in the inference profile: 'page' <= 8,388,607 ('loc_ptr' is an entry of a table named like it: below Envelope.KvSlots = 8,388,608) times 'PAGE_BYTES' <= 1,024 ('PAGE_BYTES' is a compile-time constant of unknown value: Envelope.Constexpr = 1,024); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(cache_ptr + page * PAGE_BYTES + slot, 0)


# Negative: the in-page slot times a stride is bounded by PAGE * stride.
@triton.jit
def tuple_unpack_fixed(cache_ptr, loc_ptr, PAGE: tl.constexpr, PAGE_BYTES: tl.constexpr):
    loc = tl.load(loc_ptr + tl.program_id(0))
    page, slot = loc // PAGE, loc % PAGE
    tl.store(cache_ptr + page.to(tl.int64) * PAGE_BYTES + slot * 16, 0)


# Positive: tl.where arms keep the loaded index.
@triton.jit
def where_arm(cache_ptr, table_ptr, n, STRIDE: tl.constexpr):
    offs = tl.arange(0, 64)
    blk = tl.load(table_ptr + offs, mask=offs < n, other=0)
    blk = tl.where(blk >= 0, blk, 0)
    # CHECK: flows.py:[[@LINE+1]]:26: warning: 32-bit signed product 'blk * STRIDE' is used as a memory offset and wraps past 2^31 in the inference profile: 'blk' <= 8,388,607 ('blk' is named like it: below Envelope.KvPages = 8,388,608) times 'STRIDE' <= 16,384 ('STRIDE' is named like it: Envelope.Stride = 16,384); widen 'blk' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(cache_ptr + blk * STRIDE, 0, mask=offs < n)


# Positive: a cast after the multiply does not undo the wrap.
@triton.jit
def cast_after(cache_ptr, table_ptr, STRIDE: tl.constexpr):
    page = tl.load(table_ptr + tl.program_id(0))
    # CHECK: flows.py:[[@LINE+1]]:27: warning: 32-bit signed product 'page * STRIDE' is used as a memory offset and wraps past 2^31 in the inference profile: 'page' <= 8,388,607 ('page' is named like it: below Envelope.KvPages = 8,388,608) times 'STRIDE' <= 16,384 ('STRIDE' is named like it: Envelope.Stride = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(cache_ptr + (page * STRIDE).to(tl.int64), 0)


# Negative: tl.cast of the index before the multiply.
@triton.jit
def cast_before(cache_ptr, table_ptr, STRIDE: tl.constexpr):
    page = tl.load(table_ptr + tl.program_id(0))
    tl.store(cache_ptr + tl.cast(page, tl.int64) * STRIDE, 0)


# Negative: the tensor method x.cast(tl.int64), then a loop over rows from
# it (Liger's RMSNorm backward: `pid = tl.program_id(0).cast(tl.int64)`;
# range() gives its bounds' promoted type).
@triton.jit
def cast_method(cache_ptr, table_ptr, n_rows, stride_page, BLOCK: tl.constexpr):
    pid = tl.program_id(0).cast(tl.int64)
    page = tl.load(table_ptr + pid).cast(tl.int64)
    tl.store(cache_ptr + page * stride_page, 0)
    for start in range(pid * BLOCK, n_rows, tl.num_programs(0) * BLOCK):
        rows = start + tl.arange(0, BLOCK)
        tl.store(cache_ptr + rows * stride_page, 0)


# Positive: x.cast to a 32-bit type is no widening.
@triton.jit
def cast_method_narrow(cache_ptr, table_ptr, stride_page):
    page = tl.load(table_ptr + tl.program_id(0)).cast(tl.int32)
    # CHECK: flows.py:[[@LINE+1]]:26: warning: 32-bit signed product 'page * stride_page'
    tl.store(cache_ptr + page * stride_page, 0)


# Positive: 2-D broadcast idx[:, None] * stride.
@triton.jit
def broadcast_2d(cache_ptr, table_ptr, stride_page, BLOCK: tl.constexpr, DIM: tl.constexpr):
    rows = tl.arange(0, BLOCK)
    pages = tl.load(table_ptr + rows)
    cols = tl.arange(0, DIM)
    # CHECK: flows.py:[[@LINE+1]]:26: warning: 32-bit signed product 'pages[:, None] * stride_page' is used as a memory offset and wraps past 2^31 in the inference profile: 'pages' <= 8,388,607 ('pages' is named like it: below Envelope.KvPages = 8,388,608) times 'stride_page' <= 16,384 ('stride_page' is named like it: Envelope.Stride = 16,384); widen 'pages' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(cache_ptr + pages[:, None] * stride_page + cols[None, :], 0)


# Negative: the same broadcast with the index widened.
@triton.jit
def broadcast_2d_fixed(cache_ptr, table_ptr, stride_page, BLOCK: tl.constexpr, DIM: tl.constexpr):
    rows = tl.arange(0, BLOCK)
    pages = tl.load(table_ptr + rows).to(tl.int64)
    cols = tl.arange(0, DIM)
    tl.store(cache_ptr + pages[:, None] * stride_page + cols[None, :], 0)


# Positive: a loop-carried pointer advanced by index * stride.
@triton.jit
def loop_carried(kv_ptr, out_ptr, table_ptr, n, stride_blk):
    ptr = kv_ptr
    acc = 0
    for i in range(0, n):
        acc += tl.load(ptr)
        blk = tl.load(table_ptr + i)
        # CHECK: flows.py:[[@LINE+1]]:16: warning: 32-bit signed product 'blk * stride_blk' is used as a memory offset and wraps past 2^31 in the inference profile: 'blk' <= 8,388,607 ('blk' is named like it: below Envelope.KvPages = 8,388,608) times 'stride_blk' <= 16,384 ('stride_blk' is named like it: Envelope.Stride = 16,384); widen 'blk' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
        ptr += blk * stride_blk
    tl.store(out_ptr, acc)


# Negative: the loop advances by a bounded lane offset.
@triton.jit
def loop_carried_bounded(kv_ptr, out_ptr, n, stride_blk):
    ptr = kv_ptr
    acc = 0
    for i in range(0, 8):
        acc += tl.load(ptr)
        ptr += i * 4
    tl.store(out_ptr, acc)
