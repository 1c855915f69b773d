# A file that mentions @triton.jit only in strings and comments has no kernel.
# RUN: %if kvlint %{ %kvlint -v %s 2>&1 | FileCheck %s --implicit-check-not=warning: --implicit-check-not=note: --allow-empty %}
TEMPLATE = """
@triton.jit
def kernel(cache_ptr, table_ptr, STRIDE: tl.constexpr):
    page = tl.load(table_ptr)
    tl.store(cache_ptr + page * STRIDE, 0)
"""
# @triton.jit
# def commented(cache_ptr, table_ptr): tl.store(cache_ptr + tl.load(table_ptr) * 74880, 0)
print(TEMPLATE.replace("triton", "triton"))
