import torch
import triton
import triton.language as tl


@triton.jit
def greedy_accept_kernel(output_token_ids_ptr, cu_num_draft_tokens_ptr,
                         draft_token_ids_ptr, target_argmax_ptr, bonus_token_ids_ptr,
                         MAX_SPEC_LEN: tl.constexpr):
    req_idx = tl.program_id(0)
    start_idx = 0 if req_idx == 0 else tl.load(cu_num_draft_tokens_ptr + req_idx - 1)
    end_idx = tl.load(cu_num_draft_tokens_ptr + req_idx)
    num_draft_tokens = end_idx - start_idx
    out_row = output_token_ids_ptr + req_idx * (MAX_SPEC_LEN + 1)
    rejected = False
    for pos in range(num_draft_tokens):
        if not rejected:
            draft_id = tl.load(draft_token_ids_ptr + start_idx + pos)
            target_id = tl.load(target_argmax_ptr + start_idx + pos)
            tl.store(out_row + pos, target_id)
            rejected = draft_id != target_id
    if not rejected:
        bonus = tl.load(bonus_token_ids_ptr + req_idx)
        tl.store(out_row + num_draft_tokens, bonus)


def greedy_accept(draft_token_ids, cu_num_draft_tokens, target_argmax,
                  bonus_token_ids, max_spec_len: int) -> torch.Tensor:
    batch_size = cu_num_draft_tokens.shape[0]
    output_token_ids = torch.full((batch_size, max_spec_len + 1), -1,
                                  dtype=torch.int32, device=draft_token_ids.device)
    greedy_accept_kernel[(batch_size,)](output_token_ids, cu_num_draft_tokens,
                                        draft_token_ids, target_argmax, bonus_token_ids,
                                        MAX_SPEC_LEN=max_spec_len)
    return output_token_ids
