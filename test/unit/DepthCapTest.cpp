// Unit tests of the depth caps (issue 25): Function::capDepth cuts a value
// nested past MaxNodeDepth to an Unknown leaf at a def-use link and says
// where; the bounds and magnitude analyses and sameValue then walk a chain
// of any length without recursing past their own caps, and answer "what
// nothing bounds" for what is beyond, never a smaller bound.
#include "kvlint/Analysis.h"
#include "kvlint/Bounds.h"
#include "kvlint/Envelope.h"

#include <gtest/gtest.h>

#include <pthread.h>

#include <cstdint>

using namespace kvlint;

namespace {
const IntTy I32 = IntTy::integer(32, true);

Envelope env() {
  Envelope E;
  E.configure([](const std::string &) { return std::string(); });
  return E;
}

/// `a0 = Seed; a_i = a_{i-1} + 1` for N lines, each use a Var: the value of
/// a_N, with line I on source line I + 1.
const Node *chain(Function &F, const Node *Seed, unsigned N) {
  const Node *Prev = Seed;
  for (unsigned I = 1; I <= N; ++I) {
    Node *Use = F.make(Kind::Var, I32, Prev);
    Use->Name = "a" + std::to_string(I - 1);
    Use->Range.Begin.Line = I + 1;
    Node *One = F.make(Kind::Const, I32);
    One->Value = 1;
    Node *Add = F.make(Kind::Add, I32, Use, One);
    Add->Range.Begin.Line = I + 1;
    Prev = Add;
  }
  return Prev;
}

Node *cst(Function &F, int64_t V) {
  Node *N = F.make(Kind::Const, I32);
  N->Value = V;
  return N;
}

unsigned depth(const Node *N) {
  unsigned D = 0;
  for (; N; ++D)
    N = N->op(0);
  return D;
}
} // namespace

TEST(DepthCap, OrdinaryValuesAreLeftAlone) {
  Function F;
  F.Name = "k";
  const Node *V = chain(F, cst(F, 0), 50);
  EXPECT_EQ(F.capDepth(), 0u);
  EXPECT_TRUE(F.Limits.empty());
  Envelope E = env();
  Bounds B(F, E, false);
  EXPECT_EQ(B.of(V).Lo, 50);
  EXPECT_EQ(B.of(V).Hi, 50);
  EXPECT_TRUE(B.of(V).Exact);
}

TEST(DepthCap, LongChainIsCutAtAVarAndNoted) {
  Function F;
  F.Name = "k";
  const Node *V = chain(F, cst(F, 0), 4000);
  unsigned Cut = F.capDepth();
  EXPECT_GT(Cut, 0u);
  // No value is deeper than the cap once cut.
  EXPECT_LE(depth(V), MaxNodeDepth + 1);
  ASSERT_EQ(F.Limits.size(), 1u);
  EXPECT_NE(F.Limits[0].find("expression nesting beyond 512 levels at line "), std::string::npos)
      << F.Limits[0];
  EXPECT_NE(F.Limits[0].find("(in 'k'): analysed as unknown"), std::string::npos) << F.Limits[0];
  // The cut is a local's use: the arithmetic on each line stays whole.
  const Node *N = V;
  while (N && N->K != Kind::Unknown)
    N = N->op(0);
  ASSERT_NE(N, nullptr);
  EXPECT_EQ(N->Name.substr(0, 1), "a");
}

TEST(DepthCap, BeyondTheCapIsUnboundedNotSmall) {
  // The conservative side for KV001: a value past the cut is unbounded
  // within its type (not Envelope.Unknown, a small default), never the
  // exact [4000, 4000] of the chain.
  Function F;
  F.Name = "k";
  const Node *V = chain(F, cst(F, 0), 4000);
  F.capDepth();
  Envelope E = env();
  Bounds B(F, E, false);
  const Bound &R = B.of(V);
  EXPECT_GE(R.Hi, int64_t(INT32_MAX)); // the cut leaf is its type's range
  const Node *Leaf = V;
  while (Leaf && Leaf->K != Kind::Unknown)
    Leaf = Leaf->op(0);
  ASSERT_NE(Leaf, nullptr);
  EXPECT_NE(B.of(Leaf).Why.find("nested beyond 512 levels"), std::string::npos) << B.of(Leaf).Why;
  Magnitudes M;
  EXPECT_EQ(M.of(V).M, Mag::Unbounded);
}

/// Runs Fn on a thread with a 256 MiB stack, as kvlint's worker processes
/// run every analysis (tools/kvlint/Worker.cpp): the backstops bound the
/// recursion to a finite depth, whose frames an ASan build makes several
/// times larger than an 8 MB main stack holds.
static void onLargeStack(void (*Fn)()) {
  pthread_attr_t Attr;
  pthread_attr_init(&Attr);
  pthread_attr_setstacksize(&Attr, size_t(256) << 20);
  pthread_t T;
  ASSERT_EQ(pthread_create(&T, &Attr, [](void *P) -> void * {
              reinterpret_cast<void (*)()>(P)();
              return nullptr;
            }, reinterpret_cast<void *>(Fn)),
            0);
  pthread_join(T, nullptr);
  pthread_attr_destroy(&Attr);
}

TEST(DepthCap, AnalysesWalkAnUncutChainWithoutOverflowing) {
  // A frontend that forgot capDepth: the analyses stop at their own caps
  // (a backstop) instead of recursing 100k levels deep, and still answer
  // unbounded.
  onLargeStack([] {
    Function F;
    F.Name = "k";
    const Node *V = chain(F, cst(F, 0), 100000);
    Envelope E = env();
    Bounds B(F, E, false);
    EXPECT_GT(B.of(V).Hi, 100000);
    EXPECT_FALSE(B.of(V).Exact);
    Magnitudes M;
    EXPECT_EQ(M.of(V).M, Mag::Unbounded);
    const Node *W = chain(F, cst(F, 0), 100000);
    EXPECT_FALSE(sameValue(V, W)); // not known to be the same
    EXPECT_TRUE(sameValue(V, V));
  });
}

TEST(DepthCap, LoopCarriedCycleIsWalkedOnce) {
  // A Phi that reaches itself through a long body: capDepth terminates and
  // cuts the body, and Bounds still reads the back edge as bottom.
  Function F;
  F.Name = "k";
  Node *P = F.make(Kind::Phi, I32, cst(F, 0));
  P->Name = "off";
  const Node *Body = chain(F, P, 3000);
  P->Ops.push_back(Body);
  EXPECT_GT(F.capDepth(), 0u);
  Envelope E = env();
  Bounds B(F, E, false);
  EXPECT_FALSE(B.of(P).Exact);
}

TEST(DepthCap, SharedOperandsDoNotUnfoldExponentially) {
  // x_i = x_{i-1} + x_{i-1}: 2^60 paths, a DAG of 120 nodes. sameValue on
  // two such DAGs stops at its step budget.
  Function F;
  const Node *A = cst(F, 1), *B = cst(F, 1);
  for (int I = 0; I < 60; ++I) {
    A = F.make(Kind::Add, I32, A, A);
    B = F.make(Kind::Add, I32, B, B);
  }
  EXPECT_FALSE(sameValue(A, B));
  Envelope E = env();
  Bounds Bs(F, E, false);
  EXPECT_GE(Bs.of(A).Hi, int64_t(1) << 60);
}
