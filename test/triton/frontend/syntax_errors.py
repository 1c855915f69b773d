# Syntax errors: kvlint says so once, skips the broken lines and still
# analyses the kernels around them.
# RUN: %if kvlint %{ not %kvlint -v %s 2>&1 | FileCheck %s --implicit-check-not=warning: --implicit-check-not=note: %}
import triton
import triton.language as tl


@triton.jit
def broken(cache_ptr, table_ptr, STRIDE: tl.constexpr):
    x = tl.load(table_ptr +
    page = tl.load(table_ptr)
    # FIXME: a line with a syntax error is skipped whole, so the product on it
    # is not reported (only the lines around it are analysed).
    tl.store(cache_ptr + page * STRIDE, x +)
    # CHECK-DAG: syntax_errors.py:[[@LINE+1]]:26: warning: {{.*}}'page * 74880'{{.*}}[kvlint-narrowed-index-overflow]
    tl.store(cache_ptr + page * 74880, 0)


@triton.jit
def after(cache_ptr, table_ptr, STRIDE: tl.constexpr):
    page = tl.load(table_ptr)
    # CHECK-DAG: syntax_errors.py:[[@LINE+1]]:26: warning: {{.*}}'page * STRIDE'{{.*}}[kvlint-narrowed-index-overflow]
    tl.store(cache_ptr + page * STRIDE, 0)

# CHECK-DAG: note: {{.*}}syntax_errors.py: syntax errors; analysed what could be parsed (skipped lines 10, 14)
