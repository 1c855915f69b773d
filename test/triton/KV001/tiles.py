# KV001 facet: a tile of a grid whose block size is a launcher value. A grid
# of cdiv(n, B) programs launched with the same B passed to the kernel
# (`BLOCK_SIZE=BLOCK_SIZE`, or META["BLOCK"] of an autotuned grid) keeps
# `pid * B` below n, whatever B is: the column block of a split cross-entropy
# row (fla's fused_cross_entropy, BLOCK_SIZE = min(next_power_of_2(n_cols),
# 64K)), the tile of an autotuned elementwise kernel. Positive twins (what the fact does not cover): the
# tile start times a row stride, a program id times another value than the
# grid's divisor, a grid whose divisor is not what the kernel is passed.
# The sizes below are written against a 1M-token batch: the training
# profile's (issue 24); the inference profile stops at 131,072 tokens.
# RUN: %if kvlint %{ not %kvlint --option=Profile=training --per-site --checks=KV001 %s | FileCheck %s --implicit-check-not=warning: %}
import torch
import triton
import triton.language as tl


@triton.jit
def split_lse(logits_ptr, lse_ptr, n_cols, n_rows, stride, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    col_block = tl.program_id(1)
    # Negative: col_block < cdiv(n_cols, BLOCK_SIZE), so the column start is below n_cols.
    cols = col_block * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(logits_ptr + row * stride.to(tl.int64) + cols, mask=cols < n_cols, other=0.0)
    tl.store(lse_ptr + col_block * n_rows + row, tl.max(x, axis=0))


def split_lse_launch(logits):
    n_rows, n_cols = logits.shape
    BLOCK_SIZE = min(triton.next_power_of_2(n_cols), 64 * 1024)
    n_splits = (n_cols + BLOCK_SIZE - 1) // BLOCK_SIZE
    lse = torch.empty(n_splits, n_rows, device=logits.device)
    split_lse[(n_rows, n_splits)](logits, lse, n_cols, n_rows, logits.stride(0), BLOCK_SIZE=BLOCK_SIZE)
    return lse


@triton.autotune(configs=[triton.Config({"BLOCK": 1024}), triton.Config({"BLOCK": 4096})], key=["num_tokens"])
@triton.jit
def scale_boxes(boxes_ptr, num_tokens, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    # Negative: an autotuned tile over cdiv(num_tokens, META["BLOCK"]) programs,
    # of a [num_tokens, 4] tensor: the tile start is below 4 * num_tokens.
    base = pid * BLOCK * 4
    offs = tl.arange(0, 4 * BLOCK)
    x = tl.load(boxes_ptr + base + offs, mask=offs < 4 * num_tokens - base)
    tl.store(boxes_ptr + base + offs, x * 2, mask=offs < 4 * num_tokens - base)


def scale_boxes_launch(boxes):
    num_tokens = boxes.shape[0]
    grid = lambda META: (triton.cdiv(num_tokens, META["BLOCK"]),)
    scale_boxes[grid](boxes, num_tokens)


@triton.jit
def row_tiles(x_ptr, y_ptr, num_tokens, stride, BLOCK_M: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    # Positive: the tile start is below num_tokens, but times the row stride it is not.
    # CHECK: tiles.py:[[@LINE+1]]:25: warning: 32-bit signed product 'rows[:, None] * stride' is used as a memory offset and wraps past 2^31 in the training profile: 'rows' <= 1,048,575 ('program_id(0) * BLOCK_M' is a tile of a grid of cdiv(num_tokens, BLOCK_M) programs, below num_tokens ('num_tokens' is named like it: Envelope.Tokens = 1,048,576)) times 'stride' <= 16,384 ('stride' is named like it: Envelope.Stride = 16,384); widen 'rows' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    x = tl.load(x_ptr + rows[:, None] * stride + tl.arange(0, 64)[None, :])
    # Positive: the program id times the stride, not the grid's divisor.
    # CHECK: tiles.py:[[@LINE+1]]:22: warning: 32-bit signed product 'pid * stride' is used as a memory offset and wraps past 2^31 in the training profile: 'pid' <= 1,048,575 (the grid spans num_tokens ('num_tokens' is named like it: Envelope.Tokens = 1,048,576)) times 'stride' <= 16,384 ('stride' is named like it: Envelope.Stride = 16,384); widen 'pid' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(y_ptr + pid * stride + tl.arange(0, 64), tl.sum(x, axis=0))


def row_tiles_launch(x, y, block_m):
    num_tokens = x.shape[0]
    row_tiles[(triton.cdiv(num_tokens, block_m),)](x, y, num_tokens, x.stride(0), BLOCK_M=block_m)


@triton.jit
def other_divisor(x_ptr, num_tokens, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    # Positive: the grid divides by block_n, the kernel multiplies by BLOCK_M.
    # CHECK: tiles.py:[[@LINE+1]]:22: warning: 32-bit signed product 'pid * BLOCK_M * 4096' is used as a memory offset and wraps past 2^31 in the training profile: 'pid * BLOCK_M' <= 1,073,740,800 (the grid spans num_tokens ('num_tokens' is named like it: Envelope.Tokens = 1,048,576)) times '4096' = 4,096; it wraps once 'pid * BLOCK_M' >= 524,288; widen 'pid' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(x_ptr + pid * BLOCK_M * 4096 + tl.arange(0, BLOCK_M), 0)


def other_divisor_launch(x, block_m, block_n):
    num_tokens = x.shape[0]
    other_divisor[(triton.cdiv(num_tokens, block_n),)](x, num_tokens, BLOCK_M=block_m, BLOCK_N=block_n)
