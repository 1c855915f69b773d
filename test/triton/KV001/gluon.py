# KV001 facet: the Gluon dialect (@gluon.jit, gl.*): AMD buffer loads and
# stores address base + offsets, and a page number read back from shared
# memory is a loaded value.
# RUN: %if kvlint %{ not %kvlint --per-site --checks=KV001 %s | FileCheck %s --implicit-check-not=warning: %}
import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl


@gluon.jit
def buffer_ops(kv_cache, page_table, out, stride_page, BLOCK: gl.constexpr):
    layout: gl.constexpr = gl.BlockedLayout([1], [64], [1], [0])
    offs = gl.arange(0, BLOCK, layout=layout)
    page = gl.load(page_table + gl.program_id(0))
    # CHECK: gluon.py:[[@LINE+1]]:63: warning: 32-bit signed product 'page * stride_page' is used as a memory offset and wraps past 2^31 in the inference profile: 'page' <= 8,388,607 ('page_table' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'stride_page' <= 16,384 ('stride_page' is named like it: Envelope.Stride = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    v = gl.amd.cdna3.buffer_load(ptr=kv_cache, offsets=offs + page * stride_page)
    # CHECK: gluon.py:[[@LINE+1]]:46: warning: 32-bit signed product 'page * stride_page' is used as a memory offset and wraps past 2^31 in the inference profile: 'page' <= 8,388,607 ('page_table' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'stride_page' <= 16,384 ('stride_page' is named like it: Envelope.Stride = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    gl.amd.cdna3.buffer_store(v, out, offs + page * stride_page)
    # Negative: the page widened first.
    gl.amd.cdna3.buffer_store(v, out, offs + page.to(gl.int64) * stride_page)


@gluon.jit
def shared_page(kv_cache, req_to_tokens, stride_kv, BLOCK: gl.constexpr):
    layout: gl.constexpr = gl.BlockedLayout([1], [64], [1], [0])
    smem: gl.constexpr = gl.SwizzledSharedLayout(1, 1, 1, [0])
    offs = gl.arange(0, BLOCK, layout=layout)
    bufs = gl.allocate_shared_memory(gl.int32, [BLOCK], smem)
    gl.amd.cdna4.async_copy.buffer_load_to_shared(bufs, req_to_tokens, offs)
    kv_loc = gl.amd.cdna4.async_copy.load_shared_relaxed(bufs, layout)
    # CHECK: gluon.py:[[@LINE+1]]:67: warning: 32-bit signed product 'kv_loc * stride_kv' is used as a memory offset and wraps past 2^31 in the inference profile: 'kv_loc' <= 8,388,607 ('kv_loc' is named like it: below Envelope.KvSlots = 8,388,608) times 'stride_kv' <= 16,384 ('stride_kv' is named like it: Envelope.Stride = 16,384); widen 'kv_loc' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    gl.amd.cdna4.async_copy.buffer_load_to_shared(bufs, kv_cache, kv_loc * stride_kv + offs)
