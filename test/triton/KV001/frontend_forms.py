# KV001 facet: the ways a Triton kernel is written: `from triton import jit`,
# an aliased triton.language, kernels under @triton.autotune /
# @triton.heuristics, @triton.jit(...) with arguments, constexpr flags.
# RUN: %if kvlint %{ not %kvlint --checks=KV001 %s | FileCheck %s --implicit-check-not=warning: %}
import triton
from triton import jit
from triton import language as language


@triton.autotune(configs=[triton.Config({"BLOCK": 64})], key=["n"])
@triton.heuristics({"EVEN": lambda args: args["n"] % 64 == 0})
@triton.jit(do_not_specialize=["n"])
def autotuned(cache_ptr, table_ptr, n, STRIDE: language.constexpr, BLOCK: language.constexpr,
              EVEN: language.constexpr):
    offs = language.arange(0, BLOCK)
    blk = language.load(table_ptr + offs, mask=offs < n)
    # CHECK: frontend_forms.py:[[@LINE+1]]:32: warning: 32-bit signed product 'blk * STRIDE' is used as a memory offset and wraps past 2^31 in the inference profile: 'blk' <= 8,388,607 ('blk' is named like it: below Envelope.KvPages = 8,388,608) times 'STRIDE' <= 16,384 ('STRIDE' is named like it: Envelope.Stride = 16,384); widen 'blk' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    language.store(cache_ptr + blk * STRIDE, 0, mask=offs < n)


@jit
def bare_jit(cache_ptr, table_ptr, STRIDE: language.constexpr):
    blk = language.load(table_ptr)
    # CHECK: frontend_forms.py:[[@LINE+1]]:32: warning: 32-bit signed product 'blk * STRIDE' is used as a memory offset and wraps past 2^31 in the inference profile: 'blk' <= 8,388,607 ('blk' is named like it: below Envelope.KvPages = 8,388,608) times 'STRIDE' <= 16,384 ('STRIDE' is named like it: Envelope.Stride = 16,384); widen 'blk' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    language.store(cache_ptr + blk * STRIDE, 0)


# Not a Triton kernel: plain Python doing index math is ignored.
def host_side(table, stride):
    return table[0] * stride


# Negative: a constexpr flag selects 64-bit indexing; the flagged arm is
# taken as the kernel's intent (the launcher sets it for large pools).
@jit
def int64_flag(cache_ptr, table_ptr, STRIDE: language.constexpr, INT64_INDEX: language.constexpr):
    blk = language.load(table_ptr)
    if INT64_INDEX:
        blk = blk.to(language.int64)
    language.store(cache_ptr + blk * STRIDE, 0)


# Negative: block pointers convert their strides to int64 (Triton's
# make_block_ptr), so offsets * strides is a 64-bit product.
@jit
def block_ptr_offsets(cache_ptr, table_ptr, n, stride_page):
    page = language.load(table_ptr)
    bp = language.make_block_ptr(base=cache_ptr, shape=(n, 64), strides=(stride_page, 1),
                                 offsets=(page, 0), block_shape=(16, 64), order=(1, 0))
    language.store(bp, language.zeros((16, 64), dtype=language.float16))


# Positive: a block-pointer coordinate is a 32-bit value (tt.make_tensor_ptr
# takes I32 offsets and extends each to 64 bits only to meet its stride), so
# `page * ROWS` written in the offsets wraps before Triton widens it. The
# coordinate `page` above stays silent: page x stride is 64-bit.
@jit
def block_ptr_premultiplied(cache_ptr, table_ptr, n, stride_page, ROWS: language.constexpr):
    page = language.load(table_ptr)
    # CHECK: frontend_forms.py:[[@LINE+2]]:43: warning: 32-bit signed product 'page * ROWS' is used as a memory offset and wraps past 2^31 in the inference profile: 'page' <= 8,388,607 ('page' is named like it: below Envelope.KvPages = 8,388,608) times 'ROWS' <= 1,024 ('ROWS' is a compile-time constant of unknown value: Envelope.Constexpr = 1,024); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    bp = language.make_block_ptr(base=cache_ptr, shape=(n, 64), strides=(stride_page, 1),
                                 offsets=(page * ROWS, 0), block_shape=(16, 64), order=(1, 0))
    for _ in range(4):
        language.store(bp, language.zeros((16, 64), dtype=language.float16))
        bp = language.advance(bp, (16, 0))


# Positive: a kernel made by calling triton.jit on a plain function.
def _wrapped_impl(cache_ptr, table_ptr, STRIDE: language.constexpr):
    blk = language.load(table_ptr)
    # CHECK: frontend_forms.py:[[@LINE+1]]:32: warning: 32-bit signed product 'blk * STRIDE' is used as a memory offset and wraps past 2^31 in the inference profile: 'blk' <= 8,388,607 ('blk' is named like it: below Envelope.KvPages = 8,388,608) times 'STRIDE' <= 16,384 ('STRIDE' is named like it: Envelope.Stride = 16,384); widen 'blk' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    language.store(cache_ptr + blk * STRIDE, 0)


wrapped = triton.jit(_wrapped_impl)
