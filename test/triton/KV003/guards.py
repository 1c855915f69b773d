# KV003 facet (Triton): KV stores that read a slot from a slot mapping. A store
# whose address is computed from the slot with nothing that excludes the pad
# slot (-1) is reported; each guard form Triton store kernels use is silent.
# RUN: %if kvlint %{ not %kvlint --checks=KV003 %s | FileCheck %s --implicit-check-not=warning: %}
# A store at a table nothing in the file pads or tests (cache_loc_ptr) is
# latent (issue 24): it shows with --level latent only.
# RUN: %if kvlint %{ not %kvlint --checks=KV003 --level latent %s | FileCheck %s --check-prefixes=CHECK,LATENT --implicit-check-not=warning: %}
import triton
import triton.language as tl


# Positive: one token per program, no skip.
@triton.jit
def store_unguarded(k_ptr, k_cache_ptr, slot_mapping_ptr, stride_k, stride_page,
                    PAGE_SIZE: tl.constexpr, HEAD_DIM: tl.constexpr):
    t = tl.program_id(0)
    slot = tl.load(slot_mapping_ptr + t).to(tl.int64)
    page = slot // PAGE_SIZE
    off = slot % PAGE_SIZE
    d = tl.arange(0, HEAD_DIM)
    k = tl.load(k_ptr + t * stride_k + d)
    # CHECK: guards.py:[[@LINE+1]]:5: warning: store address is computed from slot 'slot' read from 'slot_mapping_ptr' with no guard that skips the pad slot (-1); a padded token (CUDA-graph padding, a position past a narrow group's row) writes before the cache or into a live page{{.*}}; add 'slot >= 0' to the store's mask [kvlint-unchecked-pad-slot]
    tl.store(k_cache_ptr + page * stride_page + off * HEAD_DIM + d, k)


