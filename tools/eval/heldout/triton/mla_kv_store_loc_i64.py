import torch
import triton
import triton.language as tl

PAGE_SIZE = 256
TOKEN_ELEMS = 288          # 256 fp8 latent bytes as bf16 pairs + 32 rope
ELEMS_PER_PAGE = 74880      # 256 token rows of 292 elements + a 128-element page footer


@triton.jit
def mla_kv_store_kernel(kv_cache_ptr, kv_new_ptr, out_cache_loc_ptr,
                        PAGE_SIZE: tl.constexpr, TOKEN_ELEMS: tl.constexpr,
                        ELEMS_PER_PAGE: tl.constexpr, BLOCK: tl.constexpr):
    token = tl.program_id(0).to(tl.int64)
    loc = tl.load(out_cache_loc_ptr + token)
    page = loc // PAGE_SIZE
    in_page = loc % PAGE_SIZE
    offs = tl.arange(0, BLOCK)
    mask = offs < TOKEN_ELEMS
    src = kv_new_ptr + token * TOKEN_ELEMS + offs
    dst = kv_cache_ptr + page * ELEMS_PER_PAGE
    dst += in_page * TOKEN_ELEMS + offs
    tl.store(dst, tl.load(src, mask=mask), mask=mask)


def mla_kv_store(kv_cache: torch.Tensor, kv_new: torch.Tensor, allocator) -> torch.Tensor:
    # kv_cache: flat bf16 pool of num_pages * ELEMS_PER_PAGE; kv_new: [num_tokens, 288]
    num_tokens = kv_new.shape[0]
    out_cache_loc = torch.empty(num_tokens, dtype=torch.int64, device=kv_new.device)
    allocator.alloc_slots(num_tokens, out=out_cache_loc)
    mla_kv_store_kernel[(num_tokens,)](kv_cache, kv_new, out_cache_loc,
                                       PAGE_SIZE=PAGE_SIZE, TOKEN_ELEMS=TOKEN_ELEMS,
                                       ELEMS_PER_PAGE=ELEMS_PER_PAGE, BLOCK=512)
    return out_cache_loc
