# KV001 facet: what the branch a launch is in says of the sizes it passes.
# `if T <= 4096: short_kernel[(B, T)](...)` bounds the grid and the values
# passed inside the branch; an `else` runs under the negation, an `elif`
# under its own condition and the negations above it, and after an `if`
# whose body ends in `return` or `raise` the rest of the block runs under the
# negation. A condition may be a flag bound to one (`use_short = T <=
# 4096`), also where it is cleared elsewhere (`use_short = False`: the branch
# does not run then); an `assert` above the launch bounds the same way. A
# grid bound in the branch reaches its launch though the other branch
# defines its own `def grid(meta)` below it. Negatives from fla
# (token_shift's short kernel for T <= 4096, layernorm's D <= 512 path);
# positive twins: the launch after the branch, a size bound again inside the
# branch, after the assert or after the flag, a flag bound to two
# conditions, a `def grid` between the grid's binding and its launch, an
# `or` (which bounds neither side).
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
    # CHECK: branches.py:[[@LINE+1]]:25: warning: 32-bit signed product 'i_t * D' is used as a memory offset and wraps past 2^31 in the inference profile: 'i_t' <= 131,070 (the grid spans T ('T' is named like it: below Envelope.SeqLen = 131,072)) times 'D' <= 65,536 ('D' is named like it: Envelope.Intermediate = 65,536); widen 'i_t' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    x = tl.load(x_ptr + i_t * D + o_d)
    # CHECK: branches.py:[[@LINE+1]]:22: warning: 32-bit signed product 'i_t * D' is used as a memory offset and wraps past 2^31 in the inference profile: 'i_t' <= 131,070 (the grid spans T ('T' is named like it: below Envelope.SeqLen = 131,072)) times 'D' <= 65,536 ('D' is named like it: Envelope.Intermediate = 65,536); widen 'i_t' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
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
    # CHECK: branches.py:[[@LINE+1]]:25: warning: 32-bit signed product 'i_t * D' is used as a memory offset and wraps past 2^31 in the inference profile: 'i_t' <= 131,070 (the grid spans T ('T' is named like it: below Envelope.SeqLen = 131,072)) times 'D' <= 65,536 ('D' is named like it: Envelope.Intermediate = 65,536); widen 'i_t' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    x = tl.load(x_ptr + i_t * D + o_d)
    # CHECK: branches.py:[[@LINE+1]]:22: warning: 32-bit signed product 'i_t * D' is used as a memory offset and wraps past 2^31 in the inference profile: 'i_t' <= 131,070 (the grid spans T ('T' is named like it: below Envelope.SeqLen = 131,072)) times 'D' <= 65,536 ('D' is named like it: Envelope.Intermediate = 65,536); widen 'i_t' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
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
    # CHECK: branches.py:[[@LINE+1]]:25: warning: 32-bit signed product 'i_t * D' is used as a memory offset and wraps past 2^31 in the inference profile: 'i_t' <= 131,070 (the grid spans T ('T' is named like it: below Envelope.SeqLen = 131,072)) times 'D' <= 65,536 ('D' is named like it: Envelope.Intermediate = 65,536); widen 'i_t' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    x = tl.load(x_ptr + i_t * D + o_d)
    # CHECK: branches.py:[[@LINE+1]]:22: warning: 32-bit signed product 'i_t * D' is used as a memory offset and wraps past 2^31 in the inference profile: 'i_t' <= 131,070 (the grid spans T ('T' is named like it: below Envelope.SeqLen = 131,072)) times 'D' <= 65,536 ('D' is named like it: Envelope.Intermediate = 65,536); widen 'i_t' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
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
    # CHECK: branches.py:[[@LINE+1]]:25: warning: 32-bit signed product 'i_t * D' is used as a memory offset and wraps past 2^31 in the inference profile: 'i_t' <= 131,070 (the grid spans T ('T' is named like it: below Envelope.SeqLen = 131,072)) times 'D' <= 65,536 ('D' is named like it: Envelope.Intermediate = 65,536); widen 'i_t' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    x = tl.load(x_ptr + i_t * D + o_d)
    # CHECK: branches.py:[[@LINE+1]]:22: warning: 32-bit signed product 'i_t * D' is used as a memory offset and wraps past 2^31 in the inference profile: 'i_t' <= 131,070 (the grid spans T ('T' is named like it: below Envelope.SeqLen = 131,072)) times 'D' <= 65,536 ('D' is named like it: Envelope.Intermediate = 65,536); widen 'i_t' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(y_ptr + i_t * D + o_d, x)


# Positive: T is bound again between the assert and the launch.
def shift_asserted_rebound(x, y, chunks):
    B, T, D = x.shape
    assert T <= 4096
    T = T * chunks
    shift_short_asserted_rebound[(B, T)](x, y, D=D)


@triton.jit
def shift_short_npu(x_ptr, y_ptr, D: tl.constexpr):
    i_t = tl.program_id(1)
    o_d = tl.arange(0, D)
    x = tl.load(x_ptr + i_t * D + o_d)
    tl.store(y_ptr + i_t * D + o_d, x)


