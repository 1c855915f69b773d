# KV002 facet (Triton): columns a sequence length bounds in forms the paged
# decode kernels of ROCm's Gluon backend use. A sliding-window name is
# evidence only for a column nothing bounds: these stay latent, because the
# engine sizes the row for the request's own span.
#  - every branch of an `if` returns on `start >= context_length` (the
#    sliding-window and the plain partition), so start < context_length after
#    it;
#  - a masked buffer_load from row[start // n] at offsets j with
#    j < cdiv(len, bs) - start;
#  - a position less the regions before it (values read from memory,
#    subtracted), below the request's length.
# The positives keep the same shapes with the bound missing.
# RUN: %if kvlint %{ not %kvlint --checks=KV002 %s | FileCheck %s --implicit-check-not=warning: %}
# RUN: %if kvlint %{ not %kvlint --checks=KV002 --option=Level=latent %s | FileCheck %s --check-prefixes=CHECK,LATENT --implicit-check-not=warning: %}
import triton
import triton.language as tl
from triton.experimental import gluon
from triton.experimental.gluon import language as gl


# Latent: both sides of the sliding-window test return past the context.
@triton.jit
def exits_on_both_sides(block_tables_ptr, context_lengths_ptr, out_ptr, stride_bt,
                        SLIDING_WINDOW, PARTITION: tl.constexpr, KV_BLOCK_SIZE: tl.constexpr):
    seq = tl.program_id(0)
    part = tl.program_id(2)
    context_length = tl.load(context_lengths_ptr + seq)
    if SLIDING_WINDOW > 0:
        first = context_length - SLIDING_WINDOW
        partition = first // PARTITION + part
    else:
        first = 0
        partition = part
    start = partition * PARTITION
    if SLIDING_WINDOW > 0:
        if start + PARTITION <= first or start < 0 or start >= context_length:
            return
    else:
        if start >= context_length:
            return
    # LATENT: sequence_bounds.py:[[@LINE+1]]:12: warning: table load reads column 'start // KV_BLOCK_SIZE', a position divided by a block size, bounded only by 'context_length'{{.*}}[kvlint-unguarded-table-load]
    page = tl.load(block_tables_ptr + seq * stride_bt + start // KV_BLOCK_SIZE)
    tl.store(out_ptr + seq, page)


# Default: only the sliding-window side returns past the context; the plain
# partition's start is bounded by nothing, and the window says rows can be
# narrower than the positions.
@triton.jit
def exits_on_one_side(block_tables_ptr, context_lengths_ptr, out_ptr, stride_bt,
                      SLIDING_WINDOW, PARTITION: tl.constexpr, KV_BLOCK_SIZE: tl.constexpr):
    seq = tl.program_id(0)
    part = tl.program_id(2)
    context_length = tl.load(context_lengths_ptr + seq)
    if SLIDING_WINDOW > 0:
        first = context_length - SLIDING_WINDOW
        partition = first // PARTITION + part
    else:
        first = 0
        partition = part
    start = partition * PARTITION
    if SLIDING_WINDOW > 0:
        if start + PARTITION <= first or start < 0 or start >= context_length:
            return
    else:
        if start + PARTITION <= first:
            return
    # CHECK: sequence_bounds.py:[[@LINE+1]]:12: warning: table load reads column 'start // KV_BLOCK_SIZE', a position divided by a block size, with no bound against the row width{{.*}}[kvlint-unguarded-table-load]
    page = tl.load(block_tables_ptr + seq * stride_bt + start // KV_BLOCK_SIZE)
    tl.store(out_ptr + seq, page)


# Latent: the buffer_load's mask keeps start + j below the request's block
# count, so the column start // n + j does too.
@gluon.jit
def masked_buffer_load(block_tables_ptr, context_lengths_ptr, out_ptr, stride_bt,
                       sliding_window, PARTITION: tl.constexpr, PER_BLOCK: tl.constexpr,
                       COMPUTE_BLOCK: tl.constexpr, MAX_BLOCKS: tl.constexpr,
                       layout: gl.constexpr):
    seq = gl.program_id(0)
    context_length = gl.load(context_lengths_ptr + seq)
    start = ((context_length - sliding_window) // PARTITION + gl.program_id(1)) * MAX_BLOCKS
    j = gl.arange(0, MAX_BLOCKS, layout=layout)
    count = gl.cdiv(context_length, COMPUTE_BLOCK)
    # LATENT: sequence_bounds.py:[[@LINE+1]]:13: warning: table load reads column 'start // PER_BLOCK', a position divided by a block size, bounded only by 'count - start'{{.*}}[kvlint-unguarded-table-load]
    pages = gl.amd.cdna3.buffer_load(
        ptr=block_tables_ptr + seq * stride_bt + start // PER_BLOCK,
        offsets=j,
        mask=j < count - start,
    )
    gl.store(out_ptr + seq * MAX_BLOCKS + j, pages)


# Default: the same load whose mask bounds the offsets by the block count
# alone, not by the count left after the start.
@gluon.jit
def buffer_load_mask_misses_start(block_tables_ptr, context_lengths_ptr, out_ptr, stride_bt,
                                  sliding_window, PARTITION: tl.constexpr, PER_BLOCK: tl.constexpr,
                                  COMPUTE_BLOCK: tl.constexpr, MAX_BLOCKS: tl.constexpr,
                                  layout: gl.constexpr):
    seq = gl.program_id(0)
    context_length = gl.load(context_lengths_ptr + seq)
    start = ((context_length - sliding_window) // PARTITION + gl.program_id(1)) * MAX_BLOCKS
    j = gl.arange(0, MAX_BLOCKS, layout=layout)
    count = gl.cdiv(context_length, COMPUTE_BLOCK)
    # CHECK: sequence_bounds.py:[[@LINE+1]]:13: warning: table load reads column 'start // PER_BLOCK', a position divided by a block size, with no bound against the row width{{.*}}[kvlint-unguarded-table-load]
    pages = gl.amd.cdna3.buffer_load(
        ptr=block_tables_ptr + seq * stride_bt + start // PER_BLOCK,
        offsets=j,
        mask=j < count,
    )
    gl.store(out_ptr + seq * MAX_BLOCKS + j, pages)


# Latent: lmdeploy's DeepSeek-V4 flatten: the compressed region's position
# is the token's less the window and raw regions before it (values read
# from memory, subtracted: they only lower it), and the token is below the
# request's flattened length.
@triton.jit
def regions_subtracted(block_offsets_ptr, flat_kv_lens_ptr, start_pos_ptr, raw_kv_lens_ptr,
                       out_ptr, stride_boff, WINDOW_SIZE: tl.constexpr,
                       BLOCK_SIZE: tl.constexpr):
    batch_id = tl.program_id(0)
    token_id = tl.program_id(1)
    flat_kv_len = tl.load(flat_kv_lens_ptr + batch_id)
    if token_id >= flat_kv_len:
        return
    prev_window_len = tl.minimum(tl.load(start_pos_ptr + batch_id), WINDOW_SIZE)
    comp_pos = token_id - prev_window_len - tl.load(raw_kv_lens_ptr + batch_id)
    # LATENT: sequence_bounds.py:[[@LINE+1]]:18: warning: table load reads column 'comp_pos // BLOCK_SIZE', a position divided by a block size, bounded only by 'flat_kv_len'{{.*}}[kvlint-unguarded-table-load]
    phys_block = tl.load(block_offsets_ptr + batch_id * stride_boff + comp_pos // BLOCK_SIZE)
    tl.store(out_ptr + batch_id, phys_block)


# Default: the same with an offset read from memory added, not subtracted:
# nothing bounds the position.
@triton.jit
def region_offset_added(block_offsets_ptr, flat_kv_lens_ptr, start_pos_ptr, shift_ptr,
                        out_ptr, stride_boff, WINDOW_SIZE: tl.constexpr,
                        BLOCK_SIZE: tl.constexpr):
    batch_id = tl.program_id(0)
    token_id = tl.program_id(1)
    flat_kv_len = tl.load(flat_kv_lens_ptr + batch_id)
    if token_id >= flat_kv_len:
        return
    prev_window_len = tl.minimum(tl.load(start_pos_ptr + batch_id), WINDOW_SIZE)
    comp_pos = token_id - prev_window_len + tl.load(shift_ptr + batch_id)
    # CHECK: sequence_bounds.py:[[@LINE+1]]:18: warning: table load reads column 'comp_pos // BLOCK_SIZE', a position divided by a block size, with no bound against the row width{{.*}}[kvlint-unguarded-table-load]
    phys_block = tl.load(block_offsets_ptr + batch_id * stride_boff + comp_pos // BLOCK_SIZE)
    tl.store(out_ptr + batch_id, phys_block)
