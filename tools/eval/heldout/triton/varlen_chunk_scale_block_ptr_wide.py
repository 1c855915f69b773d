import torch
import triton
import triton.language as tl


@triton.jit
def varlen_chunk_scale_kernel(x, y, cu_seqlens, scale,
                              H: tl.constexpr, K: tl.constexpr, BT: tl.constexpr):
    i_t, i_n, i_h = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    bos = tl.load(cu_seqlens + i_n).to(tl.int64)
    eos = tl.load(cu_seqlens + i_n + 1).to(tl.int64)
    T = eos - bos
    if i_t * BT >= T:
        return
    base = (bos * H + i_h) * K
    p_x = tl.make_block_ptr(x + base, (T, K), (H * K, 1),
                            (i_t * BT, 0), (BT, K), (1, 0))
    p_y = tl.make_block_ptr(y + base, (T, K), (H * K, 1),
                            (i_t * BT, 0), (BT, K), (1, 0))
    b_x = tl.load(p_x, boundary_check=(0, 1)).to(tl.float32)
    tl.store(p_y, (b_x * scale).to(y.dtype.element_ty), boundary_check=(0, 1))


def varlen_chunk_scale(x: torch.Tensor, cu_seqlens: torch.Tensor, scale: float,
                       max_seqlen: int) -> torch.Tensor:
    # x: [1, total_tokens, H, K] packed varlen batch
    _, total_tokens, H, K = x.shape
    N = cu_seqlens.numel() - 1
    BT = 64
    y = torch.empty_like(x)
    grid = (triton.cdiv(max_seqlen, BT), N, H)
    varlen_chunk_scale_kernel[grid](x, y, cu_seqlens, scale, H=H, K=K, BT=BT)
    return y
