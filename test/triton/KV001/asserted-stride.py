# KV001 facet: a stride the launcher asserts is 1 (aiter's MoE GEMMs:
# `assert x.stride(-1) == 1, "'x' must be row-major"`) is 1 in the kernel,
# by the index as written or, where the launcher shows the tensor's rank,
# counted from the end. Positives beside it: an assert on another dimension,
# a rank the launcher does not show, and an assert below the launch. The
# tiles come from a config (`**config`), so only the stride bounds the step.
# RUN: %if kvlint %{ not %kvlint --checks=KV001 %s | FileCheck %s --implicit-check-not=warning: %}
import triton
import triton.language as tl


@triton.jit
def k_loop(X, Y, rows, stride_xm, stride_xk, K, BLOCK_K: tl.constexpr, SPLIT_K: tl.constexpr):
    pid = tl.program_id(0)
    XPtrs = X + pid.to(tl.int64) * stride_xm + tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_K], dtype=tl.float32)
    for k in range(0, K, BLOCK_K * SPLIT_K):
        acc += tl.load(XPtrs)
        XPtrs += (BLOCK_K * SPLIT_K) * stride_xk
    tl.store(Y + pid.to(tl.int64) * BLOCK_K + tl.arange(0, BLOCK_K), acc)


def same_index(x, y, config):
    # Negative: the stride passed is the one asserted.
    assert x.stride(-1) == 1
    k_loop[(x.shape[0],)](x, y, x.shape[0], x.stride(0), x.stride(-1), x.shape[1], **config)


@triton.jit
def k_loop_ranked(X, Y, stride_xm, stride_xk, K, BLOCK_K: tl.constexpr, SPLIT_K: tl.constexpr):
    pid = tl.program_id(0)
    XPtrs = X + pid.to(tl.int64) * stride_xm + tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_K], dtype=tl.float32)
    for k in range(0, K, BLOCK_K * SPLIT_K):
        acc += tl.load(XPtrs)
        XPtrs += (BLOCK_K * SPLIT_K) * stride_xk
    tl.store(Y + pid.to(tl.int64) * BLOCK_K + tl.arange(0, BLOCK_K), acc)


def ranked(x, y, config):
    # Negative: x is [M, K], so stride(1) is stride(-1).
    M, K = x.shape
    assert 1 == x.stride(-1)
    k_loop_ranked[(M,)](x, y, x.stride(0), x.stride(1), K, **config)


@triton.jit
def k_loop_other(X, Y, stride_xm, stride_xk, K, BLOCK_K: tl.constexpr, SPLIT_K: tl.constexpr):
    pid = tl.program_id(0)
    XPtrs = X + pid.to(tl.int64) * stride_xm + tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_K], dtype=tl.float32)
    for k in range(0, K, BLOCK_K * SPLIT_K):
        acc += tl.load(XPtrs)
        # CHECK: asserted-stride.py:[[@LINE+1]]:{{[0-9]+}}: warning: 32-bit signed product '(BLOCK_K * SPLIT_K) * stride_xk'
        XPtrs += (BLOCK_K * SPLIT_K) * stride_xk
    tl.store(Y + pid.to(tl.int64) * BLOCK_K + tl.arange(0, BLOCK_K), acc)


def other_dimension(w, y, config):
    # Positive: the assert is on the row stride (w is column-major); the
    # kernel steps along the columns.
    M, K = w.shape
    assert w.stride(-2) == 1
    k_loop_other[(M,)](w, y, w.stride(0), w.stride(1), K, **config)


@triton.jit
def k_loop_unranked(X, Y, stride_xm, stride_xk, K, BLOCK_K: tl.constexpr, SPLIT_K: tl.constexpr):
    pid = tl.program_id(0)
    XPtrs = X + pid.to(tl.int64) * stride_xm + tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_K], dtype=tl.float32)
    for k in range(0, K, BLOCK_K * SPLIT_K):
        acc += tl.load(XPtrs)
        # CHECK: asserted-stride.py:[[@LINE+1]]:{{[0-9]+}}: warning: 32-bit signed product '(BLOCK_K * SPLIT_K) * stride_xk'
        XPtrs += (BLOCK_K * SPLIT_K) * stride_xk
    tl.store(Y + pid.to(tl.int64) * BLOCK_K + tl.arange(0, BLOCK_K), acc)


def unranked(x, y, n, k, config):
    # Positive: x's rank is not shown; its stride(1) may not be its last.
    assert x.stride(-1) == 1
    k_loop_unranked[(n,)](x, y, x.stride(0), x.stride(1), k, **config)


@triton.jit
def k_loop_late(X, Y, stride_xm, stride_xk, K, BLOCK_K: tl.constexpr, SPLIT_K: tl.constexpr):
    pid = tl.program_id(0)
    XPtrs = X + pid.to(tl.int64) * stride_xm + tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_K], dtype=tl.float32)
    for k in range(0, K, BLOCK_K * SPLIT_K):
        acc += tl.load(XPtrs)
        # CHECK: asserted-stride.py:[[@LINE+1]]:{{[0-9]+}}: warning: 32-bit signed product '(BLOCK_K * SPLIT_K) * stride_xk'
        XPtrs += (BLOCK_K * SPLIT_K) * stride_xk
    tl.store(Y + pid.to(tl.int64) * BLOCK_K + tl.arange(0, BLOCK_K), acc)


def late(x, y, config):
    # Positive: the assert comes after the launch.
    M, K = x.shape
    k_loop_late[(M,)](x, y, x.stride(0), x.stride(1), K, **config)
    assert x.stride(-1) == 1
