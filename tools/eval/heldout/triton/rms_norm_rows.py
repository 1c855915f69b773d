import torch
import triton
import triton.language as tl


@triton.jit
def rms_norm_kernel(x_ptr, w_ptr, out_ptr, stride_row, hidden_size, eps,
                    BLOCK_N: tl.constexpr):
    token = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < hidden_size
    row_off = token * stride_row
    x = tl.load(x_ptr + row_off + cols, mask=mask, other=0.0).to(tl.float32)
    var = tl.sum(x * x, axis=0) / hidden_size
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    y = x * tl.rsqrt(var + eps) * w
    tl.store(out_ptr + row_off + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6):
    x = x.contiguous()
    out = torch.empty_like(x)
    num_tokens, hidden_size = x.shape
    BLOCK_N = triton.next_power_of_2(hidden_size)
    rms_norm_kernel[(num_tokens,)](x, weight, out, x.stride(0), hidden_size,
                                   eps, BLOCK_N=BLOCK_N)
    return out
