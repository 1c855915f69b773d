//===- TritonLoweringTest.cpp - Triton frontend: type rules and lowering --===//
#ifdef KVLINT_HAVE_TRITON

#include "kvlint/Frontend.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>

using namespace kvlint;

namespace {

const char *Prelude = "import triton\nimport triton.language as tl\n\n";

LoweredFile lower(const std::string &Body, const Options &O = Options()) {
  return lowerTritonSource("t.py", Prelude + Body, O);
}

/// Every node reachable from N (through Vars and all operands).
void collect(const Node *N, std::vector<const Node *> &Out, std::set<const Node *> &Seen) {
  if (!N || !Seen.insert(N).second) return;
  Out.push_back(N);
  for (const Node *O : N->Ops) collect(O, Out, Seen);
}

std::vector<const Node *> all(const Node *N) {
  std::vector<const Node *> Out;
  std::set<const Node *> Seen;
  collect(N, Out, Seen);
  return Out;
}

const Node *find(const Node *Root, std::function<bool(const Node *)> P) {
  for (const Node *N : all(Root))
    if (P(N)) return N;
  return nullptr;
}
const Node *findKind(const Node *Root, Kind K) {
  return find(Root, [&](const Node *N) { return N->K == K; });
}
const Node *findNamed(const Node *Root, Kind K, const std::string &Name) {
  return find(Root, [&](const Node *N) { return N->K == K && N->Name == Name; });
}

bool isTy(const IntTy &T, unsigned Bits, bool Signed) {
  return !T.Pointer && !T.Bool && T.Bits == Bits && T.Signed == Signed;
}

/// The single function of a lowered file (asserted).
const Function &only(const LoweredFile &LF) {
  EXPECT_EQ(LF.Functions.size(), 1u);
  static Function Empty;
  return LF.Functions.empty() ? Empty : *LF.Functions[0];
}

/// The address of the last access.
const Node *lastAddr(const LoweredFile &LF) {
  const Function &F = only(LF);
  EXPECT_FALSE(F.Accesses.empty());
  return F.Accesses.empty() ? nullptr : F.Accesses.back().Addr;
}

/// Like dump(), but expands through Vars (for failure messages).
std::string deep(const Node *N, unsigned D = 0) {
  if (!N) return "null";
  if (D > 30) return "...";
  std::string S = "(" + std::string(kindName(N->K)) + ":" +
                  (N->Ty.Pointer ? "ptr" : (N->Ty.Signed ? "i" : "u") + std::to_string(N->Ty.Bits));
  if (N->K == Kind::Const) S += " " + std::to_string(N->Value);
  if (!N->Name.empty()) S += " " + N->Name;
  for (const Node *O : N->Ops) S += " " + deep(O, D + 1);
  return S + ")";
}

} // namespace

TEST(TritonLowering, ProgramIdAndArangeAreInt32) {
  auto LF = lower("@triton.jit\ndef k(x_ptr, B: tl.constexpr):\n"
                  "    pid = tl.program_id(axis=1)\n"
                  "    offs = tl.arange(0, 128)\n"
                  "    tl.store(x_ptr + pid + offs, 0)\n");
  const Node *A = lastAddr(LF);
  const Node *Pid = findKind(A, Kind::LaunchIdx);
  ASSERT_TRUE(Pid);
  EXPECT_EQ(Pid->Name, "program_id(1)");
  EXPECT_TRUE(isTy(Pid->Ty, 32, true));
  const Node *R = findKind(A, Kind::Range);
  ASSERT_TRUE(R);
  EXPECT_EQ(R->Value, 128);
  EXPECT_EQ(R->Value2, 0);
  EXPECT_TRUE(isTy(R->Ty, 32, true));
  EXPECT_EQ(A->K, Kind::PtrAdd);
  EXPECT_TRUE(A->Ty.Pointer);
}

TEST(TritonLowering, ParamsIntConstexprAndPointers) {
  auto LF = lower("@triton.jit\ndef k(out, src_ptr, n, stride, S: tl.constexpr):\n"
                  "    v = tl.load(src_ptr + n * S)\n"
                  "    tl.store(out + stride, v)\n");
  const Function &F = only(LF);
  ASSERT_EQ(F.Accesses.size(), 2u);
  const Node *Mul = findKind(F.Accesses[0].Addr, Kind::Mul);
  ASSERT_TRUE(Mul);
  EXPECT_TRUE(isTy(Mul->Ty, 32, true)) << "int32 * constexpr stays int32";
  const Node *N = findNamed(Mul, Kind::Param, "n");
  ASSERT_TRUE(N);
  EXPECT_TRUE(isTy(N->Ty, 32, true));
  const Node *S = findNamed(Mul, Kind::Symbolic, "S");
  ASSERT_TRUE(S);
  EXPECT_TRUE(isTy(S->Ty, 32, true));
  // `out` is not named like a pointer, but it is used as one.
  const Node *Out = findNamed(F.Accesses[1].Addr, Kind::Param, "out");
  ASSERT_TRUE(Out);
  EXPECT_TRUE(Out->Ty.Pointer);
  EXPECT_TRUE(isTy(findNamed(F.Accesses[1].Addr, Kind::Param, "stride")->Ty, 32, true));
}

TEST(TritonLowering, PromotionRules) {
  auto LF = lower("@triton.jit\ndef k(p, a, b, A: tl.constexpr, B: tl.constexpr):\n"
                  "    w = a.to(tl.int64)\n"
                  "    u = b.to(tl.uint32)\n"
                  "    tl.store(p + a * w, 0)\n"   // int32 * int64 -> int64
                  "    tl.store(p + u * a, 0)\n"   // uint32 * int32 -> uint32
                  "    tl.store(p + a * (A * B), 0)\n" // constexpr*constexpr exact
                  "    tl.store(p + a * 7, 0)\n");
  const Function &F = only(LF);
  ASSERT_EQ(F.Accesses.size(), 4u);
  EXPECT_TRUE(isTy(findKind(F.Accesses[0].Addr, Kind::Mul)->Ty, 64, true));
  EXPECT_TRUE(isTy(findKind(F.Accesses[1].Addr, Kind::Mul)->Ty, 32, false));
  const Node *Outer = F.Accesses[2].Addr->op(1);
  ASSERT_EQ(Outer->K, Kind::Mul);
  EXPECT_TRUE(isTy(Outer->Ty, 32, true)) << "a python int never widens a tensor";
  const Node *Inner = Outer->op(1);
  ASSERT_EQ(Inner->K, Kind::Mul);
  EXPECT_TRUE(isTy(Inner->Ty, 64, true)) << "constexpr*constexpr is exact Python arithmetic";
  const Node *M7 = F.Accesses[3].Addr->op(1);
  EXPECT_TRUE(isTy(M7->Ty, 32, true));
  EXPECT_EQ(M7->op(1)->K, Kind::Const);
  EXPECT_EQ(M7->op(1)->Value, 7);
}

TEST(TritonLowering, CastsAreExplicit) {
  auto LF = lower("@triton.jit\ndef k(p, idx_ptr):\n"
                  "    a = tl.load(idx_ptr).to(tl.int32)\n"
                  "    b = tl.cast(a, tl.int64)\n"
                  "    tl.store(p + b, 0)\n");
  const Node *A = lastAddr(LF);
  const Node *C64 = find(A, [](const Node *N) { return N->K == Kind::Cast && N->Ty.Bits == 64; });
  ASSERT_TRUE(C64);
  EXPECT_TRUE(C64->Explicit);
  const Node *C32 = find(A, [](const Node *N) { return N->K == Kind::Cast && N->Ty.Bits == 32; });
  ASSERT_TRUE(C32);
  EXPECT_TRUE(C32->Explicit);
  EXPECT_EQ(C32->op(0)->K, Kind::Load) << "the narrowed load stays a Cast around the Load";
}

