# KV001 facet: where the unbounded index comes from in Triton: loads, .to()
# narrowing, uint32, atomics, index-named int32 parameters, loop variables
# over loaded bounds. Bounded sources stay silent.
# RUN: %if kvlint %{ not %kvlint --checks=KV001 %s | FileCheck %s --implicit-check-not=warning: %}
import triton
import triton.language as tl


# Positive: an int32 kernel argument named like an index (Triton passes
# integer arguments as i32).
@triton.jit
def param_index(cache_ptr, page_idx, STRIDE: tl.constexpr):
    # CHECK: sources.py:[[@LINE+1]]:26: warning: 32-bit signed product 'page_idx * STRIDE' is used as a memory offset and wraps past 2^31 in the inference profile: 'page_idx' <= 8,388,607 ('page_idx' is named like it: below Envelope.KvPages = 8,388,608) times 'STRIDE' <= 16,384 ('STRIDE' is named like it: Envelope.Stride = 16,384); widen 'page_idx' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(cache_ptr + page_idx * STRIDE, 0)


# Negative: a parameter named like a size is not an index.
@triton.jit
def param_size(cache_ptr, num_heads, HEAD_DIM: tl.constexpr):
    tl.store(cache_ptr + num_heads * HEAD_DIM, 0)


# Positive: a slot narrowed from an int64 table with .to(tl.int32).
@triton.jit
def narrowed_slot(cache_ptr, slot_mapping_ptr, stride_slot):
    slot = tl.load(slot_mapping_ptr + tl.program_id(0)).to(tl.int32)
    # CHECK: sources.py:[[@LINE+1]]:26: warning: 32-bit signed product 'slot * stride_slot' is used as a memory offset and wraps past 2^31 in the inference profile: 'slot' <= 8,388,607 ('slot_mapping_ptr' is an entry of a table named like it: below Envelope.KvSlots = 8,388,608) times 'stride_slot' <= 16,384 ('stride_slot' is named like it: Envelope.Stride = 16,384); widen 'slot' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(cache_ptr + slot * stride_slot, 0)


# Negative: the slot kept in 64 bits.
@triton.jit
def widened_slot(cache_ptr, slot_mapping_ptr, stride_slot):
    slot = tl.load(slot_mapping_ptr + tl.program_id(0)).to(tl.int64)
    tl.store(cache_ptr + slot * stride_slot, 0)


# Positive: uint32 arithmetic wraps at 2^32, still 32 bits.
@triton.jit
def unsigned_index(cache_ptr, table_ptr, STRIDE: tl.constexpr):
    page = tl.load(table_ptr + tl.program_id(0)).to(tl.uint32)
    # CHECK: sources.py:[[@LINE+1]]:26: warning: 32-bit unsigned product 'page * STRIDE' is used as a memory offset and wraps past 2^32 in the inference profile: 'page' <= 4,294,967,295 ('table_ptr' is loaded from a table no name explains: below Envelope.Loaded = 131,072) times 'STRIDE' <= 16,384 ('STRIDE' is named like it: Envelope.Stride = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(cache_ptr + page * STRIDE, 0)


# Positive: the result of tl.atomic_add is a value read from memory.
@triton.jit
def atomic_slot(cache_ptr, counter_ptr, STRIDE: tl.constexpr):
    slot = tl.atomic_add(counter_ptr, 1)
    # CHECK: sources.py:[[@LINE+1]]:26: warning: 32-bit signed product 'slot * STRIDE' is used as a memory offset and wraps past 2^31 in the inference profile: 'slot' <= 8,388,607 ('slot' is named like it: below Envelope.KvSlots = 8,388,608) times 'STRIDE' <= 16,384 ('STRIDE' is named like it: Envelope.Stride = 16,384); widen 'slot' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(cache_ptr + slot * STRIDE, 0)


# Positive: a loop over block ids read from a table.
@triton.jit
def loop_over_loaded_range(kv_ptr, out_ptr, page_start_ptr, page_end_ptr, BLOCK_STRIDE: tl.constexpr):
    start = tl.load(page_start_ptr)
    end = tl.load(page_end_ptr)
    acc = 0
    for b in range(start, end):
        # CHECK: sources.py:[[@LINE+1]]:33: warning: 32-bit signed product 'b * BLOCK_STRIDE' is used as a memory offset and wraps past 2^31 in the inference profile: 'b' <= 8,388,606 ('page_end_ptr' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'BLOCK_STRIDE' <= 16,384 ('BLOCK_STRIDE' is named like it: Envelope.Stride = 16,384); widen 'b' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
        acc += tl.load(kv_ptr + b * BLOCK_STRIDE)
    tl.store(out_ptr, acc)


# Negative: a loop with constant bounds is bounded.
@triton.jit
def loop_over_constant_range(kv_ptr, out_ptr, BLOCK_STRIDE: tl.constexpr):
    acc = 0
    for b in range(0, 4):
        acc += tl.load(kv_ptr + b * BLOCK_STRIDE)
    tl.store(out_ptr, acc)


# Positive: a while loop stepping through loaded positions.
@triton.jit
def while_loaded(kv_ptr, pos_ptr, n, STRIDE: tl.constexpr):
    i = 0
    while i < n:
        pos = tl.load(pos_ptr + i)
        # CHECK: sources.py:[[@LINE+1]]:27: warning: 32-bit signed product 'pos * STRIDE' is used as a memory offset and wraps past 2^31 in the inference profile: 'pos' <= 1,048,575 ('pos_ptr' is an entry of a table named like it: below Envelope.Context = 1,048,576) times 'STRIDE' <= 16,384 ('STRIDE' is named like it: Envelope.Stride = 16,384); widen 'pos' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
        tl.store(kv_ptr + pos * STRIDE, 0)
        i += 1


# Negative: tl.arange lanes, x % C, x & M and x // C * C are bounded or
# round-downs.
@triton.jit
def bounded_values(cache_ptr, loc_ptr, STRIDE: tl.constexpr, PAGE: tl.constexpr):
    lanes = tl.arange(0, 128)
    loc = tl.load(loc_ptr + tl.program_id(0))
    tl.store(cache_ptr + lanes * STRIDE, 0)
    tl.store(cache_ptr + (loc % PAGE) * STRIDE, 0)
    tl.store(cache_ptr + (loc & 1023) * STRIDE, 0)
    tl.store(cache_ptr + loc // 64 * 64, 0)


# Negative: program_id(0) * stride is the launch-index tier, off by default.
@triton.jit
def launch_index(x_ptr, stride_row):
    row = tl.program_id(0)
    tl.store(x_ptr + row * stride_row + tl.arange(0, 64), 0)
