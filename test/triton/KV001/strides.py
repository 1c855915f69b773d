# KV001 facet: the kinds of stride a loaded int32 index meets in Triton.
# Each positive has a negative twin below it.
# The sizes below are written against a 1M-token batch: the training
# profile's (issue 24); the inference profile stops at 131,072 tokens.
# RUN: %if kvlint %{ not %kvlint --option=Profile=training --per-site --checks=KV001 %s | FileCheck %s --implicit-check-not=warning: %}
import triton
import triton.language as tl

PAGE_STRIDE = 74880
PAGE_STRIDE_TL: tl.constexpr = 74880
PAGE_STRIDE_WRAPPED = tl.constexpr(74880)


# Positive: a tl.constexpr parameter as stride (int32 * constexpr is int32).
@triton.jit
def constexpr_stride(cache_ptr, table_ptr, STRIDE: tl.constexpr):
    page = tl.load(table_ptr + tl.program_id(0))
    # CHECK: strides.py:[[@LINE+1]]:26: warning: 32-bit signed product 'page * STRIDE' is used as a memory offset and wraps past 2^31 in the training profile: 'page' <= 8,388,607 ('page' is named like it: below Envelope.KvPages = 8,388,608) times 'STRIDE' <= 16,384 ('STRIDE' is named like it: Envelope.Stride = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(cache_ptr + page * STRIDE, 0)


# Negative: the index widened first.
@triton.jit
def constexpr_stride_fixed(cache_ptr, table_ptr, STRIDE: tl.constexpr):
    page = tl.load(table_ptr + tl.program_id(0))
    tl.store(cache_ptr + page.to(tl.int64) * STRIDE, 0)


# Positive: an int32 runtime parameter as stride.
@triton.jit
def param_stride(cache_ptr, table_ptr, stride_cache_page):
    page = tl.load(table_ptr + tl.program_id(0))
    # CHECK: strides.py:[[@LINE+1]]:26: warning: 32-bit signed product 'page * stride_cache_page' is used as a memory offset and wraps past 2^31 in the training profile: 'page' <= 8,388,607 ('page' is named like it: below Envelope.KvPages = 8,388,608) times 'stride_cache_page' <= 16,384 ('stride_cache_page' is named like it: Envelope.Stride = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(cache_ptr + page * stride_cache_page, 0)


# Negative: the stride widened (int32 * int64 promotes to int64).
@triton.jit
def param_stride_fixed(cache_ptr, table_ptr, stride_cache_page):
    page = tl.load(table_ptr + tl.program_id(0))
    tl.store(cache_ptr + page * stride_cache_page.to(tl.int64), 0)


# Positive: a module constant, plain and annotated tl.constexpr.
@triton.jit
def module_constants(cache_ptr, table_ptr):
    page = tl.load(table_ptr + tl.program_id(0))
    # CHECK: strides.py:[[@LINE+1]]:26: warning: 32-bit signed product 'page * PAGE_STRIDE' is used as a memory offset and wraps past 2^31 in the training profile: 'page' <= 8,388,607 ('page' is named like it: below Envelope.KvPages = 8,388,608) times 'PAGE_STRIDE' = 74,880; it wraps once 'page' >= 28,680; widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(cache_ptr + page * PAGE_STRIDE, 0)
    # CHECK: strides.py:[[@LINE+1]]:26: warning: 32-bit signed product 'page * PAGE_STRIDE_TL' is used as a memory offset and wraps past 2^31 in the training profile: 'page' <= 8,388,607 ('page' is named like it: below Envelope.KvPages = 8,388,608) times 'PAGE_STRIDE_TL' = 74,880; it wraps once 'page' >= 28,680; widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(cache_ptr + page * PAGE_STRIDE_TL, 1)
    # CHECK: strides.py:[[@LINE+1]]:26: warning: 32-bit signed product 'PAGE_STRIDE_WRAPPED * page' is used as a memory offset and wraps past 2^31 in the training profile: 'PAGE_STRIDE_WRAPPED' = 74,880 times 'page' <= 8,388,607 ('page' is named like it: below Envelope.KvPages = 8,388,608); it wraps once 'page' >= 28,680; widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(cache_ptr + PAGE_STRIDE_WRAPPED * page, 2)


# Negative: multiplying by 1 is no stride.
@triton.jit
def unit_stride(cache_ptr, table_ptr):
    page = tl.load(table_ptr + tl.program_id(0))
    tl.store(cache_ptr + page * 1, 0)


