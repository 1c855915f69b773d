import triton
@triton.jit
def k(p, q
    x = tl.load(p + (((((1)))))
    tl.store(q + x * , x)
    if x:
  return
@triton.jit(do_not_specialize=["n"])
def k2(p, n: tl.int64): tl.store(p + n * n, 0)
