import torch
import triton
import triton.language as tl


@triton.jit
def paged_decode_kernel(q_ptr, k_cache_ptr, v_cache_ptr, out_ptr, block_table_ptr,
                        seq_lens_ptr, scale, stride_q_req, stride_bt_req,
                        stride_k_block, stride_k_slot, stride_k_head,
                        HEAD_DIM: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    req = tl.program_id(0).to(tl.int64)
    head = tl.program_id(1)
    offs_d = tl.arange(0, HEAD_DIM)
    offs_s = tl.arange(0, BLOCK_SIZE)
    q = tl.load(q_ptr + req * stride_q_req + head * HEAD_DIM + offs_d).to(tl.float32)
    seq_len = tl.load(seq_lens_ptr + req)
    m_i = tl.zeros([], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([], dtype=tl.float32)
    acc = tl.zeros([HEAD_DIM], dtype=tl.float32)
    for j in range(0, tl.cdiv(seq_len, BLOCK_SIZE)):
        physical_block = tl.load(block_table_ptr + req * stride_bt_req + j)
        kv_off = (physical_block * stride_k_block
                  + head * stride_k_head
                  + offs_s[:, None] * stride_k_slot + offs_d[None, :])
        mask = (j * BLOCK_SIZE + offs_s) < seq_len
        k = tl.load(k_cache_ptr + kv_off, mask=mask[:, None], other=0.0).to(tl.float32)
        v = tl.load(v_cache_ptr + kv_off, mask=mask[:, None], other=0.0).to(tl.float32)
        s = tl.where(mask, tl.sum(k * q[None, :], axis=1) * scale, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=0))
        p = tl.exp(s - m_new)
        alpha = tl.exp(m_i - m_new)
        acc = acc * alpha + tl.sum(p[:, None] * v, axis=0)
        l_i = l_i * alpha + tl.sum(p, axis=0)
        m_i = m_new
    tl.store(out_ptr + req * stride_q_req + head * HEAD_DIM + offs_d, acc / l_i)


def paged_decode(q, k_cache, v_cache, block_table, seq_lens, scale):
    # q: [num_reqs, num_heads * head_dim]; k/v_cache: [num_blocks, block_size, num_heads, head_dim]
    num_reqs = q.shape[0]
    num_blocks, block_size, num_heads, head_dim = k_cache.shape
    block_table = block_table.to(torch.int32)
    out = torch.empty_like(q)
    paged_decode_kernel[(num_reqs, num_heads)](
        q, k_cache, v_cache, out, block_table, seq_lens, scale, q.stride(0),
        block_table.stride(0), k_cache.stride(0), k_cache.stride(1), k_cache.stride(2),
        HEAD_DIM=head_dim, BLOCK_SIZE=block_size)
    return out
