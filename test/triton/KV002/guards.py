# KV002 facet: guards. An enclosing `if`, an early return and a clamp bound
# the column; a tl.where after the load, a guard on the number of requests
# and the else branch of the width check do not.
# Without evidence of a narrow row (no per-group table, no sliding window or
# context parallelism, no sibling that bounds the same width) these reads are
# latent (issue 24): the default level reports none of them.
# RUN: %if kvlint %{ %kvlint --checks=KV002 %s | FileCheck %s --check-prefix=DEFAULT --allow-empty --implicit-check-not=warning: %}
# RUN: %if kvlint %{ not %kvlint --checks=KV002 --level latent %s | FileCheck %s --implicit-check-not=warning: %}
# DEFAULT-NOT: warning:
import triton
import triton.language as tl


# Positive: tl.where after the load: the read already happened.
@triton.jit
def where_after_load(block_table_ptr, pos_ptr, out_ptr, row, stride_bt, max_num_blocks,
                     PAD: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    offs = tl.arange(0, 128)
    pos = tl.load(pos_ptr + offs)
    col = pos // BLOCK_SIZE
    # CHECK: guards.py:[[@LINE+1]]:{{[0-9]+}}: warning: {{.*}}[kvlint-unguarded-table-load]
    blk = tl.load(block_table_ptr + row * stride_bt + col)
    blk = tl.where(col < max_num_blocks, blk, PAD)
    tl.store(out_ptr + offs, blk)


# Negative: tl.where before the load clamps the column.
@triton.jit
def where_before_load(block_table_ptr, pos_ptr, out_ptr, row, stride_bt, max_num_blocks,
                      BLOCK_SIZE: tl.constexpr):
    offs = tl.arange(0, 128)
    pos = tl.load(pos_ptr + offs)
    col = pos // BLOCK_SIZE
    col = tl.where(col < max_num_blocks, col, 0)
    blk = tl.load(block_table_ptr + row * stride_bt + col)
    tl.store(out_ptr + offs, blk)


# Negative: clamped with tl.minimum.
@triton.jit
def clamp(block_table_ptr, pos_ptr, out_ptr, row, stride_bt, max_num_blocks, BLOCK_SIZE: tl.constexpr):
    offs = tl.arange(0, 128)
    pos = tl.load(pos_ptr + offs)
    col = tl.minimum(pos // BLOCK_SIZE, max_num_blocks - 1)
    blk = tl.load(block_table_ptr + row * stride_bt + col)
    tl.store(out_ptr + offs, blk)


# Negative: an enclosing if bounds the column.
@triton.jit
def if_guard(block_table_ptr, pos_ptr, out_ptr, row, stride_bt, max_num_blocks, BLOCK_SIZE: tl.constexpr):
    pos = tl.load(pos_ptr + tl.program_id(0))
    col = pos // BLOCK_SIZE
    if col < max_num_blocks:
        blk = tl.load(block_table_ptr + row * stride_bt + col)
        tl.store(out_ptr + tl.program_id(0), blk)


# Positive: the else branch of the same check.
@triton.jit
def else_branch(block_table_ptr, pos_ptr, out_ptr, row, stride_bt, max_num_blocks, BLOCK_SIZE: tl.constexpr):
    pos = tl.load(pos_ptr + tl.program_id(0))
    col = pos // BLOCK_SIZE
    if col < max_num_blocks:
        tl.store(out_ptr + tl.program_id(0), 0)
    else:
        # CHECK: guards.py:[[@LINE+1]]:{{[0-9]+}}: warning: {{.*}}[kvlint-unguarded-table-load]
        blk = tl.load(block_table_ptr + row * stride_bt + col)
        tl.store(out_ptr + tl.program_id(0), blk)


# Negative: an early return on the out-of-row column.
@triton.jit
def early_return(block_table_ptr, pos_ptr, out_ptr, row, stride_bt, max_num_blocks, BLOCK_SIZE: tl.constexpr):
    pos = tl.load(pos_ptr + tl.program_id(0))
    col = pos // BLOCK_SIZE
    if col >= max_num_blocks:
        tl.store(out_ptr + tl.program_id(0), -1)
        return
    blk = tl.load(block_table_ptr + row * stride_bt + col)
    tl.store(out_ptr + tl.program_id(0), blk)


# Positive: the early return checks the number of requests, not the width.
@triton.jit
def wrong_bound(block_table_ptr, pos_ptr, out_ptr, stride_bt, num_reqs, BLOCK_SIZE: tl.constexpr):
    req = tl.program_id(0)
    if req >= num_reqs:
        return
    pos = tl.load(pos_ptr + req)
    # CHECK: guards.py:[[@LINE+1]]:{{[0-9]+}}: warning: {{.*}}[kvlint-unguarded-table-load]
    blk = tl.load(block_table_ptr + req * stride_bt + pos // BLOCK_SIZE)
    tl.store(out_ptr + req, blk)


# Negative: nested ifs, the inner one bounds the column.
@triton.jit
def nested_if(block_table_ptr, pos_ptr, out_ptr, row, n, stride_bt, max_num_blocks, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    if pid < n:
        pos = tl.load(pos_ptr + pid)
        col = pos // BLOCK_SIZE
        if col < max_num_blocks:
            tl.store(out_ptr + pid, tl.load(block_table_ptr + row * stride_bt + col))


# Negative: a while loop condition bounds the column.
@triton.jit
def while_bound(block_table_ptr, pos_ptr, out_ptr, row, stride_bt, max_num_blocks, BLOCK_SIZE: tl.constexpr):
    pos = tl.load(pos_ptr + tl.program_id(0))
    col = pos // BLOCK_SIZE
    while col < max_num_blocks:
        tl.store(out_ptr + col, tl.load(block_table_ptr + row * stride_bt + col))
        col += 1


# Negative: a loop over the row's columns, not a divided position.
@triton.jit
def loop_over_row(block_table_ptr, out_ptr, row, stride_bt, max_num_blocks):
    for col in range(0, max_num_blocks):
        tl.store(out_ptr + col, tl.load(block_table_ptr + row * stride_bt + col))
