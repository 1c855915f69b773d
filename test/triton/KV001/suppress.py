# KV001 facet: suppression comments in Python and the fix-it edit.
# RUN: %if kvlint %{ not %kvlint --per-site --checks=KV001 %s | FileCheck %s --implicit-check-not=warning: %}
# RUN: %if kvlint %{ cp %s %t.py && not %kvlint --per-site --checks=KV001 --fix %t.py > /dev/null; %kvlint --per-site --checks=KV001 %t.py | FileCheck %s --check-prefix=FIXED --allow-empty --implicit-check-not=warning: %}
# RUN: %if kvlint %{ cp %s %t.py && not %kvlint --per-site --checks=KV001 --fix %t.py > /dev/null; FileCheck %s --check-prefix=EDIT < %t.py %}
# After --fix, the file is clean:
# FIXED-NOT: warning
import triton
import triton.language as tl


@triton.jit
def suppressed(cache_ptr, table_ptr, STRIDE: tl.constexpr):
    page = tl.load(table_ptr)
    tl.store(cache_ptr + page * STRIDE, 0)  # NOLINT(kvlint-narrowed-index-overflow)
    # NOLINTNEXTLINE(kvlint-narrowed-index-overflow)
    tl.store(cache_ptr + page * STRIDE, 1)
    tl.store(cache_ptr + page * STRIDE, 2)  # kvlint: ignore[KV001]
    tl.store(cache_ptr + page * STRIDE, 3)  # NOLINT


@triton.jit
def not_suppressed(cache_ptr, table_ptr, STRIDE: tl.constexpr):
    page = tl.load(table_ptr)
    # A suppression for another check does not hide this one.
    # CHECK: suppress.py:[[@LINE+2]]:26: warning: 32-bit signed product 'page * STRIDE' is used as a memory offset and wraps past 2^31 in the inference profile: 'page' <= 8,388,607 ('page' is named like it: below Envelope.KvPages = 8,388,608) times 'STRIDE' <= 16,384 ('STRIDE' is named like it: Envelope.Stride = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    # EDIT: tl.store(cache_ptr + page.to(tl.int64) * STRIDE, 4)  # NOLINT(kvlint-unguarded-table-load)
    tl.store(cache_ptr + page * STRIDE, 4)  # NOLINT(kvlint-unguarded-table-load)
    # CHECK: suppress.py:[[@LINE+2]]:26: warning: 32-bit signed product '(page + 1) * STRIDE' is used as a memory offset and wraps past 2^31 in the inference profile: 'page + 1' <= 8,388,608 ('page' is named like it: below Envelope.KvPages = 8,388,608) times 'STRIDE' <= 16,384 ('STRIDE' is named like it: Envelope.Stride = 16,384); widen 'page + 1' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    # EDIT: tl.store(cache_ptr + ((page + 1).to(tl.int64)) * STRIDE, 5)
    tl.store(cache_ptr + (page + 1) * STRIDE, 5)
