//===- IR.cpp - kernel IR helpers -----------------------------------------===//
#include "kvlint/IR.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace kvlint {

static std::string lineOf(std::string_view Src, size_t At) {
  return std::to_string(1 + std::count(Src.begin(), Src.begin() + At, '\n'));
}

std::string notSourceText(std::string_view Src) {
  // Source text may hold a stray control byte (an ESC in a string literal, a
  // DOS editor's trailing ^Z); binary data holds a NUL or many of them.
  size_t First = std::string_view::npos, Count = 0;
  bool Nul = false;
  for (size_t I = 0; I < Src.size(); ++I) {
    unsigned char C = Src[I];
    if (C < 0x20 && C != '\t' && C != '\n' && C != '\r' && C != '\f' && C != '\v') {
      Nul |= C == 0;
      if (First == std::string_view::npos)
        First = I;
      ++Count;
    }
  }
  if (First == std::string_view::npos || (!Nul && Count <= 16 + Src.size() / 200))
    return "";
  static const char *Hex = "0123456789abcdef";
  unsigned char C = Src[First];
  return std::string("not source text (control byte 0x") + Hex[C >> 4] + Hex[C & 15] +
         " at line " + lineOf(Src, First) + "); not analysed";
}

bool validUtf8(std::string_view Src, size_t &At) {
  const auto *S = reinterpret_cast<const unsigned char *>(Src.data());
  size_t N = Src.size();
  for (size_t I = 0; I < N;) {
    unsigned char C = S[I];
    if (C < 0x80) {
      ++I;
      continue;
    }
    unsigned Len = C >= 0xC2 && C <= 0xDF ? 2 : C >= 0xE0 && C <= 0xEF ? 3 : C >= 0xF0 && C <= 0xF4 ? 4 : 0;
    bool Ok = Len && I + Len <= N;
    for (unsigned K = 1; Ok && K < Len; ++K)
      Ok = (S[I + K] & 0xC0) == 0x80;
    if (Ok && Len == 3) // no overlong forms, no surrogates
      Ok = !(C == 0xE0 && S[I + 1] < 0xA0) && !(C == 0xED && S[I + 1] >= 0xA0);
    if (Ok && Len == 4)
      Ok = !(C == 0xF0 && S[I + 1] < 0x90) && !(C == 0xF4 && S[I + 1] >= 0x90);
    if (!Ok) {
      At = I;
      return false;
    }
    I += Len;
  }
  return true;
}

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

void Function::noteLimit(const std::string &Line) {
  if (std::find(Limits.begin(), Limits.end(), Line) == Limits.end())
    Limits.push_back(Line);
}

unsigned Function::capDepth(unsigned MaxDepth) {
  // Depth of a node: 1 + the deepest of its operands (Ops and an unresolved
  // call's Args). A loop-carried Phi reaches itself: an operand still on the
  // walk's stack counts 0, as the analyses read a back edge as bottom. A
  // node whose depth passes MaxDepth is cut to a leaf, which makes its depth
  // 1 again, so a chain of any length is cut every MaxDepth levels (and no
  // value is deeper than 2 * MaxDepth).
  std::unordered_set<const Node *> Owned;
  Owned.reserve(Nodes.size());
  for (Node &N : Nodes)
    Owned.insert(&N);
  std::unordered_map<const Node *, unsigned> Depth; // finished nodes
  std::unordered_set<const Node *> OnStack;
  struct Frame {
    const Node *N;
    size_t Next = 0; ///< index into Ops, then Args
  };
  std::vector<Frame> Stack;
  unsigned Cut = 0, FirstLine = 0;
  auto Child = [](const Node *N, size_t I) -> const Node * {
    if (I < N->Ops.size())
      return N->Ops[I];
    I -= N->Ops.size();
    return I < N->Args.size() ? N->Args[I] : nullptr;
  };
  for (Node &Root : Nodes) {
    if (Depth.count(&Root))
      continue;
    Stack.push_back({&Root});
    OnStack.insert(&Root);
    while (!Stack.empty()) {
      Frame &T = Stack.back();
      size_t Arity = T.N->Ops.size() + T.N->Args.size();
      if (T.Next < Arity) {
        const Node *C = Child(T.N, T.Next++);
        if (C && !Depth.count(C) && !OnStack.count(C)) {
          OnStack.insert(C);
          Stack.push_back({C});
        }
        continue;
      }
      const Node *N = T.N;
      unsigned D = 1;
      for (size_t I = 0; I < Arity; ++I)
        if (const Node *C = Child(N, I))
          if (auto It = Depth.find(C); It != Depth.end())
            D = std::max(D, It->second + 1);
      // A def-use link (a local's use, a join) is where a chain is cut: the
      // arithmetic on each line stays whole (`off += page * stride` keeps its
      // product), only the variable's older value is unknown. Anything else
      // is cut at twice the depth.
      bool Link = N->K == Kind::Var || N->K == Kind::Phi;
      if (D > MaxDepth && (Link || D > 2 * MaxDepth) && Owned.count(N)) {
        Node *M = const_cast<Node *>(N); // one of ours (Owned)
        M->K = Kind::Unknown;
        M->Ops.clear();
        M->Args.clear();
        // Beyond the cut the value is unbounded within its type, the side
        // that reports (the envelope's default for an unknown leaf would
        // be a small bound, and hide a product of it).
        M->Hint = ValueHint();
        M->Hint.HasRange = true;
        const IntTy &T = M->Ty;
        if (T.known() && !T.Pointer && T.Bits < 63) {
          M->Hint.Lo = T.Signed ? -(int64_t(1) << (T.Bits - 1)) : 0;
          M->Hint.Hi = T.Signed ? (int64_t(1) << (T.Bits - 1)) - 1 : (int64_t(1) << T.Bits) - 1;
        } else {
          M->Hint.Lo = -(int64_t(1) << 62);
          M->Hint.Hi = int64_t(1) << 62;
        }
        M->Hint.Source = "'" + (M->Name.empty() ? M->Text : M->Name) + "' nested beyond " +
                         std::to_string(MaxDepth) + " levels, analysed as unknown";
        D = 1;
        ++Cut;
        if (M->Range.valid() && (!FirstLine || M->Range.Begin.Line < FirstLine))
          FirstLine = M->Range.Begin.Line;
      }
      Depth[N] = D;
      OnStack.erase(N);
      Stack.pop_back();
    }
  }
  if (Cut) {
    unsigned Line = FirstLine ? FirstLine : Range.Begin.Line;
    noteLimit("expression nesting beyond " + std::to_string(MaxDepth) + " levels at line " +
              std::to_string(Line) + " (in '" + Name + "'): analysed as unknown");
  }
  return Cut;
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
  if (N->Hint.any() || !N->Hint.Extent.empty()) S += " " + dumpHint(N->Hint);
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
  if (!H.Extent.empty()) S += std::string(S.empty() ? "" : " ") + "@extent " + H.Extent;
  return S;
}

} // namespace kvlint
