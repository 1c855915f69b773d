import torch
import triton
import triton.language as tl


@triton.jit
def topk_renormalize_kernel(topk_weights_ptr, TOPK: tl.constexpr,
                            BLOCK_K: tl.constexpr):
    token = tl.program_id(0)
    offs_k = tl.arange(0, BLOCK_K)
    mask = offs_k < TOPK
    ptrs = topk_weights_ptr + token * TOPK + offs_k
    w = tl.load(ptrs, mask=mask, other=0.0).to(tl.float32)
    w = w / tl.sum(w, axis=0)
    tl.store(ptrs, w.to(topk_weights_ptr.dtype.element_ty), mask=mask)


def topk_renormalize_(topk_weights: torch.Tensor) -> None:
    # topk_weights: [num_tokens, top_k] router weights of the selected experts
    num_tokens, top_k = topk_weights.shape
    assert top_k <= 32, "MoE routing selects at most 32 experts"
    assert topk_weights.is_contiguous()
    topk_renormalize_kernel[(num_tokens,)](topk_weights, TOPK=top_k,
                                           BLOCK_K=triton.next_power_of_2(top_k))
