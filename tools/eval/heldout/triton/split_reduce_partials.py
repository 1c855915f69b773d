import torch
import triton
import triton.language as tl

NUM_SPLITS = 256


@triton.jit
def split_column_sum_kernel(x_ptr, partial_ptr, num_tokens, stride_x, stride_p,
                            hidden_size, NUM_SPLITS: tl.constexpr, BLOCK_N: tl.constexpr):
    split = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < hidden_size
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for row in range(split, num_tokens, NUM_SPLITS):
        x = tl.load(x_ptr + row.to(tl.int64) * stride_x + cols, mask=mask, other=0.0)
        acc += x.to(tl.float32)
    tl.store(partial_ptr + split * stride_p + cols, acc, mask=mask)


def column_sum(x: torch.Tensor) -> torch.Tensor:
    num_tokens, hidden_size = x.shape
    partial = torch.empty((NUM_SPLITS, hidden_size), dtype=torch.float32, device=x.device)
    split_column_sum_kernel[(NUM_SPLITS,)](x, partial, num_tokens, x.stride(0),
                                           partial.stride(0), hidden_size,
                                           NUM_SPLITS=NUM_SPLITS,
                                           BLOCK_N=triton.next_power_of_2(hidden_size))
    return partial.sum(dim=0)
