# KV001 facet: a launcher that switches a kernel to 64-bit indices when an
# offset needs it (aiter's MoE GEMMs: `UPCAST_INDICES=should_upcast_indices(x,
# w, y)`, where `can_overflow_int32` sums each tensor's (size - 1) * stride
# and compares it with 2^31 - 1; the kernel indexes in `tl.int64 if
# UPCAST_INDICES else tl.int32`). Where the flag is false, every offset into
# the tensors the check was given fits 32 bits: the products there are
# latent, with a note naming the check (also where the per-tensor check
# decides the flag itself). Positives beside it: a tensor the
# check was not given, a check of the other polarity (true when it fits), a
# bound that is not int32's, and a launch that passes the flag as a constant.
# The check may also be written at the launch (aiter's lean attention:
# `use_64_indexing=(k.stride(0) * N >= (1 << 31) or ...)`) or bound to a
# local that is true where the tensors fit (aiter's sparse decode:
# `use_buffer_load = cache_bytes < MAX_BYTES`, cache_bytes measured in each
# branch): the tensors it measures are the checked ones, on the side where
# it passed. Positives: a tensor only one branch measures, and a flag true
# where it fits passed to a kernel that narrows on its false side.
# RUN: %if kvlint %{ not %kvlint --checks=KV001 %s | FileCheck %s --implicit-check-not=warning: %}
# RUN: %if kvlint %{ not %kvlint --checks=KV001 --level=latent %s | FileCheck %s --check-prefix=LATENT %}
import torch
import triton
import triton.language as tl


def can_overflow_int32(tensor: torch.Tensor):
    max_int32 = (1 << 31) - 1
    offset = 0
    for i in range(tensor.ndim):
        offset += (tensor.shape[i] - 1) * tensor.stride(i)
    return offset > max_int32


def should_upcast_indices(*args):
    return any(tensor is not None and can_overflow_int32(tensor) for tensor in args)


def fits_int32(tensor):
    return tensor.numel() <= 2**31 - 1


def past_2_40(tensor):
    return tensor.numel() > 2**40


@triton.jit
def gemm_rows(Y, X, S, G, stride_xm, stride_xk, stride_sm, K, start, BLOCK_K: tl.constexpr,
              UPCAST_INDICES: tl.constexpr):
    index_type: tl.constexpr = tl.int64 if UPCAST_INDICES else tl.int32
    pid = tl.program_id(0)
    if G is None:
        X += start * stride_xm
    offs_k = tl.arange(0, BLOCK_K)
    # Negative: x is checked; the loop's step too.
    # LATENT: overflow-check.py:[[@LINE+2]]:{{[0-9]+}}: warning: 32-bit signed product 'pid.to(index_type) * stride_xm' {{.*}} only beyond
    # LATENT: note: 'X' points to a tensor of at most 2,147,483,648 elements (UPCAST_INDICES is false only where 'should_upcast_indices(x, y)' finds every offset below 2^31 (launch at overflow-check.py:[[#@LINE+14]]))
    XPtrs = X + pid.to(index_type) * stride_xm + offs_k.to(index_type) * stride_xk
    acc = tl.zeros([BLOCK_K], dtype=tl.float32)
    for kk in range(0, K, BLOCK_K):
        acc += tl.load(XPtrs)
        XPtrs += BLOCK_K * stride_xk
    # Positive: the scales were not given to the check.
    # CHECK: overflow-check.py:[[@LINE+1]]:{{[0-9]+}}: warning: 32-bit signed product 'pid.to(index_type) * stride_sm'
    acc *= tl.load(S + pid.to(index_type) * stride_sm + offs_k)
    # Negative: y is checked.
    tl.store(Y + pid.to(index_type) * stride_xm + offs_k, acc)


def gemm(x, y, s, g, num_tokens, K):
    gemm_rows[(num_tokens,)](y, x, s, g, x.stride(0), x.stride(1), s.stride(0), K, 0, BLOCK_K=64,
                             UPCAST_INDICES=should_upcast_indices(x, y))