# Positive: a product of two constexprs is exact in Python, but multiplying
# the int32 index by it is still int32.
@triton.jit
def constexpr_product(cache_ptr, table_ptr, HEADS: tl.constexpr, DIM: tl.constexpr):
    page = tl.load(table_ptr + tl.program_id(0))
    # CHECK: strides.py:[[@LINE+1]]:26: warning: 32-bit signed product 'page * (HEADS * DIM)' is used as a memory offset and wraps past 2^31 in the training profile: 'page' <= 8,388,607 ('page' is named like it: below Envelope.KvPages = 8,388,608) times 'HEADS * DIM' <= 2,097,152 ('DIM' is named like it: Envelope.Hidden = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(cache_ptr + page * (HEADS * DIM), 0)


# Negative: two strides multiplied together are no index.
@triton.jit
def stride_times_stride(cache_ptr, stride_a, stride_b):
    tl.store(cache_ptr + stride_a * stride_b, 0)


# Positive: a chain page * HEADS * DIM is evaluated left to right in int32.
@triton.jit
def chain(cache_ptr, table_ptr, HEADS: tl.constexpr, DIM: tl.constexpr):
    page = tl.load(table_ptr + tl.program_id(0))
    # CHECK: strides.py:[[@LINE+1]]:26: warning: 32-bit signed product 'page * HEADS * DIM' is used as a memory offset and wraps past 2^31 in the training profile: 'page * HEADS' <= 1,073,741,696 ('page' is named like it: below Envelope.KvPages = 8,388,608) times 'DIM' <= 16,384 ('DIM' is named like it: Envelope.Hidden = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(cache_ptr + page * HEADS * DIM, 0)


# Positive: a left shift by a constant is a multiply.
@triton.jit
def shift(cache_ptr, table_ptr):
    page = tl.load(table_ptr + tl.program_id(0))
    # CHECK: strides.py:[[@LINE+1]]:27: warning: 32-bit signed product 'page << 16' is used as a memory offset and wraps past 2^31 in the training profile: 'page' <= 8,388,607 ('page' is named like it: below Envelope.KvPages = 8,388,608) shifted by '16' = 16; widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(cache_ptr + (page << 16), 0)


# Positive: a batch index times the batch stride of a [B, T, H, D] tensor
# (flash-attention's Triton forward, `off_b * stride_qb`): one sequence's
# T x H x D elements per batch, all of the batch's elements in total.
@triton.jit
def batch_offset(q_ptr, o_ptr, stride_qb, stride_ob, stride_qh, stride_qm):
    off_b = tl.program_id(1)
    off_h = tl.program_id(2)
    # CHECK: strides.py:[[@LINE+1]]:25: warning: 32-bit signed product 'off_b * stride_qb' is used as a memory offset and wraps past 2^31 in the training profile: 'off_b' <= 65,535 ('program_id(1)' spans a grid the launcher does not show: below Envelope.Grid = 65,536) times 'stride_qb' <= 2,147,483,647 ('stride_qb' is named like it: Envelope.BatchStride = 2,147,483,648); widen 'off_b' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    q = tl.load(q_ptr + off_b * stride_qb + off_h * stride_qh + tl.arange(0, 64) * stride_qm)
    # CHECK: strides.py:[[@LINE+1]]:22: warning: 32-bit signed product 'off_b * stride_ob' is used as a memory offset and wraps past 2^31 in the training profile: 'off_b' <= 65,535 ('program_id(1)' spans a grid the launcher does not show: below Envelope.Grid = 65,536) times 'stride_ob' <= 2,147,483,647 ('stride_ob' is named like it: Envelope.BatchStride = 2,147,483,648); widen 'off_b' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(o_ptr + off_b * stride_ob + tl.arange(0, 64), q)


# Negative: the same offsets with the batch index widened; a head index
# times a head stride (one head of one token's row in [B, T, H, D]).
@triton.jit
def batch_offset_fixed(q_ptr, o_ptr, stride_qb, stride_ob, stride_qh):
    off_b = tl.program_id(1).to(tl.int64)
    off_h = tl.program_id(2)
    q = tl.load(q_ptr + off_b * stride_qb + off_h * stride_qh + tl.arange(0, 64))
    tl.store(o_ptr + off_b * stride_ob + tl.arange(0, 64), q)


