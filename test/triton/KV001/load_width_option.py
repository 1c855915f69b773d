# KV001 facet: the element width assumed for a load whose dtype the kernel
# does not show (option triton.UnknownLoadBits, default 32: block tables and
# req_to_token maps are int32 in vLLM/SGLang/lightllm). With 64, plain table
# loads stop counting as 32-bit, but an explicit .to(tl.int32) still narrows.
# RUN: %if kvlint %{ not %kvlint --checks=KV001 %s | FileCheck %s --check-prefixes=CHECK,B32 --implicit-check-not=warning: %}
# RUN: %if kvlint %{ not %kvlint --checks=KV001 --option=triton.UnknownLoadBits=64 %s | FileCheck %s --implicit-check-not=warning: %}
import triton
import triton.language as tl


@triton.jit
def unknown_width(cache_ptr, table_ptr, STRIDE: tl.constexpr):
    page = tl.load(table_ptr + tl.program_id(0))
    # B32: load_width_option.py:[[@LINE+1]]:26: warning: {{.*}}'page * STRIDE'{{.*}}[kvlint-narrowed-index-overflow]
    tl.store(cache_ptr + page * STRIDE, 0)


@triton.jit
def narrowed(cache_ptr, table_ptr, STRIDE: tl.constexpr):
    page = tl.load(table_ptr + tl.program_id(0)).to(tl.int32)
    # CHECK: load_width_option.py:[[@LINE+1]]:26: warning: {{.*}}'page * STRIDE'{{.*}}[kvlint-narrowed-index-overflow]
    tl.store(cache_ptr + page * STRIDE, 0)
