//===- IR.cpp - kernel IR helpers -----------------------------------------===//
#include "kvlint/IR.h"

namespace kvlint {

const char *languageName(Language L) {
  switch (L) {
  case Language::Cpp: return "c++";
  case Language::Cuda: return "cuda";
  case Language::Hip: return "hip";
  case Language::Triton: return "triton";
  }
  return "?";
}

const char *kindName(Kind K) {
  switch (K) {
#define K(X) case Kind::X: return #X;
    K(Const) K(Symbolic) K(Param) K(LaunchIdx) K(ThreadIdx) K(LaunchDim)
    K(Range) K(Load) K(Call) K(Unknown) K(Var) K(Add) K(Sub) K(Mul) K(Div)
    K(Rem) K(Shl) K(Shr) K(And) K(Or) K(Xor) K(Neg) K(BitNot) K(Min) K(Max)
    K(Cast) K(Select) K(Phi) K(PtrAdd) K(Lt) K(Le) K(Gt) K(Ge) K(Eq) K(Ne)
    K(LAnd) K(LOr) K(LNot)
#undef K
  }
  return "?";
}

bool isComparison(Kind K) {
  switch (K) {
  case Kind::Lt: case Kind::Le: case Kind::Gt: case Kind::Ge:
  case Kind::Eq: case Kind::Ne:
    return true;
  default:
    return false;
  }
}

const Node *stripVars(const Node *N) {
  while (N && N->K == Kind::Var && N->op(0))
    N = N->op(0);
  return N;
}

static std::string tyName(const IntTy &T) {
  if (T.Pointer) return "ptr";
  if (T.Bool) return "i1";
  if (T.Float) return "f";
  if (!T.known()) return "?";
  return (T.Signed ? "i" : "u") + std::to_string(T.Bits);
}

std::string dumpHint(const ValueHint &H);

static void dumpRec(const Node *N, std::string &S, unsigned Depth) {
  if (!N) { S += "null"; return; }
  if (Depth > 24) { S += "..."; return; }
  S += "(";
  S += kindName(N->K);
  S += ":" + tyName(N->Ty);
  switch (N->K) {
  case Kind::Const: S += " " + std::to_string(N->Value); break;
  case Kind::Range:
    S += " " + std::to_string(N->Value2) + ".." + std::to_string(N->Value);
    break;
  case Kind::Load: S += " elem=" + tyName(N->ElemTy); break;
  case Kind::Cast: if (N->Explicit) S += " explicit"; break;
  default: break;
  }
  if (!N->Name.empty()) S += " " + N->Name;
  if (N->Hint.any()) S += " " + dumpHint(N->Hint);
  // A variable's value is printed once per use; keep dumps short by not
  // expanding through variables more than one level deep.
  if (N->K == Kind::Var) { S += ")"; return; }
  for (const Node *O : N->Ops) {
    S += " ";
    dumpRec(O, S, Depth + 1);
  }
  S += ")";
}

static bool knownInteger(const Node *N) { return N && N->Ty.known() && !N->Ty.Pointer; }

const Node *asAddress(Function &F, const Node *A) {
  if (!A || A->Ty.Pointer || A->K != Kind::Add || A->Ops.size() != 2)
    return A;
  const Node *L = A->op(0), *R = A->op(1), *P = nullptr, *Off = nullptr;
  if (knownInteger(R) && !knownInteger(L))
    P = L, Off = R;
  else if (knownInteger(L) && !knownInteger(R))
    P = R, Off = L;
  else
    return A;
  P = asAddress(F, P);
  Node *N = F.make(Kind::PtrAdd, IntTy::pointer(), P, Off);
  N->Range = A->Range;
  N->Text = A->Text;
  N->Name = P->Name;
  return N;
}

std::string dump(const Node *N) {
  std::string S;
  dumpRec(N, S, 0);
  return S;
}

/// A hint in a dump: `[lo,hi]` for a range, `@name` or `@name/div` for a
/// bound by a launcher's quantity (both when both are known), and
/// `@name/(param)` when the divisor is the function's parameter `param`.
/// Shared by every frontend's tests.
std::string dumpHint(const ValueHint &H) {
  std::string S;
  if (H.HasRange)
    S += "[" + std::to_string(H.Lo) + "," + std::to_string(H.Hi) + "]";
  if (!H.BoundBy.empty()) {
    if (!S.empty()) S += " ";
    S += (H.Shape ? "@stride " : "@") + H.BoundBy;
    if (H.BoundDiv != 1) S += "/" + std::to_string(H.BoundDiv);
    if (!H.DivBy.empty()) S += "/(" + H.DivBy + ")";
  }
  return S;
}

} // namespace kvlint
