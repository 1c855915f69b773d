# KV002 facet: kernel forms (autotune, `from triton import jit`, an aliased
# triton.language, constexpr block sizes, narrowed or widened positions) and
# a bound against the wrong quantity.
# Without evidence of a narrow row (no per-group table, no sliding window or
# context parallelism, no sibling that bounds the same width) these reads are
# latent (issue 24): the default level reports none of them.
# RUN: %if kvlint %{ %kvlint --checks=KV002 %s | FileCheck %s --check-prefix=DEFAULT --allow-empty --implicit-check-not=warning: %}
# RUN: %if kvlint %{ not %kvlint --checks=KV002 --level latent %s | FileCheck %s --implicit-check-not=warning: %}
# DEFAULT-NOT: warning:
import triton
from triton import jit
import triton.language as language


@triton.autotune(configs=[triton.Config({"BLOCK": 64})], key=["n"])
@triton.jit
def autotuned(block_table_ptr, pos_ptr, out_ptr, n, row, stride_bt, block_size: language.constexpr,
              BLOCK: language.constexpr):
    offs = language.arange(0, BLOCK)
    pos = language.load(pos_ptr + offs, mask=offs < n, other=0)
    # CHECK: forms.py:[[@LINE+1]]:{{[0-9]+}}: warning: {{.*}}[kvlint-unguarded-table-load]
    blk = language.load(block_table_ptr + row * stride_bt + pos // block_size, mask=offs < n, other=0)
    language.store(out_ptr + offs, blk, mask=offs < n)


@triton.autotune(configs=[triton.Config({"BLOCK": 64})], key=["n"])
@triton.jit
def autotuned_fixed(block_table_ptr, pos_ptr, out_ptr, n, row, stride_bt, width,
                    block_size: language.constexpr, BLOCK: language.constexpr):
    offs = language.arange(0, BLOCK)
    pos = language.load(pos_ptr + offs, mask=offs < n, other=0)
    col = pos // block_size
    blk = language.load(block_table_ptr + row * stride_bt + col, mask=(offs < n) & (col < width), other=-1)
    language.store(out_ptr + offs, blk, mask=offs < n)


# Positive: a position narrowed to int32 and divided.
@jit
def narrowed_position(block_table_ptr, pos_ptr, out_ptr, row, stride_bt, BLOCK_SIZE: language.constexpr):
    pos = language.load(pos_ptr + language.program_id(0)).to(language.int32)
    # CHECK: forms.py:[[@LINE+1]]:{{[0-9]+}}: warning: {{.*}}[kvlint-unguarded-table-load]
    blk = language.load(block_table_ptr + row * stride_bt + pos // BLOCK_SIZE)
    language.store(out_ptr + language.program_id(0), blk)


# Positive: widening fixes KV001 shapes, not KV002 ones.
@jit
def widened_position(block_table_ptr, pos_ptr, out_ptr, row, stride_bt, BLOCK_SIZE: language.constexpr):
    pos = language.load(pos_ptr + language.program_id(0)).to(language.int64)
    # CHECK: forms.py:[[@LINE+1]]:{{[0-9]+}}: warning: {{.*}}[kvlint-unguarded-table-load]
    blk = language.load(block_table_ptr + row.to(language.int64) * stride_bt + pos // BLOCK_SIZE)
    language.store(out_ptr + language.program_id(0), blk)


# Positive: the mask bounds the column by the number of requests.
@jit
def bound_by_num_reqs(block_table_ptr, pos_ptr, out_ptr, row, stride_bt, num_reqs,
                      BLOCK_SIZE: language.constexpr):
    offs = language.arange(0, 64)
    pos = language.load(pos_ptr + offs)
    col = pos // BLOCK_SIZE
    # CHECK: forms.py:[[@LINE+1]]:{{[0-9]+}}: warning: {{.*}}[kvlint-unguarded-table-load]
    blk = language.load(block_table_ptr + row * stride_bt + col, mask=col < num_reqs, other=0)
    language.store(out_ptr + offs, blk)


# Positive: the column plus a loop step.
@jit
def column_plus_step(block_table_ptr, pos_ptr, out_ptr, row, stride_bt, BLOCK_SIZE: language.constexpr):
    col = language.load(pos_ptr + row) // BLOCK_SIZE
    for i in range(4):
        # CHECK: forms.py:[[@LINE+1]]:{{[0-9]+}}: warning: {{.*}}[kvlint-unguarded-table-load]
        blk = language.load(block_table_ptr + row * stride_bt + col + i)
        language.store(out_ptr + i, blk)


# Negative: the same loop bounded by the row width.
@jit
def column_plus_step_fixed(block_table_ptr, pos_ptr, out_ptr, row, stride_bt, max_num_blocks,
                           BLOCK_SIZE: language.constexpr):
    col = language.load(pos_ptr + row) // BLOCK_SIZE
    for i in range(4):
        blk = language.load(block_table_ptr + row * stride_bt + col + i,
                            mask=col + i < max_num_blocks, other=-1)
        language.store(out_ptr + i, blk)