TEST(TritonLowering, LoadElementWidthDefaultAndOption) {
  std::string Src = "@triton.jit\ndef k(p, t_ptr):\n"
                    "    v = tl.load(t_ptr + 1)\n"
                    "    tl.store(p + v * 8, 0)\n";
  auto LF = lower(Src);
  const Node *L = findKind(lastAddr(LF), Kind::Load);
  ASSERT_TRUE(L);
  EXPECT_TRUE(isTy(L->ElemTy, 32, true));
  EXPECT_TRUE(isTy(L->Ty, 32, true));
  EXPECT_EQ(L->Name, "t_ptr");
  Options O;
  O.set("triton.UnknownLoadBits", "64");
  auto LF64 = lower(Src, O);
  const Node *L64 = findKind(lastAddr(LF64), Kind::Load);
  ASSERT_TRUE(L64);
  EXPECT_TRUE(isTy(L64->ElemTy, 64, true));
  EXPECT_TRUE(isTy(findKind(lastAddr(LF64), Kind::Mul)->Ty, 64, true));
}

TEST(TritonLowering, PointerTypeCastGivesElementType) {
  auto LF = lower("@triton.jit\ndef k(p, t):\n"
                  "    tp = t.to(tl.pointer_type(tl.int64))\n"
                  "    v = tl.load(tp + 3)\n"
                  "    tl.store(p + v, 0)\n");
  const Node *L = findKind(lastAddr(LF), Kind::Load);
  ASSERT_TRUE(L);
  EXPECT_TRUE(isTy(L->ElemTy, 64, true));
}

TEST(TritonLowering, AtomicIsStoreAndLoad) {
  auto LF = lower("@triton.jit\ndef k(cnt_ptr, out_ptr, n):\n"
                  "    old = tl.atomic_add(cnt_ptr + 0, 1, mask=n > 0)\n"
                  "    tl.store(out_ptr + old * n, 1)\n");
  const Function &F = only(LF);
  ASSERT_EQ(F.Accesses.size(), 2u);
  EXPECT_EQ(F.Accesses[0].AK, AccessKind::Store);
  ASSERT_TRUE(F.Accesses[0].Mask);
  EXPECT_EQ(F.Accesses[0].Mask->K, Kind::Gt);
  EXPECT_TRUE(findKind(F.Accesses[1].Addr, Kind::Load));
}

TEST(TritonLowering, WhereTuplesDivRem) {
  auto LF = lower("@triton.jit\ndef k(p, x, y, B: tl.constexpr):\n"
                  "    a, b = x // B, y % B\n"
                  "    c = tl.where(a < y, a, b)\n"
                  "    tl.store(p + c, 0)\n");
  const Node *A = lastAddr(LF);
  const Node *S = findKind(A, Kind::Select);
  ASSERT_TRUE(S);
  EXPECT_EQ(S->op(0)->K, Kind::Lt);
  EXPECT_TRUE(findKind(A, Kind::Div));
  EXPECT_TRUE(findKind(A, Kind::Rem));
  const Node *VarA = findNamed(A, Kind::Var, "a");
  ASSERT_TRUE(VarA);
  EXPECT_EQ(VarA->op(0)->K, Kind::Div);
}

TEST(TritonLowering, BroadcastSubscriptKeepsValue) {
  auto LF = lower("@triton.jit\ndef k(p, idx_ptr, stride):\n"
                  "    idx = tl.load(idx_ptr + tl.arange(0, 16))\n"
                  "    tl.store(p + idx[:, None] * stride + tl.arange(0, 8)[None, :], 0)\n");
  const Node *Mul = findKind(lastAddr(LF), Kind::Mul);
  ASSERT_TRUE(Mul);
  EXPECT_EQ(Mul->op(0)->K, Kind::Var);
  EXPECT_EQ(Mul->op(0)->Name, "idx");
  EXPECT_TRUE(isTy(Mul->Ty, 32, true));
}

TEST(TritonLowering, BlockPointersUseInt64Strides) {
  auto LF = lower("@triton.jit\ndef k(base_ptr, page_ptr, stride, n):\n"
                  "    page = tl.load(page_ptr)\n"
                  "    bp = tl.make_block_ptr(base=base_ptr, shape=(n, 64), strides=(stride, 1),\n"
                  "                           offsets=(page * 64, 0), block_shape=(16, 64), order=(1, 0))\n"
                  "    for i in range(4):\n"
                  "        v = tl.load(bp)\n"
                  "        bp = tl.advance(bp, (16, 0))\n");
  const Node *A = lastAddr(LF);
  // The block offset: int64(page * 64) * int64(stride): the coordinate is a
  // 32-bit value (tt.make_tensor_ptr takes I32 offsets), extended to meet
  // the 64-bit stride.
  const Node *Wide = find(A, [](const Node *N) {
    return N->K == Kind::Mul && N->Ty.Bits == 64 && N->op(1)->K == Kind::Cast;
  });
  ASSERT_TRUE(Wide) << deep(A);
  ASSERT_EQ(Wide->op(0)->K, Kind::Cast) << deep(A);
  EXPECT_TRUE(isTy(Wide->op(0)->Ty, 64, true)) << deep(A);
  const Node *Coord = Wide->op(0)->op(0);
  ASSERT_TRUE(Coord);
  EXPECT_EQ(Coord->K, Kind::Mul) << deep(A);
  EXPECT_TRUE(isTy(Coord->Ty, 32, true)) << "the coordinate is computed in 32 bits: " << deep(A);
  // tl.advance adds int64(16) * stride; the loop carries bp through a Phi.
  EXPECT_TRUE(findKind(A, Kind::Phi));
  EXPECT_TRUE(find(A, [](const Node *N) {
    return N->K == Kind::Mul && N->op(0)->K == Kind::Cast && N->op(0)->op(0) &&
           N->op(0)->op(0)->K == Kind::Const && N->op(0)->op(0)->Value == 16;
  })) << deep(A);
}

TEST(TritonLowering, AnnotatedParamsAreTyped) {
  auto LF = lower("@triton.jit\ndef k(p, a: tl.int64, b: tl.uint64, c: 'tl.int64', d: \"tl.uint32\",\n"
                  "      e: int, f: tl.float32, g: tl.constexpr):\n"
                  "    i = tl.program_id(0)\n"
                  "    tl.store(p + i * a, 0)\n"
                  "    tl.store(p + i * b, 0)\n"
                  "    tl.store(p + i * c, 0)\n"
                  "    tl.store(p + i * d, 0)\n"
                  "    tl.store(p + i * e + f + g, 0)\n");
  const Function &F = only(LF);
  ASSERT_EQ(F.Accesses.size(), 5u);
  auto ParamTy = [&](size_t I, const char *N) {
    const Node *P = findNamed(F.Accesses[I].Addr, Kind::Param, N);
    EXPECT_TRUE(P) << N;
    return P ? P->Ty : IntTy();
  };
  EXPECT_TRUE(isTy(ParamTy(0, "a"), 64, true));
  EXPECT_TRUE(isTy(ParamTy(1, "b"), 64, false));
  EXPECT_TRUE(isTy(ParamTy(2, "c"), 64, true)) << "a string annotation";
  EXPECT_TRUE(isTy(ParamTy(3, "d"), 32, false));
  EXPECT_TRUE(isTy(ParamTy(4, "e"), 32, true)) << "a Python int is an int32 scalar";
  EXPECT_TRUE(isTy(ParamTy(4, "f"), 32, true)) << "floats keep the default";
  EXPECT_TRUE(isTy(findKind(F.Accesses[0].Addr, Kind::Mul)->Ty, 64, true)) << "i32 * i64 is i64";
  EXPECT_TRUE(isTy(findKind(F.Accesses[1].Addr, Kind::Mul)->Ty, 64, false));
  EXPECT_TRUE(isTy(findKind(F.Accesses[3].Addr, Kind::Mul)->Ty, 32, false));
  EXPECT_TRUE(isTy(findKind(F.Accesses[4].Addr, Kind::Mul)->Ty, 32, true));
}

