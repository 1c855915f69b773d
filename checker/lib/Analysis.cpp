//===- Analysis.cpp - the magnitude lattice --------------------------------===//
#include "kvlint/Analysis.h"

#include <algorithm>
#include <limits>

namespace kvlint {

const char *originName(Origin O) {
  switch (O) {
  case Origin::None: return "bounded";
  case Origin::Loaded: return "loaded from memory";
  case Origin::Narrowed: return "narrowed to 32 bits";
  case Origin::Param: return "a parameter";
  case Origin::Launch: return "a launch index";
  case Origin::Symbolic: return "a compile-time constant";
  case Origin::Opaque: return "opaque";
  }
  return "?";
}

namespace {

using I128 = __int128;

// How strongly an origin explains an unbounded value; the strongest operand
// names the result (page * k + off is "loaded" when page is).
int rank(Origin O) {
  switch (O) {
  case Origin::Loaded: return 6;
  case Origin::Narrowed: return 5;
  case Origin::Param: return 4;
  case Origin::Launch: return 3;
  case Origin::Opaque: return 2;
  case Origin::Symbolic: return 1;
  case Origin::None: return 0;
  }
  return 0;
}

std::optional<Interval> typeRange(const IntTy &T) {
  if (T.Bool)
    return Interval{0, 1};
  if (!T.known() || T.Pointer || T.Bits > 16)
    return std::nullopt;
  if (T.Signed)
    return Interval{-(int64_t(1) << (T.Bits - 1)), (int64_t(1) << (T.Bits - 1)) - 1};
  return Interval{0, (int64_t(1) << T.Bits) - 1};
}

std::optional<Interval> clampTo(I128 Lo, I128 Hi) {
  const I128 Min = std::numeric_limits<int64_t>::min();
  const I128 Max = std::numeric_limits<int64_t>::max();
  if (Lo < Min || Hi > Max)
    return std::nullopt;
  return Interval{int64_t(Lo), int64_t(Hi)};
}

Fact small(std::optional<Interval> I) {
  Fact F;
  F.M = Mag::Small;
  F.O = Origin::None;
  F.I = I;
  return F;
}

Fact leaf(Mag M, Origin O, const std::string &Name) {
  Fact F;
  F.M = M;
  F.O = O;
  F.Name = Name;
  return F;
}

// The join of two facts: the larger magnitude, the stronger origin.
Fact join(const Fact &A, const Fact &B) {
  Fact F = A;
  if (B.M > F.M)
    F.M = B.M;
  if (rank(B.O) > rank(F.O)) {
    F.O = B.O;
    F.Name = B.Name;
  }
  return F;
}

} // namespace

const Fact &Magnitudes::of(const Node *N) {
  auto It = Memo.find(N);
  if (It != Memo.end())
    return It->second;
  // A back edge (loop-carried value) reaches a node still being computed:
  // answer bottom for it, so the loop's value is the join of its entry value
  // and whatever the body adds.
  if (Depth >= MaxDepth)
    return Memo[N] = leaf(Mag::Unbounded, Origin::Opaque, N ? N->Name : "");
  Memo.emplace(N, small(std::nullopt));
  ++Depth;
  Fact F = compute(N);
  --Depth;
  return Memo[N] = F;
}

Fact Magnitudes::compute(const Node *N) {
  if (!N)
    return leaf(Mag::Unbounded, Origin::Opaque, "");
  if (auto R = typeRange(N->Ty); R && N->K != Kind::Const)
    return small(R); // any 8/16-bit or boolean value is small

  const Fact *A = N->Ops.size() > 0 ? &of(N->Ops[0]) : nullptr;
  const Fact *B = N->Ops.size() > 1 ? &of(N->Ops[1]) : nullptr;
  auto both = [&](auto Op) -> std::optional<Interval> {
    if (!A || !B || !A->I || !B->I)
      return std::nullopt;
    return Op(*A->I, *B->I);
  };

  switch (N->K) {
  case Kind::Const:
    return small(Interval{N->Value, N->Value});
  case Kind::Symbolic: {
    Fact F = small(std::nullopt);
    F.O = Origin::Symbolic;
    F.Name = N->Name;
    return F;
  }
  case Kind::Param:
    return leaf(Mag::Unbounded, Origin::Param, N->Name);
  case Kind::LaunchIdx: {
    Fact F = leaf(Mag::Launch, Origin::Launch, N->Name);
    F.I = Interval{0, std::numeric_limits<int32_t>::max()};
    return F;
  }
  case Kind::ThreadIdx:
    return small(Interval{0, 1023});
  case Kind::LaunchDim:
    if (N->Value == 1) {
      Fact F = leaf(Mag::Launch, Origin::Launch, N->Name);
      F.I = Interval{1, std::numeric_limits<int32_t>::max()};
      return F;
    }
    return small(Interval{1, 1024});
  case Kind::Range:
    if (N->Value > N->Value2)
      return small(Interval{N->Value2, N->Value - 1});
    return small(std::nullopt);
  case Kind::Load:
    if (auto R = typeRange(N->ElemTy))
      return small(R);
    return leaf(Mag::Unbounded, Origin::Loaded, N->Name);
  case Kind::Call:
  case Kind::Unknown:
    return leaf(Mag::Unbounded, Origin::Opaque, N->Name);
  case Kind::Var: {
    Fact F = A ? *A : leaf(Mag::Unbounded, Origin::Opaque, N->Name);
    if (F.O == Origin::Opaque || F.O == Origin::Symbolic || F.Name.empty())
      F.Name = N->Name;
    return F;
  }
  case Kind::Cast: {
    Fact F = A ? *A : leaf(Mag::Unbounded, Origin::Opaque, "");
    const Node *From = N->op(0);
    bool Narrows = From && From->Ty.known() && N->Ty.known() && !From->Ty.Pointer &&
                   !N->Ty.Pointer && N->Ty.Bits < From->Ty.Bits;
    if (Narrows && F.M != Mag::Small) {
      F.M = Mag::Unbounded;
      F.O = Origin::Narrowed;
      F.I.reset();
    }
    return F;
  }
  case Kind::Add:
  case Kind::Sub:
  case Kind::Or:
  case Kind::Xor: {
    Fact F = join(*A, B ? *B : *A);
    if (N->K == Kind::Add)
      F.I = both([](Interval X, Interval Y) { return clampTo(I128(X.Lo) + Y.Lo, I128(X.Hi) + Y.Hi); });
    else if (N->K == Kind::Sub)
      F.I = both([](Interval X, Interval Y) { return clampTo(I128(X.Lo) - Y.Hi, I128(X.Hi) - Y.Lo); });
    else
      F.I.reset();
    return F;
  }
  case Kind::Mul: {
    Fact F = join(*A, *B);
    F.I = both([](Interval X, Interval Y) {
      I128 C[4] = {I128(X.Lo) * Y.Lo, I128(X.Lo) * Y.Hi, I128(X.Hi) * Y.Lo, I128(X.Hi) * Y.Hi};
      return clampTo(*std::min_element(C, C + 4), *std::max_element(C, C + 4));
    });
    return F;
  }
  case Kind::Shl: {
    Fact F = join(*A, *B);
    F.I = both([](Interval X, Interval Y) -> std::optional<Interval> {
      if (Y.Lo < 0 || Y.Hi > 62 || X.Lo < 0)
        return std::nullopt;
      return clampTo(I128(X.Lo) << Y.Lo, I128(X.Hi) << Y.Hi);
    });
    return F;
  }
  case Kind::Div:
  case Kind::Shr: {
    Fact F = *A;
    if (F.I && B && B->I && B->I->Lo == B->I->Hi) {
      int64_t D = B->I->Lo;
      if (N->K == Kind::Div && D > 0)
        F.I = Interval{F.I->Lo / D, F.I->Hi / D};
      else if (N->K == Kind::Shr && D >= 0 && D < 63)
        F.I = Interval{F.I->Lo >> D, F.I->Hi >> D};
      else
        F.I.reset();
    } else {
      F.I.reset();
    }
    return F;
  }
  case Kind::Rem: {
    // x % C is an in-page offset: bounded by the divisor, known or not.
    Fact F = small(std::nullopt);
    if (B && B->I && B->I->Lo == B->I->Hi && B->I->Lo != 0) {
      int64_t C = B->I->Lo < 0 ? -B->I->Lo : B->I->Lo;
      bool NonNeg = !N->Ty.Signed || (A->I && A->I->Lo >= 0);
      F.I = Interval{NonNeg ? 0 : -(C - 1), C - 1};
    }
    return F;
  }
  case Kind::And: {
    // x & M with a non-negative M is at most M.
    for (const Fact *X : {A, B})
      if (X && X->I && X->I->Lo >= 0)
        return small(Interval{0, X->I->Hi});
    if (A->M == Mag::Small || (B && B->M == Mag::Small))
      return small(std::nullopt);
    return join(*A, *B);
  }
  case Kind::Neg:
  case Kind::BitNot: {
    Fact F = *A;
    if (F.I && N->K == Kind::Neg)
      F.I = clampTo(-I128(F.I->Hi), -I128(F.I->Lo));
    else
      F.I.reset();
    return F;
  }
  case Kind::Min:
  case Kind::Max: {
    bool IsMin = N->K == Kind::Min;
    Fact F = IsMin ? (A->M <= B->M ? *A : *B) : join(*A, *B);
    F.I = both([&](Interval X, Interval Y) -> std::optional<Interval> {
      if (IsMin)
        return Interval{std::min(X.Lo, Y.Lo), std::min(X.Hi, Y.Hi)};
      return Interval{std::max(X.Lo, Y.Lo), std::max(X.Hi, Y.Hi)};
    });
    return F;
  }
  case Kind::Select: {
    const Fact &X = of(N->op(1)), &Y = of(N->op(2));
    Fact F = join(X, Y);
    if (X.I && Y.I)
      F.I = Interval{std::min(X.I->Lo, Y.I->Lo), std::max(X.I->Hi, Y.I->Hi)};
    else
      F.I.reset();
    return F;
  }
  case Kind::Phi: {
    if (N->Ops.empty())
      return leaf(Mag::Unbounded, Origin::Opaque, N->Name);
    Fact F = of(N->Ops[0]);
    for (size_t I = 1; I < N->Ops.size(); ++I) {
      const Fact &X = of(N->Ops[I]);
      Fact J = join(F, X);
      if (F.I && X.I)
        J.I = Interval{std::min(F.I->Lo, X.I->Lo), std::max(F.I->Hi, X.I->Hi)};
      else
        J.I.reset();
      F = J;
    }
    return F;
  }
  case Kind::PtrAdd:
    return leaf(Mag::Unbounded, Origin::Opaque, "");
  default: // comparisons and logic
    return small(Interval{0, 1});
  }
}

// Structural equality, at most MaxSameDepth operands deep and MaxSameSteps
// comparisons in all: past either, two values are not known to be the same
// (the IR may have cycles, through loop Phis, and two DAGs that share
// operands, `x2 = x1 + x1`, would take exponential time to unfold).
static constexpr unsigned MaxSameDepth = 64;
static constexpr unsigned MaxSameSteps = 4096;

static bool sameValueRec(const Node *A, const Node *B, unsigned Depth, unsigned &Steps);

bool sameValue(const Node *A, const Node *B) {
  unsigned Steps = 0;
  return sameValueRec(A, B, 0, Steps);
}

static bool sameValueRec(const Node *A, const Node *B, unsigned Depth, unsigned &Steps) {
  if (++Steps > MaxSameSteps)
    return false;
  A = stripVars(A);
  B = stripVars(B);
  if (!A || !B)
    return false;
  if (A == B)
    return true;
  if (A->K != B->K)
    return false;
  switch (A->K) {
  case Kind::Const:
    return A->Value == B->Value;
  case Kind::Param:
  case Kind::Symbolic:
  case Kind::LaunchIdx:
  case Kind::ThreadIdx:
  case Kind::LaunchDim:
    return A->Name == B->Name;
  case Kind::Cast:
    return A->Ty.Bits == B->Ty.Bits && Depth < MaxSameDepth &&
           sameValueRec(A->op(0), B->op(0), Depth + 1, Steps);
  default:
    if (A->Ops.size() != B->Ops.size() || A->Ops.empty() || Depth >= MaxSameDepth)
      return false;
    for (size_t I = 0; I < A->Ops.size(); ++I)
      if (!sameValueRec(A->Ops[I], B->Ops[I], Depth + 1, Steps))
        return false;
    return true;
  }
}

static const Node *stripCasts(const Node *N) {
  N = stripVars(N);
  while (N && N->K == Kind::Cast)
    N = stripVars(N->op(0));
  return N;
}

bool isRoundDown(const Node *M) {
  if (!M || (M->K != Kind::Mul && M->K != Kind::Shl))
    return false;
  for (int I = 0; I < 2; ++I) {
    const Node *Q = stripCasts(M->op(I));
    const Node *C = M->op(1 - I);
    if (M->K == Kind::Shl && I == 1)
      break;
    Kind Want = M->K == Kind::Mul ? Kind::Div : Kind::Shr;
    if (Q && Q->K == Want && sameValue(Q->op(1), C))
      return true;
  }
  return false;
}

const Node *leftmostFactor(const Node *N) {
  while (N && (N->K == Kind::Mul || N->K == Kind::Shl) && N->op(0))
    N = N->op(0);
  return N;
}

const Node *addressStep(const Node *N) {
  bool Through = N && (N->K == Kind::PtrAdd || N->K == Kind::Var ||
                       (N->K == Kind::Cast && (N->Ty.Pointer || !N->Ty.known())) ||
                       (N->K == Kind::Call && N->op(0)));
  return Through ? N->op(0) : nullptr;
}

const Node *addressBase(const Node *N) {
  for (unsigned I = 0; N && I < 64; ++I) {
    const Node *Next = addressStep(N);
    if (!Next)
      return N;
    N = Next;
  }
  return N;
}

static bool mentionsRec(const Node *Hay, const Node *Needle, unsigned Depth,
                        std::vector<const Node *> &Seen) {
  if (!Hay || Depth > 64)
    return false;
  if (sameValue(Hay, Needle))
    return true;
  if (std::find(Seen.begin(), Seen.end(), Hay) != Seen.end())
    return false;
  Seen.push_back(Hay);
  for (const Node *O : Hay->Ops)
    if (mentionsRec(O, Needle, Depth + 1, Seen))
      return true;
  return false;
}

std::string nameOf(const Node *N) {
  if (!N)
    return "";
  return N->Name.empty() ? N->Text : N->Name;
}

bool mentions(const Node *Hay, const Node *Needle) {
  std::vector<const Node *> Seen;
  return mentionsRec(Hay, Needle, 0, Seen);
}

} // namespace kvlint
