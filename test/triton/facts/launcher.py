# Launcher facts: what the plain-Python functions of the file that launch a
# kernel pass it. The frontend records them on the IR (constants, names,
# grids, table dtypes); --dump-ir prints them as [lo,hi] and @name/div.
# RUN: %if kvlint %{ %kvlint --dump-ir %s > %t.ir || true %}
# RUN: %if kvlint %{ FileCheck %s < %t.ir %}
import torch
import triton
import triton.language as tl

BLOCK_SIZE = 128


# CHECK-LABEL: function reshape_and_cache
# The grid is (num_tokens,): program_id(0) is below num_tokens; the slot
# table is int64 at the launch, so the slot times the stride is 64-bit.
# CHECK: load (PtrAdd:ptr slot_mapping_ptr (Param:ptr slot_mapping_ptr) (LaunchIdx:i32 program_id(0) @num_tokens))
# CHECK: store (PtrAdd:ptr cache_ptr (Param:ptr cache_ptr) (Mul:i64 (Load:i64 elem=i64 slot_mapping_ptr
# CHECK-SAME: (Param:i32 block_stride @block_stride)
# CHECK: store (PtrAdd:ptr key_ptr (Param:ptr key_ptr) (Mul:i32 (LaunchIdx:i32 program_id(0) @num_tokens) (Symbolic:i32 HEAD_SIZE [64,128])))
@triton.jit
def reshape_and_cache(key_ptr, cache_ptr, slot_mapping_ptr, block_stride, HEAD_SIZE: tl.constexpr):
    slot = tl.load(slot_mapping_ptr + tl.program_id(0))
    tl.store(cache_ptr + tl.load(slot_mapping_ptr + tl.program_id(0)) * block_stride, slot)
    tl.store(key_ptr + tl.program_id(0) * HEAD_SIZE, 0)


def reshape(key, cache, slot_mapping, head_size):
    num_tokens = key.shape[0]
    slots = slot_mapping.to(torch.int64)
    block_stride = cache.stride(0)
    HEAD_SIZE = 64 if head_size <= 64 else 128
    reshape_and_cache[(num_tokens,)](key, cache, slots, block_stride, HEAD_SIZE=HEAD_SIZE)


# CHECK-LABEL: function chunk_fwd
# A grid lambda: cdiv(T, META["BT"]) with BT passed as a constant (/64,
# and /(BT): the divisor is the kernel's BT, so program_id(0) * BT < T), and
# B * H, a product of names: program_id(1) spans @B*H. T comes from the
# unpacked shape.
# CHECK: store {{.*}}(Mul:i32 (LaunchIdx:i32 program_id(0) @T/64/(BT)) (Const:i32 64 BT [64,64]))) (LaunchIdx:i32 program_id(1) @B*H)) (Param:i32 T @T))
@triton.jit
def chunk_fwd(o, T, BT: tl.constexpr):
    tl.store(o + tl.program_id(0) * BT + tl.program_id(1) + T, 0)


def chunk(q, o):
    B, T, H, K = q.shape
    grid = lambda META: (triton.cdiv(T, META["BT"]), B * H)
    chunk_fwd[grid](o, T, BT=64)


# CHECK-LABEL: function two_sites
# Constants join over the sites; a site with a runtime value drops the fact.
# CHECK: store {{.*}}(Mul:i32 (LaunchIdx:i32 program_id(0) [0,127]) (Param:i32 a [8,128]))) (Param:i32 b)) (LaunchIdx:i32 program_id(2) [0,0]))
@triton.jit
def two_sites(p, a, b):
    tl.store(p + tl.program_id(0) * a + b + tl.program_id(2), 0)


def site_one(p, n):
    two_sites[(BLOCK_SIZE, 4)](p, BLOCK_SIZE, n)


def site_two(p):
    two_sites[(1, 2)](p, 8, 16)


# CHECK-LABEL: function unlaunched
# No launch in this file: no hints.
# CHECK: store (PtrAdd:ptr p (Param:ptr p) (Mul:i32 (LaunchIdx:i32 program_id(0)) (Param:i32 n)))
@triton.jit
def unlaunched(p, n):
    tl.store(p + tl.program_id(0) * n, 0)