TEST(TritonLowering, BlockPointerCoordinatesAre32BitValuesTimes64BitStrides) {
  auto LF = lower("@triton.jit\ndef k(o, x, n, i_n, s_n, stride, BT: tl.constexpr):\n"
                  "    i_t = tl.program_id(0)\n"
                  "    row = i_t * BT\n"
                  "    if n > 4:\n"
                  "        row = row + BT\n"
                  "    bp = tl.make_block_ptr(x + i_n * s_n, (n, 64), (stride, 1), (row - 1, 0), (16, 64), (1, 0))\n"
                  "    bp = tl.advance(bp, (i_t * BT, 0))\n"
                  "    tl.store(bp, 0)\n"
                  "    tl.store(o + row, 0)\n");
  const Function &F = only(LF);
  ASSERT_EQ(F.Accesses.size(), 2u);
  const Node *A = F.Accesses[0].Addr;
  // coordinate x stride is 64-bit; the coordinates themselves (row - 1,
  // i_t * BT) and the base's i_n * s_n are 32-bit, as written.
  unsigned Wide = 0;
  for (const Node *N : all(A)) {
    if (N->K != Kind::Mul) continue;
    if (N->op(1) && N->op(1)->K == Kind::Cast) {
      EXPECT_TRUE(isTy(N->Ty, 64, true)) << deep(N);
      EXPECT_EQ(N->op(0)->K, Kind::Cast) << "the coordinate is extended: " << deep(N);
      ++Wide;
      continue;
    }
    EXPECT_TRUE(isTy(N->Ty, 32, true)) << "computed in its own type: " << deep(N);
  }
  EXPECT_EQ(Wide, 2u) << deep(A);
  EXPECT_TRUE(find(A, [](const Node *N) {
    return N->K == Kind::Sub && isTy(N->Ty, 32, true) && N->op(0)->K == Kind::Var &&
           N->op(0)->Name == "row";
  })) << "the local holding the coordinate keeps its type: " << deep(A);
  const Node *Plain = findKind(F.Accesses[1].Addr, Kind::Mul);
  ASSERT_TRUE(Plain) << deep(F.Accesses[1].Addr);
  EXPECT_TRUE(isTy(Plain->Ty, 32, true));
}

TEST(TritonLowering, DescriptorCoordinatesDoNotLeak) {
  // Descriptor accesses read through the descriptor: no pointer access is
  // recorded, and their 64-bit coordinates leave the locals as written.
  auto LF = lower("@triton.jit\ndef k(o, x, T, H: tl.constexpr, BT: tl.constexpr):\n"
                  "    i_t = tl.program_id(0)\n"
                  "    r = i_t * BT\n"
                  "    desc = tl.make_tensor_descriptor(x, [T, BT], [H * BT, 1], [16, 16])\n"
                  "    v = desc.load([r, 0])\n"
                  "    desc.store([r + 16, 0], v)\n"
                  "    w = tl.load_tensor_descriptor(desc, [r, 0])\n"
                  "    tl.store(o + r, w)\n");
  const Function &F = only(LF);
  ASSERT_EQ(F.Accesses.size(), 1u);
  const Node *Mul = findKind(F.Accesses[0].Addr, Kind::Mul);
  ASSERT_TRUE(Mul);
  EXPECT_TRUE(isTy(Mul->Ty, 32, true));
}

TEST(TritonLowering, LoopCarriedPointer) {
  auto LF = lower("@triton.jit\ndef k(x_ptr, idx_ptr, stride, n):\n"
                  "    ptr = x_ptr\n"
                  "    for i in range(0, n):\n"
                  "        v = tl.load(ptr)\n"
                  "        ptr += tl.load(idx_ptr + i) * stride\n");
  const Function &F = only(LF);
  ASSERT_EQ(F.Accesses.size(), 2u);
  const Node *Addr = F.Accesses[0].Addr;
  ASSERT_EQ(Addr->K, Kind::Var);
  const Node *P = Addr->op(0);
  ASSERT_EQ(P->K, Kind::Phi);
  ASSERT_EQ(P->Ops.size(), 2u);
  EXPECT_EQ(P->op(1)->K, Kind::PtrAdd);
  EXPECT_TRUE(findKind(P->op(1), Kind::Mul));
  // Loop guard: i < n.
  bool LoopGuard = false;
  for (const Guard &G : F.Accesses[0].Guards)
    if (G.How == Guard::Loop && G.Cond->K == Kind::Lt) LoopGuard = true;
  EXPECT_TRUE(LoopGuard);
}

TEST(TritonLowering, DescendingLoopGuard) {
  auto LF = lower("@triton.jit\ndef k(p, n):\n"
                  "    for i in range(n - 1, -1, -1):\n"
                  "        tl.store(p + i, 0)\n");
  const Function &F = only(LF);
  ASSERT_EQ(F.Accesses.size(), 1u);
  bool Gt = false;
  for (const Guard &G : F.Accesses[0].Guards)
    Gt |= G.How == Guard::Loop && G.Cond->K == Kind::Gt;
  EXPECT_TRUE(Gt) << "a negative step runs while i > end";
}

TEST(TritonLowering, ChainedAssignmentLowersOnce) {
  auto LF = lower("@triton.jit\ndef k(p, t_ptr):\n"
                  "    a = b = tl.load(t_ptr)\n"
                  "    tl.store(p + a + b, 0)\n");
  const Function &F = only(LF);
  EXPECT_EQ(F.Accesses.size(), 2u) << "one load, one store";
  const Node *A = findNamed(lastAddr(LF), Kind::Var, "a");
  const Node *B = findNamed(lastAddr(LF), Kind::Var, "b");
  ASSERT_TRUE(A && B);
  EXPECT_EQ(A->op(0), B->op(0));
}

TEST(TritonLowering, WideningFlagIsTakenAsSet) {
  auto LF = lower("@triton.jit\ndef k(p, idx_ptr, stride, INT64_INDEX: tl.constexpr):\n"
                  "    idx = tl.load(idx_ptr)\n"
                  "    if INT64_INDEX:\n"
                  "        idx = idx.to(tl.int64)\n"
                  "    tl.store(p + idx * stride, 0)\n");
  const Node *Mul = findKind(lastAddr(LF), Kind::Mul);
  ASSERT_TRUE(Mul);
  EXPECT_TRUE(isTy(Mul->Ty, 64, true));
  EXPECT_FALSE(findKind(lastAddr(LF), Kind::Symbolic)) << "the flag is resolved, not a guard";
}

TEST(TritonLowering, ValueFlagsAreSpecialised) {
  auto LF = lower("@triton.jit\ndef k(p, cu_ptr, T, H: tl.constexpr, IS_VARLEN: tl.constexpr):\n"
                  "    i_b = tl.program_id(0).to(tl.int64)\n"
                  "    if IS_VARLEN:\n"
                  "        bos = tl.load(cu_ptr + i_b).to(tl.int32)\n"
                  "    else:\n"
                  "        bos = i_b * T\n"
                  "    tl.store(p + bos * H, 0)\n");
  ASSERT_EQ(LF.Functions.size(), 2u) << "one lowering per value of IS_VARLEN";
  std::set<unsigned> Bits;
  for (auto &F : LF.Functions) {
    ASSERT_FALSE(F->Accesses.empty());
    const Node *Mul = F->Accesses.back().Addr->op(1);
    ASSERT_EQ(Mul->K, Kind::Mul);
    Bits.insert(Mul->Ty.Bits);
    EXPECT_FALSE(findKind(Mul, Kind::Phi)) << "no value merged across specialisations";
    if (Mul->Ty.Bits == 32) {
      EXPECT_TRUE(findKind(Mul, Kind::Load));
    }
  }
  EXPECT_EQ(Bits, (std::set<unsigned>{32, 64}));
}

