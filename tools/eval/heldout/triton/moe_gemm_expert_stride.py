import torch
import triton
import triton.language as tl


@triton.jit
def moe_gemm_kernel(a_ptr, b_ptr, c_ptr, sorted_token_ids_ptr, expert_ids_ptr,
                    N, K, num_valid_tokens, stride_am, stride_be, stride_bk, stride_cm,
                    top_k: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                    BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_token = tl.load(sorted_token_ids_ptr + offs_m).to(tl.int64)
    token_mask = offs_token < num_valid_tokens
    off_expert = tl.load(expert_ids_ptr + pid_m)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_token[:, None] // top_k) * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + off_expert * stride_be + offs_n[None, :]
    b_ptrs += offs_k[:, None] * stride_bk
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_mask = offs_k < K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=token_mask[:, None] & k_mask[None, :], other=0.0)
        b = tl.load(b_ptrs, mask=k_mask[:, None] & (offs_n[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_token[:, None] * stride_cm + offs_n[None, :]
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty),
             mask=token_mask[:, None] & (offs_n[None, :] < N))


def moe_gemm(a, w, sorted_token_ids, expert_ids, num_tokens_post_padded, top_k):
    # a: [num_tokens, K]; w: [num_experts, K, N] (K-major per expert)
    E, K, N = w.shape
    c = torch.empty((a.shape[0] * top_k, N), dtype=a.dtype, device=a.device)
    sorted_token_ids = sorted_token_ids.to(torch.int32)
    expert_ids = expert_ids.to(torch.int32)
    grid = (triton.cdiv(sorted_token_ids.shape[0], 64), triton.cdiv(N, 128))
    moe_gemm_kernel[grid](a, w, c, sorted_token_ids, expert_ids, N, K,
                          a.shape[0] * top_k, a.stride(0), w.stride(0), w.stride(1),
                          c.stride(0), top_k=top_k, BLOCK_M=64, BLOCK_N=128, BLOCK_K=64)
    return c
