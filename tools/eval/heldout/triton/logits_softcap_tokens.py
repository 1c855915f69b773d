import torch
import triton
import triton.language as tl


@triton.jit
def logits_softcap_kernel(logits_ptr, vocab_size, cap, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    col_block = tl.program_id(1)
    offs = col_block * BLOCK + tl.arange(0, BLOCK)
    mask = offs < vocab_size
    ptrs = logits_ptr + row * vocab_size + offs
    x = tl.load(ptrs, mask=mask, other=0.0).to(tl.float32)
    x = cap * (2.0 * tl.sigmoid(2.0 * x / cap) - 1.0)
    tl.store(ptrs, x.to(logits_ptr.dtype.element_ty), mask=mask)


def softcap_logits_(logits: torch.Tensor, cap: float) -> torch.Tensor:
    # logits: [num_tokens, vocab_size] for every scheduled token (prompt logprobs)
    assert logits.is_contiguous()
    num_tokens, vocab_size = logits.shape
    BLOCK = 4096
    grid = (num_tokens, triton.cdiv(vocab_size, BLOCK))
    logits_softcap_kernel[grid](logits, vocab_size, cap, BLOCK=BLOCK)
    return logits
