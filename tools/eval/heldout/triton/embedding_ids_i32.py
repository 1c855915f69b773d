import torch
import triton
import triton.language as tl


@triton.jit
def embedding_kernel(input_ids_ptr, weight_ptr, out_ptr, stride_w, stride_o,
                     hidden_size, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    tok_id = tl.load(input_ids_ptr + pid)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < hidden_size
    row = tl.load(weight_ptr + tok_id * stride_w + cols, mask=mask, other=0.0)
    tl.store(out_ptr + pid * stride_o + cols, row, mask=mask)


def embedding(input_ids: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    # weight: [vocab_size, hidden_size]; input_ids: [num_tokens]
    vocab_size, hidden_size = weight.shape
    input_ids = input_ids.to(torch.int32)
    num_tokens = input_ids.shape[0]
    out = torch.empty((num_tokens, hidden_size), dtype=weight.dtype, device=weight.device)
    embedding_kernel[(num_tokens,)](input_ids, weight, out, weight.stride(0), out.stride(0),
                                    hidden_size, BLOCK_N=triton.next_power_of_2(hidden_size))
    return out
