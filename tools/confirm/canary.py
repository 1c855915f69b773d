#===- canary.py - tensors with canary regions on both sides -----------------===#
"""A tensor of n elements is carved out of one buffer [lo pad | tensor | hi pad].

The pads hold a canary bit pattern.  A wrapped store that lands in a pad
changes it; a wrapped load that reads a pad returns the canary, which the
reference comparison then sees.  Layout and the bit patterns are plain
Python (tested without torch); `alloc`/`check` take torch lazily.
"""

# A bit pattern per element width: not a small integer, not 0, not -1 (the pad
# slot), a NaN-free float in every float type of that width.
CANARY_BITS = {1: 0x5A, 2: 0x5A5A, 4: 0x5A5A5A5A, 8: 0x5A5A5A5A5A5A5A5A}
ITEMSIZE = {"bfloat16": 2, "float16": 2, "float32": 4, "int32": 4, "int64": 8, "uint8": 1, "int8": 1}
INT_VIEW = {1: "uint8", 2: "int16", 4: "int32", 8: "int64"}


def signed_bits(bits, size):
    """CANARY_BITS[size] as the signed integer the int view holds."""
    if bits >= 1 << (8 * size - 1) and size > 1:
        bits -= 1 << (8 * size)
    return bits


class Layout:
    """Offsets of the three regions in one buffer, in elements."""

    def __init__(self, n, lo=65536, hi=65536):
        if n < 0 or lo < 0 or hi < 0:
            raise ValueError("negative region size")
        self.n, self.lo, self.hi = n, lo, hi

    @property
    def total(self):
        return self.lo + self.n + self.hi

    def region(self, name):
        if name == "lo":
            return (0, self.lo)
        if name == "tensor":
            return (self.lo, self.lo + self.n)
        if name == "hi":
            return (self.lo + self.n, self.total)
        raise KeyError(name)

    def relative(self, buf_index):
        """A buffer index as an element offset from the tensor's start."""
        return buf_index - self.lo


def changed_indices(values, canary):
    """Indices of `values` (a sequence of ints) that differ from canary."""
    return [i for i, v in enumerate(values) if v != canary]


def describe(layout, lo_changed, hi_changed):
    """lo_changed / hi_changed: (count, first buffer index or None)."""
    parts = []
    for name, (cnt, first) in (("low", lo_changed), ("high", hi_changed)):
        if cnt:
            parts.append("%s canary: %d elements changed, first at offset %d from the tensor"
                         % (name, cnt, layout.relative(first)))
    return "; ".join(parts) if parts else "canaries intact"


# ------------------------------------------------------------------ torch side --
def alloc(torch, shape, dtype, device, lo=65536, hi=65536):
    """(buffer, tensor view, Layout); the pads hold the canary."""
    n = 1
    for s in shape:
        n *= int(s)
    lay = Layout(n, lo, hi)
    tdt = getattr(torch, dtype)
    size = ITEMSIZE[dtype]
    buf = torch.empty(lay.total, dtype=tdt, device=device)
    ints = buf.view(getattr(torch, INT_VIEW[size]))
    c = signed_bits(CANARY_BITS[size], size)
    if lay.lo:
        ints[:lay.lo].fill_(c)
    if lay.hi:
        ints[lay.lo + n:].fill_(c)
    view = buf[lay.lo:lay.lo + n].view(*[int(s) for s in shape])
    return buf, view, lay


def check(torch, buf, lay, dtype):
    """describe() of the buffer's pads after a run."""
    size = ITEMSIZE[dtype]
    ints = buf.view(getattr(torch, INT_VIEW[size]))
    c = signed_bits(CANARY_BITS[size], size)
    res = []
    for name in ("lo", "hi"):
        a, b = lay.region(name)
        if a == b:
            res.append((0, None))
            continue
        bad = (ints[a:b] != c)
        cnt = int(bad.sum().item())
        first = a + int(bad.to(torch.uint8).argmax().item()) if cnt else None
        res.append((cnt, first))
    return res[0][0] + res[1][0], describe(lay, res[0], res[1])
