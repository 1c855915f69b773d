import torch
import triton
import triton.language as tl


@triton.jit
def gather_target_logit_kernel(logits_ptr, logits_stride, target_ids_ptr, out_ptr):
    token_idx = tl.program_id(0)
    target = tl.load(target_ids_ptr + token_idx)
    # widened after the multiply
    row_start = (token_idx * logits_stride).to(tl.int64)
    logit = tl.load(logits_ptr + row_start + target)
    tl.store(out_ptr + token_idx, logit.to(tl.float32))


def gather_target_logits(logits: torch.Tensor, target_ids: torch.Tensor) -> torch.Tensor:
    # logits: [num_tokens, vocab_size] (all prompt tokens for prompt logprobs)
    num_tokens = logits.shape[0]
    target_ids = target_ids.to(torch.int32)
    out = torch.empty(num_tokens, dtype=torch.float32, device=logits.device)
    gather_target_logit_kernel[(num_tokens,)](logits, logits.stride(0), target_ids, out)
    return out
