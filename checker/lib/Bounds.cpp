//===- Bounds.cpp - value bounds under the deployment envelope --------------===//
#include "kvlint/Bounds.h"
#include "kvlint/Analysis.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <functional>
#include "kvlint/Pattern.h"

namespace kvlint {

namespace {

using I128 = __int128;
constexpr int64_t Inf = Bounds::Inf;

int64_t sat(I128 V) { return V > Inf ? Inf : V < -Inf ? -Inf : int64_t(V); }

Bound exact(int64_t Lo, int64_t Hi) {
  Bound B;
  B.Lo = Lo;
  B.Hi = Hi;
  B.Shaped = Lo >= 0;
  B.Scale = std::max<int64_t>(Hi, 1);
  return B;
}

// Joins the assumptions of two operands into a result.
Bound derived(const Bound &A, const Bound &B, int64_t Lo, int64_t Hi) {
  Bound R;
  R.Lo = Lo;
  R.Hi = Hi;
  R.Exact = A.Exact && B.Exact;
  // The explanation of the operand that needed an assumption (the larger
  // one when both did): a message names where a bound came from.
  const Bound *W = !A.Exact && (B.Exact || A.Hi >= B.Hi) ? &A : !B.Exact ? &B : nullptr;
  if (W)
    R.Why = W->Why;
  return R;
}

// A dimension the envelope falls back to where no fact or name bounds a
// value (Loaded, Unknown, Constexpr, Grid), as opposed to one a name or a
// fact chose.
static bool isDefaultDim(const Dimension *D) {
  static const char *Defaults[] = {"Loaded", "Unknown", "Constexpr", "Grid"};
  return D && std::any_of(std::begin(Defaults), std::end(Defaults),
                          [&](const char *K) { return D->Key == K; });
}

const Node *strip(const Node *N) {
  for (unsigned I = 0; N && I < 64; ++I) {
    if (N->K == Kind::Var && N->op(0))
      N = N->op(0);
    else if (N->K == Kind::Cast && !N->Ty.Pointer && N->op(0) &&
             (!N->op(0)->Ty.known() || !N->Ty.known() || N->Ty.Bits >= N->op(0)->Ty.Bits))
      N = N->op(0); // widening casts keep the value
    else
      break;
  }
  return N;
}

// The same value, without following operands: guards compare the very node
// (a local's uses strip to its assigned value), a parameter, a member or a
// launch variable by name, or a constant. The IR has cycles (loop Phis), so
// nothing here recurses.
bool same(const Node *A, const Node *B, unsigned Depth = 0) {
  A = strip(A);
  B = strip(B);
  if (!A || !B)
    return false;
  if (A == B)
    return true;
  if (A->K != B->K)
    return false;
  switch (A->K) {
  case Kind::Const:
    return A->Value == B->Value;
  case Kind::Param: case Kind::Symbolic: case Kind::LaunchIdx: case Kind::ThreadIdx:
  case Kind::LaunchDim:
    return !A->Name.empty() && A->Name == B->Name;
  case Kind::Range:
    return A->Value == B->Value && A->Value2 == B->Value2 && A->Ops.size() == B->Ops.size();
  // The same arithmetic written twice (a Triton mask repeats the offset it
  // guards: `o = i * BT + tl.arange(0, BT)` in the address, `i * BT +
  // tl.arange(0, BT) < T` in the mask). Bounded depth: the IR has cycles.
  case Kind::Add: case Kind::Sub: case Kind::Mul: case Kind::Div: case Kind::Rem:
  case Kind::Shl: case Kind::Shr: case Kind::Min: case Kind::Max:
    if (Depth >= 4 || A->Ops.size() != B->Ops.size())
      return false;
    for (size_t I = 0; I < A->Ops.size(); ++I)
      if (!same(A->Ops[I], B->Ops[I], Depth + 1))
        return false;
    return true;
  default:
    return false;
  }
}

bool mentionsAny(const Node *Hay, const Node *Needle) {
  std::vector<const Node *> Stack = {Hay}, Seen;
  while (!Stack.empty() && Seen.size() < 256) {
    const Node *X = Stack.back();
    Stack.pop_back();
    if (!X || std::find(Seen.begin(), Seen.end(), X) != Seen.end())
      continue;
    Seen.push_back(X);
    if (same(X, Needle))
      return true;
    for (const Node *O : X->Ops)
      Stack.push_back(O);
  }
  return false;
}

std::string shortName(const Node *N) {
  if (!N->Name.empty())
    return N->Name;
  return N->Text;
}

} // namespace

Bound typeBound(const IntTy &T) {
  if (T.Bool)
    return exact(0, 1);
  if (!T.known() || T.Pointer || T.Bits >= 63)
    return exact(T.Signed || !T.known() ? -Inf : 0, Inf);
  if (T.Signed)
    return exact(-(int64_t(1) << (T.Bits - 1)), (int64_t(1) << (T.Bits - 1)) - 1);
  return exact(0, (int64_t(1) << T.Bits) - 1);
}

// Couplings of envelope dimensions: pairs whose product is bounded by a
// third dimension, because no deployment has both maxima at once.
//   pages x page size        -> a slot (KvSlots)
//   slots x page size        -> a slot: a KV index table's entries are
//                               pages in FlashInfer (kv_indices * page_size)
//                               and slots in SGLang, never both at once
//   heads x head dim         -> all heads of a token (Hidden)
//   heads x a bare row width (h * d) -> the row is per head: Hidden
//   (requests | grid) x tokens -> a token of the flattened batch (bos = i_b * T)
//   grid x tile (pid * BLOCK)  -> a row of the launch's dimension (Tokens)
//   (requests | grid) x batch stride -> an element of the batch (Elements)
int64_t Bounds::capOf(std::vector<const Dimension *> Shape, int64_t Scale, std::string &How) {
  static const char *Rules[][3] = {{"KvPages", "BlockSize", "KvSlots"},
                                   {"KvSlots", "BlockSize", "KvSlots"},
                                   {"Heads", "HeadDim", "Hidden"},
                                   {"Heads", "Intermediate", "Hidden"},
                                   {"Requests", "Tokens", "Tokens"},
                                   {"Requests", "SeqLen", "Tokens"},
                                   {"Grid", "SeqLen", "Tokens"},
                                   {"Grid", "Tokens", "Tokens"},
                                   {"Grid", "Constexpr", "Tokens"},
                                   {"Requests", "BatchStride", "Elements"},
                                   {"Grid", "BatchStride", "Elements"}};
  auto Take = [&](const char *K) {
    for (size_t I = 0; I < Shape.size(); ++I)
      if (Shape[I]->Key == K) {
        Shape.erase(Shape.begin() + I);
        return true;
      }
    return false;
  };
  for (bool Again = true; Again;) {
    Again = false;
    for (auto &R : Rules) {
      std::vector<const Dimension *> Saved = Shape;
      if (Take(R[0]) && Take(R[1])) {
        Shape.push_back(E.byKey(R[2]));
        How += std::string(How.empty() ? "" : ", ") + R[0] + " x " + R[1] + " <= Envelope." +
               R[2];
        Again = true;
      } else {
        Shape = Saved;
      }
    }
  }
  // An index into a space of P elements is at most P - 1.
  I128 P = Scale;
  bool Index = false;
  for (const Dimension *D : Shape) {
    P *= E.bound(*D, Beyond);
    Index |= !E.isSize(*D);
  }
  if (Index && P > 0)
    P -= 1;
  if (!How.empty()) {
    std::string Dims;
    for (const Dimension *D : Shape)
      Dims += std::string(Dims.empty() ? "" : " x ") + D->Key;
    How = Dims + (Scale > 1 ? " x " + withCommas(Scale) : "") + " (" + How + ") = " +
          withCommas(sat(P));
  }
  return sat(P);
}

// The name a host check gives a launch index's axis: a check of
// `num_tokens * hidden` before `k<<<num_tokens, ...>>>` bounds blockIdx.x *
// hidden (the frontends map the grid's extent to gridFactor(axis)).
static std::string gridAxisName(const Node *N) {
  if (!N || N->K != Kind::LaunchIdx)
    return "";
  const std::string &S = N->Name;
  static const char *Axes[3][2] = {{"blockIdx.x", "program_id(0)"},
                                   {"blockIdx.y", "program_id(1)"},
                                   {"blockIdx.z", "program_id(2)"}};
  for (int A = 0; A < 3; ++A)
    for (const char *Spelling : Axes[A])
      if (endsWith(S, Spelling))
        return gridFactor(unsigned(A));
  return "";
}

// Names of a product's factors, when every factor is a named leaf (a
// parameter, a member, a local holding one, a launch index, a value a guard
// keeps below a named size) or a constant.
static bool factorNames(const Node *N, std::vector<std::string> &Names, int64_t &Consts,
                        const std::function<std::string(const Node *)> &Below,
                        unsigned Depth = 0) {
  N = strip(N);
  if (!N || Depth > 8)
    return false;
  if (N->K == Kind::Mul)
    return factorNames(N->op(0), Names, Consts, Below, Depth + 1) &&
           factorNames(N->op(1), Names, Consts, Below, Depth + 1);
  if (N->K == Kind::Const && N->Value > 0) {
    Consts = int64_t(std::min<I128>(I128(Consts) * N->Value, Inf));
    return true;
  }
  if ((N->K == Kind::Param || N->K == Kind::Symbolic) && !N->Name.empty()) {
    Names.push_back(leafName(N->Name));
    return true;
  }
  if (std::string G = gridAxisName(N); !G.empty()) {
    Names.push_back(G);
    return true;
  }
  // A value a guard keeps below a named size (`if (id >= vocab_size)
  // return;`): the check of vocab_size bounds it as well.
  if (std::string B = Below(N); !B.empty()) {
    Names.push_back(B);
    return true;
  }
  return false;
}

int64_t Bounds::checkedBound(const Node *Mul) {
  if (F.Checked.empty())
    return -1;
  std::vector<std::string> Names;
  int64_t Consts = 1;
  auto Below = [&](const Node *X) -> std::string {
    for (const Atom &A : Atoms) {
      if (!same(A.L, X))
        continue;
      const Node *R = strip(A.R);
      if (R && (R->K == Kind::Param || R->K == Kind::Symbolic) && !R->Name.empty() &&
          of(X).Lo >= 0)
        return leafName(R->Name);
    }
    return "";
  };
  if (!factorNames(Mul, Names, Consts, Below) || Names.empty())
    return -1;
  int64_t Best = -1;
  for (const CheckedProduct &C : F.Checked) {
    std::vector<std::string> Left;
    for (const std::string &X : C.Factors)
      Left.push_back(leafName(X));
    bool All = true;
    for (const std::string &X : Names) {
      auto It = std::find(Left.begin(), Left.end(), X);
      if (It == Left.end()) {
        All = false;
        break;
      }
      Left.erase(It);
    }
    // Every checked factor is at least 1, so leaving one out only lowers the
    // product; constant factors outside the check multiply the bound (the
    // frontend folds the check's own constants into Max).
    int64_t B = sat(I128(C.Max) * Consts);
    if (All && (Best < 0 || B < Best))
      Best = B;
  }
  return Best;
}

// The factors of a product (a * b * c, through widening casts and locals).
static void mulFactors(const Node *N, std::vector<const Node *> &Out, unsigned Depth = 0) {
  const Node *S = strip(N);
  if (S && S->K == Kind::Mul && Depth < 8) {
    mulFactors(S->op(0), Out, Depth + 1);
    mulFactors(S->op(1), Out, Depth + 1);
    return;
  }
  Out.push_back(N);
}

// The factors of a product the cancellation rules read: two to six, none
// missing. False for anything else.
static bool productFactors(const Node *Mul, std::vector<const Node *> &Fs) {
  mulFactors(Mul, Fs);
  if (Fs.size() < 2 || Fs.size() > 6)
    return false;
  for (const Node *F : Fs)
    if (!F)
      return false;
  return true;
}

// An index below a quotient, times the divisor: i < n / d (or cdiv(n, d),
// (n + d - 1) / d) bounds i * d by the dividend. The tile start
// `m_block * BlockM` under `m_block < ceil_div(m, BlockM)`, `token * hidden`
// under `token < size / hidden`, `i * threads * vec` under `i < ceil_div(d,
// vec * threads)`: the offset stays inside what was divided. -1 if no guard
// says so.
int64_t Bounds::quotientBound(const Node *Mul) {
  std::vector<const Node *> Fs;
  if (Atoms.empty() || !productFactors(Mul, Fs))
    return -1;
  int64_t Best = -1;
  for (size_t I = 0; I < Fs.size(); ++I) {
    for (const Atom &A : Atoms) {
      if (!same(A.L, Fs[I]))
        continue;
      const Node *Q = strip(A.R);
      // An inlined helper (ceil_div(d, vec * threads)) is its value.
      for (unsigned J = 0; J < 4 && Q && Q->K == Kind::Call && Q->op(0); ++J)
        Q = strip(Q->op(0));
      if (!Q || Q->K != Kind::Div)
        continue;
      std::vector<const Node *> Ds;
      mulFactors(Q->op(1), Ds);
      if (Ds.size() < Fs.size() - 1)
        continue;
      // The other factors are the divisor's, in any order; divisor factors
      // left over only make the product smaller than i * divisor (each is at
      // least 1: a divisor is not 0), so i * (i's cofactors) <= n as well.
      std::vector<bool> Used(Ds.size(), false);
      bool All = true;
      for (size_t J = 0; J < Fs.size() && All; ++J) {
        if (J == I)
          continue;
        bool Found = false;
        for (size_t K = 0; K < Ds.size() && !Found; ++K)
          if (!Used[K] && same(Fs[J], Ds[K]))
            Used[K] = Found = true;
        All = Found;
      }
      if (!All)
        continue;
      // The divisor is not negative (the index itself may be: i * d stays
      // below n either way; only the upper bound is tightened here).
      bool NonNeg = true;
      for (size_t J = 0; J < Fs.size(); ++J)
        NonNeg = NonNeg && (J == I || of(Fs[J]).Lo >= 0);
      for (size_t K = 0; K < Ds.size(); ++K)
        NonNeg = NonNeg && (Used[K] || of(Ds[K]).Lo >= 0);
      if (!NonNeg)
        continue;
      if (Busy.count(Q->op(0)))
        continue; // the dividend is being bounded (a guard's cycle): unknown yet
      const Bound &Num = of(Q->op(0));
      // (n may be negative: with d > 0, i < trunc(n / d) still gives i * d < n.)
      if (Num.Hi >= Inf)
        continue;
      int64_t Hi = std::max<int64_t>(Num.Hi, 0);
      if (Best < 0 || Hi < Best)
        Best = Hi;
    }
  }
  return Best;
}

// A remainder of x by d (x % d, or x - (x / d) * d): |r| < |d| and |r| <=
// |x|, and at 0 or more when NonNeg says the operands make it so.
static Bound remainderOf(const Bound &X, const Bound &Y, bool NonNeg) {
  int64_t D = std::max(std::max(Y.Hi, -Y.Lo) - 1, int64_t(0));
  int64_t M = std::min(D, std::max(X.Hi, -X.Lo));
  return derived(X, Y, NonNeg ? 0 : -M, M);
}

// A quotient and its divisor in the same product, in any order: (v / d) * ...
// * d <= v * ..., and (a % (v / d)) * ... * d < v * ... (the remainder is
// below the quotient). The head's block `head_idx * h_block_count *
// block_size * x` with `h_block_count = head_size / x`, or `h_block *
// block_size * x` with `h_block = i % h_block_count`: both stay inside one
// page however large x is. The quotient may be negative (a slot read from a
// table, `(slot % PAGE) // x * head_size * x`): with d >= 1, (v / d) * d is
// at most max(v, 0) in truncating and floor division alike, so the other
// factors, not the quotient, must be 0 or more. -1 when no quotient meets
// its divisor.
int64_t Bounds::cancelledBound(const Node *Mul) {
  std::vector<const Node *> Fs;
  if (!productFactors(Mul, Fs))
    return -1;
  int64_t Best = -1;
  for (size_t I = 0; I < Fs.size(); ++I) {
    bool OthersNonNeg = true;
    for (size_t K = 0; K < Fs.size(); ++K)
      OthersNonNeg = OthersNonNeg && (K == I || of(Fs[K]).Lo >= 0);
    if (!OthersNonNeg)
      continue;
    const Node *Q = strip(Fs[I]);
    if (Q && Q->K == Kind::Rem && Q->op(0) && of(Q->op(0)).Lo >= 0)
      Q = strip(Q->op(1)); // a % (v / d) < v / d
    if (!Q || Q->K != Kind::Div || !Q->op(0) || !Q->op(1))
      continue;
    const Bound &V = of(Q->op(0));
    if (V.Hi >= Inf)
      continue;
    // The divisor, or a product it is of: (pid // (GROUP_M * num_pid_n)) *
    // GROUP_M (the grouped tile swizzle of Triton GEMMs) is at most pid //
    // num_pid_n, so at most pid: the divisor's other factors are counts of
    // tiles or programs, at least 1 where the division runs (a zero divisor
    // traps first). Not when one of them can only be below 1.
    std::vector<const Node *> Ds;
    if (const Node *D = strip(Q->op(1)); D && D->K == Kind::Mul && productFactors(D, Ds)) {
      for (const Node *X : Ds)
        if (of(X).Hi < 1)
          Ds.clear();
    } else {
      Ds.clear();
    }
    Ds.push_back(Q->op(1));
    for (size_t J = 0; J < Fs.size(); ++J) {
      if (J == I || std::none_of(Ds.begin(), Ds.end(), [&](const Node *X) { return same(Fs[J], X); }))
        continue;
      I128 P = std::max<int64_t>(V.Hi, 0);
      for (size_t K = 0; K < Fs.size(); ++K)
        if (K != I && K != J)
          P *= of(Fs[K]).Hi;
      int64_t Hi = sat(P);
      if (Best < 0 || Hi < Best)
        Best = Hi;
      break;
    }
  }
  return Best;
}

// A launch index over a grid of cdiv(n, B) programs, times B itself (the
// parameter the launcher passes the same B as: `grid = (cdiv(n_cols,
// BLOCK_SIZE),)` with `BLOCK_SIZE=BLOCK_SIZE`, `<<<num_groups /
// groups_per_block>>>` with `groups_per_block` passed on): the tile start
// `pid * BLOCK_SIZE` is below n. Other factors multiply that bound. -1 when
// the product is not one.
int64_t Bounds::gridTileBound(const Node *Mul, std::string &Why) {
  std::vector<const Node *> Fs;
  mulFactors(Mul, Fs);
  if (Fs.size() < 2 || Fs.size() > 6)
    return -1;
  for (size_t I = 0; I < Fs.size(); ++I) {
    const Node *Q = strip(Fs[I]);
    if (!Q || Q->K != Kind::LaunchIdx || Q->Hint.DivBy.empty() || Q->Hint.BoundBy.empty())
      continue;
    for (size_t J = 0; J < Fs.size(); ++J) {
      const Node *P = strip(Fs[J]);
      if (J == I || !P || (P->K != Kind::Param && P->K != Kind::Symbolic) || !P->Object.empty() ||
          P->Name != Q->Hint.DivBy)
        continue;
      // (B is at least 1 where the launch runs: the grid divided by it.)
      Bound Nb = named(Q, Q->Hint.BoundBy, "Grid");
      if (Nb.Hi >= Inf)
        return -1;
      I128 Hi = std::max<int64_t>(Nb.Hi - 1, 0);
      for (size_t K = 0; K < Fs.size(); ++K) {
        if (K == I || K == J)
          continue;
        const Bound &X = of(Fs[K]);
        if (X.Lo < 0)
          return -1;
        Hi *= X.Hi;
        if (Hi >= Inf)
          return -1;
      }
      Why = "'" + shortName(Q) + " * " + P->Name + "' is a tile of a grid of cdiv(" + Q->Hint.BoundBy +
            ", " + P->Name + ") programs, below " + Q->Hint.BoundBy + " (" + Nb.Why + ")";
      return int64_t(Hi);
    }
  }
  return -1;
}

void Bounds::collectAtoms(const Node *C, bool Positive, std::vector<Atom> &Out, unsigned Depth) {
  C = strip(C);
  if (Depth > 16)
    return;
  if (!C)
    return;
  switch (C->K) {
  case Kind::LNot:
    collectAtoms(C->op(0), !Positive, Out, Depth + 1);
    return;
  case Kind::LAnd:
  case Kind::And: // Triton masks combine with &
    if (Positive && (C->K == Kind::LAnd || C->Ty.Bool)) {
      collectAtoms(C->op(0), true, Out, Depth + 1);
      collectAtoms(C->op(1), true, Out, Depth + 1);
    }
    return;
  case Kind::LOr:
    if (!Positive) { // !(a || b): !a and !b
      collectAtoms(C->op(0), false, Out, Depth + 1);
      collectAtoms(C->op(1), false, Out, Depth + 1);
    }
    return;
  case Kind::Lt: case Kind::Le: case Kind::Gt: case Kind::Ge: {
    const Node *L = C->op(0), *R = C->op(1);
    bool Less = C->K == Kind::Lt || C->K == Kind::Le;
    bool Strict = C->K == Kind::Lt || C->K == Kind::Gt;
    if (!Positive) { // !(a < b) is b <= a
      std::swap(L, R);
      Strict = !Strict;
    }
    if (!Less)
      std::swap(L, R); // a > b is b < a
    Out.push_back({L, R, Strict});
    return;
  }
  default:
    return;
  }
}

void Bounds::at(const Access &A) {
  std::vector<std::pair<const Node *, bool>> Ctx;
  for (const Guard &G : A.Guards)
    Ctx.push_back({G.Cond, G.Negated});
  Ctx.push_back({A.Mask, false});
  if (Ctx == Context)
    return;
  Context = Ctx;
  Memo.clear();
  Shallow.clear();
  Atoms.clear();
  for (const Guard &G : A.Guards)
    collectAtoms(G.Cond, !G.Negated, Atoms);
  if (A.Mask)
    collectAtoms(A.Mask, true, Atoms);
}

// Guards that compare N with something: i < n bounds i by n - 1.
void Bounds::refine(const Node *N, Bound &B) { refineBy(Atoms, N, B); }

void Bounds::refineBy(const std::vector<Atom> &With, const Node *N, Bound &B) {
  // A bound's bound's bound: guards that chain (i < n, n <= m) are followed
  // a few steps, never around a cycle of comparisons.
  if (With.empty() || N->K == Kind::Const || RefineDepth >= MaxRefineDepth)
    return;
  struct Depth {
    unsigned &D;
    Depth(unsigned &D) : D(++D) {}
    ~Depth() { --D; }
  } Guard(RefineDepth);
  for (const Atom &A : With) {
    if (same(A.L, N) && !mentionsAny(A.R, N)) {
      const Bound &R = of(A.R);
      int64_t Hi = R.Hi == Inf ? Inf : R.Hi - (A.Strict ? 1 : 0);
      if (Hi < B.Hi) {
        B.Hi = Hi;
        B.Exact = R.Exact;
        B.Why = R.Exact ? "a guard: " + A.R->Text : R.Why;
      }
    } else if (same(A.R, N) && !mentionsAny(A.L, N)) {
      const Bound &L = of(A.L);
      int64_t Lo = L.Lo == -Inf ? -Inf : L.Lo + (A.Strict ? 1 : 0);
      B.Lo = std::max(B.Lo, Lo);
    }
  }
  if (B.Lo > B.Hi)
    B.Lo = B.Hi; // contradictory guards: dead code; keep an interval
}

const Bound &Bounds::of(const Node *N) {
  static const Bound Nothing = exact(-Inf, Inf);
  if (!N)
    return Nothing;
  auto It = Memo.find(N);
  if (It != Memo.end()) {
    // Computed at the guard-chaining limit, its guards were not applied: not
    // the value's bound where they can be.
    if (RefineDepth >= MaxRefineDepth || !Shallow.count(N))
      return It->second;
    Memo.erase(It);
    Shallow.erase(N);
  }
  // Too deep to follow (a backstop: the frontends cut values deeper than
  // MaxNodeDepth): unbounded within its type, the side that reports.
  if (Depth >= MaxDepth) {
    Bound Top = typeBound(N->Ty);
    Top.Exact = false;
    Top.Why = "'" + shortName(N) + "' nested too deep to follow, analysed as unknown";
    return Memo[N] = Top;
  }
  struct Enter {
    unsigned &D;
    Enter(unsigned &D) : D(++D) {}
    ~Enter() { --D; }
  } InOf(Depth);
  // A loop-carried value reaches itself: it is what the guards make it, or
  // what nothing bounds.
  {
    // A guard against a named size bounds it (`for (row = blockIdx.x; row <
    // num_tokens; row += gridDim.x)` reaches num_tokens - 1, however small
    // the default for what nothing bounds is); a guard against a product of
    // unknowns, or a value only a default bounds, does not raise it.
    bool Named = false;
    Bound Guarded;
    for (const Atom &A : Atoms) {
      if (!same(A.L, N) || mentionsAny(A.R, N) || RefineDepth >= MaxRefineDepth)
        continue;
      const Bound &R = of(A.R);
      if (R.Hi >= Inf || !R.Dim || isDefaultDim(R.Dim))
        continue;
      int64_t Hi = R.Hi - (A.Strict ? 1 : 0);
      if (!Named || Hi < Guarded.Hi) {
        Guarded = R;
        Guarded.Hi = Hi;
        Named = true;
      }
    }
    Bound Top = dim(*E.byKey("Unknown"), shortName(N), "loop-carried");
    if (Named && Guarded.Hi > Top.Hi) {
      Top.Hi = Guarded.Hi;
      Top.Why = Guarded.Why;
      Top.Dim = Guarded.Dim;
      Top.Shape = Guarded.Shape;
      Top.Shaped = Guarded.Shaped;
    } else {
      refine(N, Top);
    }
    Memo.emplace(N, Top);
  }
  Busy.insert(N);
  Bound B = compute(N);
  if (RefineDepth >= MaxRefineDepth)
    Shallow.insert(N);
  refine(N, B);
  Busy.erase(N);
  if (N->Ty.known() && !N->Ty.Signed && !N->Ty.Pointer && B.Lo < 0)
    B.Lo = 0; // an unsigned value is never negative
  // A value held in its type cannot leave it: an `int numel` is at most
  // INT_MAX whatever its name says. Not the arithmetic whose mathematical
  // value is what a rule compares with the type (a product, a sum or shift
  // holding one).
  bool Arith = N->K == Kind::Mul || N->K == Kind::Add || N->K == Kind::Sub ||
               N->K == Kind::Shl || N->K == Kind::Neg;
  if (!Arith && N->Ty.known() && !N->Ty.Pointer && !N->Ty.Float) {
    Bound T = typeBound(N->Ty);
    if (B.Hi > T.Hi) {
      B.Hi = T.Hi;
      B.Exact = false;
    }
    if (B.Lo < T.Lo)
      B.Lo = T.Lo;
  }
  return Memo[N] = B;
}

// The array an on-chip address indexes: the pointer below its offsets (a
// local pointer's assigned value, or the `__shared__` array itself).
static const Node *onChipArray(const Node *Addr) {
  for (unsigned I = 0; Addr && Addr->K == Kind::PtrAdd && I < 16; ++I)
    Addr = Addr->op(0);
  const Node *Base = addressBase(Addr);
  if (!Addr || !Base || !Base->OnChip)
    return nullptr;
  if (Addr->K == Kind::Var && Addr->op(0))
    return Addr->op(0);
  return Addr;
}

static bool sameArray(const Node *A, const Node *B) {
  return A == B || (A->K == Kind::Unknown && B->K == Kind::Unknown && !A->Name.empty() &&
                    A->Name == B->Name);
}

// Values read back from an on-chip array are bounded by the values stored
// into it, each bounded where its store executes. Only when every store to
// the array is seen with an integer value: an array written otherwise (by
// asm, cp.async, a callee) is left to the defaults.
const Bound *Bounds::stagedOnChip(const Node *Addr) {
  const Node *Arr = onChipArray(Addr);
  if (!Arr || Nesting >= 2)
    return nullptr;
  for (auto &[K, B] : Staged)
    if (sameArray(K, Arr))
      return B.Hi == Inf && B.Lo == -Inf ? nullptr : &B;
  Bound R = exact(-Inf, Inf);
  bool Any = false, Ok = true;
  for (const Access &A : F.Accesses) {
    if (A.AK != AccessKind::Store)
      continue;
    const Node *SA = onChipArray(A.Addr);
    if (!SA || !sameArray(SA, Arr))
      continue;
    if (!A.Value || !A.Value->Ty.known() || A.Value->Ty.Pointer) {
      Ok = false;
      break;
    }
    Bounds Sub(F, E, Beyond);
    Sub.Nesting = Nesting + 1;
    Sub.Depth = Depth;
    Sub.at(A);
    const Bound &V = Sub.of(A.Value);
    R = Any ? derived(R, V, std::min(R.Lo, V.Lo), std::max(R.Hi, V.Hi)) : V;
    Any = true;
  }
  if (!Any || !Ok)
    R = exact(-Inf, Inf);
  else if (R.Why.empty() == false)
    R.Why = "staged on chip: " + R.Why;
  Staged.emplace_back(Arr, R);
  const Bound &B = Staged.back().second;
  return B.Hi == Inf && B.Lo == -Inf ? nullptr : &B;
}

// The dimension the launcher's argument for a parameter is named like.
const Dimension *Bounds::launchedAs(const Node *N) const {
  if (N->Hint.BoundBy.empty() || N->Hint.Shape)
    return nullptr;
  return E.byName(N->Hint.BoundBy);
}

Bound Bounds::dim(const Dimension &D, const std::string &Name, const char *How) {
  Bound B;
  B.Lo = 0;
  B.Hi = E.bound(D, Beyond);
  // An index into an index space (a token, a page, a request) is below its
  // size; a count of it (num_tokens, seq_len, total) may equal it.
  static const Pattern Count =
      Pattern::builtin("^(num|n|total|max|cnt)_?|(len|count|size|num|total)s?$");
  const bool Index = !E.isSize(D) && !Count.search(leafName(Name));
  const int64_t Size = B.Hi;
  if (Index)
    B.Hi -= 1;
  B.Exact = false;
  B.Why = "'" + Name + "' " + How + ": " + (Index ? "below " : "") + "Envelope." + D.Key + " = " +
          withCommas(Size);
  B.Dim = &D;
  B.Shape = {&D};
  B.Shaped = true;
  B.Named = std::string(How).rfind("is what the launcher passes", 0) != 0;
  return B;
}

// A factor spelled as a decimal constant ("128" of "H*128").
static bool digits(const std::string &F) {
  return !F.empty() && F.size() < 12 &&
         std::all_of(F.begin(), F.end(), [](char Ch) { return std::isdigit((unsigned char)Ch); });
}

Bound Bounds::extentOf(const Node *Ptr) {
  Bound B = exact(0, Inf);
  if (!Ptr || Ptr->Hint.Extent.empty())
    return B;
  std::vector<std::string> Fs = factorsOf(Ptr->Hint.Extent);
  I128 P = 1;
  std::string Why;
  for (const std::string &F : Fs) {
    size_t Slash = F.find('/');
    std::string Name = F.substr(0, Slash);
    int64_t Div = 1;
    if (Slash != std::string::npos) {
      std::string D = F.substr(Slash + 1);
      if (!digits(D) || (Div = std::stoll(D)) < 1)
        return B;
    }
    int64_t V;
    std::string How;
    if (digits(Name)) {
      V = std::stoll(Name);
    } else if (const Dimension *D = Name.size() >= 2 ? E.byName(Name) : nullptr) {
      V = E.bound(*D, Beyond);
      How = "Envelope." + D->Key;
    } else if (Fs.size() >= 2) {
      V = E.bound(*E.byKey("Dimension"), Beyond);
      How = "Envelope.Dimension";
    } else {
      return B;
    }
    V = (V + Div - 1) / Div;
    P *= V;
    if (P > Inf)
      return B;
    if (!How.empty())
      Why += std::string(Why.empty() ? "" : ", ") + "'" + Name + "': " + How;
  }
  B.Hi = sat(P);
  B.Exact = Why.empty();
  B.Why = Ptr->Hint.Extent + (Why.empty() ? "" : " (" + Why + ")") + " = " + withCommas(B.Hi);
  return B;
}

/// A launcher's quantity as a message spells it: "a|b" is min(a, b).
static std::string spelled(const std::string &By) {
  if (By.find('|') == std::string::npos)
    return By;
  std::string Out = "min(";
  for (char C : By)
    Out += C == '|' ? std::string(", ") : std::string(1, C);
  return Out + ")";
}

std::vector<std::string> Bounds::factorsOf(const std::string &By) {
  std::vector<std::string> Out;
  size_t B = 0;
  while (B <= By.size()) {
    size_t E = By.find('*', B);
    if (E == std::string::npos)
      E = By.size();
    if (E > B)
      Out.push_back(By.substr(B, E - B));
    B = E + 1;
  }
  return Out;
}

// A quantity a launcher names: one name, or a product of names and
// constants ("B*H": a program per sequence and head). A product's bound is
// its factors' maxima, capped by the envelope's couplings (B * T tokens).
// What the launcher names (a grid's or a stride's quantity) is a launch
// fact, even where the envelope bounds it by that name.
Bound Bounds::named(const Node *N, const std::string &By, const char *Fallback) {
  Bound B = namedImpl(N, By, Fallback);
  B.Named = false;
  return B;
}

Bound Bounds::namedImpl(const Node *N, const std::string &By, const char *Fallback) {
  // "a|b": the least of several quantities (a grid of min(num_sms * 2,
  // n_rows) programs): the tightest alternative bounds it.
  if (size_t Bar = By.find('|'); Bar != std::string::npos) {
    Bound L = namedImpl(N, By.substr(0, Bar), Fallback);
    Bound R = namedImpl(N, By.substr(Bar + 1), Fallback);
    const Bound &Least = R.Hi < L.Hi ? R : L;
    Bound B = Least;
    B.Why = Least.Why + ", the least of " + spelled(By);
    return B;
  }
  std::vector<std::string> Fs = factorsOf(By);
  if (Fs.size() == 1 && digits(Fs[0])) { // what is left of 1 * NV over NV
    int64_t C = std::stoll(Fs[0]);
    Bound B = exact(C, C);
    B.Why = "'" + By + "'";
    return B;
  }
  if (Fs.size() < 2)
    return leafByName(N, By, Fallback);
  I128 P = 1;
  int64_t Scale = 1;
  std::vector<const Dimension *> Shape;
  std::string Why;
  bool AllDims = true;
  for (const std::string &F : Fs) {
    int64_t C = 0;
    if (digits(F)) {
      C = std::stoll(F);
      Scale = sat(I128(Scale) * C);
      P *= C;
      continue;
    }
    const Dimension *D = E.byName(F);
    if (!D) {
      D = E.byKey(Fallback);
      AllDims = false;
    }
    Shape.push_back(D);
    P *= E.bound(*D, Beyond);
    Why += std::string(Why.empty() ? "" : ", ") + "'" + F + "': Envelope." + D->Key;
  }
  Bound B;
  B.Lo = 0;
  B.Hi = sat(P);
  B.Exact = false;
  B.Why = "'" + By + "' (" + Why + ") = " + withCommas(B.Hi);
  if (AllDims) {
    std::string How;
    int64_t Cap = capOf(Shape, Scale, How);
    if (!How.empty() && Cap + 1 < B.Hi) {
      B.Hi = Cap + 1;
      B.Why = "'" + By + "' spans " + How;
    }
  }
  return B;
}

// A leaf no fact bounds: by its name, else by the default dimension.
Bound Bounds::leafByName(const Node *N, const std::string &Given, const char *Fallback) {
  // Without a name, a plain identifier's text is its name (a member the
  // frontend could not resolve in a template).
  std::string Name = Given;
  if (Name.empty() && !N->Text.empty() &&
      std::all_of(N->Text.begin(), N->Text.end(), [](char C) {
        return std::isalnum(static_cast<unsigned char>(C)) || C == '_' || C == '.' ||
               C == '-' || C == '>';
      }))
    Name = N->Text;
  if (const Dimension *D = E.byName(Name))
    return dim(*D, Name, "is named like it");
  return dim(*E.byKey(Fallback), Name.empty() ? N->Text : Name, "is bounded by no fact");
}

Bound Bounds::compute(const Node *N) {
  // A floating-point value: nothing integer about it to bound.
  if (N->Ty.Float) {
    Bound B;
    B.Lo = -Inf;
    B.Hi = Inf;
    B.Exact = false;
    B.Why = "a floating-point value";
    return B;
  }
  Bound TB = typeBound(N->Ty);
  // Narrow values (8/16-bit, booleans) are bounded by their type.
  if (N->Ty.known() && !N->Ty.Pointer && N->Ty.Bits <= 16 && N->K != Kind::Const)
    return TB;

  const Node *H = N;
  if (H->Hint.HasRange) {
    Bound B = exact(H->Hint.Lo, H->Hint.Hi);
    B.Why = H->Hint.Source;
    // A size the launcher bounds (assert K <= 256) is still the dimension
    // its name says: heads x K stays capped by the hidden size.
    if (const Dimension *D = E.byName(N->Name); D && E.isSize(*D) && B.Lo >= 0 &&
        (N->K == Kind::Param || N->K == Kind::Symbolic)) {
      B.Shape = {D};
      B.Scale = 1;
      B.Shaped = true;
    }
    return B;
  }

  auto A = [&]() -> const Bound & { return of(N->op(0)); };
  auto Bv = [&]() -> const Bound & { return of(N->op(1)); };

  switch (N->K) {
  case Kind::Const:
    return exact(N->Value, N->Value);
  case Kind::Symbolic: {
    // A compile-time constant is a size (a tile, a head dim, a token count),
    // never a page or slot id. A one-letter member of a type (`Cta_tile::M`,
    // `WGMMA_OP::N`) is a tile's shape, not the dimension a bare `M` names.
    bool TileShape = N->Name.find("::") != std::string::npos && leafName(N->Name).size() == 1;
    const Dimension *D = TileShape ? nullptr : E.byName(N->Name);
    if (D && D->Key != "KvPages" && D->Key != "KvSlots")
      return dim(*D, N->Name, "is named like it");
    if (const Dimension *L = launchedAs(N); L && L->Key != "KvPages" && L->Key != "KvSlots")
      return dim(*L, N->Hint.BoundBy, ("is what the launcher passes (" + N->Hint.Source + ")").c_str());
    return dim(*E.byKey("Constexpr"), N->Name, "is a compile-time constant of unknown value");
  }
  case Kind::Param: {
    // The stride of a contiguous tensor the launcher allocates is the
    // product of its inner sizes (`x.stride(1)` of torch.empty(B, T, H, D)
    // is T * H * D): a fact, before any name. Only sizes that say what they
    // are count: a constant, or a name of two letters or more that the
    // envelope maps (a one-letter `K` is a head dim in attention and the
    // reduction of a matmul: M, K = a.shape).
    bool Clear = N->Hint.Shape && !N->Hint.BoundBy.empty();
    for (const std::string &F : factorsOf(N->Hint.BoundBy))
      Clear &= digits(F) || (F.size() >= 2 && E.byName(F));
    if (Clear) {
      Bound S = named(N, N->Hint.BoundBy, "Unknown");
      S.Lo = 0;
      // Source names the caller's allocation where the launcher only
      // passes on a tensor its callers allocate (ProjectModel::callerTensor).
      bool Caller = N->Hint.Source.find(" allocates it") != std::string::npos;
      S.Why = std::string("the stride of a tensor ") +
              (Caller ? "its callers allocate" : "the launcher allocates") + ", at most " +
              N->Hint.BoundBy + " (" + N->Hint.Source + "): " + S.Why;
      return S;
    }
    // The parameter's own name first; else the name of what the launcher
    // passes for it (a kernel's `n` launched with `num_tokens`).
    if (!E.byName(N->Name))
      if (const Dimension *L = launchedAs(N))
        return dim(*L, N->Hint.BoundBy, ("is what the launcher passes (" + N->Hint.Source + ")").c_str());
    return leafByName(N, N->Name, "Unknown");
  }
  case Kind::Call:
    if (N->op(0)) // an inlined helper: its value
      return of(N->op(0));
    return leafByName(N, N->Name, "Unknown");
  case Kind::Unknown:
    return leafByName(N, N->Name, "Unknown");
  case Kind::LaunchIdx: {
    if (!N->Hint.BoundBy.empty()) {
      Bound B = named(N, N->Hint.BoundBy, "Grid");
      int64_t D = std::max<int64_t>(1, N->Hint.BoundDiv);
      B.Hi = std::max<int64_t>(0, (B.Hi + D - 1) / D - 1);
      B.Why = "the grid spans " + spelled(N->Hint.BoundBy) + (D > 1 ? " / " + std::to_string(D) : "") +
              " (" + B.Why + ")";
      return B;
    }
    return dim(*E.byKey("Grid"), N->Name, "spans a grid the launcher does not show");
  }
  case Kind::LaunchDim:
    if (N->Value == 1) { // gridDim / num_programs
      Bound B = dim(*E.byKey("Grid"), N->Name, "is a grid size");
      B.Lo = 1;
      return B;
    }
    return exact(1, 1024);
  case Kind::ThreadIdx:
    return exact(0, 1023);
  case Kind::Range:
    if (N->Value > N->Value2)
      return exact(N->Value2, N->Value - 1);
    return exact(0, 0);
  case Kind::Load: {
    if (N->ElemTy.known() && N->ElemTy.Bits <= 16)
      return typeBound(N->ElemTy);
    // An on-chip array holds what the function stores into it (a token
    // position staged in shared memory for the whole CTA).
    if (const Bound *S = stagedOnChip(N->op(0)))
      return *S;
    // An entry of a table: bounded by what the table indexes (a block
    // table holds pages, a slot mapping slots, cu_seqlens tokens).
    std::string Table = N->Name;
    if (const Dimension *D = E.byName(Table)) {
      Bound B = dim(*D, Table, "is an entry of a table named like it");
      B.Lo = -1;
      return B;
    }
    Bound B = dim(*E.byKey("Loaded"), Table.empty() ? N->Text : Table,
                  "is loaded from a table no name explains");
    B.Lo = -1; // a table entry is an index or the pad value
    return B;
  }
  case Kind::Var: {
    if (!N->op(0))
      return leafByName(N, N->Name, "Unknown");
    Bound B = of(N->op(0));
    // A local's name speaks only where its value had no better source than
    // a default (`page = tl.load(table + i)`: the engineer named it).
    bool FromDefault = !B.Exact && isDefaultDim(B.Dim);
    if (FromDefault)
      if (const Dimension *D = E.byName(N->Name)) {
        Bound Named = dim(*D, N->Name, "is named like it");
        Named.Lo = B.Lo;
        // A launch index spans its grid: a name may say the grid is smaller
        // (pid_h is a head) but not that it is larger (a tile's block_id is
        // no page id of an 8M-page pool).
        if (B.Dim->Key == std::string("Grid") && Named.Hi > B.Hi)
          return B;
        return Named;
      }
    return B;
  }
  case Kind::Cast: {
    const Node *From = N->op(0);
    // An integer converted from a float (floor(x * scale)): the float's
    // arithmetic bounds nothing; bounded like a value no fact bounds.
    if (From && From->Ty.Float && !N->Ty.Float && !N->Ty.Pointer)
      return dim(*E.byKey("Unknown"), N->Text, "is converted from a floating-point value");
    Bound B = of(N->op(0));
    if (N->Ty.known() && !N->Ty.Pointer && From && From->Ty.known() &&
        N->Ty.Bits < From->Ty.Bits && (B.Lo < TB.Lo || B.Hi > TB.Hi)) {
      // A narrowing that can cut the value: anything of the new type.
      Bound R = TB;
      R.Exact = false;
      R.Why = B.Why;
      return R;
    }
    if (N->Ty.known() && !N->Ty.Signed && B.Lo < 0) { // to unsigned
      Bound R = TB;
      R.Exact = B.Exact;
      R.Why = B.Why;
      return R;
    }
    return B;
  }
  case Kind::Add: {
    const Bound &X = A(), &Y = Bv();
    Bound R = derived(X, Y, sat(I128(X.Lo) + Y.Lo), sat(I128(X.Hi) + Y.Hi));
    // row * width + col (col < width) stays inside the row's shape: the
    // larger term's shape is the sum's. A shape is an exclusive bound, so
    // the smaller term must be an offset within it.
    const Bound &Big = X.Hi >= Y.Hi ? X : Y, &Small = X.Hi >= Y.Hi ? Y : X;
    if (Big.Shaped && Small.Lo >= 0 && !Big.Shape.empty() &&
        Small.Hi < E.bound(*Big.Shape.back(), Beyond)) {
      R.Shape = Big.Shape;
      R.Scale = Big.Scale;
      R.Shaped = true;
      if (R.Shape.size() == 1)
        R.Dim = R.Shape[0];
    }
    return R;
  }
  case Kind::Sub: {
    Bound R = derived(A(), Bv(), sat(I128(A().Lo) - Bv().Hi), sat(I128(A().Hi) - Bv().Lo));
    // x - (x / d) * d is the remainder of x by d: below d (and above -d for a
    // negative x in C's truncating division; Triton's floor division keeps it
    // at 0 or more). `block_off = slot - block_id * BLOCK` with
    // `block_id = slot // BLOCK`.
    if (const Node *M = strip(N->op(1)); M && M->K == Kind::Mul) {
      for (int I = 0; I < 2; ++I) {
        const Node *Q = strip(M->op(I)), *D = M->op(1 - I);
        if (!Q || Q->K != Kind::Div || !same(Q->op(0), N->op(0)) || !same(Q->op(1), D))
          continue;
        // At 0 or more when x and d are (floor or truncating division alike).
        const Bound &DB = of(D);
        Bound Rm = remainderOf(A(), DB, A().Lo >= 0 && DB.Lo >= 1);
        if (Rm.Hi >= R.Hi)
          break;
        R.Hi = Rm.Hi;
        R.Lo = std::max(R.Lo, Rm.Lo);
        R.Exact = false;
        R.Why = "a remainder by " + shortName(D);
        R.Shaped = false;
        break;
      }
    }
    return R;
  }
  case Kind::Mul: {
    const Bound &X = A(), &Y = Bv();
    I128 C[4] = {I128(X.Lo) * Y.Lo, I128(X.Lo) * Y.Hi, I128(X.Hi) * Y.Lo, I128(X.Hi) * Y.Hi};
    Bound R = derived(X, Y, sat(*std::min_element(C, C + 4)), sat(*std::max_element(C, C + 4)));
    // (x / y) * y is at most x, also when x / y is picked by a ?: whose
    // other arm is a constant (h = heads == 1 ? 0 : i / upr; h * upr). x may
    // be negative: with y >= 1, (x / y) * y is at most max(x, 0) in
    // truncating and floor division alike (flash-attention's paged
    // `block_table_idx = (n_block_max - 1) * kBlockN / page_block_size`).
    for (int I = 0; I < 2; ++I) {
      const Node *Q = strip(N->op(I)), *D = N->op(1 - I);
      std::vector<const Node *> Arms;
      bool Sel = Q && Q->K == Kind::Select;
      if (Sel)
        Arms = {strip(Q->op(1)), strip(Q->op(2))};
      else
        Arms = {Q};
      const Bound &DB = of(D);
      int64_t Hi = 0;
      bool All = !Arms.empty();
      for (const Node *Arm : Arms) {
        if (Sel && Arm && Arm->K == Kind::Const && Arm->Value >= 0) {
          Hi = std::max(Hi, sat(I128(Arm->Value) * DB.Hi));
          continue;
        }
        if (!Arm || Arm->K != Kind::Div || !same(Arm->op(1), D) || DB.Lo < 0) {
          All = false;
          break;
        }
        Hi = std::max(Hi, std::max<int64_t>(of(Arm->op(0)).Hi, 0));
      }
      if (All && Hi < R.Hi) {
        R.Hi = Hi;
        R.Exact = of(N->op(I)).Exact;
      }
    }
    // An index below a quotient times the divisor: at most the dividend.
    if (int64_t Hi = quotientBound(N); Hi >= 0 && Hi < R.Hi) {
      R.Hi = Hi;
      R.Exact = false;
      R.Why = "a guard bounds the index by a quotient of what it multiplies";
      R.Shaped = false;
    }
    // A quotient times its divisor, anywhere in the product: the dividend.
    if (int64_t Hi = cancelledBound(N); Hi >= 0 && Hi < R.Hi) {
      R.Hi = Hi;
      R.Exact = false;
      R.Why = "a quotient and its divisor cancel in the product";
      R.Shaped = false;
    }
    // A tile of a grid of cdiv(n, B) programs times B: below n.
    if (std::string Why; true)
      if (int64_t Hi = gridTileBound(N, Why); Hi >= 0 && Hi < R.Hi) {
        R.Hi = Hi;
        R.Exact = false;
        R.Why = Why;
        R.Shaped = false;
      }
    // A product the host checks before the launch (TORCH_CHECK(n * h * d <=
    // INT_MAX), a checked-product helper) is bounded by the check when its
    // factors are among the checked ones.
    // A fact: the name-based widenings below (an expert's weight matrix, a
    // token's row) never raise a bound the host checked.
    if (int64_t Max = checkedBound(N); Max >= 0) {
      if (Max < R.Hi) {
        R.Hi = Max;
        R.Exact = true;
        R.Why = "a host check bounds it";
        R.Shaped = false;
      }
      return R;
    }
    // The stride an expert index multiplies is a weight matrix: hidden x
    // intermediate elements per expert, whatever the stride is called.
    auto IsDim = [](const Bound &B, const char *K) { return B.Dim && B.Dim->Key == K; };
    if ((IsDim(X, "Experts") && IsDim(Y, "Stride")) || (IsDim(X, "Stride") && IsDim(Y, "Experts"))) {
      const Bound &Ex = IsDim(X, "Experts") ? X : Y;
      int64_t W = sat(I128(E.bound(*E.byKey("Hidden"), Beyond)) *
                      E.bound(*E.byKey("Intermediate"), Beyond));
      int64_t Hi = sat(I128(Ex.Hi) * W);
      if (Hi > R.Hi) {
        R.Hi = Hi;
        R.Why = "an expert's stride is a weight matrix (Envelope.Hidden x "
                "Envelope.Intermediate)";
        R.Shaped = false;
        return R;
      }
    }
    // A loaded index no name explains, times a hidden-size row: a row of a
    // [tokens, hidden] activation, so the index is a token (a MoE gather's
    // token id), up to Envelope.Tokens.
    if ((IsDim(X, "Loaded") && IsDim(Y, "Hidden")) || (IsDim(X, "Hidden") && IsDim(Y, "Loaded"))) {
      const Bound &Idx = IsDim(X, "Loaded") ? X : Y, &Row = IsDim(X, "Loaded") ? Y : X;
      int64_t Tok = E.bound(*E.byKey("Tokens"), Beyond) - 1;
      int64_t Hi = sat(I128(std::max(Idx.Hi, Tok)) * Row.Hi);
      if (Hi > R.Hi && Row.Lo >= 0) {
        R.Hi = Hi;
        R.Why = "an index times a hidden-size row is a token's row, and a token is below "
                "Envelope.Tokens";
        R.Shaped = false;
        return R;
      }
    }
    // Shapes: the product's dimensions, with couplings the envelope's
    // independent maxima miss (pages x page size is a slot).
    R.Shape = X.Shape;
    R.Shape.insert(R.Shape.end(), Y.Shape.begin(), Y.Shape.end());
    R.Scale = sat(I128(X.Scale) * Y.Scale);
    R.Shaped = X.Shaped && Y.Shaped;
    if (R.Shaped) {
      std::string How;
      int64_t Cap = capOf(R.Shape, R.Scale, How);
      if (!How.empty() && Cap < R.Hi) {
        R.Hi = Cap;
        R.Why = "'" + N->Text + "' spans " + How;
      }
    }
    return R;
  }
  case Kind::Shl: {
    const Bound &X = A();
    Bound Y = Bv();
    // A shift amount no fact bounds is the log2 of a size (page_log2,
    // lanes_log2): at most log2 of the size its name gives, or of Unknown.
    if (!Y.Exact) {
      int64_t Size = Y.Dim ? E.bound(*Y.Dim, Beyond) : E.bound(*E.byKey("Unknown"), Beyond);
      int64_t L = 0;
      while (L < 62 && (int64_t(1) << L) < Size)
        ++L;
      Y.Hi = std::min(Y.Hi, L);
      Y.Lo = std::max<int64_t>(Y.Lo, 0);
    }
    if (Y.Lo < 0 || Y.Hi > 62 || X.Lo < 0) // shifted by an unbounded amount
      return derived(X, Y, X.Lo < 0 ? -Inf : 0, X.Hi > 0 ? Inf : 0);
    return derived(X, Y, sat(I128(X.Lo) << Y.Lo), sat(I128(X.Hi) << Y.Hi));
  }
  case Kind::Div: {
    // i_bh // H over a grid of B * H programs is below B.
    // The divisor by its name, also a local's (NV = tl.cdiv(V, BV) in the
    // kernel, NV in the launcher's grid).
    const Node *H = N->op(1) && N->op(1)->K == Kind::Var ? N->op(1) : strip(N->op(1));
    if (const Node *Q = strip(N->op(0));
        Q && H && Q->K == Kind::LaunchIdx && Q->Hint.BoundDiv <= 1 &&
        Q->Hint.BoundBy.find('*') != std::string::npos &&
        Q->Hint.BoundBy.find('|') == std::string::npos && !H->Name.empty()) {
      std::vector<std::string> Fs = factorsOf(Q->Hint.BoundBy), Rest;
      bool Found = false;
      for (const std::string &X : Fs)
        if (!Found && leafName(X) == leafName(H->Name))
          Found = true;
        else
          Rest.push_back(X);
      if (Found && !Rest.empty()) {
        std::string By;
        for (const std::string &X : Rest)
          By += (By.empty() ? "" : "*") + X;
        Bound B = named(Q, By, "Grid");
        B.Hi = std::max<int64_t>(0, B.Hi - 1);
        B.Lo = 0;
        B.Why = "the grid spans " + Q->Hint.BoundBy + ", divided by " + H->Name + " (" + B.Why + ")";
        return B;
      }
    }
    const Bound &X = A();
    Bound Y = Bv();
    // Code that divides by a size never divides by zero: a non-negative
    // divisor (a tile, a block size) is at least 1 where the division runs.
    if (Y.Lo == 0 && Y.Hi >= 1)
      Y.Lo = 1;
    if (Y.Lo >= 1) { // a positive divisor never makes a value larger
      Bound R = derived(X, Y, X.Lo >= 0 ? X.Lo / Y.Hi : X.Lo / Y.Lo,
                        X.Hi >= 0 ? X.Hi / Y.Lo : X.Hi / Y.Hi);
      // ... nor leaves the dividend's shape: NT = cdiv(T, BT) is at most a
      // sequence, and i_b * NT a token of the batch. A ceil division,
      // (T + BT - 1) / BT, has the shape of T.
      const Bound *S = &X;
      if (const Node *Sum = strip(N->op(0)); !X.Shaped && Sum && Sum->K == Kind::Add)
        for (int I = 0; I < 2; ++I) {
          const Node *Pad = strip(Sum->op(1 - I));
          const Node *One = Pad && Pad->K == Kind::Sub ? strip(Pad->op(1)) : nullptr;
          if (!One || One->K != Kind::Const || One->Value != 1 || !same(Pad->op(0), N->op(1)))
            continue;
          if (const Bound &T = of(Sum->op(I)); T.Shaped) {
            S = &T;
            break;
          }
        }
      if (S->Shaped && S->Lo >= 0) {
        R.Shape = S->Shape;
        R.Scale = S->Scale;
        R.Shaped = true;
        R.Dim = S->Dim;
      }
      return R;
    }
    Bound R = X; // a divisor that may be 0 or negative: |x / y| <= |x|
    R.Lo = X.Lo >= 0 && Y.Lo >= 0 ? 0 : std::min(X.Lo, -X.Hi);
    R.Hi = std::max(X.Hi, -X.Lo);
    return R;
  }
  case Kind::Shr: {
    const Bound &X = A(), &Y = Bv();
    if (Y.Lo >= 0 && Y.Hi < 63)
      return derived(X, Y, X.Lo >> (X.Lo < 0 ? 0 : Y.Hi), X.Hi >> (X.Hi < 0 ? Y.Hi : Y.Lo));
    return X;
  }
  case Kind::Rem: {
    // The sign follows x.
    const Bound &X = A(), &Y = Bv();
    Bound R = remainderOf(X, Y, X.Lo >= 0 || !N->Ty.Signed);
    // A remainder by a constant is a fact whatever x is.
    if (Y.Exact) {
      R.Exact = true;
      R.Why.clear();
    }
    return R;
  }
  case Kind::And: {
    const Bound &X = A(), &Y = Bv();
    if (N->Ty.Bool)
      return exact(0, 1);
    for (const Bound *M : {&X, &Y})
      if (M->Lo >= 0) {
        Bound R = *M;
        R.Lo = 0;
        return R;
      }
    return derived(X, Y, TB.Lo, TB.Hi);
  }
  case Kind::Or:
  case Kind::Xor: {
    const Bound &X = A(), &Y = Bv();
    if (X.Lo >= 0 && Y.Lo >= 0) { // below the next power of two of the larger
      int64_t M = std::max(X.Hi, Y.Hi), P = 1;
      while (P <= M && P < Inf)
        P <<= 1;
      return derived(X, Y, 0, P - 1);
    }
    return derived(X, Y, TB.Lo, TB.Hi);
  }
  case Kind::Neg:
    return derived(A(), A(), sat(-I128(A().Hi)), sat(-I128(A().Lo)));
  case Kind::BitNot:
    return derived(A(), A(), TB.Lo, TB.Hi);
  case Kind::Min: {
    const Bound &X = A(), &Y = Bv();
    // The smaller side decides the upper bound, and its assumptions alone.
    Bound R = X.Hi <= Y.Hi ? X : Y;
    R.Lo = std::min(X.Lo, Y.Lo);
    return R;
  }
  case Kind::Max: {
    const Bound &X = A(), &Y = Bv();
    return derived(X, Y, std::max(X.Lo, Y.Lo), std::max(X.Hi, Y.Hi));
  }
  case Kind::Select: {
    // Each arm holds where the condition does, or does not: in
    // `ok ? pos : 0` with `ok = pos >= 0 && pos < n`, pos is below n. Only
    // the arm itself is refined (its operands were bounded in the enclosing
    // context, which stays what the memo holds).
    Bound X = of(N->op(1)), Y = of(N->op(2));
    for (int Arm = 1; Arm <= 2; ++Arm) {
      std::vector<Atom> Cond;
      collectAtoms(N->op(0), Arm == 1, Cond);
      if (N->op(Arm))
        refineBy(Cond, strip(N->op(Arm)), Arm == 1 ? X : Y);
    }
    return derived(X, Y, std::min(X.Lo, Y.Lo), std::max(X.Hi, Y.Hi));
  }
  case Kind::Phi: {
    if (N->Ops.empty())
      return leafByName(N, N->Name, "Unknown");
    Bound R = of(N->Ops[0]);
    for (size_t I = 1; I < N->Ops.size(); ++I) {
      const Bound &X = of(N->Ops[I]);
      R = derived(R, X, std::min(R.Lo, X.Lo), std::max(R.Hi, X.Hi));
    }
    return R;
  }
  case Kind::PtrAdd:
    return exact(0, Inf);
  default: // comparisons and logic
    return exact(0, 1);
  }
}

} // namespace kvlint