TEST(TritonLowering, PhiOfDifferentValuesIsNarrow) {
  // A runtime branch (not a constexpr): one path computes in 32 bits.
  auto LF = lower("@triton.jit\ndef k(p, cu_ptr, n, H: tl.constexpr):\n"
                  "    i_b = tl.program_id(0)\n"
                  "    if n > 0:\n"
                  "        bos = tl.load(cu_ptr + i_b)\n"
                  "    else:\n"
                  "        bos = i_b.to(tl.int64) * n\n"
                  "    tl.store(p + bos * H, 0)\n");
  const Node *Phi = findKind(lastAddr(LF), Kind::Phi);
  ASSERT_TRUE(Phi);
  EXPECT_TRUE(isTy(Phi->Ty, 32, true));
}

TEST(TritonLowering, HelpersAreInlinedWithCallerFacts) {
  auto LF = lower("@triton.jit\ndef _pid64():\n"
                  "    return tl.program_id(0).to(tl.int64)\n\n"
                  "@triton.jit\ndef _st(base, i, s):\n"
                  "    tl.store(base + i * s, 0)\n\n"
                  "@triton.jit\ndef k(p, stride):\n"
                  "    pid = _pid64()\n"
                  "    _st(p, pid, stride)\n");
  ASSERT_EQ(LF.Functions.size(), 1u) << "helpers are analysed inlined, not alone";
  const Function &F = *LF.Functions[0];
  EXPECT_EQ(F.Name, "k");
  ASSERT_EQ(F.Accesses.size(), 1u);
  const Access &A = F.Accesses[0];
  EXPECT_EQ(A.Range.Begin.Line, 10u) << "the callee's source range";
  const Node *Mul = findKind(A.Addr, Kind::Mul);
  ASSERT_TRUE(Mul);
  EXPECT_TRUE(isTy(Mul->Ty, 64, true)) << "the helper returned an int64 pid";
  EXPECT_TRUE(A.Addr->op(0)->Ty.Pointer) << "base is bound to the caller's pointer";
}

TEST(TritonLowering, MasksKeywordPositionalAndVariables) {
  auto LF = lower("@triton.jit\ndef k(t_ptr, o_ptr, n, w):\n"
                  "    offs = tl.arange(0, 64)\n"
                  "    m = (offs < n) & (offs < w)\n"
                  "    a = tl.load(t_ptr + offs, m, 0)\n"
                  "    b = tl.load(t_ptr + offs, mask=offs < n, other=-1)\n"
                  "    tl.store(o_ptr + offs, a + b, m)\n");
  const Function &F = only(LF);
  ASSERT_EQ(F.Accesses.size(), 3u);
  const Access &A = F.Accesses[0];
  ASSERT_TRUE(A.Mask);
  EXPECT_EQ(A.Mask->K, Kind::Var);
  EXPECT_EQ(A.Mask->op(0)->K, Kind::LAnd);
  ASSERT_TRUE(A.Other);
  EXPECT_EQ(A.Other->K, Kind::Const);
  ASSERT_FALSE(A.Guards.empty());
  EXPECT_EQ(A.Guards.back().How, Guard::Mask);
  EXPECT_EQ(F.Accesses[1].Mask->K, Kind::Lt);
  EXPECT_EQ(F.Accesses[1].Other->Value, -1);
  ASSERT_TRUE(F.Accesses[2].Mask);
  EXPECT_EQ(F.Accesses[2].AK, AccessKind::Store);
}

TEST(TritonLowering, GuardsIfElseEarlyExitLoops) {
  auto LF = lower("@triton.jit\ndef k(p, n, w):\n"
                  "    pid = tl.program_id(0)\n"
                  "    if pid >= n:\n"
                  "        return\n"
                  "    if pid < w:\n"
                  "        tl.store(p + 1, 0)\n"
                  "    else:\n"
                  "        tl.store(p + 2, 0)\n"
                  "    i = 0\n"
                  "    while i < w:\n"
                  "        tl.store(p + i, 0)\n"
                  "        i += 1\n");
  const Function &F = only(LF);
  ASSERT_EQ(F.Accesses.size(), 3u);
  auto Has = [](const Access &A, Guard::Origin How, Kind K, bool Neg) {
    for (const Guard &G : A.Guards)
      if (G.How == How && G.Cond && G.Cond->K == K && G.Negated == Neg) return true;
    return false;
  };
  EXPECT_TRUE(Has(F.Accesses[0], Guard::EarlyExit, Kind::Ge, true));
  EXPECT_TRUE(Has(F.Accesses[0], Guard::If, Kind::Lt, false));
  EXPECT_TRUE(Has(F.Accesses[1], Guard::If, Kind::Lt, true));
  EXPECT_TRUE(Has(F.Accesses[2], Guard::Loop, Kind::Lt, false));
  EXPECT_TRUE(Has(F.Accesses[2], Guard::EarlyExit, Kind::Ge, true));
  // The while loop's counter is loop-carried.
  EXPECT_TRUE(findKind(F.Accesses[2].Addr, Kind::Phi));
}

TEST(TritonLowering, JitDetectionVariants) {
  auto LF = lowerTritonSource("t.py",
                              "from triton import jit\n"
                              "from triton import language as lang\n"
                              "import triton\n"
                              "@jit\ndef a(p):\n    lang.store(p + lang.program_id(0), 0)\n"
                              "@triton.autotune(configs=[], key=['n'])\n"
                              "@triton.heuristics({'E': lambda a: 1})\n"
                              "@triton.jit(do_not_specialize=['n'])\n"
                              "def b(p, n):\n    lang.store(p + n, 0)\n"
                              "def plain(p, n):\n    return p + n * 2\n"
                              "@torch.compile\ndef c(p, n):\n    return p + n\n",
                              Options());
  ASSERT_EQ(LF.Functions.size(), 2u);
  EXPECT_EQ(LF.Functions[0]->Name, "a");
  EXPECT_EQ(LF.Functions[1]->Name, "b");
  for (auto &F : LF.Functions) {
    EXPECT_EQ(F->Lang, Language::Triton);
    EXPECT_TRUE(F->IsKernel);
    ASSERT_EQ(F->Accesses.size(), 1u);
    EXPECT_TRUE(findKind(F->Accesses[0].Addr, Kind::PtrAdd));
  }
  EXPECT_TRUE(findKind(LF.Functions[0]->Accesses[0].Addr, Kind::LaunchIdx))
      << "aliased triton.language resolves";
}

TEST(TritonLowering, PlainPythonAndStringsYieldNothing) {
  auto A = lowerTritonSource("t.py", "def f(x):\n    return x * 74880\n", Options());
  EXPECT_TRUE(A.Functions.empty());
  EXPECT_TRUE(A.Notes.empty());
  auto B = lowerTritonSource("t.py",
                             "DOC = '''\n@triton.jit\ndef k(p):\n    tl.load(p)\n'''\n"
                             "print('@triton.jit')\n",
                             Options());
  EXPECT_TRUE(B.Functions.empty());
  EXPECT_FALSE(B.Failed);
}

TEST(TritonLowering, ModuleConstants) {
  auto LF = lower("PAGE = 74880\nHALF: tl.constexpr = PAGE // 2\nBIG = tl.constexpr(1 << 20)\n"
                  "@triton.jit\ndef k(p, i):\n"
                  "    tl.store(p + i * PAGE + i * HALF + BIG, 0)\n");
  std::set<int64_t> Vals;
  for (const Node *N : all(lastAddr(LF)))
    if (N->K == Kind::Const) Vals.insert(N->Value);
  EXPECT_TRUE(Vals.count(74880));
  EXPECT_TRUE(Vals.count(37440));
  EXPECT_TRUE(Vals.count(1 << 20));
}

TEST(TritonLowering, CdivMinMax) {
  auto LF = lower("@triton.jit\ndef k(p, n, B: tl.constexpr):\n"
                  "    c = tl.cdiv(n, B)\n"
                  "    d = tl.minimum(c, n)\n"
                  "    e = max(d, 0)\n"
                  "    tl.store(p + e, 0)\n");
  const Node *A = lastAddr(LF);
  EXPECT_TRUE(findKind(A, Kind::Min));
  EXPECT_TRUE(findKind(A, Kind::Max));
  const Node *Div = findKind(A, Kind::Div);
  ASSERT_TRUE(Div);
  EXPECT_EQ(Div->op(0)->K, Kind::Add);
}

