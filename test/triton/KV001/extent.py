# KV001 facet: the extent of the tensor a pointer points into
# (ValueHint::Extent, Bounds::extentOf). An in-bounds offset into a tensor is
# below its element count; where the launcher allocates the tensor (or makes
# it contiguous and unpacks its shape) and that count fits 32 bits, a product
# in the offset wraps only past the allocation: the finding moves to the
# latent level with a note at the pointer. Negatives: the block-scale tensor
# of an fp8 quantiser (`torch.empty((M, N // 128))`, lightllm, aiter), a
# router-score buffer passed with `*buf.stride()` (lightllm grouped_topk).
# Positives beside them: the quantised output `(M, N)` itself, a flat buffer
# whose one size no name bounds, a tensor whose sizes two launches disagree
# on, a reshape(-1, n) of unknown rows, and, as a known gap (FIXME), a
# per-(batch, head, block) lock (`(Z * H, triton.cdiv(N, 16))`, hstu).
# RUN: %if kvlint %{ not %kvlint --checks=KV001 %s | FileCheck %s --implicit-check-not=warning: %}
# RUN: %if kvlint %{ not %kvlint --checks=KV001 --level=latent %s | FileCheck %s --check-prefix=LATENT %}
import torch
import triton
import triton.language as tl


@triton.jit
def quant_rows(x_ptr, y_ptr, s_ptr, stride_xm, stride_sm, N, BLOCK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs = pid_n * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + pid_m.to(tl.int64) * stride_xm + offs)
    # CHECK: extent.py:[[@LINE+1]]:{{[0-9]+}}: warning: 32-bit signed product 'pid_m * stride_xm' {{.*}} in the inference profile
    tl.store(y_ptr + pid_m * stride_xm + offs, x)
    # Negative: s is (M, N // 128), at most 2^29 elements.
    # LATENT: extent.py:[[@LINE+2]]:{{[0-9]+}}: warning: 32-bit signed product 'pid_m * stride_sm' {{.*}} only beyond
    # LATENT: note: 's_ptr' points to a tensor of at most 536,870,912 elements, M*N/128 ('M': Envelope.Dimension, 'N': Envelope.Dimension) = 536,870,912 (launch at extent.py:[[#@LINE+9]]): an offset into it stays below 2^31 unless it is out of bounds
    tl.store(s_ptr + pid_m * stride_sm + pid_n, tl.max(x, 0))


def quant(x):
    M, N = x.shape
    y = torch.empty((M, N), device=x.device, dtype=torch.float8_e4m3fn)
    s = torch.empty((M, N // 128), device=x.device, dtype=torch.float32)
    grid = (M, triton.cdiv(N, 128))
    quant_rows[grid](x, y, s, x.stride(0), s.stride(0), N, BLOCK=128)
    return y, s


@triton.jit
def score_rows(g_ptr, g_stride_m, g_stride_n, s_ptr, s_stride_m, s_stride_n, n_experts,
               BLOCK: tl.constexpr):
    t = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    g = tl.load(g_ptr + t.to(tl.int64) * g_stride_m + offs * g_stride_n, mask=offs < n_experts)
    # Negative: the scores are (tokens, experts): the stride is the expert
    # count, read through `*scores.stride()`, and the buffer holds 2^27.
    # LATENT: extent.py:[[@LINE+2]]:{{[0-9]+}}: warning: 32-bit signed product 't * s_stride_m' {{.*}} only beyond
    # LATENT: note: 's_ptr' points to a tensor of at most 134,217,728 elements, token_num*total_expert_num ('token_num': Envelope.Tokens, 'total_expert_num': Envelope.Experts)
    tl.store(s_ptr + t * s_stride_m + offs * s_stride_n, g, mask=offs < n_experts)


def scores(gating):
    token_num, total_expert_num = gating.shape
    buf = torch.empty((token_num, total_expert_num), dtype=torch.float32, device="cuda")
    score_rows[(token_num,)](gating, *gating.stride(), buf, *buf.stride(), total_expert_num,
                             BLOCK=512)
    return buf


@triton.jit
def take_lock(lock_ptr, stride_lock, n_blocks):
    # FIXME: the lock is (Z * H, cdiv(N, 16)) and Z * N is the step's tokens,
    # so it holds tokens x heads / 16 (hstu attention's spin locks); bounds
    # per size (Z and N each a Dimension) cannot see that the two share one
    # budget, and the finding stays.
    # CHECK: extent.py:[[@LINE+1]]:{{[0-9]+}}: warning: 32-bit signed product 'tl.program_id(0) * stride_lock'
    lock = lock_ptr + tl.program_id(0) * stride_lock + tl.program_id(1)
    tl.atomic_xchg(lock, 1)


def locks(q, N, MAX_SEQ_LEN):
    Z, H, _ = q.shape
    MIN_BLOCK_M = 16
    lock = torch.empty((Z * H, triton.cdiv(N, MIN_BLOCK_M)), dtype=torch.int32, device=q.device)
    take_lock[(Z * H, triton.cdiv(N, MIN_BLOCK_M))](lock, MAX_SEQ_LEN, triton.cdiv(N, 16))


@triton.jit
def flat_rows(buf_ptr, token, hidden_stride):
    o = tl.arange(0, 128)
    # CHECK: extent.py:[[@LINE+1]]:{{[0-9]+}}: warning: 32-bit signed product 'token * hidden_stride'
    tl.store(buf_ptr + token * hidden_stride + o, 0)


def flat(total, token, hidden_stride):
    # Positive: one size no name bounds: a flat buffer may be a product.
    buf = torch.empty(total, device="cuda")
    flat_rows[(1,)](buf, token, hidden_stride)


@triton.jit
def two_shapes(out_ptr, token, hidden_stride):
    o = tl.arange(0, 128)
    # CHECK: extent.py:[[@LINE+1]]:{{[0-9]+}}: warning: 32-bit signed product 'token * hidden_stride'
    tl.store(out_ptr + token * hidden_stride + o, 0)


def two_launches(num_tokens, hidden, token):
    # Positive: the launches pass tensors of other sizes: no extent holds.
    small = torch.empty((num_tokens, 64), device="cuda")
    big = torch.empty((num_tokens, hidden), device="cuda")
    two_shapes[(1,)](small, token, 64)
    two_shapes[(1,)](big, token, hidden)


@triton.jit
def unknown_rows(out_ptr, token, stride_t):
    o = tl.arange(0, 128)
    # CHECK: extent.py:[[@LINE+1]]:{{[0-9]+}}: warning: 32-bit signed product 'token * stride_t'
    tl.store(out_ptr + token * stride_t + o, 0)


def reshaped(x, token, hidden):
    # Positive: reshape(-1, n): the rows are what x holds, unknown here.
    y = x.reshape(-1, hidden).contiguous()
    unknown_rows[(1,)](y, token, y.stride(0))
