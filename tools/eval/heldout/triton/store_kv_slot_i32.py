import torch
import triton
import triton.language as tl


@triton.jit
def store_kv_kernel(key_ptr, key_cache_ptr, slot_mapping_ptr,
                    stride_key_tok, stride_cache_block, stride_cache_slot,
                    BLOCK_SIZE: tl.constexpr, ROW: tl.constexpr):
    token = tl.program_id(0).to(tl.int64)
    slot = tl.load(slot_mapping_ptr + token)
    if slot < 0:
        return
    block_idx = slot // BLOCK_SIZE
    block_off = slot % BLOCK_SIZE
    offs = tl.arange(0, ROW)
    k = tl.load(key_ptr + token * stride_key_tok + offs)
    dst = block_idx * stride_cache_block + block_off * stride_cache_slot + offs
    tl.store(key_cache_ptr + dst, k)


def store_kv(key: torch.Tensor, key_cache: torch.Tensor, block_table: torch.Tensor,
             positions: torch.Tensor, req_indices: torch.Tensor) -> None:
    # key: [num_tokens, num_kv_heads * head_size]
    # key_cache: [num_blocks, block_size, num_kv_heads * head_size]
    num_tokens = key.shape[0]
    block_size = key_cache.shape[1]
    block_ids = block_table[req_indices, positions // block_size]
    slot_mapping = torch.empty(num_tokens, dtype=torch.int32, device=key.device)
    torch.add(block_ids * block_size, positions % block_size, out=slot_mapping)
    store_kv_kernel[(num_tokens,)](key, key_cache, slot_mapping, key.stride(0),
                                   key_cache.stride(0), key_cache.stride(1),
                                   BLOCK_SIZE=block_size, ROW=key.shape[1])