TEST(TritonLowering, SourceRangesAreUseSites) {
  auto LF = lower("@triton.jit\ndef k(p, page, S: tl.constexpr):\n"
                  "    tl.store(p + page * S, 0)\n");
  const Node *Page = findNamed(lastAddr(LF), Kind::Param, "page");
  ASSERT_TRUE(Page);
  // Line 6 of the file (3 prelude lines), column of `page` in the store.
  EXPECT_EQ(Page->Range.Begin.Line, 6u);
  EXPECT_EQ(Page->Range.Begin.Col, 18u);
  EXPECT_EQ(Page->Range.End.Col, 22u);
  std::string Src = std::string(Prelude) + "@triton.jit\ndef k(p, page, S: tl.constexpr):\n";
  EXPECT_EQ(Page->Range.Begin.Offset, Src.size() + 17);
  EXPECT_EQ(Page->Range.Begin.File, "t.py");
}

TEST(TritonLowering, SyntaxErrorsRecover) {
  auto LF = lower("@triton.jit\ndef k(t_ptr, n):\n"
                  "    x = tl.load(t_ptr + n\n"
                  "    y = tl.load(t_ptr + n * 7)\n\n"
                  "@triton.jit\ndef k2(t_ptr, n):\n"
                  "    tl.load(t_ptr + n * 3)\n");
  ASSERT_EQ(LF.Notes.size(), 1u);
  EXPECT_EQ(LF.Notes[0].rfind("syntax errors; analysed what could be parsed", 0), 0u);
  ASSERT_EQ(LF.Functions.size(), 2u);
  EXPECT_EQ(LF.Functions[0]->Accesses.size(), 1u) << "the line after the broken one";
  EXPECT_EQ(LF.Functions[1]->Accesses.size(), 1u);
}

TEST(TritonLowering, SyntaxErrorRecoverySkipsOnlyTheBrokenLine) {
  // The ERROR node starts at the def line's colon; the mistake is below it.
  auto LF = lower("@triton.jit\ndef broken(p, n):\n"
                  "    x = tl.load(p + n\n"
                  "    tl.store(p + n * 5, 0)\n\n"
                  "@triton.jit\ndef after(p, n):\n"
                  "    tl.store(p + n * 3, 0)\n");
  ASSERT_EQ(LF.Notes.size(), 1u);
  EXPECT_NE(LF.Notes[0].find("(skipped line 6)"), std::string::npos) << LF.Notes[0];
  ASSERT_EQ(LF.Functions.size(), 2u);
  EXPECT_EQ(LF.Functions[0]->Accesses.size(), 1u) << "the store after the broken line";
  EXPECT_EQ(LF.Functions[1]->Accesses.size(), 1u);
}

TEST(TritonLowering, HostileInputsDoNotCrash) {
  std::string Deep = std::string(Prelude) + "@triton.jit\ndef k(p, n):\n    x = " +
                     std::string(20000, '(') + "n" + std::string(20000, ')') + "\n    y = n";
  for (int I = 0; I < 30000; ++I) Deep += " + n";
  Deep += "\n    tl.store(p + x + y, 0)\n";
  auto A = lowerTritonSource("t.py", Deep, Options());
  EXPECT_FALSE(A.Functions.empty());
  auto B = lowerTritonSource("t.py", std::string(Prelude) + "@triton.jit\ndef k(p\xff\xfe, n):\n"
                                                            "    tl.store(p + n, '\xc3\x28')\n",
                             Options());
  (void)B;
  auto C = lowerTritonSource("t.py", std::string("@triton.jit\0\x01\x02", 14), Options());
  EXPECT_TRUE(C.Failed);
  auto D = lowerTritonSource("t.py", "@triton.jit\ndef k(", Options());
  (void)D;
  auto E = lowerTritonSource("t.py",
                             "import triton\n@triton.jit\ndef a(p):\n    b(p)\n"
                             "@triton.jit\ndef b(p):\n    a(p)\n    tl.store(p, 0)\n",
                             Options());
  (void)E; // mutual recursion terminates
}

// --- launcher facts ---------------------------------------------------------

namespace {
/// The first node named Name of kind K in any access of F.
const Node *inF(const Function &F, Kind K, const std::string &Name) {
  for (const Access &A : F.Accesses)
    if (const Node *N = findNamed(A.Addr, K, Name)) return N;
  return nullptr;
}
const char *TorchPrelude = "import torch\n";
} // namespace

TEST(TritonLauncher, ConstantsUnionOverSites) {
  auto LF = lower(std::string(TorchPrelude) +
                  "BLOCK_N = 64\n"
                  "@triton.jit\ndef k(p, a, b, c, d, e, S: tl.constexpr, D: tl.constexpr = 32):\n"
                  "    tl.store(p + a + b + c + d + e + S + D, 0)\n"
                  "def run(x, n):\n"
                  "    bs = 16\n"
                  "    if n > 2:\n"
                  "        bs = 32\n"
                  "    k[(1,)](x, 8, BLOCK_N, bs, n, 2 * BLOCK_N, S=128)\n"
                  "def run2(x, m):\n"
                  "    k[(1,)](x, 4, BLOCK_N, 16, 3, 5, S=256)\n");
  const Function &F = only(LF);
  auto H = [&](const char *N) {
    const Node *X = inF(F, Kind::Param, N);
    if (!X) X = inF(F, Kind::Symbolic, N);
    if (!X) X = inF(F, Kind::Const, N); // one value at every launch
    EXPECT_TRUE(X) << N;
    return X ? X->Hint : ValueHint();
  };
  EXPECT_TRUE(H("a").HasRange);
  EXPECT_EQ(H("a").Lo, 4);
  EXPECT_EQ(H("a").Hi, 8);
  EXPECT_TRUE(H("b").HasRange) << "a module constant";
  EXPECT_EQ(H("b").Lo, 64);
  EXPECT_EQ(H("b").Hi, 64);
  EXPECT_TRUE(H("c").HasRange) << "a local bound only to constants";
  EXPECT_EQ(H("c").Lo, 16);
  EXPECT_EQ(H("c").Hi, 32);
  EXPECT_FALSE(H("d").any()) << "one site passes a runtime value (n), the other 3";
  EXPECT_EQ(H("e").Lo, 5);
  EXPECT_EQ(H("e").Hi, 128);
  EXPECT_EQ(H("S").Lo, 128) << "constexpr parameters get the same facts";
  EXPECT_EQ(H("S").Hi, 256);
  EXPECT_TRUE(H("D").HasRange) << "a default nobody overrides";
  EXPECT_EQ(H("D").Lo, 32);
  EXPECT_EQ(H("a").Source, "launch at t.py:13 (and 1 more)");
}

TEST(TritonLauncher, BlockSizesCappedByAConstant) {
  auto LF = lower("MAX_FUSED_SIZE = 65536\n"
                  "@triton.jit\ndef k(p, BD: tl.constexpr, BE: tl.constexpr, BF: tl.constexpr,\n"
                  "      BG: tl.constexpr):\n"
                  "    tl.store(p + BD + BE + BF + BG, 0)\n"
                  "def run(x, D):\n"
                  "    BD = min(MAX_FUSED_SIZE, triton.next_power_of_2(D))\n"
                  "    BE = triton.next_power_of_2(D)\n"
                  "    k[(1,)](x, BD, BE, triton.next_power_of_2(D) // 2, min(BE, 4096) % 100)\n");
  const Function &F = only(LF);
  const Node *BD = inF(F, Kind::Symbolic, "BD");
  ASSERT_TRUE(BD);
  EXPECT_TRUE(BD->Hint.HasRange);
  EXPECT_EQ(BD->Hint.Lo, 1);
  EXPECT_EQ(BD->Hint.Hi, 65536);
  EXPECT_FALSE(inF(F, Kind::Symbolic, "BE")->Hint.HasRange) << "no constant caps it";
  EXPECT_EQ(inF(F, Kind::Symbolic, "BE")->Hint.BoundBy, "BE");
  EXPECT_FALSE(inF(F, Kind::Symbolic, "BF")->Hint.HasRange) << "half of an open range is open";
  EXPECT_EQ(inF(F, Kind::Symbolic, "BG")->Hint.Hi, 99);
}

