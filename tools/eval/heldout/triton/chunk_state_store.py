import torch
import triton
import triton.language as tl


@triton.jit
def chunk_state_kernel(k, v, h, T, H: tl.constexpr, K: tl.constexpr, V: tl.constexpr,
                       BT: tl.constexpr):
    i_t, i_bh = tl.program_id(0), tl.program_id(1)
    i_b, i_h = i_bh // H, i_bh % H
    NT = tl.cdiv(T, BT)
    i_tg = i_b * NT + i_t
    bos = i_b.to(tl.int64) * T
    p_k = tl.make_block_ptr(k + (bos * H + i_h) * K, (K, T), (1, H * K),
                            (0, i_t * BT), (K, BT), (0, 1))
    p_v = tl.make_block_ptr(v + (bos * H + i_h) * V, (T, V), (H * V, 1),
                            (i_t * BT, 0), (BT, V), (1, 0))
    b_k = tl.load(p_k, boundary_check=(0, 1))
    b_v = tl.load(p_v, boundary_check=(0, 1))
    b_h = tl.dot(b_k, b_v)
    p_h = tl.make_block_ptr(h + (i_tg * H + i_h) * K * V, (K, V), (V, 1),
                            (0, 0), (K, V), (1, 0))
    tl.store(p_h, b_h.to(p_h.dtype.element_ty), boundary_check=(0, 1))


def chunk_states(k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    # k: [B, T, H, K], v: [B, T, H, V]; h: one K x V state per chunk and head
    B, T, H, K = k.shape
    V = v.shape[-1]
    BT = 64
    NT = triton.cdiv(T, BT)
    h = k.new_empty(B, NT, H, K, V, dtype=torch.float32)
    chunk_state_kernel[(NT, B * H)](k, v, h, T, H=H, K=K, V=V, BT=BT)
    return h
