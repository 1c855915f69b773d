import torch
import triton
import triton.language as tl


@triton.jit
def chunk_local_decay_kernel(k, g_gamma, out, T, H: tl.constexpr, K: tl.constexpr,
                             BT: tl.constexpr):
    i_t, i_bh = tl.program_id(0), tl.program_id(1)
    i_b, i_h = i_bh // H, i_bh % H
    bos = i_b.to(tl.int64) * T
    k += bos * H * K + i_h * K
    out += bos * H * K + i_h * K
    o_t = i_t * BT + tl.arange(0, BT)
    o_k = tl.arange(0, K)
    m_t = o_t < T
    rows = o_t[:, None] * (H * K) + o_k[None, :]
    b_k = tl.load(k + rows, mask=m_t[:, None], other=0.0).to(tl.float32)
    b_g = tl.load(g_gamma + i_h)
    decay = tl.exp(b_g * (tl.arange(0, BT) + 1).to(tl.float32))
    b_o = b_k * decay[:, None]
    tl.store(out + rows, b_o.to(out.dtype.element_ty), mask=m_t[:, None])


def chunk_local_decay(k: torch.Tensor, g_gamma: torch.Tensor) -> torch.Tensor:
    # k: [B, T, H, K], g_gamma: [H]
    B, T, H, K = k.shape
    BT = 64
    out = torch.empty_like(k)
    grid = (triton.cdiv(T, BT), B * H)
    chunk_local_decay_kernel[grid](k, g_gamma, out, T, H=H, K=K, BT=BT)
    return out