TEST(TritonLauncher, NamesOfWhatSitesPass) {
  auto LF = lower("@triton.jit\ndef k(p, n, t, h, d, s, u, v, w):\n"
                  "    tl.store(p + n + t + h + d + s + u + v + w, 0)\n"
                  "class Layer:\n"
                  "    def forward(self, x, k, num_tokens, cfg):\n"
                  "        B, T, H, K = k.shape\n"
                  "        D = x.shape[-1]\n"
                  "        k[(1,)](x, num_tokens, T, k.shape[2], x.shape[1], self.num_heads,\n"
                  "                cfg.hidden_size * 2, x.stride(0), k.shape[-1])\n");
  const Function &F = only(LF);
  auto By = [&](const char *N) {
    const Node *X = inF(F, Kind::Param, N);
    EXPECT_TRUE(X) << N;
    return X ? X->Hint.BoundBy : std::string("?");
  };
  EXPECT_EQ(By("n"), "num_tokens");
  EXPECT_EQ(By("t"), "T") << "unpacked from k.shape";
  EXPECT_EQ(By("h"), "H") << "k.shape[2] is the name it was unpacked into";
  EXPECT_EQ(By("d"), "") << "x.shape[1] was never named";
  EXPECT_EQ(By("s"), "num_heads") << "the last attribute";
  EXPECT_EQ(By("u"), "") << "an expression has no name";
  EXPECT_EQ(By("v"), "") << "a stride call has no name";
  EXPECT_EQ(By("w"), "K") << "negative shape index";
  EXPECT_FALSE(inF(F, Kind::Param, "n")->Hint.HasRange);
}

TEST(TritonLauncher, SitesThatDisagreeOnANameGiveNoFact) {
  auto LF = lower("@triton.jit\ndef k(p, n, m):\n    tl.store(p + n + m, 0)\n"
                  "def a(x, num_tokens, m):\n    k[(1,)](x, num_tokens, m)\n"
                  "def b(x, num_reqs, m):\n    k[(1,)](x, num_reqs, m)\n");
  const Function &F = only(LF);
  EXPECT_FALSE(inF(F, Kind::Param, "n")->Hint.any());
  EXPECT_EQ(inF(F, Kind::Param, "m")->Hint.BoundBy, "m");
}

TEST(TritonLauncher, EveryBindingCounts) {
  // A name bound anywhere else in the function (loop, with-as, walrus,
  // augmented assignment) is not a constant, even if one assignment is.
  auto LF = lower("@triton.jit\ndef k(p, a, b, c, d, e):\n    tl.store(p + a + b + c + d + e, 0)\n"
                  "def run(x, xs, ctx):\n"
                  "    a = 1\n    b = 2\n    c = 3\n    d = 4\n    e = 5\n"
                  "    for a in xs:\n        pass\n"
                  "    with ctx() as b:\n        pass\n"
                  "    if (c := len(xs)) > 0:\n        pass\n"
                  "    d += 1\n"
                  "    k[(1,)](x, a, b, c, d, e)\n");
  const Function &F = only(LF);
  for (const char *N : {"a", "b", "c", "d"})
    EXPECT_FALSE(inF(F, Kind::Param, N)->Hint.HasRange) << N;
  EXPECT_TRUE(inF(F, Kind::Param, "e")->Hint.HasRange);
}

TEST(TritonLauncher, StarArgumentsHideWhatFollows) {
  auto LF = lower("@triton.jit\ndef k(p, a, b, c):\n    tl.store(p + a + b + c, 0)\n"
                  "def run(x, args, kw):\n"
                  "    k[(1,)](x, 7, *args, c=9)\n"
                  "    k[(1,)](x, 7, 8, **kw)\n");
  const Function &F = only(LF);
  EXPECT_TRUE(inF(F, Kind::Param, "a")->Hint.HasRange);
  EXPECT_FALSE(inF(F, Kind::Param, "b")->Hint.any()) << "b comes from *args at one site";
  EXPECT_FALSE(inF(F, Kind::Param, "c")->Hint.any()) << "c may come from **kw";
}

TEST(TritonLauncher, TableDtypesGiveLoadTypes) {
  auto LF = lower(std::string(TorchPrelude) +
                  "@triton.jit\ndef k(o, a, b, c, d, e, f, g):\n"
                  "    i = tl.program_id(0)\n"
                  "    tl.store(o + tl.load(a + i) * 8, 0)\n"
                  "    tl.store(o + tl.load(b + i) * 8, 0)\n"
                  "    tl.store(o + tl.load(c + i) * 8, 0)\n"
                  "    tl.store(o + tl.load(d + i) * 8, 0)\n"
                  "    tl.store(o + tl.load(e + i) * 8, 0)\n"
                  "    tl.store(o + tl.load(f + i) * 8, 0)\n"
                  "    tl.store(o + tl.load(g + i) * 8, 0)\n"
                  "def run(out, x, y, n):\n"
                  "    slots = torch.empty(n, dtype=torch.int64, device=x.device)\n"
                  "    s16 = x.to(dtype=torch.int16)\n"
                  "    mixed = torch.zeros(n, dtype=torch.int32)\n"
                  "    k[(n,)](out, x.long(), slots, y.to(torch.int32).contiguous(), s16[1:],\n"
                  "            x.to(torch.float32), mixed, y)\n"
                  "def run2(out, x, y, n):\n"
                  "    k[(n,)](out, x.to(torch.int64), torch.arange(n, dtype=torch.long),\n"
                  "            y.int(), x.short(), x, x.long(), y)\n");
  const Function &F = only(LF);
  ASSERT_EQ(F.Accesses.size(), 14u);
  auto Elem = [&](size_t Store) {
    const Node *L = findKind(F.Accesses[Store].Addr, Kind::Load);
    EXPECT_TRUE(L);
    return L ? L->ElemTy : IntTy();
  };
  EXPECT_TRUE(isTy(Elem(1), 64, true)) << "x.long() / x.to(torch.int64)";
  EXPECT_TRUE(isTy(Elem(3), 64, true)) << "torch.empty(dtype=torch.int64) / arange(long)";
  EXPECT_TRUE(isTy(Elem(5), 32, true));
  EXPECT_TRUE(isTy(Elem(7), 16, true)) << "a slice of a local made by .to(int16)";
  EXPECT_TRUE(isTy(Elem(9), 32, true)) << "floats and unknown tables keep the default";
  EXPECT_TRUE(isTy(Elem(11), 32, true)) << "sites disagree (int32, int64): no fact";
  EXPECT_TRUE(isTy(findKind(F.Accesses[1].Addr, Kind::Mul)->Ty, 64, true))
      << "a product with an int64 table entry is 64-bit";
  EXPECT_TRUE(isTy(findKind(F.Accesses[11].Addr, Kind::Mul)->Ty, 32, true));
}

TEST(TritonLauncher, GridFacts) {
  auto LF = lower("NUM_SMS = 132\n"
                  "@triton.jit\ndef k(p, BLOCK: tl.constexpr):\n"
                  "    tl.store(p + tl.program_id(0) + tl.program_id(1) + tl.program_id(2), 0)\n"
                  "def a(x, n, T, num_tokens):\n"
                  "    grid = lambda META: (num_tokens, triton.cdiv(T, META['BLOCK']), 4)\n"
                  "    k[grid](x, BLOCK=64)\n"
                  "def b(x, T, num_tokens):\n"
                  "    def grid(meta):\n"
                  "        return (num_tokens, (T + 32 - 1) // 32, NUM_SMS)\n"
                  "    k[grid](x, BLOCK=32)\n");
  const Function &F = only(LF);
  const Node *P0 = inF(F, Kind::LaunchIdx, "program_id(0)");
  const Node *P1 = inF(F, Kind::LaunchIdx, "program_id(1)");
  const Node *P2 = inF(F, Kind::LaunchIdx, "program_id(2)");
  ASSERT_TRUE(P0 && P1 && P2);
  EXPECT_EQ(P0->Hint.BoundBy, "num_tokens");
  EXPECT_EQ(P0->Hint.BoundDiv, 1);
  EXPECT_EQ(P1->Hint.BoundBy, "T");
  EXPECT_EQ(P1->Hint.BoundDiv, 32) << "cdiv(T, 64) and cdiv(T, 32): the larger grid";
  EXPECT_TRUE(P2->Hint.HasRange);
  EXPECT_EQ(P2->Hint.Lo, 0);
  EXPECT_EQ(P2->Hint.Hi, 131);
  EXPECT_EQ(P2->Hint.Source, "launch at t.py:10 (and 1 more)");
}