def broken_launcher(p, n):
    # Malformed launches are skipped, never fatal.
    unlaunched[(n + ,)](p, n
    unlaunched[]()


# CHECK-LABEL: function rebound_a
# `grid` is rebound before each launch: each kernel's axes come from the
# binding that reaches its launch (NK for one, NV for the other), not from
# a merge of both (which would say nothing).
# CHECK: store (PtrAdd:ptr p (Param:ptr p) (LaunchIdx:i32 program_id(0) @K/64))
@triton.jit
def rebound_a(p):
    tl.store(p + tl.program_id(0), 0)


# CHECK-LABEL: function rebound_b
# CHECK: store (PtrAdd:ptr p (Param:ptr p) (LaunchIdx:i32 program_id(0) @V/32))
@triton.jit
def rebound_b(p):
    tl.store(p + tl.program_id(0), 0)


# CHECK-LABEL: function branch_grid
# A binding in a branch between the other binding and the launch: which one
# reaches is not known, and the merge of both says nothing.
# CHECK: store (PtrAdd:ptr p (Param:ptr p) (LaunchIdx:i32 program_id(0)))
@triton.jit
def branch_grid(p):
    tl.store(p + tl.program_id(0), 0)


def rebound(p, K, V, flag):
    NK = triton.cdiv(K, 64)
    NV = triton.cdiv(V, 32)
    grid = (NK, 4)
    rebound_a[grid](p)
    grid = (NV, 4)
    rebound_b[grid](p)
    grid = (NK,)
    if flag:
        grid = (NV,)
    branch_grid[grid](p)


# CHECK-LABEL: function tiles_of_heads
# A tile of rows of every (batch, head): cdiv(N_CTX, 128) * Z * H programs
# span N_CTX * Z * H rows over the tile of 128.
# CHECK: store (PtrAdd:ptr p (Param:ptr p) (LaunchIdx:i32 program_id(0) @N_CTX*Z*H/128))
@triton.jit
def tiles_of_heads(p):
    tl.store(p + tl.program_id(0), 0)


def tiles(p, q):
    Z, H, N_CTX, D = q.shape
    tiles_of_heads[(triton.cdiv(N_CTX, 128) * Z * H,)](p)


# CHECK-LABEL: function capped_grid
# A grid capped by min(cdiv(numel, 1024), max_programs): at most
# max_programs programs. A table made by torch.arange is int64.
# CHECK: load (PtrAdd:ptr idx (Param:ptr idx) (LaunchIdx:i32 program_id(0) @max_programs))
# CHECK: store (PtrAdd:ptr out (Param:ptr out) (Mul:i64 (Var:i64 i) (Param:i32 stride @stride)))
@triton.jit
def capped_grid(out, idx, stride):
    i = tl.load(idx + tl.program_id(0))
    tl.store(out + i * stride, 0)


def capped(out, numel, max_programs, stride):
    idx = torch.arange(numel, device="cuda")
    n = min(triton.cdiv(numel, 1024), max_programs)
    capped_grid[(n,)](out, idx, stride)


# CHECK-LABEL: function asserted
# What the launcher asserts: NK == 1 makes program_id(0) 0 and D <= 512 a
# constant range for the parameter; an assert between two names says
# nothing.
# CHECK: store (PtrAdd:ptr o (PtrAdd:ptr o (PtrAdd:ptr o (Param:ptr o) (Mul:i32 (LaunchIdx:i32 program_id(0) [0,0]) (Param:i32 n @n))) (Param:i32 D [0,512])) (Param:i32 E @E))
@triton.jit
def asserted(o, n, D, E):
    tl.store(o + tl.program_id(0) * n + D + E, 0)


def run_asserted(o, n, D, E, K, BK):
    NK = triton.cdiv(K, BK)
    assert NK == 1, "one K block"
    assert D <= 512 and E <= n
    asserted[(NK,)](o, n, D, E)


# CHECK-LABEL: function wrapped_for_compile
# A kernel wrapped for torch.compile is launched like any other:
# torch.library.wrap_triton(kernel)[(M,)](...) shows the grid.
# CHECK: store (PtrAdd:ptr y (Param:ptr y) (Mul:i32 (LaunchIdx:i32 program_id(0) @M) (Param:i32 stride @stride)))
@triton.jit
def wrapped_for_compile(y, stride):
    tl.store(y + tl.program_id(0) * stride, 0)


def wrapped(y, x):
    M, N = x.shape
    stride = y.stride(0)
    torch.library.wrap_triton(wrapped_for_compile)[(M,)](y, stride)


# CHECK-LABEL: function unit_strides
# The last dimension's stride of a contiguous tensor the launcher shows is 1:
# one it allocates, one made contiguous (its shape unpacked), one asserted
# contiguous. Another dimension's stride is at most the product of the sizes
# inside it (@stride H*D, an upper bound the analysis takes where it is below
# the name's); a tensor of unknown layout stays as named.
# CHECK: store (PtrAdd:ptr o {{.*}}(Param:i32 s_alloc [1,1]){{.*}}(Param:i32 s_contig [1,1]){{.*}}(Param:i32 s_assert [1,1]){{.*}}(Param:i32 s_row @stride H*D){{.*}}(Param:i32 s_any)
@triton.jit
def unit_strides(o, s_alloc, s_contig, s_assert, s_row, s_any):
    i = tl.program_id(0)
    tl.store(o + i * s_alloc + i * s_contig + i * s_assert + i * s_row + i * s_any, 0)


def unit(x, y, z):
    T, H, D = y.shape
    N, E = z.shape
    out = torch.empty(T, H, D, device=x.device)
    y = y.contiguous()
    assert z.is_contiguous()
    unit_strides[(T,)](out, out.stride(-1), y.stride(2), z.stride(1), out.stride(0), x.stride(-1))
