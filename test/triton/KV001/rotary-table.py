# KV001 facet: an offset into a RoPE cos/sin or frequency table (a pointer
# parameter RotaryTablePattern names: cos_ptr, sin, cos_sin_cache, freqs)
# is below Envelope.RotaryTable (1M positions x 576): a product there is
# latent, with a note. Round 15's judges found five such findings in 100,
# all "cannot". Positives beside them: the same product into the queries,
# into a KV cache, and into a pointer whose name only starts like one.
# RUN: %if kvlint %{ not %kvlint --checks=KV001 %s | FileCheck %s --implicit-check-not=warning: %}
# RUN: %if kvlint %{ not %kvlint --checks=KV001 --level=latent %s | FileCheck %s --check-prefix=LATENT %}
# RUN: %if kvlint %{ not %kvlint --checks=KV001 --option=kvlint-narrowed-index-overflow.RotaryTablePattern= %s | FileCheck %s --check-prefix=OFF %}
import triton
import triton.language as tl


@triton.jit
def rope(q_ptr, cos_ptr, sin_ptr, pos_ptr, stride_q, stride_cos, HALF: tl.constexpr):
    t = tl.program_id(0)
    pos = tl.load(pos_ptr + t)
    d = tl.arange(0, HALF)
    # Negative: the tables' rows are positions.
    # LATENT: rotary-table.py:[[@LINE+3]]:{{[0-9]+}}: warning: 32-bit signed product 'pos * stride_cos' {{.*}} only beyond
    # LATENT: note: 'cos_ptr' points to a tensor of at most 603,979,776 elements (named like a RoPE cos/sin table: Envelope.RotaryTable)
    # OFF: rotary-table.py:[[@LINE+1]]:{{[0-9]+}}: warning: 32-bit signed product 'pos * stride_cos'
    c = tl.load(cos_ptr + pos * stride_cos + d)
    s = tl.load(sin_ptr + pos * stride_cos + d)
    # Positive: the queries are [tokens, heads * head_dim].
    # CHECK: rotary-table.py:[[@LINE+1]]:{{[0-9]+}}: warning: 32-bit signed product 't * stride_q'
    q = tl.load(q_ptr + t * stride_q + d)
    tl.store(q_ptr + t * stride_q + d, q * c - q * s)


def apply(q, cos, sin, positions, num_tokens):
    rope[(num_tokens,)](q, cos, sin, positions, q.stride(0), cos.stride(0), HALF=64)


@triton.jit
def rope_cache(k_cache_ptr, cos_sin_cache, freqs, slot_ptr, pos_ptr, stride_slot, stride_rot,
               HALF: tl.constexpr):
    t = tl.program_id(0)
    pos = tl.load(pos_ptr + t)
    d = tl.arange(0, HALF)
    # Negative: a fused cos/sin cache and a frequency table.
    c = tl.load(cos_sin_cache + pos * stride_rot + d)
    f = tl.load(freqs + pos * stride_rot + d)
    slot = tl.load(slot_ptr + t)
    # Positive: the KV cache is not a RoPE table.
    # CHECK: rotary-table.py:[[@LINE+1]]:{{[0-9]+}}: warning: 32-bit signed product 'slot * stride_slot'
    tl.store(k_cache_ptr + slot * stride_slot + d, c * f)


@triton.jit
def cosine(out_ptr, cost_ptr, pos_ptr, stride_cost, HALF: tl.constexpr):
    pos = tl.load(pos_ptr + tl.program_id(0))
    # Positive: 'cost' is not 'cos'.
    # CHECK: rotary-table.py:[[@LINE+1]]:{{[0-9]+}}: warning: 32-bit signed product 'pos * stride_cost'
    tl.store(out_ptr + tl.arange(0, HALF), tl.load(cost_ptr + pos * stride_cost + tl.arange(0, HALF)))
