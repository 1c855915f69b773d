# KV001 facet: floating-point arithmetic is no index math. A position scaled
# by a float (`row.to(tl.float32) * h_scale`, bilinear interpolation in
# vLLM's Qwen3-VL position embedding) cannot wrap, and the float it gives
# bounds nothing about the integer converted from it: that integer is a value
# no fact bounds (Envelope.Unknown), like a parameter. Positive twins: the
# converted integer times a wide row, and an integer product next to the float.
# RUN: %if kvlint %{ not %kvlint --per-site --checks=KV001 %s | FileCheck %s --implicit-check-not=warning: %}
import triton
import triton.language as tl


# Negative: the float product of a position and a scale (Qwen3-VL's
# spatial-merge reorder: the row's bound comes from W // M_SIZE, which a name
# makes large); its floor, clamped to the grid, times a small grid row.
@triton.jit
def interpolate(embed_ptr, out_ptr, H, W, h_scale, NUM_GRID: tl.constexpr, M_SIZE: tl.constexpr,
                BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    spatial_idx = pid % (H * W)
    num_blocks_w = W // M_SIZE
    block_idx = spatial_idx // (M_SIZE * M_SIZE)
    local_idx = spatial_idx % (M_SIZE * M_SIZE)
    row = (block_idx // num_blocks_w) * M_SIZE + local_idx // M_SIZE
    h_frac = row.to(tl.float32) * h_scale
    hf = tl.minimum(tl.math.floor(h_frac).to(tl.int32), NUM_GRID - 1)
    x = tl.load(embed_ptr + hf * NUM_GRID * 64 + tl.arange(0, BLOCK))
    tl.store(out_ptr + pid * BLOCK + tl.arange(0, BLOCK), x)


# Negative: true division and a float literal times an index.
@triton.jit
def ramp(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    w = offs * 0.5 + offs / n
    tl.store(x_ptr + offs, w, mask=offs < n)


# Positive: the converted integer times a hidden row.
@triton.jit
def gather_rows(src_ptr, out_ptr, scale, hidden_size, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    src_row = tl.math.floor(pid.to(tl.float32) * scale).to(tl.int32)
    # CHECK: floats.py:[[@LINE+1]]:27: warning: 32-bit signed product 'src_row * hidden_size * 64' is used as a memory offset and wraps past 2^31 in the inference profile: 'src_row * hidden_size' <= 134,201,344 ('hidden_size' is named like it: Envelope.Hidden = 16,384) times '64' = 64; it wraps once 'src_row * hidden_size' >= 33,554,432; widen 'src_row' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    x = tl.load(src_ptr + src_row * hidden_size * 64 + tl.arange(0, BLOCK))
    tl.store(out_ptr + pid * BLOCK + tl.arange(0, BLOCK), x)


# Positive: an integer token row next to a float weight.
@triton.jit
def weighted_rows(x_ptr, w, vocab_size, BLOCK: tl.constexpr):
    token = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    # CHECK: floats.py:[[@LINE+1]]:25: warning: 32-bit signed product 'token * vocab_size' is used as a memory offset and wraps past 2^31 in the inference profile: 'token' <= 65,535 ('program_id(0)' spans a grid the launcher does not show: below Envelope.Grid = 65,536) times 'vocab_size' <= 262,144 ('vocab_size' is named like it: Envelope.Vocab = 262,144); widen 'token' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    x = tl.load(x_ptr + token * vocab_size + offs, mask=offs < vocab_size)
    # CHECK: floats.py:[[@LINE+1]]:22: warning: 32-bit signed product 'token * vocab_size' is used as a memory offset and wraps past 2^31 in the inference profile: 'token' <= 65,535 ('program_id(0)' spans a grid the launcher does not show: below Envelope.Grid = 65,536) times 'vocab_size' <= 262,144 ('vocab_size' is named like it: Envelope.Vocab = 262,144); widen 'token' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(x_ptr + token * vocab_size + offs, x * w * 0.5, mask=offs < vocab_size)
