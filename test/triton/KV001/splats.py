# KV001 facet: what a `**` splat of dict literals passes at a launch. Each
# way the splat can be bound is a launch of its own, and the facts join:
# vLLM's batch-invariant matmul passes `**configs[dtype]`, a dict of dict
# literals (BLOCK_SIZE_N 128 or 256), and its attention kernels
# `**extra_kargs`, a dict bound to `{}` or to compiler options, which leaves
# the kernel's own defaults in force. Positive twins: a splat of a dict the
# launcher is given, and a dict of dicts one of which passes a large value.
# RUN: %if kvlint %{ not %kvlint --per-site --checks=KV001 %s | FileCheck %s --implicit-check-not=warning: %}
import torch
import triton
import triton.language as tl


@triton.jit
def page_rows_by_dtype(cache_ptr, block_table_ptr, PAGE_ROWS: tl.constexpr):
    page = tl.load(block_table_ptr + tl.program_id(0))
    o = tl.arange(0, PAGE_ROWS)
    tl.store(cache_ptr + page * PAGE_ROWS + o, 0)


# Negative: every config passes at most 256 rows a page.
def page_rows_by_dtype_launch(cache, block_table, dtype):
    configs = {
        torch.bfloat16: {"PAGE_ROWS": 128, "num_warps": 8},
        torch.float16: {"PAGE_ROWS": 256, "num_warps": 8},
    }
    page_rows_by_dtype[(block_table.shape[0],)](cache, block_table, **configs[dtype])


@triton.jit
def page_rows_default(cache_ptr, block_table_ptr, PAGE_ROWS: tl.constexpr = 64):
    page = tl.load(block_table_ptr + tl.program_id(0))
    o = tl.arange(0, PAGE_ROWS)
    tl.store(cache_ptr + page * PAGE_ROWS + o, 0)


# Negative: the splat passes compiler options or nothing; the kernel's
# default page size stands.
def page_rows_default_launch(cache, block_table, is_hip):
    extra_kargs = {}
    if is_hip:
        extra_kargs = {"waves_per_eu": 1, "kpack": 2}
    page_rows_default[(block_table.shape[0],)](cache, block_table, **extra_kargs)


@triton.jit
def page_rows_given(cache_ptr, block_table_ptr, PAGE_ROWS: tl.constexpr = 64):
    page = tl.load(block_table_ptr + tl.program_id(0))
    o = tl.arange(0, PAGE_ROWS)
    # CHECK: splats.py:[[@LINE+1]]:26: warning: 32-bit signed product 'page * PAGE_ROWS' is used as a memory offset and wraps past 2^31 in the inference profile: 'page' <= 8,388,607 ('block_table_ptr' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'PAGE_ROWS' <= 1,024 ('PAGE_ROWS' is a compile-time constant of unknown value: Envelope.Constexpr = 1,024); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(cache_ptr + page * PAGE_ROWS + o, 0)


# Positive twin: the dict comes from the caller; it may set any page size.
def page_rows_given_launch(cache, block_table, config):
    page_rows_given[(block_table.shape[0],)](cache, block_table, **config)


@triton.jit
def page_rows_wide(cache_ptr, block_table_ptr, PAGE_ROWS: tl.constexpr):
    page = tl.load(block_table_ptr + tl.program_id(0))
    o = tl.arange(0, PAGE_ROWS)
    # CHECK: splats.py:[[@LINE+1]]:26: warning: 32-bit signed product 'page * PAGE_ROWS' is used as a memory offset and wraps past 2^31 in the inference profile: 'page' <= 8,388,607 ('block_table_ptr' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'PAGE_ROWS' <= 4,096 (launch at splats.py:73 (and 1 more)); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(cache_ptr + page * PAGE_ROWS + o, 0)


# Positive twin: one config passes 4,096 rows a page.
def page_rows_wide_launch(cache, block_table, dtype):
    configs = {
        torch.bfloat16: {"PAGE_ROWS": 128},
        torch.float32: {"PAGE_ROWS": 4096},
    }
    page_rows_wide[(block_table.shape[0],)](cache, block_table, **configs[dtype])
