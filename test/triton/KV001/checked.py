# KV001 facet: what the launcher asserts before the launch. A product assert
# (`assert n_rows * x.stride(0) < 2**31`) bounds the kernel's product of the
# same values: the parameter the launch passes each one to, or the grid axis
# it is the extent of (a program id along it is below it). A size assert
# (`assert n_elements < 2**31`) bounds a grid of cdiv(n_elements, BLOCK), and
# so pid * BLOCK. Negatives from a blind held-out set; each has a positive
# twin (the assert after the launch, a row twice what was asserted).
# The sizes below are written against a 1M-token batch: the training
# profile's (issue 24); the inference profile stops at 131,072 tokens.
# RUN: %if kvlint %{ not %kvlint --option=Profile=training --per-site --checks=KV001 %s | FileCheck %s --implicit-check-not=warning: %}
import torch
import triton
import triton.language as tl


@triton.jit
def add_rows(x_ptr, r_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols)
    tl.store(r_ptr + row * stride + cols, x, mask=cols < n_cols)


# Negative: the rows times the row stride, asserted below 2**31.
def add_rows_checked(x, r):
    n_rows, n_cols = x.shape
    assert n_rows * x.stride(0) < 2**31, "32-bit row offsets"
    add_rows[(n_rows,)](x, r, x.stride(0), n_cols, BLOCK=triton.next_power_of_2(n_cols))


@triton.jit
def add_rows_late(x_ptr, r_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    # CHECK: checked.py:[[@LINE+1]]:25: warning: 32-bit signed product 'row * stride' is used as a memory offset and wraps past 2^31 in the training profile: 'row' <= 1,048,575 (the grid spans n_rows ('n_rows' is named like it: Envelope.Tokens = 1,048,576)) times 'stride' <= 16,384 ('stride' is named like it: Envelope.Stride = 16,384); widen 'row' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols)
    # CHECK: checked.py:[[@LINE+1]]:22: warning: 32-bit signed product 'row * stride' is used as a memory offset and wraps past 2^31 in the training profile: 'row' <= 1,048,575 (the grid spans n_rows ('n_rows' is named like it: Envelope.Tokens = 1,048,576)) times 'stride' <= 16,384 ('stride' is named like it: Envelope.Stride = 16,384); widen 'row' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(r_ptr + row * stride + cols, x, mask=cols < n_cols)


# Positive twin: the assert comes after the launch.
def add_rows_late_launch(x, r):
    n_rows, n_cols = x.shape
    add_rows_late[(n_rows,)](x, r, x.stride(0), n_cols, BLOCK=triton.next_power_of_2(n_cols))
    assert n_rows * x.stride(0) < 2**31


@triton.jit
def quant_flat(x_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n_elements)
    tl.store(out_ptr + offs, x, mask=offs < n_elements)


# Negative: a flat tensor asserted below 2**31 elements, cdiv(n, BLOCK)
# programs.
def quant_flat_launch(x, out):
    n_elements = x.numel()
    assert n_elements < 2**31
    quant_flat[(triton.cdiv(n_elements, 1024),)](x, out, n_elements, BLOCK=1024)


@triton.jit
def gate_up_rows(x_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    # CHECK: checked.py:[[@LINE+1]]:22: warning: 32-bit signed product 'row * 2 * stride' is used as a memory offset and wraps past 2^31 in the training profile: 'row * 2' <= 2,097,150 (the grid spans n_rows ('n_rows' is named like it: Envelope.Tokens = 1,048,576)) times 'stride' <= 16,384 ('stride' is named like it: Envelope.Stride = 16,384); widen 'row' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(x_ptr + row * 2 * stride + cols, 0.0, mask=cols < n_cols)


# Positive twin: rows of twice the asserted width.
def gate_up_launch(x):
    n_rows, n_cols = x.shape
    assert n_rows * x.stride(0) < 2**31
    gate_up_rows[(n_rows,)](x, x.stride(0), n_cols, BLOCK=triton.next_power_of_2(n_cols))
