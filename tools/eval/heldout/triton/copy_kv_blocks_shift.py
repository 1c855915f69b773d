import torch
import triton
import triton.language as tl


@triton.jit
def copy_blocks_kernel(cache_ptr, block_mapping_ptr, LOG2_BLOCK_NUMEL: tl.constexpr,
                       TILE: tl.constexpr):
    pair = tl.program_id(0)
    src_block = tl.load(block_mapping_ptr + 2 * pair)
    dst_block = tl.load(block_mapping_ptr + 2 * pair + 1)
    src = cache_ptr + (src_block << LOG2_BLOCK_NUMEL)
    dst = cache_ptr + (dst_block << LOG2_BLOCK_NUMEL)
    offs = tl.arange(0, TILE)
    for start in range(0, 1 << LOG2_BLOCK_NUMEL, TILE):
        tl.store(dst + start + offs, tl.load(src + start + offs))


def copy_blocks(kv_cache: torch.Tensor, src_to_dst: torch.Tensor) -> None:
    # kv_cache: [num_blocks, block_size, num_kv_heads, head_size], block numel a power of 2
    block_numel = kv_cache[0].numel()
    assert block_numel & (block_numel - 1) == 0
    block_mapping = src_to_dst.to(torch.int32).contiguous()
    num_pairs = block_mapping.shape[0]
    copy_blocks_kernel[(num_pairs,)](kv_cache, block_mapping,
                                     LOG2_BLOCK_NUMEL=block_numel.bit_length() - 1,
                                     TILE=1024)
