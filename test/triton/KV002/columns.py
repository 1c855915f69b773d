# KV002 facet: how the column is derived from a position: //, >>, tl.cdiv,
# tuple unpacking, helpers, an offset position; a plain lane column and an
# in-row modulo are not divided positions.
# RUN: %if kvlint %{ not %kvlint --checks=KV002 %s | FileCheck %s --implicit-check-not=warning: %}
# RUN: %if kvlint %{ not %kvlint --checks=KV002 --option=Level=latent %s | FileCheck %s --check-prefixes=CHECK,LATENT --implicit-check-not=warning: %}
import triton
import triton.language as tl


@triton.jit
def _block_col(pos, block_size):
    return pos // block_size


# Positive: a shift by log2 of the block size.
@triton.jit
def shift_col(block_table_ptr, pos_ptr, out_ptr, row, stride_bt, LOG2_BLOCK: tl.constexpr):
    pos = tl.load(pos_ptr + tl.arange(0, 64))
    # LATENT: columns.py:[[@LINE+1]]:{{[0-9]+}}: warning: {{.*}}[kvlint-unguarded-table-load]
    blk = tl.load(block_table_ptr + row * stride_bt + (pos >> LOG2_BLOCK))
    tl.store(out_ptr + tl.arange(0, 64), blk)


# Negative: the same shift with the column bounded.
@triton.jit
def shift_col_fixed(block_table_ptr, pos_ptr, out_ptr, row, stride_bt, max_num_blocks,
                    LOG2_BLOCK: tl.constexpr):
    pos = tl.load(pos_ptr + tl.arange(0, 64))
    col = pos >> LOG2_BLOCK
    blk = tl.load(block_table_ptr + row * stride_bt + col, mask=col < max_num_blocks, other=-1)
    tl.store(out_ptr + tl.arange(0, 64), blk)


# Latent: tl.cdiv of the sequence length (the last block of the sequence):
# inside the row only while the table spans the sequence.
@triton.jit
def cdiv_col(block_table_ptr, seq_lens_ptr, out_ptr, row, stride_bt, BLOCK_SIZE: tl.constexpr):
    seq_len = tl.load(seq_lens_ptr + row)
    last = tl.cdiv(seq_len, BLOCK_SIZE) - 1
    # LATENT: columns.py:[[@LINE+1]]:{{[0-9]+}}: warning: table load reads column 'last', a position divided by a block size, bounded only by 'tl.cdiv(seq_len, BLOCK_SIZE)', which comes from a sequence length{{.*}}[kvlint-unguarded-table-load]
    blk = tl.load(block_table_ptr + row * stride_bt + last)
    tl.store(out_ptr + row, blk)


# Positive: tuple unpacking of column and in-block offset.
@triton.jit
def tuple_col(block_table_ptr, pos_ptr, out_ptr, row, stride_bt, BLOCK_SIZE: tl.constexpr):
    pos = tl.load(pos_ptr + tl.arange(0, 64))
    col, off = pos // BLOCK_SIZE, pos % BLOCK_SIZE
    # LATENT: columns.py:[[@LINE+1]]:{{[0-9]+}}: warning: {{.*}}[kvlint-unguarded-table-load]
    blk = tl.load(block_table_ptr + row * stride_bt + col)
    tl.store(out_ptr + tl.arange(0, 64), blk * BLOCK_SIZE + off)


# Positive: the column comes from a helper.
@triton.jit
def helper_col(block_table_ptr, pos_ptr, out_ptr, row, stride_bt, block_size):
    pos = tl.load(pos_ptr + tl.arange(0, 64))
    # LATENT: columns.py:[[@LINE+1]]:{{[0-9]+}}: warning: {{.*}}[kvlint-unguarded-table-load]
    blk = tl.load(block_table_ptr + row * stride_bt + _block_col(pos, block_size))
    tl.store(out_ptr + tl.arange(0, 64), blk)


# Negative: the helper's column is bounded by the caller's mask.
@triton.jit
def helper_col_masked(block_table_ptr, pos_ptr, out_ptr, row, stride_bt, block_size, max_num_blocks):
    pos = tl.load(pos_ptr + tl.arange(0, 64))
    col = _block_col(pos, block_size)
    blk = tl.load(block_table_ptr + row * stride_bt + col, mask=col < max_num_blocks, other=-1)
    tl.store(out_ptr + tl.arange(0, 64), blk)


# Positive: a sliding window shifts the position before dividing.
@triton.jit
def window_col(block_table_ptr, pos_ptr, out_ptr, row, stride_bt, window_start, BLOCK_SIZE: tl.constexpr):
    pos = tl.load(pos_ptr + tl.arange(0, 64))
    # CHECK: columns.py:[[@LINE+1]]:{{[0-9]+}}: warning: {{.*}}[kvlint-unguarded-table-load]
    blk = tl.load(block_table_ptr + row * stride_bt + (pos - window_start) // BLOCK_SIZE)
    tl.store(out_ptr + tl.arange(0, 64), blk)


# Positive: the column is read through a loop over positions.
@triton.jit
def loop_col(block_table_ptr, out_ptr, row, start, end, stride_bt, BLOCK_SIZE: tl.constexpr):
    for p in range(start, end, BLOCK_SIZE):
        offs = p + tl.arange(0, BLOCK_SIZE)
        # LATENT: columns.py:[[@LINE+1]]:{{[0-9]+}}: warning: {{.*}}[kvlint-unguarded-table-load]
        blk = tl.load(block_table_ptr + row * stride_bt + offs // BLOCK_SIZE, mask=offs < end, other=0)
        tl.store(out_ptr + offs, blk, mask=offs < end)


# Negative: lane columns of the row are not positions divided by a block.
@triton.jit
def lane_columns(block_table_ptr, out_ptr, row, stride_bt, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    blk = tl.load(block_table_ptr + row * stride_bt + cols)
    tl.store(out_ptr + cols, blk)


# Negative: an in-row modulo by the row width is bounded.
@triton.jit
def modulo_width(block_table_ptr, pos_ptr, out_ptr, row, stride_bt, max_num_blocks, BLOCK_SIZE: tl.constexpr):
    pos = tl.load(pos_ptr + tl.arange(0, 64))
    col = (pos // BLOCK_SIZE) % max_num_blocks
    blk = tl.load(block_table_ptr + row * stride_bt + col)
    tl.store(out_ptr + tl.arange(0, 64), blk)


# Negative: the column bound written as <= width - 1.
@triton.jit
def le_bound(block_table_ptr, pos_ptr, out_ptr, row, stride_bt, max_num_blocks, BLOCK_SIZE: tl.constexpr):
    pos = tl.load(pos_ptr + tl.arange(0, 64))
    col = pos // BLOCK_SIZE
    blk = tl.load(block_table_ptr + row * stride_bt + col, mask=col <= max_num_blocks - 1, other=-1)
    tl.store(out_ptr + tl.arange(0, 64), blk)
