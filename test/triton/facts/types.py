# Type facts the Triton frontend reads from the source: annotated scalar
# parameters, and block pointers. tt.make_tensor_ptr takes 64-bit strides and
# 32-bit offsets: a coordinate is computed in its own type and extended to 64
# bits only to meet its stride, so coordinate x stride is 64-bit while a
# product inside a coordinate (a page times the page size as a row) is
# checked as written, like the base pointer.
# RUN: %if kvlint %{ %kvlint --dump-ir %s > %t.ir || true %}
# RUN: %if kvlint %{ FileCheck %s --check-prefix=IR < %t.ir %}
# RUN: %if kvlint %{ not %kvlint --checks=KV001 %s | FileCheck %s --implicit-check-not=warning: %}
import triton
import triton.language as tl


# IR-LABEL: function annotated
# IR: store (PtrAdd:ptr out (Param:ptr out) (Mul:i64 (Load:i32 elem=i32 idx (Param:ptr idx)) (Param:i64 stride)))
# IR: store (PtrAdd:ptr out (Param:ptr out) (Mul:u64 (LaunchIdx:i32 program_id(0)) (Param:u64 ustride)))
# IR: store (PtrAdd:ptr out (Param:ptr out) (Mul:i64 (LaunchIdx:i32 program_id(0)) (Param:i64 fwd)))
@triton.jit
def annotated(out, idx, stride: tl.int64, ustride: tl.uint64, fwd: "tl.int64"):
    tl.store(out + tl.load(idx) * stride, 0)
    tl.store(out + tl.program_id(0) * ustride, 0)
    tl.store(out + tl.program_id(0) * fwd, 0)


# IR-LABEL: function block_coords
# IR: store (PtrAdd:ptr x (PtrAdd:ptr x (Param:ptr x) (Mul:i32 (Load:i32 elem=i32 block_table (Param:ptr block_table)) (Param:i32 stride_page))) (Mul:i64 (Cast:i64 (Mul:i32 (LaunchIdx:i32 program_id(0)) (Symbolic:i32 BT))) (Cast:i64 (Param:i32 stride))))
@triton.jit
def block_coords(x, block_table, T, stride_page, stride, BT: tl.constexpr):
    # CHECK: types.py:[[@LINE+1]]:36: warning: 32-bit signed product 'tl.load(block_table) * stride_page' is used as a memory offset and wraps past 2^31 in the inference profile: 'tl.load(block_table)' <= 8,388,607 ('block_table' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'stride_page' <= 16,384 ('stride_page' is named like it: Envelope.Stride = 16,384); widen 'tl.load(block_table)' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    tl.store(tl.make_block_ptr(x + tl.load(block_table) * stride_page, (T, 64), (stride, 1),
                               (tl.program_id(0) * BT, 0), (BT, 64), (1, 0)), 0)


# A page times the page size (times 4,096 rows per slot) as a block
# pointer's row: the coordinate wraps in 32 bits before Triton extends it
# (positive). A tile of a constant grid as the row stays silent (negative).
@triton.jit
def block_coord_product(x, block_table, T, stride, PAGE: tl.constexpr):
    page = tl.load(block_table + tl.program_id(0))
    # CHECK: types.py:[[@LINE+1]]:53: warning: 32-bit signed product 'page * PAGE * 4096' is used as a memory offset and wraps past 2^31 in the inference profile: 'page * PAGE' <= 134,217,712 ('block_table' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times '4096' = 4,096; it wraps once 'page * PAGE' >= 524,288; widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    p = tl.make_block_ptr(x, (T, 64), (stride, 1), (page * PAGE * 4096, 0), (PAGE, 64), (1, 0))
    tl.store(p, tl.zeros((PAGE, 64), dtype=tl.float32))
    q = tl.make_block_ptr(x, (T, 64), (stride, 1), (tl.program_id(1) * 64, 0), (64, 64), (1, 0))
    tl.store(q, tl.zeros((64, 64), dtype=tl.float32))


def launch(x, block_table, T, stride):
    block_coord_product[(16, 128)](x, block_table, T, stride, PAGE=16)
