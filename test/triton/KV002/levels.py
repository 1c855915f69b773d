# KV002 facet: the two levels. Default: nothing bounds the position (it is
# read from memory, and padded or speculative tokens reach the load). Latent:
# the position is bounded only by a sequence length, or it is a real token's
# because padded tokens left earlier on their pad slot: safe while the table
# spans the whole sequence.
# RUN: %if kvlint %{ not %kvlint --checks=KV002 %s | FileCheck %s --implicit-check-not=warning: %}
# RUN: %if kvlint %{ not %kvlint --checks=KV002 --option=Level=latent %s | FileCheck %s --check-prefixes=CHECK,LATENT --implicit-check-not=warning: %}
import triton
import triton.language as tl


# Default: a window of positions before the token's own, read from memory;
# padded tokens are not skipped.
@triton.jit
def window_unskipped(block_table_ptr, positions_ptr, token_to_req_ptr, out_ptr, stride_bt,
                     block_size, W: tl.constexpr):
    t = tl.program_id(0)
    position = tl.load(positions_ptr + t)
    req = tl.load(token_to_req_ptr + t)
    pos = position - W + 1 + tl.arange(0, W)
    # CHECK: levels.py:[[@LINE+1]]:11: warning: table load reads column 'pos // block_size', a position divided by a block size, with no bound against the row width{{.*}}[kvlint-unguarded-table-load]
    blk = tl.load(block_table_ptr + req * stride_bt + pos // block_size, mask=pos >= 0, other=0)
    tl.store(out_ptr + t * W + tl.arange(0, W), blk)


# Latent: the same window after the kernel left on the token's pad slot
# (DeepSeek-V4's compressor shape): the position is a real token's.
@triton.jit
def window_real_token(block_table_ptr, slot_mapping_ptr, positions_ptr, token_to_req_ptr, out_ptr,
                      stride_bt, block_size, W: tl.constexpr):
    t = tl.program_id(0)
    slot_id = tl.load(slot_mapping_ptr + t)
    if slot_id < 0:
        return
    position = tl.load(positions_ptr + t)
    req = tl.load(token_to_req_ptr + t)
    pos = position - W + 1 + tl.arange(0, W)
    # LATENT: levels.py:[[@LINE+1]]:11: warning: table load reads column 'pos // block_size', a position divided by a block size, of a real token (padded tokens left on 'slot_id'), not bounded by the row width; it stays in the row only while the table spans the whole sequence{{.*}}[kvlint-unguarded-table-load]
    blk = tl.load(block_table_ptr + req * stride_bt + pos // block_size, mask=pos >= 0, other=0)
    tl.store(out_ptr + t * W + tl.arange(0, W), blk)


# Latent: positions start_pos + i with start_pos = seq_len - gather_len and
# i < gather_len, a table of per-request lengths (DeepSeek-V4's gather).
@triton.jit
def gather_tail(block_table_ptr, seq_lens_ptr, gather_lens_ptr, out_ptr, max_blocks_per_seq,
                block_size):
    b = tl.program_id(0)
    seq_len = tl.load(seq_lens_ptr + b)
    gather_len = tl.load(gather_lens_ptr + b)
    start_pos = seq_len - gather_len
    for i in range(0, gather_len):
        pos = start_pos + i
        row = block_table_ptr + b * max_blocks_per_seq
        # LATENT: levels.py:[[@LINE+1]]:15: warning: table load reads column 'pos // block_size'{{.*}}which comes from a sequence length{{.*}}[kvlint-unguarded-table-load]
        blk = tl.load(row + pos // block_size)
        tl.store(out_ptr + i, blk)


# Negative at both levels: the window bounded by the row width.
@triton.jit
def window_bounded(block_table_ptr, positions_ptr, token_to_req_ptr, out_ptr, stride_bt,
                   block_size, W: tl.constexpr):
    t = tl.program_id(0)
    position = tl.load(positions_ptr + t)
    req = tl.load(token_to_req_ptr + t)
    pos = position - W + 1 + tl.arange(0, W)
    col = pos // block_size
    blk = tl.load(block_table_ptr + req * stride_bt + col, mask=(pos >= 0) & (col < stride_bt),
                  other=-1)
    tl.store(out_ptr + t * W + tl.arange(0, W), blk)


# Latent: the position is the program id (one program per position, the
# launcher sizes the grid from the sequence length): bounded by the grid.
@triton.jit
def position_from_grid(block_table_ptr, out_ptr, stride_bt, BLOCK_SIZE: tl.constexpr):
    pos = tl.program_id(0)
    b = tl.program_id(1)
    # LATENT: levels.py:[[@LINE+1]]:11: warning: table load reads column 'pos // BLOCK_SIZE', a position divided by a block size, where the position 'pos' comes from launch indices: bounded by the grid the launcher sizes{{.*}}[kvlint-unguarded-table-load]
    blk = tl.load(block_table_ptr + b * stride_bt + pos // BLOCK_SIZE)
    tl.store(out_ptr + b * 4096 + pos, blk)