# The stride of a tensor the launcher allocates is at most the product of
# the sizes inside it. Negative: the batch stride of a [batch, topk_pow2]
# table (minimax's partial top-k buffers: 'stride_s_b' reads as a batch
# stride by name, the allocation says one row of top-k). Positive: the row
# stride of [num_tokens, vocab_size] logits, and a [M, K] activation whose
# K (one letter: a head dim or a matmul's reduction) says nothing, so the
# stride keeps its name's bound.
@triton.jit
def alloc_strides(s_ptr, logits_ptr, a_ptr, stride_s_b, stride_l, stride_am):
    pid_b = tl.program_id(0)
    tl.store(s_ptr + pid_b * stride_s_b + tl.arange(0, 64), 0)
    # CHECK: strides.py:[[@LINE+1]]:27: warning: 32-bit signed product 'pid_b * stride_l' is used as a memory offset and wraps past 2^31 in the training profile: 'pid_b' <= 1,048,575 (the grid spans num_tokens ('num_tokens' is named like it: Envelope.Tokens = 1,048,576)) times 'stride_l' <= 262,144 (the stride of a tensor the launcher allocates, at most vocab_size (launch at strides.py:141): 'vocab_size' is named like it: Envelope.Vocab = 262,144); widen 'pid_b' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(logits_ptr + pid_b * stride_l + tl.arange(0, 64), 0)
    # CHECK: strides.py:[[@LINE+1]]:22: warning: 32-bit signed product 'pid_b * stride_am' is used as a memory offset and wraps past 2^31 in the training profile: 'pid_b' <= 1,048,575 (the grid spans num_tokens ('num_tokens' is named like it: Envelope.Tokens = 1,048,576)) times 'stride_am' <= 16,384 ('stride_am' is named like it: Envelope.Stride = 16,384); widen 'pid_b' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(a_ptr + pid_b * stride_am + tl.arange(0, 64), 0)


def alloc(a, num_tokens, vocab_size, topk):
    batch = num_tokens
    topk_pow2 = triton.next_power_of_2(topk)
    s = torch.empty((batch, topk_pow2), dtype=torch.float32, device=a.device)
    logits = torch.empty(num_tokens, vocab_size, device=a.device)
    M, K = a.shape
    a = a.contiguous()
    alloc_strides[(num_tokens,)](s, logits, a, s.stride(0), logits.stride(0), a.stride(0))


# Speculative tokens of one request (Envelope.SpecTokens, 128: vLLM asserts
# max_spec_len <= 128). Negative: a request's row of draft slots. Positive:
# a draft token of the step (cu_num_draft_tokens counts all requests') times
# a vocabulary row.
@triton.jit
def spec_rows(out_ptr, logits_ptr, cu_num_draft_tokens_ptr, max_spec_len, vocab_size):
    req_idx = tl.program_id(0)
    start_idx = tl.load(cu_num_draft_tokens_ptr + req_idx)
    tl.store(out_ptr + req_idx * (max_spec_len + 1) + tl.arange(0, 16), 0)
    # CHECK: strides.py:[[@LINE+1]]:27: warning: 32-bit signed product 'start_idx * vocab_size' is used as a memory offset and wraps past 2^31 in the training profile: 'start_idx' <= 1,048,575 ('cu_num_draft_tokens_ptr' is an entry of a table named like it: below Envelope.Tokens = 1,048,576) times 'vocab_size' <= 262,144 ('vocab_size' is named like it: Envelope.Vocab = 262,144); widen 'start_idx' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(logits_ptr + start_idx * vocab_size + tl.arange(0, 16), 0)


# Negative: a position inside one request's speculative window (SPEC_QUERY_LEN
# is 1 + its drafts) times a per-position row of a state cache (Kimi's
# recurrent-state correction).
@triton.jit
def spec_window(cache_ptr, block_idx, stride_blk, stride_pos, SPEC_QUERY_LEN: tl.constexpr):
    for token_offset in tl.static_range(SPEC_QUERY_LEN):
        tl.store(cache_ptr + block_idx.to(tl.int64) * stride_blk + token_offset * stride_pos + tl.arange(0, 16), 0)



# Negative: the last stride of `g.reshape(-1, two_i).contiguous()` is 1
# (MiniMax's fused SwiGLU passes it as the column stride): a token times 1.
@triton.jit
def reshaped_unit(g_ptr, stride_gn):
    t = tl.program_id(0)
    tl.store(g_ptr + t * stride_gn, 0)


def reshaped(gate_up, num_tokens, two_i):
    g1 = gate_up.reshape(-1, two_i).contiguous()
    reshaped_unit[(num_tokens,)](g1, g1.stride(1))


