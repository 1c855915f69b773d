# KV003 evidence from the tree's Python: the model runner fills the unused
# tail of the slot mapping with -1 before a CUDA-graph replay (vLLM's
# idiom), so the store kernel that reads it must skip the pad: reported at
# the default level, naming the host code that pads.
# RUN: %if kvlint %{ not %kvlint --checks=KV003 %s | FileCheck %s --implicit-check-not=warning: %}
import triton
import triton.language as tl


@triton.jit
def _store_kv(k_ptr, k_cache_ptr, slot_mapping_ptr, D: tl.constexpr):
    pid = tl.program_id(0)
    slot = tl.load(slot_mapping_ptr + pid)
    d = tl.arange(0, D)
    # CHECK: pad-tree.py:[[@LINE+1]]:5: warning: store address is computed from slot 'slot' read from 'slot_mapping_ptr'{{.*}}; 'slot_mapping_ptr' can hold the pad: the tree's Python pads it ('slot_mapping[num_tokens:].fill_(-1)'); add 'slot >= 0' to the store's mask [kvlint-unchecked-pad-slot]
    tl.store(k_cache_ptr + slot * D + d, tl.load(k_ptr + pid * D + d))


def prepare_replay(slot_mapping, num_tokens):
    slot_mapping[num_tokens:].fill_(-1)


def store_kv(k, k_cache, slot_mapping):
    _store_kv[(k.shape[0],)](k, k_cache, slot_mapping, D=k.shape[1])
