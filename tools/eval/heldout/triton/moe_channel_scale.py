import torch
import triton
import triton.language as tl


@triton.jit
def moe_apply_channel_scale_kernel(c_ptr, scale_ptr, expert_ids_ptr, N,
                                   stride_cm, stride_bse,
                                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    off_expert = tl.load(expert_ids_ptr + pid_m)
    offs_m = pid_m.to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    n_mask = offs_n < N
    # per-output-channel scale of this block's expert: scale is [num_experts, N]
    s = tl.load(scale_ptr + off_expert * stride_bse + offs_n, mask=n_mask, other=1.0)
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    c = tl.load(c_ptrs, mask=n_mask[None, :], other=0.0).to(tl.float32)
    tl.store(c_ptrs, (c * s[None, :]).to(c_ptr.dtype.element_ty), mask=n_mask[None, :])


def moe_apply_channel_scale(c: torch.Tensor, w_scale: torch.Tensor,
                            expert_ids: torch.Tensor) -> None:
    # c: [num_blocks * 64, N] expert-sorted outputs; w_scale: [num_experts, N] fp32
    N = c.shape[1]
    expert_ids = expert_ids.to(torch.int32)
    grid = (expert_ids.shape[0], triton.cdiv(N, 128))
    moe_apply_channel_scale_kernel[grid](c, w_scale, expert_ids, N, c.stride(0),
                                         w_scale.stride(0), BLOCK_M=64, BLOCK_N=128)
