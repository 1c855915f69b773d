# KV003 known gaps, pinned so that a change of scope shows in the diff. Each
# FIXME says what a precise analysis would report.
# (The store below is latent: the only pad test on state_batch_indices is the
# one this gap hides, so the file shows no evidence; --level latent shows it.)
# RUN: %if kvlint %{ not %kvlint --checks=KV003 --level latent %s | FileCheck %s --implicit-check-not=warning: %}
import triton
import triton.language as tl


# FIXME (false positive): the early return sits inside a constexpr branch
# (vLLM's Mamba replay kernels: `if HAS_STATE_BATCH_INDICES:` ... `if idx ==
# null_block_id: return`); past the join the slot is a merge of the loaded
# slot and the program id, and the guard of the branch is lost. Only the
# first constexpr flags are specialised by the frontend; this is the fourth.
@triton.jit
def guard_in_flag_branch(x_ptr, x_cache_ptr, state_batch_indices_ptr, null_block_id, stride_b,
                         A: tl.constexpr, B: tl.constexpr, C: tl.constexpr,
                         HAS_STATE_BATCH_INDICES: tl.constexpr, DIM: tl.constexpr):
    if A:
        a = 1
    if B:
        b = 2
    if C:
        c = 3
    pid_b = tl.program_id(0)
    if HAS_STATE_BATCH_INDICES:
        state_batch_idx = tl.load(state_batch_indices_ptr + pid_b).to(tl.int64)
        if state_batch_idx == null_block_id:
            return
    else:
        state_batch_idx = pid_b
    d = tl.arange(0, DIM)
    # CHECK: known_gaps.py:[[@LINE+1]]:5: warning: store address is computed from slot {{.*}}[kvlint-unchecked-pad-slot]
    tl.store(x_cache_ptr + state_batch_idx * stride_b + d, tl.load(x_ptr + pid_b * DIM + d))


# FIXME (missed): the slot arrives as a scalar argument, not read from a
# table in the kernel, so nothing marks it as a slot; a launcher that passes
# a padded token's slot writes before the cache.
@triton.jit
def slot_argument(x_ptr, k_cache_ptr, slot, DIM: tl.constexpr):
    d = tl.arange(0, DIM)
    tl.store(k_cache_ptr + slot * DIM + d, tl.load(x_ptr + d))
