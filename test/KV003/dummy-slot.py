# KV003 evidence, negative (Triton): the engine pads a replayed batch with
# the dummy slot 0 (`torch.zeros`), so no slot is ever -1 and the store is
# latent only.
# RUN: %if kvlint %{ %kvlint --checks=KV003 %s | FileCheck %s --check-prefix=DEFAULT --allow-empty --implicit-check-not=warning: %}
# RUN: %if kvlint %{ not %kvlint --checks=KV003 --level latent %s | FileCheck %s --check-prefix=LATENT --implicit-check-not=warning: %}
# DEFAULT-NOT: warning:
import torch
import triton
import triton.language as tl


@triton.jit
def _set_kv(k_ptr, k_buffer_ptr, out_cache_loc_ptr, D: tl.constexpr):
    pid = tl.program_id(0)
    loc = tl.load(out_cache_loc_ptr + pid)
    d = tl.arange(0, D)
    # LATENT: dummy-slot.py:[[@LINE+1]]:5: warning: store address is computed from slot 'loc' read from 'out_cache_loc_ptr'{{.*}}; latent: nothing in this file or the tree's Python writes a negative value or PAD_SLOT_ID into 'out_cache_loc_ptr'
    tl.store(k_buffer_ptr + loc * D + d, tl.load(k_ptr + pid * D + d))


def pad_batch(num_tokens, padded, device):
    out_cache_loc = torch.zeros(padded, dtype=torch.int64, device=device)
    return out_cache_loc