@triton.jit
def direct_check(Y, stride_ym, BLOCK: tl.constexpr, WIDE: tl.constexpr):
    index_type: tl.constexpr = tl.int64 if WIDE else tl.int32
    pid = tl.program_id(0)
    # Negative: the per-tensor check itself decides the flag.
    tl.store(Y + pid.to(index_type) * stride_ym + tl.arange(0, BLOCK), 0)


def direct(y, num_tokens):
    direct_check[(num_tokens,)](y, y.stride(0), BLOCK=64, WIDE=can_overflow_int32(y))


@triton.jit
def other_polarity(Y, X, stride_xm, BLOCK: tl.constexpr, WIDE: tl.constexpr):
    index_type: tl.constexpr = tl.int64 if WIDE else tl.int32
    pid = tl.program_id(0)
    o = tl.arange(0, BLOCK)
    # CHECK: overflow-check.py:[[@LINE+1]]:{{[0-9]+}}: warning: 32-bit signed product 'pid.to(index_type) * stride_xm'
    tl.store(Y + pid.to(index_type) * stride_xm + o, tl.load(X + o))


def polarity(x, y, num_tokens):
    # Positive: true when x fits; its false side is the one that overflows.
    other_polarity[(num_tokens,)](y, x, x.stride(0), BLOCK=64, WIDE=fits_int32(x))


@triton.jit
def wrong_bound(Y, stride_ym, BLOCK: tl.constexpr, WIDE: tl.constexpr):
    index_type: tl.constexpr = tl.int64 if WIDE else tl.int32
    pid = tl.program_id(0)
    # CHECK: overflow-check.py:[[@LINE+1]]:{{[0-9]+}}: warning: 32-bit signed product 'pid.to(index_type) * stride_ym'
    tl.store(Y + pid.to(index_type) * stride_ym + tl.arange(0, BLOCK), 0)


def bound(y, num_tokens):
    # Positive: 2^40 is not int32's bound.
    wrong_bound[(num_tokens,)](y, y.stride(0), BLOCK=64, WIDE=past_2_40(y))


@triton.jit
def constant_flag(Y, stride_ym, BLOCK: tl.constexpr, WIDE: tl.constexpr):
    index_type: tl.constexpr = tl.int64 if WIDE else tl.int32
    pid = tl.program_id(0)
    # CHECK: overflow-check.py:[[@LINE+1]]:{{[0-9]+}}: warning: 32-bit signed product 'pid.to(index_type) * stride_ym'
    tl.store(Y + pid.to(index_type) * stride_ym + tl.arange(0, BLOCK), 0)


def constant(y, num_tokens):
    # Positive: the flag is off whatever the sizes.
    constant_flag[(num_tokens,)](y, y.stride(0), BLOCK=64, WIDE=False)


@triton.jit
def inline_check(O, K, S, stride_km, stride_sm, BLOCK: tl.constexpr, WIDE: tl.constexpr):
    pid = tl.program_id(0)
    o = tl.arange(0, BLOCK)
    if WIDE:
        row = pid.to(tl.int64)
    else:
        row = pid
    # Negative: k and o are measured by the comparison at the launch.
    # LATENT: overflow-check.py:[[@LINE+2]]:{{[0-9]+}}: warning: 32-bit signed product 'row * stride_km' {{.*}} only beyond
    # LATENT: note: 'K' points to a tensor of at most 2,147,483,648 elements (WIDE is false only where 'k.stride(0) * n_ctx >= (1 << 31) or o.stride(0) * n_ctx >= (1 << 31)' says every offset below 2^31 (launch at overflow-check.py:[[#@LINE+9]]))
    x = tl.load(K + row * stride_km + o)
    # Positive: s is not.
    # CHECK: overflow-check.py:[[@LINE+1]]:{{[0-9]+}}: warning: 32-bit signed product 'row * stride_sm'
    x *= tl.load(S + row * stride_sm + o)
    tl.store(O + row * stride_km + o, x)


def inline(o, k, s, n_ctx):
    inline_check[(n_ctx,)](o, k, s, k.stride(0), s.stride(0), BLOCK=64,
                           WIDE=(k.stride(0) * n_ctx >= (1 << 31) or o.stride(0) * n_ctx >= (1 << 31)))


def bytes_of(t):
    return t.numel() * t.element_size()