# Positive twin: without .contiguous() a reshape may keep any strides, so the
# stride is bounded by its name only.
@triton.jit
def reshaped_any(g_ptr, stride_gn):
    t = tl.program_id(0)
    # CHECK: strides.py:[[@LINE+1]]:22: warning: 32-bit signed product 't * stride_gn' is used as a memory offset and wraps past 2^31 in the training profile: 't' <= 1,048,575 (the grid spans num_tokens ('num_tokens' is named like it: Envelope.Tokens = 1,048,576)) times 'stride_gn' <= 16,384 ('stride_gn' is named like it: Envelope.Stride = 16,384); widen 't' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(g_ptr + t * stride_gn, 0)


def reshaped_any_launch(gate_up, num_tokens, two_i):
    g1 = gate_up.reshape(-1, two_i)
    reshaped_any[(num_tokens,)](g1, g1.stride(1))


# The partial top-k buffers of MiniMax M3's index top-k (vLLM): [chunks,
# heads, batch, next_power_of_2(topk)], its chunk count the largest power of
# two <= min(16, a grid target / (batch * heads)).
@triton.jit
def topk_partial(part_ptr, stride_ts_b, BLOCK_T: tl.constexpr):
    pid_b = tl.program_id(0)
    o = tl.arange(0, BLOCK_T)
    # Negative: a batch row of the buffer is next_power_of_2(topk) wide
    # (below twice top-k), whatever its name says of a batch stride.
    tl.store(part_ptr + pid_b * stride_ts_b + o, 0.0)


def topk_partial_launch(score, batch, num_idx_heads, topk):
    block_size_t = triton.next_power_of_2(topk)
    part = torch.empty(4, num_idx_heads, batch, block_size_t, device=score.device)
    topk_partial[(batch,)](part, part.stride(2), BLOCK_T=block_size_t)


@triton.jit
def topk_partial_rowcall(part_ptr, stride_ts_b, BLOCK_T: tl.constexpr):
    pid_b = tl.program_id(0)
    o = tl.arange(0, BLOCK_T)
    # CHECK: strides.py:[[@LINE+1]]:25: warning: 32-bit signed product 'pid_b * stride_ts_b' is used as a memory offset and wraps past 2^31 in the training profile: 'pid_b' <= 4,094 (the grid spans batch ('batch' is named like it: below Envelope.Requests = 4,096)) times 'stride_ts_b' <= 2,147,483,647 ('stride_ts_b' is named like it: Envelope.BatchStride = 2,147,483,648); widen 'pid_b' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(part_ptr + pid_b * stride_ts_b + o, 0.0)


# Positive twin: the row width comes from a call kvlint cannot see; the
# batch stride's name stands.
def topk_partial_rowcall_launch(score, batch, num_idx_heads, topk, width_of):
    block_size_t = width_of(topk)
    part = torch.empty(4, num_idx_heads, batch, block_size_t, device=score.device)
    topk_partial_rowcall[(batch,)](part, part.stride(2), BLOCK_T=64)


@triton.jit
def chunk_slabs(part_ptr, BLOCK: tl.constexpr):
    pid_chunk = tl.program_id(1)
    o = tl.arange(0, BLOCK)
    # Negative: at most 16 chunks of 100M elements.
    tl.store(part_ptr + pid_chunk * 100_000_000 + o, 0.0)


# The chunk count is a power of two <= min(16, ...): `1 << (n.bit_length() -
# 1)` is at most n, and a min() with one known side is at most that side.
def chunk_slabs_launch(part, batch, num_idx_heads):
    target = max(1, min(16, 64 // max(1, batch * num_idx_heads)))
    n_parts = 1 << (target.bit_length() - 1)
    chunk_slabs[(batch, n_parts)](part, BLOCK=64)


@triton.jit
def chunk_slabs_max(part_ptr, BLOCK: tl.constexpr):
    pid_chunk = tl.program_id(1)
    o = tl.arange(0, BLOCK)
    # CHECK: strides.py:[[@LINE+1]]:25: warning: 32-bit signed product 'pid_chunk * 100_000_000' is used as a memory offset and wraps past 2^31 in the training profile: 'pid_chunk' <= 65,535 (the grid spans n_parts ('n_parts' is bounded by no fact: Envelope.Grid = 65,536)) times '100_000_000' = 100,000,000; it wraps once 'pid_chunk' >= 22; widen 'pid_chunk' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(part_ptr + pid_chunk * 100_000_000 + o, 0.0)


# Positive twin: a max() is bounded from below only.
def chunk_slabs_max_launch(part, batch, num_idx_heads):
    n_parts = max(16, 64 // max(1, batch * num_idx_heads))
    chunk_slabs_max[(batch, n_parts)](part, BLOCK=64)
