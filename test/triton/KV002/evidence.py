# KV002 facet (Triton): is the array a block table? A pointer returned by a
# call (an imported helper whose body is in another module) or read from a
# pointer array is a table by its shape; quantization group scales at
# offs_k // group_size under a mask over K, and per-expert arrays, are not.
# RUN: %if kvlint %{ not %kvlint --checks=KV002 %s | FileCheck %s --implicit-check-not=warning: %}
import triton
import triton.language as tl

from .buffer_utils import _load_ptr  # @triton.jit, defined in another module


# Positive: vLLM's V2 slot-mapping shape: the table pointer comes from an
# imported helper, so its type is unknown here; it is the base of a load, so
# it is a pointer, and the column is not bounded by the row width.
@triton.jit
def imported_helper_ptr(block_table_ptrs, strides, pos_ptr, out_ptr, page_size,
                        BLOCK: tl.constexpr):
    g = tl.program_id(0)
    req = tl.program_id(1)
    bt = _load_ptr(block_table_ptrs + g, tl.int32)
    stride = tl.load(strides + g)
    offs = tl.arange(0, BLOCK)
    pos = tl.load(pos_ptr + offs)
    # CHECK: evidence.py:[[@LINE+1]]:11: warning: table load reads column 'pos // page_size', a position divided by a block size, with no bound against the row width{{.*}}[kvlint-unguarded-table-load]
    blk = tl.load(bt + req * stride + pos // page_size)
    tl.store(out_ptr + offs, blk * page_size + pos % page_size)


# Negative: the same, with the column bounded by the row width in the mask.
@triton.jit
def imported_helper_ptr_fixed(block_table_ptrs, strides, pos_ptr, out_ptr, page_size,
                              PAD: tl.constexpr, BLOCK: tl.constexpr):
    g = tl.program_id(0)
    req = tl.program_id(1)
    bt = _load_ptr(block_table_ptrs + g, tl.int32)
    stride = tl.load(strides + g)
    offs = tl.arange(0, BLOCK)
    pos = tl.load(pos_ptr + offs)
    col = pos // page_size
    blk = tl.load(bt + req * stride + col, mask=col < stride, other=PAD)
    tl.store(out_ptr + offs, tl.where(col < stride, blk * page_size + pos % page_size, PAD))


# Positive: the table pointer read from a pointer array in the kernel.
@triton.jit
def pointer_array(ptrs, pos_ptr, out_ptr, stride, page_size, BLOCK: tl.constexpr):
    bt = tl.load(ptrs + tl.program_id(0)).to(tl.pointer_type(tl.int32))
    offs = tl.arange(0, BLOCK)
    pos = tl.load(pos_ptr + offs)
    # CHECK: evidence.py:[[@LINE+1]]:11: warning: table load reads column 'pos // page_size'{{.*}}[kvlint-unguarded-table-load]
    blk = tl.load(bt + tl.program_id(1) * stride + pos // page_size)
    tl.store(out_ptr + offs, blk)


# Negative: GPTQ/AWQ-style group scales at offs_k // group_size, offs_k < K.
@triton.jit
def group_scales(a_ptr, scales_ptr, out_ptr, K, stride_sn, group_size, BLOCK_K: tl.constexpr):
    n = tl.program_id(0)
    acc = tl.zeros((BLOCK_K,), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        offs_k = k * BLOCK_K + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + offs_k, mask=offs_k < K, other=0.0)
        s = tl.load(scales_ptr + n * stride_sn + offs_k // group_size, mask=offs_k < K, other=1.0)
        acc += a * s
    tl.store(out_ptr + n, tl.sum(acc))


# Negative: the group scales through a pointer returned by a helper: a
# bounded quotient is still no block-table column.
@triton.jit
def group_scales_helper_ptr(a_ptr, scale_ptrs, out_ptr, K, group_size, BLOCK_K: tl.constexpr):
    scales = _load_ptr(scale_ptrs + tl.program_id(0), tl.float32)
    offs_k = tl.arange(0, BLOCK_K)
    s = tl.load(scales + offs_k // group_size, mask=offs_k < K, other=1.0)
    tl.store(out_ptr + offs_k, tl.load(a_ptr + offs_k, mask=offs_k < K) * s, mask=offs_k < K)


# Negative: per-expert block-wise weight scales (fp8 MoE) at offs_n // group_n.
@triton.jit
def per_expert_scales(w_scale_ptr, out_ptr, expert_ids_ptr, N, stride_se, group_n,
                      BLOCK_N: tl.constexpr):
    e = tl.load(expert_ids_ptr + tl.program_id(0))
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    s = tl.load(w_scale_ptr + e * stride_se + offs_n // group_n, mask=offs_n < N, other=0.0)
    tl.store(out_ptr + offs_n, s, mask=offs_n < N)
