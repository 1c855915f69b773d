# KV001, the DeepSeek MLA store incident in Triton: an int64 location is
# narrowed with .to(tl.int32), divided into a page, and the page is multiplied
# by the per-page stride (74,880 elements) in int32. It wraps at page 28,679.
# RUN: %if kvlint %{ not %kvlint --checks=KV001 %s | FileCheck %s --implicit-check-not=warning: %}
# GPU leg: one token stored at page 28,680 of a 4.3 GB cache (page * 74,880
# > 2^31). The buggy kernel's offset wraps: it faults or writes elsewhere;
# the fixed kernel writes the token where it belongs.
# RUN: %if triton-gpu %{ %python %s | FileCheck %s --check-prefix=GPU %}
# GPU: buggy: {{fault|token not at its page}}
# GPU-NEXT: fixed: token at page 28680 slot 5
import triton
import triton.language as tl

BYTES_PER_PAGE = tl.constexpr(74880)


@triton.jit
def mla_store_buggy(cache_ptr, loc_ptr, src_ptr, PAGE_SIZE: tl.constexpr, DIM: tl.constexpr):
    t = tl.program_id(0)
    loc = tl.load(loc_ptr + t).to(tl.int32)
    page = loc // PAGE_SIZE
    slot = loc % PAGE_SIZE
    d = tl.arange(0, DIM)
    v = tl.load(src_ptr + t * DIM + d)
    # CHECK: incident_mla_store.py:[[@LINE+2]]:12: warning: 32-bit signed product 'page * BYTES_PER_PAGE' is used as a memory offset and wraps past 2^31 in the inference profile: 'page' <= 8,388,607 ('loc_ptr' is an entry of a table named like it: below Envelope.KvSlots = 8,388,608) times 'BYTES_PER_PAGE' = 74,880; it wraps once 'page' >= 28,680; widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    # CHECK: fix-it: {{.*}}page.to(tl.int64) * BYTES_PER_PAGE
    dst = (page * BYTES_PER_PAGE + slot * DIM + d)
    tl.store(cache_ptr + dst, v)


# The fix: widen the page before it multiplies. slot * DIM is an in-page
# offset (slot < PAGE_SIZE) and needs nothing.
@triton.jit
def mla_store_fixed(cache_ptr, loc_ptr, src_ptr, PAGE_SIZE: tl.constexpr, DIM: tl.constexpr):
    t = tl.program_id(0)
    loc = tl.load(loc_ptr + t).to(tl.int32)
    page = loc // PAGE_SIZE
    slot = loc % PAGE_SIZE
    d = tl.arange(0, DIM)
    v = tl.load(src_ptr + t * DIM + d)
    dst = (page.to(tl.int64) * BYTES_PER_PAGE + slot * DIM + d)
    tl.store(cache_ptr + dst, v)


def _run(which):
    import torch
    PAGE_SIZE, DIM, page, slot = 64, 16, 28680, 5
    stride = BYTES_PER_PAGE.value
    cache = torch.zeros((page + 1) * stride, dtype=torch.bfloat16, device="cuda")
    loc = torch.tensor([page * PAGE_SIZE + slot], dtype=torch.int64, device="cuda")
    src = torch.full((DIM,), 3.0, dtype=torch.bfloat16, device="cuda")
    kernel = mla_store_buggy if which == "buggy" else mla_store_fixed
    kernel[(1,)](cache, loc, src, PAGE_SIZE=PAGE_SIZE, DIM=DIM)
    torch.cuda.synchronize()
    at = page * stride + slot * DIM
    return bool((cache[at:at + DIM] == 3.0).all())


if __name__ == "__main__":
    import subprocess
    import sys

    if len(sys.argv) > 1:  # child: run one kernel, report through the exit status
        sys.exit(0 if _run(sys.argv[1]) else 3)
    # The buggy store may fault (illegal address): run each in a child.
    r = subprocess.run([sys.executable, __file__, "buggy"], capture_output=True)
    err = r.stderr.decode()
    print("buggy: " + ("token not at its page" if r.returncode == 3 else
                       "fault" if r.returncode != 0 and "illegal memory access" in err else
                       "token at its page (unexpected)" if r.returncode == 0 else
                       "FAILED (%d): %s" % (r.returncode, err[-2000:])))
    r = subprocess.run([sys.executable, __file__, "fixed"], capture_output=True)
    print("fixed: " + ("token at page 28680 slot 5" if r.returncode == 0 else
                       "FAILED (%d): %s" % (r.returncode, r.stderr.decode()[-2000:])))