@triton.jit
def fits_flag(C, E, stride_cm, stride_em, BLOCK: tl.constexpr, NARROW: tl.constexpr):
    pid = tl.program_id(0)
    o = tl.arange(0, BLOCK)
    if NARROW:
        row = pid
    else:
        row = pid.to(tl.int64)
    # Negative: every branch measured the cache.
    # LATENT: overflow-check.py:[[@LINE+2]]:{{[0-9]+}}: warning: 32-bit signed product 'row * stride_cm' {{.*}} only beyond
    # LATENT: note: 'C' points to a tensor of at most 2,147,483,648 elements (NARROW is true only where 'cache_bytes < MAX_BYTES' says every offset below 2^31
    x = tl.load(C + row * stride_cm + o)
    # Positive: only one branch measured extra.
    # CHECK: overflow-check.py:[[@LINE+1]]:{{[0-9]+}}: warning: 32-bit signed product 'row * stride_em'
    tl.store(E + row * stride_em + o, x)


def fits(cache, extra, num_slots, two):
    MAX_BYTES = 2**31 - 1
    if two:
        cache_bytes = max(bytes_of(cache), bytes_of(extra))
    else:
        cache_bytes = bytes_of(cache)
    narrow = cache_bytes < MAX_BYTES
    fits_flag[(num_slots,)](cache, extra, cache.stride(0), extra.stride(0), BLOCK=64, NARROW=narrow)


@triton.jit
def fits_flag_inverted(C, stride_cm, BLOCK: tl.constexpr, NARROW: tl.constexpr):
    pid = tl.program_id(0)
    o = tl.arange(0, BLOCK)
    if NARROW:
        row = pid.to(tl.int64)
    else:
        row = pid
    # Positive: the 32-bit side is the one where the cache does not fit.
    # CHECK: overflow-check.py:[[@LINE+1]]:{{[0-9]+}}: warning: 32-bit signed product 'row * stride_cm'
    tl.store(C + row * stride_cm + o, 0)


def inverted(cache, num_slots):
    fits_flag_inverted[(num_slots,)](cache, cache.stride(0), BLOCK=64,
                                     NARROW=bytes_of(cache) < 2**31 - 1)


@triton.jit
def before_the_switch(A, C, stride_ab, stride_cb, M, BLOCK: tl.constexpr, A_LARGE: tl.constexpr,
                      C_LARGE: tl.constexpr):
    pid_b = tl.program_id(0)
    # Positive: the batch offset is 32-bit on both sides of the checks (vLLM's
    # batch-invariant bmm); where A is large it wraps.
    # CHECK: overflow-check.py:[[@LINE+1]]:{{[0-9]+}}: warning: 32-bit signed product 'pid_b * stride_ab'
    a = A + pid_b * stride_ab
    c = C + pid_b * stride_cb
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    if A_LARGE or C_LARGE:
        offs = offs.to(tl.int64)
    tl.store(c + offs, tl.load(a + offs, mask=offs < M), mask=offs < M)


def bmm(a, c, B, M):
    before_the_switch[(B, triton.cdiv(M, 64))](a, c, a.stride(0), c.stride(0), M, BLOCK=64,
                                               A_LARGE=a.numel() > 2**31, C_LARGE=c.numel() > 2**31)


@triton.jit
def fits_aliased(C, E, stride_cm, stride_em, BLOCK: tl.constexpr, NARROW: tl.constexpr):
    pid = tl.program_id(0)
    o = tl.arange(0, BLOCK)
    if NARROW:
        row = pid
    else:
        row = pid.to(tl.int64)
    # Negative: where only the cache is measured, extra is the cache.
    # LATENT: overflow-check.py:[[@LINE+1]]:{{[0-9]+}}: warning: 32-bit signed product 'row * stride_em' {{.*}} only beyond
    tl.store(E + row * stride_em + o, tl.load(C + row * stride_cm + o))


def aliased(cache, extra, num_slots, has_extra):
    if has_extra:
        cache_bytes = max(bytes_of(cache), bytes_of(extra))
    else:
        extra = cache
        cache_bytes = bytes_of(cache)
    fits_aliased[(num_slots,)](cache, extra, cache.stride(0), extra.stride(0), BLOCK=64,
                               NARROW=cache_bytes < 2**31 - 1)
