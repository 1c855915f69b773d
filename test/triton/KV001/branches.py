# KV001 facet: what the branch a launch is in says of the sizes it passes.
# `if T <= 4096: short_kernel[(B, T)](...)` bounds the grid and the values
# passed inside the branch; an `else` runs under the negation, an `elif`
# under its own condition and the negations above it, and after an `if`
# whose body ends in `return` or `raise` the rest of the block runs under the
# negation. A condition may be a local bound once to one (`use_short = T <=
# 4096`); an `assert` above the launch bounds the same way. Negatives from
# fla (token_shift's short kernel for T <= 4096, layernorm's D <= 512 path);
# positive twins: the launch after the branch, a size bound again inside the
# branch or after the assert, an `or` (which bounds neither side).
# RUN: %if kvlint %{ not %kvlint --per-site --checks=KV001 %s | FileCheck %s --implicit-check-not=warning: %}
import torch
import triton
import triton.language as tl


@triton.jit
def shift_short(x_ptr, y_ptr, D: tl.constexpr):
    i_t = tl.program_id(1)
    o_d = tl.arange(0, D)
    x = tl.load(x_ptr + i_t * D + o_d)
    tl.store(y_ptr + i_t * D + o_d, x)


# Negative: the short kernel runs only for T <= 4096.
def shift_in_branch(x, y):
    B, T, D = x.shape
    if T <= 4096:
        shift_short[(B, T)](x, y, D=D)


# Negative: the same through a local that holds the condition.
def shift_by_flag(x, y):
    B, T, D = x.shape
    use_short = T <= 4096
    if use_short:
        shift_short[(B, T)](x, y, D=D)


# Negative: the else of `T > 4096`.
def shift_else(x, y):
    B, T, D = x.shape
    if T > 4096:
        return None
    elif D > 1024:
        raise ValueError("row too wide")
    else:
        shift_short[(B, T)](x, y, D=D)


@triton.jit
def norm_partials(dw_ptr, D: tl.constexpr, BLOCK: tl.constexpr):
    i_s = tl.program_id(0)
    o_d = tl.arange(0, BLOCK)
    tl.store(dw_ptr + i_s * D + o_d, 0.0, mask=o_d < D)


# Negative: rows wider than 512 were refused above the launch.
def norm_partials_checked(dw, T):
    D = dw.shape[1]
    if D > 512:
        raise NotImplementedError("D > 512")
    norm_partials[(T,)](dw, D=D, BLOCK=triton.next_power_of_2(D))


@triton.jit
def shift_short_after(x_ptr, y_ptr, D: tl.constexpr):
    i_t = tl.program_id(1)
    o_d = tl.arange(0, D)
    # CHECK: branches.py:[[@LINE+1]]:25: warning: 32-bit signed product 'i_t * D' is used as a memory offset and wraps past 2^31: 'i_t' <= 131,070 (the grid spans T ('T' is named like it: below Envelope.SeqLen = 131,072)) times 'D' <= 65,536 ('D' is named like it: Envelope.Intermediate = 65,536); widen 'i_t' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    x = tl.load(x_ptr + i_t * D + o_d)
    # CHECK: branches.py:[[@LINE+1]]:22: warning: 32-bit signed product 'i_t * D' is used as a memory offset and wraps past 2^31: 'i_t' <= 131,070 (the grid spans T ('T' is named like it: below Envelope.SeqLen = 131,072)) times 'D' <= 65,536 ('D' is named like it: Envelope.Intermediate = 65,536); widen 'i_t' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(y_ptr + i_t * D + o_d, x)


# Positive: the branch only logs; the launch after it runs for any T.
def shift_after_branch(x, y):
    B, T, D = x.shape
    if T <= 4096:
        print("short")
    shift_short_after[(B, T)](x, y, D=D)


