# Python's forms: `# noqa: KV001` (ruff's), `# noqa` bare, and the same
# NOLINT / kvlint: ignore text after '#'; another code hides nothing.
# RUN: %if kvlint %{ not %kvlint --per-site --checks=KV001 %s 2>&1 | FileCheck %s --implicit-check-not=warning: %}
import triton
import triton.language as tl


@triton.jit
def k(cache_ptr, table_ptr, STRIDE: tl.constexpr):
    page = tl.load(table_ptr)
    tl.store(cache_ptr + page * STRIDE, 0)  # noqa: KV001
    tl.store(cache_ptr + page * STRIDE, 1)  # noqa: E501, KV001
    tl.store(cache_ptr + page * STRIDE, 2)  # NOQA
    # NOLINTNEXTLINE(KV001)
    tl.store(cache_ptr + page * STRIDE, 3)
    # CHECK: suppress-noqa.py:[[@LINE+1]]:26: warning: 32-bit signed product 'page * STRIDE'
    tl.store(cache_ptr + page * STRIDE, 4)  # noqa: KV002
