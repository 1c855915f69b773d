# KV001 facet: the [B, T, H, K] layout of chunked kernels (fla, vLLM's fla
# copy). A grid of (NT, B * H) programs: i_bh // H is a sequence of the
# batch and i_bh % H a head; bos = i_b * T is a token of the batch (B x T is
# the step's Envelope.Tokens), so bos * H (a per-head scalar) stays below
# 2^31 and bos * H * K (a row of heads x head dim) does not. T is one
# sequence (Envelope.SeqLen): o_t * (H * K) inside it stays below 2^31,
# masked by the same o_t < T that the mask repeats.
# RUN: %if kvlint %{ not %kvlint --checks=KV001 %s | FileCheck %s --implicit-check-not=warning: %}
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
    # CHECK: batched.py:[[@LINE+1]]:23: warning: 32-bit signed product '(bos * H + i_h) * K' is used as a memory offset and wraps past 2^31: 'bos * H + i_h' <= 134,217,727 ('i_b * T' spans Tokens (Requests x SeqLen <= Envelope.Tokens) = 1,048,575) times 'K' <= 576 ('K' is named like it: Envelope.HeadDim = 576); widen 'bos' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    b_k = tl.load(k + (bos * H + i_h) * K + o_t[:, None] * (H * K), mask=(o_t < T)[:, None])
    tl.store(o + o_t, b_beta + b_g, mask=o_t < T)


def chunk(k, beta, o):
    B, T, H, K = k.shape
    BT = 64
    NT = triton.cdiv(T, BT)
    chunk_fwd[(NT, B * H)](k, beta, o, T, H=H, K=K, BT=BT)
