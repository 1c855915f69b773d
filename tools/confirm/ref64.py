#===- ref64.py - offsets in 64 bits next to what 32-bit arithmetic makes --===#
"""The 64-bit reference for a finding's addresses.

Python integers do not wrap, so an offset computed here is the address the
kernel meant; `wrap()` gives what a 32-bit register holds instead.  The
harness uses these to predict, before any GPU run, the first row whose
offset differs (it must equal the size kvlint's message names) and, after a
run, to say whether the rows that came out wrong are exactly those.
"""
INT32_MAX = 2**31 - 1


def wrap(x, bits=32, signed=True):
    """x as a `bits`-wide two's complement register holds it."""
    m = 1 << bits
    x &= m - 1
    if signed and x >= m >> 1:
        x -= m
    return x


def wraps(x, bits=32, signed=True):
    return wrap(x, bits, signed) != x


def first_wrapping(stride, extra=0, bits=32, signed=True):
    """The smallest i >= 0 with i * stride + extra outside the register's range.

    stride > 0; extra >= 0 is the largest in-row addend evaluated in the same
    width (0 when the row offset is widened before the column is added)."""
    if stride <= 0:
        raise ValueError("stride must be positive")
    limit = (1 << (bits - 1 if signed else bits))
    need = limit - extra  # i * stride >= need
    if need <= 0:
        return 0
    return (need + stride - 1) // stride


def offset32(index, stride, col=0):
    """(32-bit offset, 64-bit offset) of element `col` of row `index`."""
    exact = index * stride + col
    return wrap(exact), exact


def wrapping_rows(n_rows, stride, extra=0):
    """range of row indices < n_rows whose offset wraps (row * stride + extra)."""
    first = first_wrapping(stride, extra)
    return range(min(first, n_rows), n_rows)


def landing(index, stride, base_elems):
    """Where the wrapped offset of row `index` lands, in elements from the start
    of the tensor: negative = before it (a low canary or another allocation),
    >= base_elems = past its end."""
    got, _ = offset32(index, stride)
    if got < 0:
        return "before", got
    if got >= base_elems:
        return "after", got - base_elems
    return "inside", got


def summarize_rows(bad_rows, predicted_first, n_rows):
    """A line for the record: which rows came out wrong against the prediction.

    bad_rows: sorted row indices whose output differs from the reference."""
    if not bad_rows:
        return "all %d rows match the 64-bit reference" % n_rows
    first, last = bad_rows[0], bad_rows[-1]
    where = "from row %d" % first
    if predicted_first is not None:
        where += " (predicted first wrapping row %d%s)" % (
            predicted_first, "" if first == predicted_first else ", MISMATCH")
    return "%d of %d rows differ %s to row %d" % (len(bad_rows), n_rows, where, last)


def human(n):
    return f"{n:,}"
