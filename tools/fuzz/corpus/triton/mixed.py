import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def store(cache, slots, stride: tl.constexpr, n, BLOCK: tl.constexpr, FLAG: tl.constexpr = False):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    slot = tl.load(slots + pid).to(tl.int32)
    if slot < 0:
        return
    page = slot // 16
    for i in range(0, n, BLOCK):
        mask = (i + offs) < n
        x = tl.load(cache + page * stride + i + offs, mask=mask, other=0)
        tl.store(cache + page.to(tl.int64) * stride + i + offs, tl.where(mask, x, 0), mask=mask)
    while n > 0:
        n -= 1
    a = b = tl.load(slots + pid)
    if FLAG:
        tl.atomic_add(cache + a * stride, 1)
    p = tl.make_block_ptr(cache, (n,), (1,), (pid * BLOCK,), (BLOCK,), (0,))


kernel = triton.jit(store)