# Negative: the early return vLLM's reshape_and_cache_flash has.
@triton.jit
def store_early_return(k_ptr, k_cache_ptr, slot_mapping_ptr, stride_k, stride_page,
                       PAGE_SIZE: tl.constexpr, HEAD_DIM: tl.constexpr):
    t = tl.program_id(0)
    slot = tl.load(slot_mapping_ptr + t).to(tl.int64)
    if slot < 0:
        return
    d = tl.arange(0, HEAD_DIM)
    k = tl.load(k_ptr + t * stride_k + d)
    tl.store(k_cache_ptr + (slot // PAGE_SIZE) * stride_page + (slot % PAGE_SIZE) * HEAD_DIM + d, k)


# Positive: clamping the slot writes the pad token into slot 0.
@triton.jit
def store_clamped(k_ptr, k_cache_ptr, out_cache_loc_ptr, HEAD_DIM: tl.constexpr):
    t = tl.program_id(0)
    loc = tl.maximum(tl.load(out_cache_loc_ptr + t).to(tl.int64), 0)
    d = tl.arange(0, HEAD_DIM)
    # CHECK: guards.py:[[@LINE+1]]:5: warning: store address is computed from slot 'tl.load(out_cache_loc_ptr + t)' read from 'out_cache_loc_ptr' {{.*}}; clamping the slot (max(slot, 0), abs) is no guard: the pad token overwrites a live slot; skip the pad slot instead of clamping it [kvlint-unchecked-pad-slot]
    tl.store(k_cache_ptr + loc * HEAD_DIM + d, tl.load(k_ptr + t * HEAD_DIM + d))


# Negative: the slot test in the store's mask.
@triton.jit
def store_masked(k_ptr, k_cache_ptr, out_cache_loc_ptr, HEAD_DIM: tl.constexpr, D: tl.constexpr):
    t = tl.program_id(0)
    loc = tl.load(out_cache_loc_ptr + t).to(tl.int64)
    d = tl.arange(0, HEAD_DIM)
    tl.store(k_cache_ptr + loc * D + d, tl.load(k_ptr + t * D + d, mask=d < D),
             mask=(d < D) & (loc >= 0))


# Positive: a mask that bounds only the head dimension.
@triton.jit
def store_dim_mask(k_ptr, k_cache_ptr, out_cache_loc_ptr, HEAD_DIM: tl.constexpr, D: tl.constexpr):
    t = tl.program_id(0)
    loc = tl.load(out_cache_loc_ptr + t).to(tl.int64)
    d = tl.arange(0, HEAD_DIM)
    # CHECK: guards.py:[[@LINE+1]]:5: warning: store address is computed from slot 'loc' read from 'out_cache_loc_ptr'{{.*}}[kvlint-unchecked-pad-slot]
    tl.store(k_cache_ptr + loc * D + d, tl.load(k_ptr + t * D + d, mask=d < D), mask=d < D)


# Negative: tl.where builds the mask from the slot test.
@triton.jit
def store_where_mask(k_ptr, k_cache_ptr, out_cache_loc_ptr, HEAD_DIM: tl.constexpr, D: tl.constexpr):
    t = tl.program_id(0)
    loc = tl.load(out_cache_loc_ptr + t).to(tl.int64)
    d = tl.arange(0, HEAD_DIM)
    ok = tl.where(loc >= 0, d < D, False)
    tl.store(k_cache_ptr + loc * D + d, tl.load(k_ptr + t * D + d, mask=d < D), mask=ok)


# Positive: the guard is on the page, and -1 // PAGE_SIZE is 0 in Triton.
@triton.jit
def store_page_guard(k_ptr, k_cache_ptr, slot_mapping_ptr, stride_page,
                     PAGE_SIZE: tl.constexpr, HEAD_DIM: tl.constexpr):
    t = tl.program_id(0)
    slot = tl.load(slot_mapping_ptr + t).to(tl.int64)
    page = slot // PAGE_SIZE
    if page < 0:
        return
    d = tl.arange(0, HEAD_DIM)
    # CHECK: guards.py:[[@LINE+1]]:5: warning: store address is computed from slot 'slot' read from 'slot_mapping_ptr'{{.*}}[kvlint-unchecked-pad-slot]
    tl.store(k_cache_ptr + page * stride_page + (slot % PAGE_SIZE) * HEAD_DIM + d, tl.load(k_ptr + d))


# Negative: an enclosing if on the slot.
@triton.jit
def store_if(k_ptr, k_cache_ptr, slot_mapping_ptr, HEAD_DIM: tl.constexpr):
    t = tl.program_id(0)
    slot = tl.load(slot_mapping_ptr + t).to(tl.int64)
    if slot >= 0:
        d = tl.arange(0, HEAD_DIM)
        tl.store(k_cache_ptr + slot * HEAD_DIM + d, tl.load(k_ptr + t * HEAD_DIM + d))


# Positive: a block of tokens per program, the slots never tested.
@triton.jit
def store_tokens_unguarded(k_ptr, k_cache_ptr, slot_mapping_ptr, num_tokens,
                           BLOCK_T: tl.constexpr, HEAD_DIM: tl.constexpr):
    t = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    slots = tl.load(slot_mapping_ptr + t, mask=t < num_tokens, other=0).to(tl.int64)
    d = tl.arange(0, HEAD_DIM)
    k = tl.load(k_ptr + t[:, None] * HEAD_DIM + d[None, :], mask=(t < num_tokens)[:, None])
    # CHECK: guards.py:[[@LINE+1]]:5: warning: store address is computed from slot 'slots' read from 'slot_mapping_ptr'{{.*}}[kvlint-unchecked-pad-slot]
    tl.store(k_cache_ptr + slots[:, None] * HEAD_DIM + d[None, :], k, mask=(t < num_tokens)[:, None])


# Negative: the same block of tokens, the pad lanes masked out.
@triton.jit
def store_tokens_masked(k_ptr, k_cache_ptr, slot_mapping_ptr, num_tokens,
                        BLOCK_T: tl.constexpr, HEAD_DIM: tl.constexpr):
    t = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    slots = tl.load(slot_mapping_ptr + t, mask=t < num_tokens, other=-1).to(tl.int64)
    d = tl.arange(0, HEAD_DIM)
    valid = (t < num_tokens) & (slots >= 0)
    k = tl.load(k_ptr + t[:, None] * HEAD_DIM + d[None, :], mask=valid[:, None])
    tl.store(k_cache_ptr + slots[:, None] * HEAD_DIM + d[None, :], k, mask=valid[:, None])


# Positive: an atomic add into the cache at the slot.
@triton.jit
def atomic_unguarded(x_ptr, kv_cache_ptr, cache_loc_ptr, HEAD_DIM: tl.constexpr):
    t = tl.program_id(0)
    loc = tl.load(cache_loc_ptr + t)
    d = tl.arange(0, HEAD_DIM)
    # LATENT: guards.py:[[@LINE+1]]:5: warning: store address is computed from slot 'loc' read from 'cache_loc_ptr'{{.*}}; latent: nothing in this file{{.*}}[kvlint-unchecked-pad-slot]
    tl.atomic_add(kv_cache_ptr + loc * HEAD_DIM + d, tl.load(x_ptr + t * HEAD_DIM + d))


# Negative: an early return on the named pad value.
@triton.jit
def store_named_pad(k_ptr, k_cache_ptr, slot_mapping_ptr, HEAD_DIM: tl.constexpr,
                    PAD_SLOT_ID: tl.constexpr):
    t = tl.program_id(0)
    slot = tl.load(slot_mapping_ptr + t)
    if slot == PAD_SLOT_ID:
        return
    d = tl.arange(0, HEAD_DIM)
    tl.store(k_cache_ptr + slot * HEAD_DIM + d, tl.load(k_ptr + t * HEAD_DIM + d))


# Negative: a state-slot table whose pad is a null block id (Mamba state
# caches): 'idx <= null_block_id: return' excludes it.
@triton.jit
def state_store_null_block(x_ptr, conv_state_ptr, state_indices_ptr, null_block_id, stride_block,
                           DIM: tl.constexpr):
    b = tl.program_id(0)
    state_idx = tl.load(state_indices_ptr + b).to(tl.int64)
    if state_idx <= null_block_id:
        return
    d = tl.arange(0, DIM)
    tl.store(conv_state_ptr + state_idx * stride_block + d, tl.load(x_ptr + b * DIM + d))


# Negative: token indices are not slots, even in a store into a cache.
@triton.jit
def cache_by_token_index(h_ptr, cached_h_ptr, last_token_indices_ptr, stride, DIM: tl.constexpr):
    r = tl.program_id(0)
    last = tl.load(last_token_indices_ptr + r)
    d = tl.arange(0, DIM)
    tl.store(cached_h_ptr + r * stride + d, tl.load(h_ptr + last * stride + d))


# Negative: a chunk-to-sequence index table (varlen chunking) is not a slot
# mapping, even in a store into a state cache.
@triton.jit
def final_state_by_chunk(x_ptr, cache_out, chunk_indices, D: tl.constexpr):
    i_n = tl.load(chunk_indices + tl.program_id(0) * 2).to(tl.int32)
    d = tl.arange(0, D)
    tl.store(cache_out + i_n * D + d, tl.load(x_ptr + d))


# Positive: a state store at an index read under a constexpr flag, no skip.
@triton.jit
def state_update_flag_unguarded(x_ptr, state_ptr, state_indices_ptr, stride_state,
                                HAS_INDICES: tl.constexpr, D: tl.constexpr):
    pid = tl.program_id(0)
    if HAS_INDICES:
        idx = tl.load(state_indices_ptr + pid)
        state_ptr += idx * stride_state
    else:
        state_ptr += pid * stride_state
    d = tl.arange(0, D)
    # CHECK: guards.py:[[@LINE+1]]:5: warning: store address is computed from slot 'idx' read from 'state_indices_ptr'{{.*}}[kvlint-unchecked-pad-slot]
    tl.store(state_ptr + d, tl.load(x_ptr + pid * D + d))


# Negative: mamba's selective_state_update. The early return sits inside
# the flag's branch (`if HAS_INDICES: ...; if idx < 0: return`), and the
# store after the branch is reached only past it.
@triton.jit
def state_update_flag_skip(x_ptr, state_ptr, state_indices_ptr, stride_state,
                           HAS_INDICES: tl.constexpr, D: tl.constexpr):
    pid = tl.program_id(0)
    if HAS_INDICES:
        idx = tl.load(state_indices_ptr + pid)
        if idx < 0:
            return
        state_ptr += idx * stride_state
    else:
        state_ptr += pid * stride_state
    d = tl.arange(0, D)
    tl.store(state_ptr + d, tl.load(x_ptr + pid * D + d))


def pad_the_indices(state_indices, n):
    state_indices[n:] = -1  # the tree pads these indices with -1