TEST(TritonLauncher, GridEntriesThroughLocals) {
  auto LF = lower("@triton.jit\ndef k(p):\n"
                  "    tl.store(p + tl.program_id(0) + tl.program_id(1) + tl.program_id(2), 0)\n"
                  "def run(x, q, BV):\n"
                  "    B, T, H, V = q.shape\n"
                  "    BT = 64\n"
                  "    NT = triton.cdiv(T, BT)\n"
                  "    NV = triton.cdiv(V, BV)\n"
                  "    NB = B * H\n"
                  "    k[(NV, NT, NB)](x)\n");
  const Function &F = only(LF);
  const Node *P0 = inF(F, Kind::LaunchIdx, "program_id(0)");
  const Node *P1 = inF(F, Kind::LaunchIdx, "program_id(1)");
  const Node *P2 = inF(F, Kind::LaunchIdx, "program_id(2)");
  EXPECT_EQ(P0->Hint.BoundBy, "V");
  EXPECT_EQ(P0->Hint.BoundDiv, 1) << "BV is not known";
  EXPECT_EQ(P1->Hint.BoundBy, "T");
  EXPECT_EQ(P1->Hint.BoundDiv, 64);
  EXPECT_EQ(P2->Hint.BoundBy, "NB") << "a product keeps the local's name";
}

TEST(TritonLauncher, GridTuplesAndMissingAxes) {
  auto LF = lower("@triton.jit\ndef k(p):\n"
                  "    tl.store(p + tl.program_id(0) * tl.program_id(1), 0)\n"
                  "def a(x, n, B):\n"
                  "    if n > 8:\n"
                  "        grid = (triton.cdiv(n, 128),)\n"
                  "    else:\n"
                  "        grid = (triton.cdiv(n, 256),)\n"
                  "    k[grid](x)\n");
  const Function &F = only(LF);
  const Node *P0 = inF(F, Kind::LaunchIdx, "program_id(0)");
  const Node *P1 = inF(F, Kind::LaunchIdx, "program_id(1)");
  EXPECT_EQ(P0->Hint.BoundBy, "n");
  EXPECT_EQ(P0->Hint.BoundDiv, 128);
  EXPECT_TRUE(P1->Hint.HasRange) << "a one-axis grid runs one program along axis 1";
  EXPECT_EQ(P1->Hint.Hi, 0);
}

TEST(TritonLauncher, GridsThatCannotBeSeenGiveNoFact) {
  auto LF = lower("@triton.jit\ndef k(p):\n    tl.store(p + tl.program_id(0), 0)\n"
                  "def a(x, n, grid):\n    k[grid](x)\n"
                  "def b(x, n):\n    k[(n,)](x)\n");
  const Function &F = only(LF);
  EXPECT_FALSE(inF(F, Kind::LaunchIdx, "program_id(0)")->Hint.any())
      << "one site's grid is a parameter";
  auto LF2 = lower("@triton.jit\ndef k(p):\n    tl.store(p + tl.program_id(0), 0)\n"
                   "def a(x, n, m):\n    k[(n,)](x)\n"
                   "def b(x, n, m):\n    k[(m * 2,)](x)\n");
  EXPECT_FALSE(inF(only(LF2), Kind::LaunchIdx, "program_id(0)")->Hint.any());
}

TEST(TritonLauncher, HelpersAndWrappedKernelsKeepFacts) {
  auto LF = lower("@triton.jit\ndef row(p, n):\n"
                  "    tl.store(p + tl.program_id(0) * n, 0)\n"
                  "def _impl(p, n):\n    row(p, n)\n"
                  "kern = triton.jit(_impl)\n"
                  "def run(x, num_rows, width):\n    kern[(num_rows,)](x, width)\n");
  const Function &F = only(LF);
  EXPECT_EQ(F.Name, "_impl");
  const Node *P0 = inF(F, Kind::LaunchIdx, "program_id(0)");
  ASSERT_TRUE(P0);
  EXPECT_EQ(P0->Hint.BoundBy, "num_rows") << "program_id in an inlined helper";
  EXPECT_EQ(inF(F, Kind::Param, "n")->Hint.BoundBy, "width");
}

TEST(TritonLauncher, HostileLaunchersTerminate) {
  std::string Src = "@triton.jit\ndef k(p, n):\n    tl.store(p + n + tl.program_id(0), 0)\n"
                    "def a(x):\n"
                    "    n = n + 1\n"
                    "    grid = grid\n"
                    "    g2 = (g2,)\n"
                    "    c = d\n    d = c\n"
                    "    k[grid](x, n)\n    k[g2](x, c)\n"
                    "    k[(x.shape[0] + ,)](x, ((((1))))\n"
                    "    k[]()\n    k(x)\n    k[lambda: 1](x)\n";
  std::string Chain = "def b(x):\n    v0 = 1\n";
  for (int I = 1; I < 400; ++I)
    Chain += "    v" + std::to_string(I) + " = v" + std::to_string(I - 1) + " + v" +
             std::to_string(I - 1) + "\n";
  Chain += "    k[(v399,)](x, v399)\n";
  auto LF = lower(Src + Chain);
  EXPECT_EQ(LF.Functions.size(), 1u);
  std::string Deep = "def c(x):\n    k[(" + std::string(3000, '(') + "1" + std::string(3000, ')') +
                     ",)](x, 1)\n";
  auto LF2 = lower("@triton.jit\ndef k(p, n):\n    tl.store(p + n, 0)\n" + Deep);
  EXPECT_EQ(LF2.Functions.size(), 1u);
}

TEST(TritonLauncher, DumpShowsHints) {
  auto LF = lower("@triton.jit\ndef k(p, n, B: tl.constexpr):\n"
                  "    tl.store(p + tl.program_id(0) * n + B, 0)\n"
                  "def run(x, num_tokens):\n"
                  "    k[(triton.cdiv(num_tokens, 16),)](x, num_tokens, B=128)\n");
  std::string D = dump(lastAddr(LF));
  EXPECT_NE(D.find("(LaunchIdx:i32 program_id(0) @num_tokens/16)"), std::string::npos) << D;
  EXPECT_NE(D.find("(Param:i32 n @num_tokens)"), std::string::npos) << D;
  EXPECT_NE(D.find("(Const:i32 128 B [128,128])"), std::string::npos) << D; // one value at every launch
}

