import torch
import triton
import triton.language as tl


@triton.jit
def apply_temperature_kernel(logits_ptr, temperature_ptr, vocab_size,
                             BLOCK: tl.constexpr):
    req_idx = tl.program_id(0)
    temp = tl.load(temperature_ptr + req_idx)
    if (temp == 0.0) | (temp == 1.0):
        return
    row_ptr = logits_ptr + req_idx * vocab_size
    for start in range(0, vocab_size, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < vocab_size
        x = tl.load(row_ptr + offs, mask=mask, other=0.0)
        tl.store(row_ptr + offs, x / temp, mask=mask)


def apply_temperature(logits: torch.Tensor, temperature: torch.Tensor) -> None:
    # logits: [num_reqs, vocab_size], one sampled row per running request
    num_reqs, vocab_size = logits.shape
    assert temperature.shape[0] == num_reqs
    apply_temperature_kernel[(num_reqs,)](logits, temperature, vocab_size,
                                          BLOCK=8192)
