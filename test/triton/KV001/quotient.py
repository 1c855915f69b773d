# KV001 facet: an index below a quotient times the divisor stays below the
# dividend. A head-dim tile loop, `for i_k in range(tl.cdiv(D, BK))`, makes
# `i_k * BK` at most D + BK - 1 whatever BK is (fla's ATK kernels); a K loop
# of a GEMM, `k < cdiv(K, BLOCK_K)`, keeps `k * BLOCK_K` inside K (vLLM's
# fused MoE scale offsets). Positive twin: a token tile times a row, where
# the row is not the divisor.
# The sizes below are written against a 1M-token batch: the training
# profile's (issue 24); the inference profile stops at 131,072 tokens.
# RUN: %if kvlint %{ not %kvlint --option=Profile=training --per-site --checks=KV001 %s | FileCheck %s --implicit-check-not=warning: %}
import triton
import triton.language as tl


# Negative: the tile start of a head-dim loop times a row stride.
@triton.jit
def head_dim_tiles(gk, gk_stride_d, D: tl.constexpr, BK: tl.constexpr):
    for i_k in range(tl.cdiv(D, BK)):
        D_range = i_k * BK + tl.arange(0, BK)
        p_gk = gk + D_range * gk_stride_d  # formed here, masked where it is used
        tl.store(p_gk, 0)


# Negative: a K-group index of a GEMM's scales, K / group_size groups of N.
@triton.jit
def k_groups(scales_ptr, N, K, group_size, BLOCK_K: tl.constexpr, BLOCK_N: tl.constexpr):
    offs_n = tl.arange(0, BLOCK_N)
    for k_start in range(0, tl.cdiv(K, BLOCK_K)):
        g_idx = (k_start * BLOCK_K) // group_size
        tl.load(scales_ptr + g_idx * N + offs_n, mask=offs_n < N)


# Positive: a token tile start times a hidden row: the row is not what the
# token count was divided by.
@triton.jit
def token_tiles(x_ptr, num_tokens, hidden_size, BLOCK_M: tl.constexpr):
    for i_m in range(tl.cdiv(num_tokens, BLOCK_M)):
        offs_m = i_m * BLOCK_M + tl.arange(0, BLOCK_M)
        # CHECK: quotient.py:[[@LINE+1]]:26: warning: {{.*}}
        tl.store(x_ptr + offs_m * hidden_size, 0, mask=offs_m < num_tokens)


# Negative: a chunk of the flattened batch, i_b * cdiv(T, BT) + i_t, times
# the heads (a chunk-state row, fla's chunk_o): a ceil division keeps the
# shape of T, so i_b * NT is bounded by the step's tokens. Positive twin:
# the same chunk index times a whole K x V state.
@triton.jit
def chunk_rows(h, T, HV: tl.constexpr, BT: tl.constexpr, K: tl.constexpr, V: tl.constexpr):
    i_t, i_bh = tl.program_id(0), tl.program_id(1)
    i_b, i_h = i_bh // HV, i_bh % HV
    NT = tl.cdiv(T, BT)
    i_tg = i_b * NT + i_t
    tl.store(h + i_tg * HV + i_h + tl.arange(0, 16), 0)
    # CHECK: quotient.py:[[@LINE+1]]:18: warning: {{.*}}
    tl.store(h + (i_tg * HV + i_h) * K * V + tl.arange(0, 16), 0)


# Negative: the slot's offset inside its page, written as slot - page * size
# (MiniMax's sparse index cache): below the page size.
@triton.jit
def in_page_offset(cache_ptr, slot_mapping_ptr, stride_c_t, CACHE_BLOCK_SIZE: tl.constexpr):
    slot = tl.load(slot_mapping_ptr + tl.program_id(0))
    block_id = slot // CACHE_BLOCK_SIZE
    block_off = slot - block_id * CACHE_BLOCK_SIZE
    tl.store(cache_ptr + block_off * stride_c_t, 0)


# Positive twin: the slot minus a multiple of another width.
@triton.jit
def in_page_offset_other(cache_ptr, slot_mapping_ptr, stride_c_t, width,
                         CACHE_BLOCK_SIZE: tl.constexpr):
    slot = tl.load(slot_mapping_ptr + tl.program_id(0))
    block_id = slot // CACHE_BLOCK_SIZE
    off = slot - block_id * width
    # CHECK: quotient.py:[[@LINE+1]]:26: warning: 32-bit signed product 'off * stride_c_t' is used as a memory offset and wraps past 2^31 in the training profile: 'off' <= 8,396,798 ('slot_mapping_ptr' is an entry of a table named like it: below Envelope.KvSlots = 8,388,608) times 'stride_c_t' <= 16,384 ('stride_c_t' is named like it: Envelope.Stride = 16,384); widen 'off' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(cache_ptr + off * stride_c_t, 0)


# Negative: vLLM's ROCm shuffled cache layout. The slot read from the table
# may be negative (a pad slot), so its quotient by x is too; (slot // x) * x
# is still at most the slot's upper bound, and the product stays inside one
# page: PAGE_SIZE x head_size.
@triton.jit
def shuffled_v_slot(cache_ptr, slot_mapping_ptr, head_size, x, PAGE_SIZE: tl.constexpr):
    i = tl.program_id(0)
    slot_id = tl.load(slot_mapping_ptr + i) % PAGE_SIZE
    tl.store(cache_ptr + (slot_id // x) * head_size * x + slot_id % x, 0)


# Positive twin: the quotient meets another factor than its divisor.
@triton.jit
def shuffled_v_slot_other(cache_ptr, slot_mapping_ptr, head_size, x, y, PAGE_SIZE: tl.constexpr):
    i = tl.program_id(0)
    slot_id = tl.load(slot_mapping_ptr + i) % PAGE_SIZE
    # CHECK: quotient.py:[[@LINE+1]]:26: warning: 32-bit signed product '(slot_id // x) * head_size * y' is used as a memory offset and wraps past 2^31 in the training profile: '(slot_id // x) * head_size' <= 589,248 ('x' is bounded by no fact: below Envelope.Unknown = 8,192) times 'y' <= 8,191 ('y' is bounded by no fact: below Envelope.Unknown = 8,192); widen 'slot_id // x' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(cache_ptr + (slot_id // x) * head_size * y + slot_id % x, 0)


# Negative: the grouped tile swizzle of Triton GEMMs. group_id is pid //
# (GROUP_SIZE_M * num_pid_n), so group_id * GROUP_SIZE_M is at most pid //
# num_pid_n (aiter's MoE GEMMs, lightllm's grouped MoE), whatever the grid.
@triton.jit
def grouped_swizzle(out, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                    GROUP_SIZE_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (pid % group_size_m)
    tl.store(out + pid_m, 0)


# Positive twin: the group times another constexpr than the one the
# divisor holds.
@triton.jit
def grouped_swizzle_other(out, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                          GROUP_SIZE_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    # CHECK: quotient.py:[[@LINE+1]]:20: warning: 32-bit signed product 'group_id * BLOCK_M * BLOCK_N'
    tl.store(out + group_id * BLOCK_M * BLOCK_N, 0)


def launch_swizzled(out, num_tokens, N):
    grid = (num_tokens * 4096,)
    grouped_swizzle[grid](out, num_tokens, N, BLOCK_M=64, BLOCK_N=64)
    grouped_swizzle_other[grid](out, num_tokens, N, BLOCK_M=64, BLOCK_N=64)