TEST(TreeDtypes, AllocationsAndPassThroughs) {
  TreeDtypes T;
  T.addFile("import torch\nimport numpy as np\n"
            "class R:\n"
            "    def __init__(self, n):\n"
            "        self.slot_mapping = self._make_buffer(\n            n, dtype=torch.int64)\n"
            "        self.md = M(positions=torch.zeros(n, dtype=torch.long), lens=x.long())\n"
            "        a, b = torch.arange(n), np.zeros(n, dtype=np.int32)\n"
            "        c = y.to(torch.int16)\n"
            "        d = y.to(device)\n"
            "        e = torch.randint(0, 9, (n,))\n"
            "        f = torch.arange(0.5, n)\n"
            "def run(md, attention_slot_mapping):\n"
            "    go(attention_slot_mapping=md.slot_mapping, src_slots=unknown_thing)\n");
  T.finish();
  auto Is = [&](const char *N, unsigned Bits, bool Signed = true) {
    IntTy X = T.dtypeOf(N);
    return X.known() && X.Bits == Bits && X.Signed == Signed;
  };
  EXPECT_TRUE(Is("slot_mapping", 64));
  EXPECT_TRUE(Is("positions", 64));
  EXPECT_TRUE(Is("lens", 64));
  EXPECT_TRUE(Is("a", 64));
  EXPECT_TRUE(Is("b", 32));
  EXPECT_TRUE(Is("c", 16));
  EXPECT_TRUE(Is("e", 64));
  EXPECT_TRUE(Is("attention_slot_mapping", 64)); // passed on from slot_mapping
  EXPECT_FALSE(T.dtypeOf("d").known());          // .to(device): not an allocation
  EXPECT_FALSE(T.dtypeOf("f").known());          // a float range
  EXPECT_FALSE(T.dtypeOf("src_slots").known());  // from a name nothing is known of
  EXPECT_FALSE(T.dtypeOf("md").known());
}

TEST(TreeDtypes, DisagreementMakesUnknown) {
  TreeDtypes A, B;
  A.addFile("import torch\nids = torch.zeros(4, dtype=torch.int64)\n"
            "lens = torch.zeros(4, dtype=torch.int64)\n"
            "scratch = torch.empty_like(lens)\n"
            "idx = torch.zeros(4, dtype=torch.int64)\nalias = idx\n"
            "p = q\nq = p\n"
            "hop = torch.zeros(4, dtype=torch.int64)\nhop2 = hop\n");
  B.addFile("import torch\nids = torch.zeros(4, dtype=torch.int32)\n"
            "lens = torch.empty(4)\n"
            "idx = torch.zeros(4, dtype=idx_dtype)\n"
            "hop2 = torch.zeros(4, dtype=torch.int64)\n");
  A.merge(B);
  A.finish();
  EXPECT_FALSE(A.dtypeOf("ids").known());     // int64 here, int32 there
  EXPECT_FALSE(A.dtypeOf("lens").known());    // int64 here, float there
  EXPECT_FALSE(A.dtypeOf("scratch").known()); // a maker without dtype
  EXPECT_FALSE(A.dtypeOf("idx").known());     // a dtype the index cannot read
  EXPECT_FALSE(A.dtypeOf("alias").known());   // passed on from an unknown name
  EXPECT_FALSE(A.dtypeOf("p").known());       // a cycle with no allocation
  EXPECT_EQ(A.dtypeOf("hop2").Bits, 64);      // agreement across files
  EXPECT_EQ(A.knownNames(), 2u);              // hop, hop2
}

TEST(TreeDtypes, LauncherAsksLast) {
  TreeDtypes T;
  T.addFile("import torch\nslot_mapping = torch.zeros(4, dtype=torch.int64)\n");
  T.finish();
  std::string Src = std::string(Prelude) +
                    "@triton.jit\ndef k(c, s):\n    tl.store(c + tl.load(s) * 74880, 0)\n"
                    "def run(c, md):\n    k[(1,)](c, md.slot_mapping)\n"
                    "def local(c, n):\n    slot_mapping = torch.zeros(n, dtype=torch.int32)\n"
                    "    k[(1,)](c, slot_mapping)\n";
  auto With = lowerTritonSource("t.py", Src, Options(), &T);
  auto Without = lowerTritonSource("t.py", Src, Options());
  ASSERT_FALSE(With.Functions.empty());
  ASSERT_FALSE(Without.Functions.empty());
  // Two launches disagree (the local is int32): the tree's word is not taken
  // over the file's own.
  EXPECT_NE(dump(lastAddr(With)).find("elem=i32"), std::string::npos) << dump(lastAddr(With));
  auto One = lowerTritonSource("t.py",
                               std::string(Prelude) +
                                   "@triton.jit\ndef k(c, s):\n"
                                   "    tl.store(c + tl.load(s) * 74880, 0)\n"
                                   "def run(c, md):\n    k[(1,)](c, md.slot_mapping)\n",
                               Options(), &T);
  EXPECT_NE(dump(lastAddr(One)).find("elem=i64"), std::string::npos) << dump(lastAddr(One));
  EXPECT_NE(dump(lastAddr(Without)).find("elem=i32"), std::string::npos);
}

TEST(TreeDtypes, ReadsPythonAsWritten) {
  // Strings, comments, continuations and compound operators are no
  // assignments; multi-line calls, chains and annotations are.
  TreeDtypes T;
  T.addFile("import torch\n"
            "s = 'fake = torch.zeros(1, dtype=torch.int32)'\n"
            "doc = \"\"\"\nnot_a = torch.arange(4)\n\"\"\"\n"
            "# commented = torch.zeros(1, dtype=torch.int32)\n"
            "a = \\\n    torch.zeros(4, dtype=torch.int64)\n"
            "b: torch.Tensor = torch.empty(\n    8,\n    dtype=torch.int32,\n)\n"
            "c = d = torch.arange(8)\n"
            "if a == b:\n    pass\n"
            "e += 1\n"
            "f = torch.arange(8).view(2, 4)\n"
            "g = buf[:4]\n"
            "def run(x, idx=torch.zeros(2, dtype=torch.int16)):\n"
            "    launch(x, dst=make(src=torch.ones(3, dtype=torch.uint8)), n=f'{a=}')\n");
  T.finish();
  EXPECT_FALSE(T.dtypeOf("s").known());
  EXPECT_FALSE(T.dtypeOf("fake").known());
  EXPECT_FALSE(T.dtypeOf("not_a").known());
  EXPECT_FALSE(T.dtypeOf("commented").known());
  EXPECT_EQ(T.dtypeOf("a").Bits, 64);
  EXPECT_EQ(T.dtypeOf("b").Bits, 32);
  EXPECT_EQ(T.dtypeOf("c").Bits, 64);
  EXPECT_EQ(T.dtypeOf("d").Bits, 64);
  EXPECT_FALSE(T.dtypeOf("e").known());
  EXPECT_FALSE(T.dtypeOf("f").known()); // .view(2, 4) of a range: not read
  EXPECT_FALSE(T.dtypeOf("g").known());
  EXPECT_EQ(T.dtypeOf("idx").Bits, 16);
  EXPECT_EQ(T.dtypeOf("src").Bits, 8);
  EXPECT_FALSE(T.dtypeOf("src").Signed);
  EXPECT_FALSE(T.dtypeOf("dst").known());
  EXPECT_FALSE(T.dtypeOf("n").known());
}

TEST(TreeDtypes, PositionalArgumentsOfDefinedFunctions) {
  // A tensor handed on positionally to a function the tree defines once
  // binds to its parameter; a method call skips `self`; a name defined twice
  // with other parameters binds nothing.
  TreeDtypes A, B;
  A.addFile("import torch\n"
            "slot_mapping = torch.zeros(4, dtype=torch.int64)\n"
            "def run_tiled(x, attention_slot_mapping, conv_slots, *rest):\n    pass\n"
            "class Op:\n    def store(self, cache, slots):\n        pass\n"
            "def helper(a, idx):\n    pass\n");
  B.addFile("import torch\n"
            "def go(md, op):\n"
            "    run_tiled(x, md.slot_mapping, other_thing, slot_mapping)\n"
            "    op.store(cache, md.slot_mapping)\n"
            "    helper(x, slot_mapping)\n"
            "def helper(a, b, idx):\n    pass\n");
  A.merge(B);
  A.finish();
  EXPECT_EQ(A.dtypeOf("attention_slot_mapping").Bits, 64);
  EXPECT_FALSE(A.dtypeOf("conv_slots").known()); // other_thing: nothing known
  EXPECT_FALSE(A.dtypeOf("rest").known());       // *rest: not positional
  EXPECT_EQ(A.dtypeOf("slots").Bits, 64);        // op.store(cache, ...): self skipped
  EXPECT_FALSE(A.dtypeOf("idx").known());        // helper defined twice
}

#endif // KVLINT_HAVE_TRITON