@triton.jit
def shift_long_npu(x_ptr, y_ptr):
    tl.store(y_ptr + tl.program_id(0), tl.load(x_ptr + tl.program_id(0)))


# Negative: fla's token_shift. The flag is cleared on one platform; a flag
# bound to False never runs the branch, so the branch still means T <= 4096.
# The grid is a local of the branch, and the other branch defines its own
# `def grid(meta)` below the launch.
def shift_by_flag_cleared(x, y, is_npu):
    B, T, D = x.shape
    use_short = T <= 4096
    if is_npu and use_short and B * T > 65535:
        use_short = False
    if use_short:
        grid = (B, T)
        shift_short_npu[grid](x, y, D=D)
    else:
        def grid(meta): return (B * T, B)
        shift_long_npu[grid](x, y)


@triton.jit
def shift_short_flag_rebound(x_ptr, y_ptr, D: tl.constexpr):
    i_t = tl.program_id(1)
    o_d = tl.arange(0, D)
    # CHECK: branches.py:[[@LINE+1]]:25: warning: 32-bit signed product 'i_t * D' is used as a memory offset and wraps past 2^31 in the inference profile: 'i_t' <= 131,070 (the grid spans T ('T' is named like it: below Envelope.SeqLen = 131,072)) times 'D' <= 65,536 ('D' is named like it: Envelope.Intermediate = 65,536); widen 'i_t' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    x = tl.load(x_ptr + i_t * D + o_d)
    # CHECK: branches.py:[[@LINE+1]]:22: warning: 32-bit signed product 'i_t * D' is used as a memory offset and wraps past 2^31 in the inference profile: 'i_t' <= 131,070 (the grid spans T ('T' is named like it: below Envelope.SeqLen = 131,072)) times 'D' <= 65,536 ('D' is named like it: Envelope.Intermediate = 65,536); widen 'i_t' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(y_ptr + i_t * D + o_d, x)


# Positive twin: T is bound again after the flag took its condition.
def shift_flag_rebound(x, y, chunks):
    B, T, D = x.shape
    use_short = T <= 4096
    T = T * chunks
    if use_short:
        shift_short_flag_rebound[(B, T)](x, y, D=D)


@triton.jit
def shift_short_two_flags(x_ptr, y_ptr, D: tl.constexpr):
    i_t = tl.program_id(1)
    o_d = tl.arange(0, D)
    # CHECK: branches.py:[[@LINE+1]]:25: warning: 32-bit signed product 'i_t * D' is used as a memory offset and wraps past 2^31 in the inference profile: 'i_t' <= 131,070 (the grid spans T ('T' is named like it: below Envelope.SeqLen = 131,072)) times 'D' <= 65,536 ('D' is named like it: Envelope.Intermediate = 65,536); widen 'i_t' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    x = tl.load(x_ptr + i_t * D + o_d)
    # CHECK: branches.py:[[@LINE+1]]:22: warning: 32-bit signed product 'i_t * D' is used as a memory offset and wraps past 2^31 in the inference profile: 'i_t' <= 131,070 (the grid spans T ('T' is named like it: below Envelope.SeqLen = 131,072)) times 'D' <= 65,536 ('D' is named like it: Envelope.Intermediate = 65,536); widen 'i_t' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(y_ptr + i_t * D + o_d, x)


# Positive twin: the flag may also hold another condition.
def shift_two_flags(x, y, force):
    B, T, D = x.shape
    use_short = T <= 4096
    if force:
        use_short = D <= 128
    if use_short:
        shift_short_two_flags[(B, T)](x, y, D=D)


@triton.jit
def shift_short_grid_between(x_ptr, y_ptr, D: tl.constexpr):
    i_t = tl.program_id(1)
    o_d = tl.arange(0, D)
    # CHECK: branches.py:[[@LINE+1]]:25: warning: 32-bit signed product 'i_t * D' is used as a memory offset and wraps past 2^31 in the inference profile: 'i_t' <= 65,535 ('program_id(1)' spans a grid the launcher does not show: below Envelope.Grid = 65,536) times 'D' <= 65,536 ('D' is named like it: Envelope.Intermediate = 65,536); widen 'i_t' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    x = tl.load(x_ptr + i_t * D + o_d)
    # CHECK: branches.py:[[@LINE+1]]:22: warning: 32-bit signed product 'i_t * D' is used as a memory offset and wraps past 2^31 in the inference profile: 'i_t' <= 65,535 ('program_id(1)' spans a grid the launcher does not show: below Envelope.Grid = 65,536) times 'D' <= 65,536 ('D' is named like it: Envelope.Intermediate = 65,536); widen 'i_t' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(y_ptr + i_t * D + o_d, x)


# Positive twin: a `def grid(meta)` between the grid's binding and the
# launch may be the grid the launch takes.
def shift_grid_between(x, y, wide):
    B, T, D = x.shape
    grid = (B, 4096)
    if wide:
        def grid(meta): return (B, T)
    shift_short_grid_between[grid](x, y, D=D)
