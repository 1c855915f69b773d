import torch
import triton
import triton.language as tl


@triton.jit
def unpack_int4_kernel(packed_ptr, out_ptr, scale_ptr, stride_packed, stride_out,
                       n_packed, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    lanes = tl.arange(0, BLOCK)
    mask = lanes < n_packed
    src = packed_ptr + row * stride_packed
    packed = tl.load(src + lanes, mask=mask, other=0).to(tl.int32)
    scale = tl.load(scale_ptr + row).to(tl.float32)
    dst = out_ptr + row * stride_out + lanes * 4
    for j in tl.static_range(4):
        nib = ((packed >> (j * 4)) & 0xF) - 8
        tl.store(dst + j, (nib.to(tl.float32) * scale).to(out_ptr.dtype.element_ty),
                 mask=mask)


def unpack_int4(packed: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    # packed: [rows, cols // 4] uint16 holding four 4-bit values each
    rows, packed_cols = packed.shape
    out = torch.empty((rows, packed_cols * 4), dtype=torch.bfloat16, device=packed.device)
    unpack_int4_kernel[(rows,)](packed, out, scale, packed.stride(0), out.stride(0),
                                packed_cols, BLOCK=triton.next_power_of_2(packed_cols))
    return out
