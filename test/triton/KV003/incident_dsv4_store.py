# KV003, the DeepSeek-V4 store incident (SGLang's store kernels before their
# fix added `if loc < 0: return`), in a minimal kernel of the same shape: a
# page holds PAGE_SIZE rows of data followed by PAGE_SIZE per-token scales,
# and the kernel stores a token's row and scale at out_cache_loc[token]. A
# padded token (loc = -1) is stored too: its row lands before the cache and
# its scale lands on the last data row of page 0 (slot PAGE_SIZE - 1), a live
# token's KV.
# RUN: %if kvlint %{ not %kvlint --checks=KV003 %s | FileCheck %s --implicit-check-not=warning: %}
# GPU leg: a canary region on both sides of a two-page cache; the buggy
# kernel changes elements outside the live tokens' slots, the fixed one none.
# RUN: %if triton-gpu %{ %python %s | FileCheck %s --check-prefix=GPU %}
# GPU: buggy: pad token (loc -1) changed {{[1-9][0-9]*}} elements outside the live tokens' slots
# GPU: fixed: pad token (loc -1) changed 0 elements outside the live tokens' slots; live slots ok
import triton
import triton.language as tl


@triton.jit
def _store_row_and_scale(row_ptr, scale_ptr, cache_ptr, out_cache_loc_ptr,
                         PAGE_SIZE: tl.constexpr, DIM: tl.constexpr, PAGE_ELEMS: tl.constexpr):
    pid = tl.program_id(0)
    loc = tl.load(out_cache_loc_ptr + pid)
    page = loc // PAGE_SIZE
    off = loc % PAGE_SIZE
    d = tl.arange(0, DIM)
    page_base = cache_ptr + page.to(tl.int64) * PAGE_ELEMS
    # CHECK: incident_dsv4_store.py:[[@LINE+1]]:5: warning: store address is computed from slot 'loc' read from 'out_cache_loc_ptr' with no guard that skips the pad slot (-1){{.*}}[kvlint-unchecked-pad-slot]
    tl.store(page_base + off * DIM + d, tl.load(row_ptr + pid * DIM + d))
    # CHECK: incident_dsv4_store.py:[[@LINE+1]]:5: warning: store address is computed from slot 'loc' read from 'out_cache_loc_ptr'{{.*}}[kvlint-unchecked-pad-slot]
    tl.store(page_base + PAGE_SIZE * DIM + off, tl.load(scale_ptr + pid))


# The fix: a padded token stores nothing.
@triton.jit
def _store_row_and_scale_fixed(row_ptr, scale_ptr, cache_ptr, out_cache_loc_ptr,
                               PAGE_SIZE: tl.constexpr, DIM: tl.constexpr,
                               PAGE_ELEMS: tl.constexpr):
    pid = tl.program_id(0)
    loc = tl.load(out_cache_loc_ptr + pid)
    if loc < 0:
        return
    page = loc // PAGE_SIZE
    off = loc % PAGE_SIZE
    d = tl.arange(0, DIM)
    page_base = cache_ptr + page.to(tl.int64) * PAGE_ELEMS
    tl.store(page_base + off * DIM + d, tl.load(row_ptr + pid * DIM + d))
    tl.store(page_base + PAGE_SIZE * DIM + off, tl.load(scale_ptr + pid))


if __name__ == "__main__":
    import torch

    PAGE, DIM, PAGES, CANARY, INIT = 4, 8, 2, 64, 7777
    PAGE_ELEMS = PAGE * DIM + PAGE
    dev = "cuda"
    locs = [5, -1, 2]  # token 1 is a padded token (CUDA-graph padding)
    rows = torch.arange(len(locs) * DIM, dtype=torch.int32, device=dev).view(len(locs), DIM) + 100
    scales = torch.tensor([11, 12, 13], dtype=torch.int32, device=dev)
    loc_t = torch.tensor(locs, dtype=torch.int32, device=dev)

    def where(i):
        if i < CANARY:
            return "canary before the cache"
        if i >= CANARY + PAGES * PAGE_ELEMS:
            return "canary after the cache"
        c = i - CANARY
        page, r = divmod(c, PAGE_ELEMS)
        if r < PAGE * DIM:
            return "page %d data of slot %d" % (page, r // DIM)
        return "page %d scale of slot %d" % (page, r - PAGE * DIM)

    def run(kernel):
        buf = torch.full((CANARY + PAGES * PAGE_ELEMS + CANARY,), INIT, dtype=torch.int32, device=dev)
        cache = buf[CANARY:CANARY + PAGES * PAGE_ELEMS]
        kernel[(len(locs),)](rows, scales, cache, loc_t, PAGE_SIZE=PAGE, DIM=DIM, PAGE_ELEMS=PAGE_ELEMS)
        torch.cuda.synchronize()
        return buf.cpu()

    def expected():
        buf = torch.full((CANARY + PAGES * PAGE_ELEMS + CANARY,), INIT, dtype=torch.int32)
        for t, loc in enumerate(locs):
            if loc < 0:
                continue
            page, off = divmod(loc, PAGE)
            base = CANARY + page * PAGE_ELEMS
            buf[base + off * DIM: base + (off + 1) * DIM] = rows[t].cpu()
            buf[base + PAGE * DIM + off] = scales[t].cpu()
        return buf

    want = expected()
    live = want != INIT
    for name, kernel in (("buggy", _store_row_and_scale), ("fixed", _store_row_and_scale_fixed)):
        got = run(kernel)
        changed = ((got != want) & ~live).nonzero().flatten().tolist()
        live_ok = torch.equal(got[live], want[live])
        places = sorted({where(i) for i in changed})
        print("%s: pad token (loc -1) changed %d elements outside the live tokens' slots%s; live slots %s"
              % (name, len(changed), (" (" + ", ".join(places) + ")") if places else "",
                 "ok" if live_ok else "CHANGED"))