@triton.jit
def shift_short_rebound(x_ptr, y_ptr, D: tl.constexpr):
    i_t = tl.program_id(1)
    o_d = tl.arange(0, D)
    # CHECK: branches.py:[[@LINE+1]]:25: warning: 32-bit signed product 'i_t * D' is used as a memory offset and wraps past 2^31: 'i_t' <= 131,070 (the grid spans T ('T' is named like it: below Envelope.SeqLen = 131,072)) times 'D' <= 65,536 ('D' is named like it: Envelope.Intermediate = 65,536); widen 'i_t' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    x = tl.load(x_ptr + i_t * D + o_d)
    # CHECK: branches.py:[[@LINE+1]]:22: warning: 32-bit signed product 'i_t * D' is used as a memory offset and wraps past 2^31: 'i_t' <= 131,070 (the grid spans T ('T' is named like it: below Envelope.SeqLen = 131,072)) times 'D' <= 65,536 ('D' is named like it: Envelope.Intermediate = 65,536); widen 'i_t' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(y_ptr + i_t * D + o_d, x)


# Positive: T is bound again inside the branch.
def shift_rebound(x, y, chunks):
    B, T, D = x.shape
    if T <= 4096:
        T = T * chunks
        shift_short_rebound[(B, T)](x, y, D=D)


@triton.jit
def shift_short_or(x_ptr, y_ptr, D: tl.constexpr):
    i_t = tl.program_id(1)
    o_d = tl.arange(0, D)
    # CHECK: branches.py:[[@LINE+1]]:25: warning: 32-bit signed product 'i_t * D' is used as a memory offset and wraps past 2^31: 'i_t' <= 131,070 (the grid spans T ('T' is named like it: below Envelope.SeqLen = 131,072)) times 'D' <= 65,536 ('D' is named like it: Envelope.Intermediate = 65,536); widen 'i_t' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    x = tl.load(x_ptr + i_t * D + o_d)
    # CHECK: branches.py:[[@LINE+1]]:22: warning: 32-bit signed product 'i_t * D' is used as a memory offset and wraps past 2^31: 'i_t' <= 131,070 (the grid spans T ('T' is named like it: below Envelope.SeqLen = 131,072)) times 'D' <= 65,536 ('D' is named like it: Envelope.Intermediate = 65,536); widen 'i_t' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(y_ptr + i_t * D + o_d, x)


# Positive: `T <= 4096 or B == 1` does not bound T.
def shift_or(x, y):
    B, T, D = x.shape
    if T <= 4096 or B == 1:
        shift_short_or[(B, T)](x, y, D=D)


@triton.jit
def shift_short_asserted(x_ptr, y_ptr, D: tl.constexpr):
    i_t = tl.program_id(1)
    o_d = tl.arange(0, D)
    x = tl.load(x_ptr + i_t * D + o_d)
    tl.store(y_ptr + i_t * D + o_d, x)


# Negative: the same bound from an assert above the launch.
def shift_asserted(x, y):
    B, T, D = x.shape
    assert T <= 4096
    shift_short_asserted[(B, T)](x, y, D=D)


@triton.jit
def shift_short_asserted_rebound(x_ptr, y_ptr, D: tl.constexpr):
    i_t = tl.program_id(1)
    o_d = tl.arange(0, D)
    # CHECK: branches.py:[[@LINE+1]]:25: warning: 32-bit signed product 'i_t * D' is used as a memory offset and wraps past 2^31: 'i_t' <= 131,070 (the grid spans T ('T' is named like it: below Envelope.SeqLen = 131,072)) times 'D' <= 65,536 ('D' is named like it: Envelope.Intermediate = 65,536); widen 'i_t' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    x = tl.load(x_ptr + i_t * D + o_d)
    # CHECK: branches.py:[[@LINE+1]]:22: warning: 32-bit signed product 'i_t * D' is used as a memory offset and wraps past 2^31: 'i_t' <= 131,070 (the grid spans T ('T' is named like it: below Envelope.SeqLen = 131,072)) times 'D' <= 65,536 ('D' is named like it: Envelope.Intermediate = 65,536); widen 'i_t' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(y_ptr + i_t * D + o_d, x)


# Positive: T is bound again between the assert and the launch.
def shift_asserted_rebound(x, y, chunks):
    B, T, D = x.shape
    assert T <= 4096
    T = T * chunks
    shift_short_asserted_rebound[(B, T)](x, y, D=D)
