# Type facts the Triton frontend reads from the source: annotated scalar
# parameters, and block-pointer coordinates, which Triton widens to 64 bits.
# The base pointer of a block pointer is checked as written.
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
# IR: store (PtrAdd:ptr x (PtrAdd:ptr x (Param:ptr x) (Mul:i32 (Load:i32 elem=i32 block_table (Param:ptr block_table)) (Param:i32 stride_page))) (Mul:i64 (Mul:i64 (LaunchIdx:i32 program_id(0)) (Symbolic:i32 BT)) (Cast:i64 (Param:i32 stride))))
@triton.jit
def block_coords(x, block_table, T, stride_page, stride, BT: tl.constexpr):
    # CHECK: types.py:[[@LINE+1]]:36: warning: {{.*}}'tl.load(block_table) * stride_page'{{.*}}[kvlint-narrowed-index-overflow]
    tl.store(tl.make_block_ptr(x + tl.load(block_table) * stride_page, (T, 64), (stride, 1),
                               (tl.program_id(0) * BT, 0), (BT, 64), (1, 0)), 0)
