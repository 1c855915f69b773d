# KV001 facet: the [B, T, H, K] layout of chunked kernels (fla, vLLM's fla
# copy). A grid of (NT, B * H) programs: i_bh // H is a sequence of the
# batch and i_bh % H a head; bos = i_b * T is a token of the batch (B x T is
# the step's Envelope.Tokens), so bos * H (a per-head scalar) stays below
# 2^31 and bos * H * K (a row of heads x head dim) does not. T is one
# sequence (Envelope.SeqLen): o_t * (H * K) inside it stays below 2^31,
# masked by the same o_t < T that the mask repeats.
# The sizes below are written against a 1M-token batch: the training
# profile's (issue 24); the inference profile stops at 131,072 tokens.
# RUN: %if kvlint %{ not %kvlint --option=Profile=training --checks=KV001 %s | FileCheck %s --implicit-check-not=warning: %}
import triton
import triton.language as tl


@triton.jit
def chunk_fwd(k, beta, o, T, H: tl.constexpr, K: tl.constexpr, BT: tl.constexpr):
    i_t, i_bh = tl.program_id(0), tl.program_id(1)
    i_b, i_h = i_bh // H, i_bh % H
    bos = i_b * T
    o_t = i_t * BT + tl.arange(0, BT)
    b_beta = tl.load(beta + bos * H + i_h + o_t * H, mask=o_t < T)   # negative: tokens x heads
    b_g = tl.load(beta + bos * H + (i_t * BT + tl.arange(0, BT)) * H,
                  mask=i_t * BT + tl.arange(0, BT) < T)              # negative: the mask repeats the offset
    # CHECK: batched.py:[[@LINE+1]]:23: warning: 32-bit signed product '(bos * H + i_h) * K' is used as a memory offset and wraps past 2^31 in the training profile: 'bos * H + i_h' <= 134,217,727 ('i_b * T' spans Tokens (Requests x SeqLen <= Envelope.Tokens) = 1,048,575) times 'K' <= 576 ('K' is named like it: Envelope.HeadDim = 576); widen 'bos' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    b_k = tl.load(k + (bos * H + i_h) * K + o_t[:, None] * (H * K), mask=(o_t < T)[:, None])
    tl.store(o + o_t, b_beta + b_g, mask=o_t < T)


def chunk(k, beta, o):
    B, T, H, K = k.shape
    BT = 64
    NT = triton.cdiv(T, BT)
    chunk_fwd[(NT, B * H)](k, beta, o, T, H=H, K=K, BT=BT)


# A grid of NK * NV programs whose launcher asserts NK == 1: i_kv // NV is
# 0, whatever NV the kernel recomputes (negative). The same kernel launched
# without the assert: the key block is any of NK (positive).
@triton.jit
def kv_blocks(dv, T, V, B: tl.constexpr, H: tl.constexpr, BK: tl.constexpr, BV: tl.constexpr):
    i_kv, i_bh = tl.program_id(0), tl.program_id(2).to(tl.int64)
    NV = tl.cdiv(V, BV)
    i_k = i_kv // NV
    tl.store(dv + (i_bh + B * H * i_k) * T * V + tl.arange(0, BK), 0)  # negative: i_k == 0


@triton.jit
def kv_blocks_any(dv, T, V, B: tl.constexpr, H: tl.constexpr, BK: tl.constexpr, BV: tl.constexpr):
    i_kv, i_bh = tl.program_id(0), tl.program_id(2).to(tl.int64)
    NV = tl.cdiv(V, BV)
    i_k = i_kv // NV
    # CHECK: batched.py:[[@LINE+1]]:27: warning: 32-bit signed product 'B * H * i_k' is used as a memory offset and wraps past 2^31 in the training profile: 'B * H' <= 524,160 ('B' is named like it: below Envelope.Requests = 4,096) times 'i_k' <= 65,535 (the grid spans NK*NV, divided by NV ('NK' is bounded by no fact: Envelope.Grid = 65,536)); widen 'B' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(dv + (i_bh + B * H * i_k) * T * V + tl.arange(0, BK), 0)


def kv_launch(dv, q, v, BK, BV):
    B, H, T, K = q.shape
    V = v.shape[-1]
    NK = triton.cdiv(K, BK)
    NV = triton.cdiv(V, BV)
    kv_blocks_any[(NK * NV, 1, B * H)](dv, T, V, B=B, H=H, BK=BK, BV=BV)
    assert NK == 1, "one key block"
    kv_blocks[(NK * NV, 1, B * H)](dv, T, V, B=B, H=H, BK=BK, BV=BV)
