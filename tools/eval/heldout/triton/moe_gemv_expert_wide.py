import torch
import triton
import triton.language as tl


@triton.jit
def moe_gemv_kernel(x_ptr, w_ptr, out_ptr, topk_ids_ptr, N, K,
                    stride_xm, stride_we, stride_wn, stride_om,
                    TOP_K: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1)
    expert = tl.load(topk_ids_ptr + pid).to(tl.int64)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    n_mask = offs_n < N
    x_row = x_ptr + (pid // TOP_K) * stride_xm
    w_base = w_ptr + expert * stride_we
    w_ptrs = w_base + offs_n[:, None] * stride_wn + offs_k[None, :]
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k_mask = (k0 + offs_k) < K
        x = tl.load(x_row + k0 + offs_k, mask=k_mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptrs + k0, mask=n_mask[:, None] & k_mask[None, :], other=0.0)
        acc += tl.sum(w.to(tl.float32) * x[None, :], axis=1)
    tl.store(out_ptr + pid * stride_om + offs_n, acc.to(out_ptr.dtype.element_ty), mask=n_mask)


def moe_gemv(x: torch.Tensor, w: torch.Tensor, topk_ids: torch.Tensor) -> torch.Tensor:
    # decode-time MoE: x [num_tokens, K], w [num_experts, N, K], topk_ids [num_tokens, top_k]
    E, N, K = w.shape
    num_tokens, top_k = topk_ids.shape
    out = torch.empty((num_tokens * top_k, N), dtype=x.dtype, device=x.device)
    grid = (num_tokens * top_k, triton.cdiv(N, 64))
    moe_gemv_kernel[grid](x, w, out, topk_ids, N, K, x.stride(0), w.stride(0),
                          w.stride(1), out.stride(0), TOP_K=top_k, BLOCK_N=64, BLOCK_K=128)
    return out
