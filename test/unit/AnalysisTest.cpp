// Unit tests of the magnitude lattice and the IR helpers, on hand-built IR.
#include "kvlint/Analysis.h"

#include <gtest/gtest.h>

using namespace kvlint;

namespace {
const IntTy I32 = IntTy::integer(32, true);
const IntTy I64 = IntTy::integer(64, true);

Node *cst(Function &F, int64_t V, IntTy T = I32) {
  Node *N = F.make(Kind::Const, T);
  N->Value = V;
  return N;
}
Node *named(Function &F, Kind K, const char *Name, IntTy T = I32) {
  Node *N = F.make(K, T);
  N->Name = Name;
  return N;
}
Node *bin(Function &F, Kind K, const Node *A, const Node *B, IntTy T = I32) {
  return F.make(K, T, A, B);
}
Node *load(Function &F, IntTy Elem) {
  Node *P = named(F, Kind::Param, "table", IntTy::pointer());
  Node *L = F.make(Kind::Load, Elem, P);
  L->ElemTy = Elem;
  return L;
}
} // namespace

TEST(Magnitude, Leaves) {
  Function F;
  Magnitudes M;
  EXPECT_EQ(M.of(cst(F, 7)).M, Mag::Small);
  EXPECT_EQ(M.of(cst(F, 7)).I->Hi, 7);
  EXPECT_EQ(M.of(named(F, Kind::ThreadIdx, "threadIdx.x")).M, Mag::Small);
  EXPECT_EQ(M.of(named(F, Kind::LaunchIdx, "blockIdx.x")).M, Mag::Launch);
  const Fact &P = M.of(named(F, Kind::Param, "page"));
  EXPECT_EQ(P.M, Mag::Unbounded);
  EXPECT_EQ(P.O, Origin::Param);
  EXPECT_EQ(P.Name, "page");
  EXPECT_EQ(M.of(load(F, I32)).O, Origin::Loaded);
  // An int16 element is bounded by its type.
  EXPECT_EQ(M.of(load(F, IntTy::integer(16, true))).M, Mag::Small);
}

TEST(Magnitude, RemainderAndMaskBound) {
  Function F;
  Magnitudes M;
  Node *Loc = load(F, I64);
  const Fact &R = M.of(bin(F, Kind::Rem, Loc, cst(F, 64, I64), I64));
  EXPECT_EQ(R.M, Mag::Small);
  ASSERT_TRUE(R.I.has_value());
  EXPECT_EQ(R.I->Hi, 63);
  const Fact &A = M.of(bin(F, Kind::And, Loc, cst(F, 255, I64), I64));
  EXPECT_EQ(A.M, Mag::Small);
  EXPECT_EQ(A.I->Hi, 255);
  // x % n with n unknown is still an in-page offset.
  EXPECT_EQ(M.of(bin(F, Kind::Rem, Loc, named(F, Kind::Param, "block_size"), I64)).M, Mag::Small);
}

TEST(Magnitude, NarrowingCastMakesUnbounded) {
  Function F;
  Magnitudes M;
  Node *Wide = load(F, I64);
  Node *Cast = F.make(Kind::Cast, I32, Wide);
  const Fact &C = M.of(Cast);
  EXPECT_EQ(C.M, Mag::Unbounded);
  EXPECT_EQ(C.O, Origin::Narrowed);
  // Narrowing a bounded value keeps it bounded.
  Node *Small = bin(F, Kind::Rem, Wide, cst(F, 16, I64), I64);
  EXPECT_EQ(M.of(F.make(Kind::Cast, I32, Small)).M, Mag::Small);
}

TEST(Magnitude, OriginPropagatesThroughArithmetic) {
  Function F;
  Magnitudes M;
  Node *Page = F.make(Kind::Var, I32, load(F, I32));
  Page->Name = "page";
  Node *Sum = bin(F, Kind::Add, bin(F, Kind::Mul, Page, cst(F, 16)), named(F, Kind::ThreadIdx, "t"));
  const Fact &S = M.of(Sum);
  EXPECT_EQ(S.M, Mag::Unbounded);
  EXPECT_EQ(S.O, Origin::Loaded);
  // Intervals add up: threadIdx + 8 is at most 1031.
  const Fact &T = M.of(bin(F, Kind::Add, named(F, Kind::ThreadIdx, "t"), cst(F, 8)));
  EXPECT_EQ(T.I->Hi, 1031);
}

TEST(Magnitude, MinClampBounds) {
  Function F;
  Magnitudes M;
  const Fact &X = M.of(bin(F, Kind::Min, load(F, I32), cst(F, 100)));
  EXPECT_EQ(X.M, Mag::Small);
}

TEST(Magnitude, LoopCarriedPhiTerminates) {
  Function F;
  Magnitudes M;
  Node *Phi = F.make(Kind::Phi, I32, cst(F, 0));
  Node *Use = F.make(Kind::Var, I32, Phi);
  Phi->Ops.push_back(bin(F, Kind::Add, Use, cst(F, 1)));
  const Fact &P = M.of(Phi);
  EXPECT_EQ(P.M, Mag::Small); // a counter from 0: no origin makes it an index
  EXPECT_NE(P.O, Origin::Loaded);
}

TEST(Helpers, RoundDownAndLeftmost) {
  Function F;
  Node *Pos = named(F, Kind::Param, "pos");
  Node *Bs = named(F, Kind::Param, "block_size");
  Node *Bs2 = named(F, Kind::Param, "block_size");
  Node *RD = bin(F, Kind::Mul, bin(F, Kind::Div, Pos, Bs), Bs2);
  EXPECT_TRUE(isRoundDown(RD));
  EXPECT_FALSE(isRoundDown(bin(F, Kind::Mul, bin(F, Kind::Div, Pos, Bs), Pos)));
  Node *Chain = bin(F, Kind::Mul, bin(F, Kind::Mul, Pos, Bs), cst(F, 8));
  EXPECT_EQ(leftmostFactor(Chain), Pos);
  EXPECT_TRUE(sameValue(Bs, Bs2));
  EXPECT_TRUE(mentions(Chain, Bs2));
}

TEST(IR, DumpIsReadable) {
  Function F;
  Node *P = named(F, Kind::Param, "cache", IntTy::pointer());
  Node *A = F.make(Kind::PtrAdd, IntTy::pointer(), P, cst(F, 3));
  EXPECT_EQ(dump(A), "(PtrAdd:ptr (Param:ptr cache) (Const:i32 3))");
}
