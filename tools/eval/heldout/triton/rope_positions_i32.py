import torch
import triton
import triton.language as tl


@triton.jit
def rope_kernel(q_ptr, cos_sin_ptr, positions_ptr, stride_q_tok,
                HEAD_DIM: tl.constexpr, HALF: tl.constexpr):
    tok = tl.program_id(0).to(tl.int64)
    head = tl.program_id(1)
    pos = tl.load(positions_ptr + tok)
    offs = tl.arange(0, HALF)
    q_head = q_ptr + tok * stride_q_tok + head * HEAD_DIM
    cs_row = cos_sin_ptr + pos * HEAD_DIM
    cos = tl.load(cs_row + offs).to(tl.float32)
    sin = tl.load(cs_row + HALF + offs).to(tl.float32)
    x1 = tl.load(q_head + offs).to(tl.float32)
    x2 = tl.load(q_head + HALF + offs).to(tl.float32)
    tl.store(q_head + offs, (x1 * cos - x2 * sin).to(q_ptr.dtype.element_ty))
    tl.store(q_head + HALF + offs, (x2 * cos + x1 * sin).to(q_ptr.dtype.element_ty))


def rope_(q: torch.Tensor, cos_sin_cache: torch.Tensor, positions: torch.Tensor) -> None:
    # q: [num_tokens, num_heads * head_dim]; cos_sin_cache: [max_position, head_dim]
    num_tokens = q.shape[0]
    head_dim = cos_sin_cache.shape[1]
    num_heads = q.shape[1] // head_dim
    positions = positions.to(torch.int32)
    rope_kernel[(num_tokens, num_heads)](q, cos_sin_cache, positions, q.stride(0),
                                         HEAD_DIM=head_dim, HALF=head_dim // 2)
