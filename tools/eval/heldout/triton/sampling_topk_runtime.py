import torch
import triton
import triton.language as tl


@triton.jit
def topk_probs_normalize_kernel(topk_probs_ptr, top_k, BLOCK_K: tl.constexpr):
    token = tl.program_id(0)
    row = topk_probs_ptr + token * top_k
    total = tl.zeros([], dtype=tl.float32)
    for start in range(0, top_k, BLOCK_K):
        offs = start + tl.arange(0, BLOCK_K)
        total += tl.sum(tl.load(row + offs, mask=offs < top_k, other=0.0), axis=0)
    for start in range(0, top_k, BLOCK_K):
        offs = start + tl.arange(0, BLOCK_K)
        p = tl.load(row + offs, mask=offs < top_k, other=0.0)
        tl.store(row + offs, p / total, mask=offs < top_k)


def topk_probs_normalize_(topk_probs: torch.Tensor) -> None:
    # topk_probs: [num_tokens, top_k] probabilities kept by top-k sampling,
    # one row per scored token (spec decode scores every draft position)
    num_tokens, top_k = topk_probs.shape
    assert topk_probs.is_contiguous()
    topk_probs_normalize_kernel[(num_tokens,)](topk_probs, top_k, BLOCK_K=256)
