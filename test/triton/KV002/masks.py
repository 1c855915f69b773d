# KV002 facet: masks. A mask must bound the column (or the position) by the
# row width; a mask over the token count or a lower bound is no guard, and
# other=0 is no guard either (0 is a valid block id).
# Without evidence of a narrow row these reads are latent (issue 24): the
# default level reports none of them.
# RUN: %if kvlint %{ %kvlint --checks=KV002 %s | FileCheck %s --check-prefix=DEFAULT --allow-empty --implicit-check-not=warning: %}
# DEFAULT-NOT: warning:
# RUN: %if kvlint %{ not %kvlint --checks=KV002 --option=Level=latent %s | FileCheck %s --check-prefix=LATENT --implicit-check-not=warning: %}
import triton
import triton.language as tl


# Positive: mask over the token count only, other=0.
@triton.jit
def token_mask_only(block_table_ptr, pos_ptr, req_ptr, out_ptr, n, stride_bt, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * 128 + tl.arange(0, 128)
    m = offs < n
    pos = tl.load(pos_ptr + offs, mask=m, other=0)
    req = tl.load(req_ptr + offs, mask=m, other=0)
    # LATENT: masks.py:[[@LINE+1]]:{{[0-9]+}}: warning: {{.*}}[kvlint-unguarded-table-load]
    blk = tl.load(block_table_ptr + req * stride_bt + pos // BLOCK_SIZE, mask=m, other=0)
    tl.store(out_ptr + offs, blk, mask=m)


# Negative: the mask adds the column bound (keyword mask, & of conditions).
@triton.jit
def width_mask(block_table_ptr, pos_ptr, req_ptr, out_ptr, n, stride_bt, max_num_blocks,
               BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * 128 + tl.arange(0, 128)
    m = offs < n
    pos = tl.load(pos_ptr + offs, mask=m, other=0)
    req = tl.load(req_ptr + offs, mask=m, other=0)
    col = pos // BLOCK_SIZE
    blk = tl.load(block_table_ptr + req * stride_bt + col, mask=m & (col < max_num_blocks), other=-1)
    tl.store(out_ptr + offs, blk, mask=m)


# Negative: positional mask argument, built in a variable, bound first.
@triton.jit
def width_mask_positional(block_table_ptr, pos_ptr, out_ptr, n, row, stride_bt, max_num_blocks,
                          BLOCK_SIZE: tl.constexpr):
    offs = tl.arange(0, 128)
    pos = tl.load(pos_ptr + offs, offs < n, 0)
    col = pos // BLOCK_SIZE
    ok = (col < max_num_blocks) & (offs < n)
    blk = tl.load(block_table_ptr + row * stride_bt + col, ok, -1)
    tl.store(out_ptr + offs, blk, offs < n)


# Negative: the position bounded by width * block size.
@triton.jit
def position_bound(block_table_ptr, pos_ptr, out_ptr, row, stride_bt, max_num_blocks,
                   BLOCK_SIZE: tl.constexpr):
    offs = tl.arange(0, 128)
    pos = tl.load(pos_ptr + offs)
    m = pos < max_num_blocks * BLOCK_SIZE
    blk = tl.load(block_table_ptr + row * stride_bt + pos // BLOCK_SIZE, mask=m, other=-1)
    tl.store(out_ptr + offs, blk)


# Positive: a lower bound only.
@triton.jit
def lower_bound_only(block_table_ptr, pos_ptr, out_ptr, row, stride_bt, BLOCK_SIZE: tl.constexpr):
    offs = tl.arange(0, 128)
    pos = tl.load(pos_ptr + offs)
    col = pos // BLOCK_SIZE
    # LATENT: masks.py:[[@LINE+1]]:{{[0-9]+}}: warning: {{.*}}[kvlint-unguarded-table-load]
    blk = tl.load(block_table_ptr + row * stride_bt + col, mask=col >= 0, other=0)
    tl.store(out_ptr + offs, blk)


# Latent: the position bounded by the sequence length, not by the row (the
# paged-attention idiom: safe while the table spans the sequence).
@triton.jit
def seq_len_bound(block_table_ptr, pos_ptr, out_ptr, row, seq_len, stride_bt, BLOCK_SIZE: tl.constexpr):
    offs = tl.arange(0, 128)
    pos = tl.load(pos_ptr + offs)
    # LATENT: masks.py:[[@LINE+1]]:{{[0-9]+}}: warning: table load reads column 'pos // BLOCK_SIZE', a position divided by a block size, bounded only by 'seq_len', which comes from a sequence length{{.*}}; the mask does not bound the column and other=0 is a valid block id{{.*}}[kvlint-unguarded-table-load]
    blk = tl.load(block_table_ptr + row * stride_bt + pos // BLOCK_SIZE, mask=pos < seq_len, other=0)
    tl.store(out_ptr + offs, blk)


# Positive: a 2-D table read, req[:, None] rows and col[None, :] columns.
@triton.jit
def two_d(block_table_ptr, pos_ptr, req_ptr, out_ptr, stride_bt, BLOCK_SIZE: tl.constexpr):
    r = tl.arange(0, 16)
    c = tl.arange(0, 8)
    req = tl.load(req_ptr + r)
    pos = tl.load(pos_ptr + c)
    col = pos // BLOCK_SIZE
    # LATENT: masks.py:[[@LINE+1]]:{{[0-9]+}}: warning: {{.*}}[kvlint-unguarded-table-load]
    blk = tl.load(block_table_ptr + req[:, None] * stride_bt + col[None, :])
    tl.store(out_ptr + r[:, None] * 8 + c[None, :], blk)


# Negative: the same 2-D read with a broadcast column mask.
@triton.jit
def two_d_masked(block_table_ptr, pos_ptr, req_ptr, out_ptr, stride_bt, max_num_blocks,
                 BLOCK_SIZE: tl.constexpr):
    r = tl.arange(0, 16)
    c = tl.arange(0, 8)
    req = tl.load(req_ptr + r)
    pos = tl.load(pos_ptr + c)
    col = pos // BLOCK_SIZE
    blk = tl.load(block_table_ptr + req[:, None] * stride_bt + col[None, :],
                  mask=col[None, :] < max_num_blocks, other=-1)
    tl.store(out_ptr + r[:, None] * 8 + c[None, :], blk)


# Positive: the bound sits on another column than the one read.
@triton.jit
def bound_on_other_column(block_table_ptr, pos_ptr, out_ptr, row, stride_bt, max_num_blocks,
                          BLOCK_SIZE: tl.constexpr):
    offs = tl.arange(0, 128)
    pos = tl.load(pos_ptr + offs)
    first = tl.load(pos_ptr) // BLOCK_SIZE
    col = pos // BLOCK_SIZE
    # LATENT: masks.py:[[@LINE+1]]:{{[0-9]+}}: warning: {{.*}}[kvlint-unguarded-table-load]
    blk = tl.load(block_table_ptr + row * stride_bt + col, mask=first < max_num_blocks, other=0)
    tl.store(out_ptr + offs, blk)
