//===- Expressions.cpp - FnLowerer: nodes, names and expressions ----------===//
//
// Triton's types and promotion, IR nodes, names (locals, module constants,
// dtypes), Python expressions, and the addresses of memory accesses.
//
//===----------------------------------------------------------------------===//
#include "Lowering.h"
#include "kvlint/Utf8.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <functional>

namespace kvlint {
namespace triton {

/// Triton's dtype names.
bool dtypeByName(const std::string &S, IntTy &T, bool &IsFloat) {
  IsFloat = false;
  static const std::map<std::string, IntTy> M = {
      {"int8", IntTy::integer(8, true)},    {"int16", IntTy::integer(16, true)},
      {"int32", IntTy::integer(32, true)},  {"int64", IntTy::integer(64, true)},
      {"uint8", IntTy::integer(8, false)},  {"uint16", IntTy::integer(16, false)},
      {"uint32", IntTy::integer(32, false)}, {"uint64", IntTy::integer(64, false)},
      {"int1", IntTy::boolean()}};
  auto It = M.find(S);
  if (It != M.end()) {
    T = It->second;
    return true;
  }
  if (S.rfind("float", 0) == 0 || S.rfind("bfloat", 0) == 0 || S.rfind("fp", 0) == 0) {
    T = IntTy::floating();
    IsFloat = true;
    return true;
  }
  return false;
}

/// Triton's integer promotion for two (non-weak) integer types.
IntTy promoteInts(IntTy A, IntTy B) {
  if (A.Float || B.Float) return IntTy::floating(); // int op float: a float
  if (A.Bool && !B.Bool) return B;
  if (B.Bool && !A.Bool) return A;
  if (A.Bool && B.Bool) return A;
  if (!A.known() || !B.known()) return IntTy::unknown();
  if (A.Signed == B.Signed)
    return IntTy::integer(std::max(A.Bits, B.Bits), A.Signed);
  const IntTy &U = A.Signed ? B : A, &S = A.Signed ? A : B;
  if (U.Bits >= S.Bits) return IntTy::integer(U.Bits, false);
  return IntTy::integer(S.Bits, true);
}

SrcRange FnLowerer::rng(TSNode N) const {
  SrcRange R;
  if (ts_node_is_null(N)) return R;
  TSPoint S = ts_node_start_point(N), E = ts_node_end_point(N);
  R.Begin.File = R.End.File = M.Path;
  R.Begin.Line = S.row + 1;
  R.Begin.Col = S.column + 1;
  R.Begin.Offset = ts_node_start_byte(N);
  R.End.Line = E.row + 1;
  R.End.Col = E.column + 1;
  R.End.Offset = ts_node_end_byte(N);
  return R;
}

Node *FnLowerer::mk(Kind K, IntTy T, TSNode At, std::initializer_list<const Node *> Ops) {
  if (++NodeCount > MaxNodesPerFunction && !Aborted) {
    Aborted = true;
    Notes.push_back("function '" + F.Name + "' is too large; analysed in part");
  }
  Node *N = F.make(K, T);
  N->Ops.assign(Ops.begin(), Ops.end());
  N->Range = rng(At);
  N->Text = shortText(At);
  return N;
}

/// Source text for messages: whitespace collapsed, at most 80 characters.
std::string FnLowerer::shortText(TSNode At) const {
  if (ts_node_is_null(At)) return "";
  uint32_t B = ts_node_start_byte(At), E = ts_node_end_byte(At);
  if (E > M.Src.size() || E < B) return "";
  std::string S;
  bool Space = false;
  for (uint32_t I = B; I < E && S.size() <= 80; ++I) {
    char C = M.Src[I];
    if (C == '\n' || C == '\t' || C == ' ' || C == '\r' || C == '\\') {
      Space = !S.empty();
      continue;
    }
    if (Space) S += ' ';
    Space = false;
    S += C;
  }
  if (S.size() > 80) S = utf8Prefix(S, 77) + "..."; // never inside a UTF-8 character
  return S;
}

Node *FnLowerer::unknown(TSNode At, const std::string &Name) {
  Node *N = mk(Kind::Unknown, IntTy::unknown(), At);
  N->Name = Name;
  return N;
}

Node *FnLowerer::constant(int64_t V, TSNode At) {
  Node *N = mk(Kind::Const, (V >= INT32_MIN && V <= INT32_MAX) ? i32() : i64(), At);
  N->Value = V;
  Weak.insert(N);
  return N;
}

Node *FnLowerer::boolConst(bool V, TSNode At) {
  Node *N = mk(Kind::Const, IntTy::boolean(), At);
  N->Value = V;
  Weak.insert(N);
  return N;
}

bool FnLowerer::isWeak(const Node *N) const {
  for (unsigned I = 0; N && I < 64; ++I) {
    if (Weak.count(N)) return true;
    if (N->K != Kind::Var) return false;
    N = N->op(0);
  }
  return false;
}

const Node *FnLowerer::strip(const Node *N) {
  for (unsigned I = 0; N && N->K == Kind::Var && N->op(0) && I < 64; ++I)
    N = N->op(0);
  return N;
}

bool FnLowerer::constOf(const Node *N, int64_t &V) {
  N = strip(N);
  if (N && N->K == Kind::Const) { V = N->Value; return true; }
  return false;
}

/// Type of a binary arithmetic operation per Triton's promotion.
IntTy FnLowerer::promote(const Node *A, const Node *B) const {
  if (A->Ty.Float || B->Ty.Float) return IntTy::floating(); // a float literal too
  bool WA = isWeak(A), WB = isWeak(B);
  if (WA && WB) return i64(); // Python int arithmetic at compile time: exact
  if (WA) return B->Ty.Bool ? i32() : B->Ty;
  if (WB) return A->Ty.Bool ? i32() : A->Ty;
  return promoteInts(A->Ty, B->Ty);
}

Val FnLowerer::useName(const std::string &Name, TSNode At) {
  auto It = Cur->Locals.find(Name);
  if (It != Cur->Locals.end()) return use(It->second, Name, At);
  return global(Name, At);
}

Val FnLowerer::use(const Val &V, const std::string &Name, TSNode At) {
  if (!V.isNode()) return V;
  if (V.Leaf) {
    Node *C = mk(V.Nd->K, V.Nd->Ty, At);
    C->Name = V.Nd->Name;
    C->Value = V.Nd->Value;
    C->Value2 = V.Nd->Value2;
    C->Hint = V.Nd->Hint;
    if (isWeak(V.Nd)) Weak.insert(C);
    auto PE = PtrElem.find(V.Nd);
    if (PE != PtrElem.end()) PtrElem[C] = PE->second;
    Val R = Val::node(C);
    return R;
  }
  Node *U = mk(Kind::Var, V.Nd->Ty, At, {V.Nd});
  U->Name = Name;
  return Val::node(U);
}

Val FnLowerer::global(const std::string &Name, TSNode At) {
  auto G = M.GlobalExprs.find(Name);
  if (G != M.GlobalExprs.end() && !EvaluatingGlobals.count(Name) &&
      EvaluatingGlobals.size() < 8) {
    // Evaluate the module-level expression in an empty frame.
    Frame Fr;
    Frame *Saved = Cur;
    Cur = &Fr;
    EvaluatingGlobals.insert(Name);
    Val V = expr(G->second);
    EvaluatingGlobals.erase(Name);
    Cur = Saved;
    if (V.isNode()) {
      int64_t C;
      if (constOf(V.Nd, C)) {
        Node *N = constant(C, At);
        return Val::node(N);
      }
      return Val::node(unknown(At, Name));
    }
    return V;
  }
  if (Name == "None") return Val();
  if (Name == "True" || Name == "False") {
    Node *N = mk(Kind::Const, IntTy::boolean(), At);
    N->Value = Name == "True";
    Weak.insert(N);
    return Val::node(N);
  }
  std::string Q = M.qualify(At, &Cur->Locals);
  IntTy T;
  bool IsFloat;
  std::string Mem = tlMember(Q);
  if (!Mem.empty() && dtypeByName(Mem, T, IsFloat)) return Val::dtype(T);
  return Val::node(unknown(At, Name));
}

const Node *FnLowerer::asNode(const Val &V, TSNode At) {
  if (V.isNode()) return V.Nd;
  return unknown(At);
}

Val FnLowerer::expr(TSNode E) {
  if (ts_node_is_null(E)) return Val();
  if (ExprDepth >= MaxExprDepth || Aborted) {
    noteDepth();
    return Val::node(unknown(E));
  }
  ++ExprDepth;
  Val V = exprImpl(E);
  --ExprDepth;
  return V;
}

Val FnLowerer::exprImpl(TSNode E) {
  if (is(E, "identifier")) return useName(M.text(E), E);
  if (is(E, "integer")) {
    std::string T = M.text(E);
    T.erase(std::remove(T.begin(), T.end(), '_'), T.end());
    while (!T.empty() && (T.back() == 'l' || T.back() == 'L')) T.pop_back();
    errno = 0;
    char *EndP = nullptr;
    long long V = strtoll(T.c_str(), &EndP, 0);
    if (T.size() > 2 && T[0] == '0' && (T[1] == 'b' || T[1] == 'B'))
      V = strtoll(T.c_str() + 2, &EndP, 2);
    else if (T.size() > 2 && T[0] == '0' && (T[1] == 'o' || T[1] == 'O'))
      V = strtoll(T.c_str() + 2, &EndP, 8);
    if (errno) return Val::node(unknown(E, T));
    return Val::node(constant(V, E));
  }
  if (is(E, "true") || is(E, "false")) {
    Node *N = mk(Kind::Const, IntTy::boolean(), E);
    N->Value = is(E, "true");
    Weak.insert(N);
    return Val::node(N);
  }
  if (is(E, "none")) return Val();
  if (is(E, "float") || is(E, "string") || is(E, "concatenated_string")) {
    Node *N = unknown(E);
    if (is(E, "float")) N->Ty = IntTy::floating();
    Weak.insert(N);
    return Val::node(N);
  }
  if (is(E, "parenthesized_expression")) {
    std::vector<TSNode> Ks = kids(E);
    return Ks.empty() ? Val() : expr(Ks[0]);
  }
  if (is(E, "tuple") || is(E, "list") || is(E, "expression_list")) {
    std::vector<Val> Es;
    for (TSNode K : kids(E)) Es.push_back(expr(K));
    return Val::tuple(Es);
  }
  if (is(E, "binary_operator")) {
    Val L = expr(field(E, "left"));
    Val R = expr(field(E, "right"));
    return binop(M.text(field(E, "operator")), L, R, E);
  }
  if (is(E, "unary_operator")) {
    std::string Op = M.text(field(E, "operator"));
    Val A = expr(field(E, "argument"));
    if (!A.isNode()) return A;
    int64_t C;
    if (Op == "+") return A;
    if (Op == "-") {
      if (constOf(A.Nd, C) && !A.Nd->Ty.Bool) return Val::node(constant(-C, E));
      Node *N = mk(Kind::Neg, A.Nd->Ty, E, {A.Nd});
      if (isWeak(A.Nd)) Weak.insert(N);
      return Val::node(N);
    }
    if (A.Nd->Ty.Bool) return Val::node(mk(Kind::LNot, IntTy::boolean(), E, {A.Nd}));
    Node *N = mk(Kind::BitNot, A.Nd->Ty, E, {A.Nd});
    if (isWeak(A.Nd)) Weak.insert(N);
    return Val::node(N);
  }
  if (is(E, "not_operator")) {
    const Node *A = asNode(expr(field(E, "argument")), E);
    int64_t C;
    if (constOf(A, C)) return Val::node(boolConst(!C, E));
    return Val::node(mk(Kind::LNot, IntTy::boolean(), E, {A}));
  }
  if (is(E, "boolean_operator")) {
    const Node *L = asNode(expr(field(E, "left")), E);
    const Node *R = asNode(expr(field(E, "right")), E);
    bool And = M.text(field(E, "operator")) == "and";
    int64_t CL, CR;
    bool KL = constOf(L, CL), KR = constOf(R, CR);
    if (KL && KR) return Val::node(boolConst(And ? (CL && CR) : (CL || CR), E));
    if (KL) return (And == (CL != 0)) ? Val::node(R) : Val::node(boolConst(CL != 0, E));
    return Val::node(mk(And ? Kind::LAnd : Kind::LOr, IntTy::boolean(), E, {L, R}));
  }
  if (is(E, "comparison_operator")) return comparison(E);
  if (is(E, "conditional_expression")) {
    std::vector<TSNode> Ks = kids(E); // a if c else b
    if (Ks.size() < 3) return Val::node(unknown(E));
    Val A = expr(Ks[0]);
    const Node *C = asNode(expr(Ks[1]), Ks[1]);
    Val B = expr(Ks[2]);
    return select(C, A, B, E);
  }
  if (is(E, "subscript")) {
    Val V = expr(field(E, "value"));
    std::vector<TSNode> Subs = fieldKids(E, "subscript");
    // Tuple indexing with a literal picks the element.
    if (V.K == Val::Tuple && Subs.size() == 1 && is(Subs[0], "integer")) {
      long I = strtol(M.text(Subs[0]).c_str(), nullptr, 0);
      if (I >= 0 && (size_t)I < V.Elems.size()) return V.Elems[I];
    }
    // x[:, None], x[None, :]: broadcasts keep the value.
    for (TSNode S : Subs)
      if (!is(S, "slice") && !is(S, "none") && !is(S, "ellipsis")) expr(S);
    return V;
  }
  if (is(E, "call")) return call(E);
  if (is(E, "attribute")) {
    std::string Q = M.qualify(E, &Cur->Locals);
    std::string Mem = tlMember(Q);
    IntTy T;
    bool IsFloat;
    if (!Mem.empty() && dtypeByName(Mem, T, IsFloat)) return Val::dtype(T);
    Val O = expr(field(E, "object"));
    std::string Attr = M.text(field(E, "attribute"));
    if (Attr == "T") return O; // transpose keeps values
    return Val::node(unknown(E, M.text(E)));
  }
  if (is(E, "keyword_argument")) return expr(field(E, "value"));
  if (is(E, "ERROR")) {
    for (TSNode K : kids(E)) expr(K);
    return Val::node(unknown(E));
  }
  // Lambdas, comprehensions, f-strings, ...: opaque.
  return Val::node(unknown(E));
}

Val FnLowerer::select(const Node *C, const Val &A, const Val &B, TSNode At) {
  // a constexpr condition picks its side (`tl.int64 if UPCAST else tl.int32`
  // in a lowering that fixes UPCAST)
  int64_t CV;
  if (C && constOf(C, CV)) return CV ? A : B;
  if (!A.isNode() || !B.isNode()) return A.isNode() ? A : B;
  IntTy T = promote(A.Nd, B.Nd);
  if (A.Nd->Ty.Pointer) T = A.Nd->Ty;
  else if (B.Nd->Ty.Pointer) T = B.Nd->Ty;
  Node *N = mk(Kind::Select, T, At, {C, A.Nd, B.Nd});
  if (isWeak(A.Nd) && isWeak(B.Nd)) Weak.insert(N);
  return Val::node(N);
}

Val FnLowerer::comparison(TSNode E) {
  std::vector<TSNode> Operands, Ops;
  TSTreeCursor C = ts_tree_cursor_new(E);
  if (ts_tree_cursor_goto_first_child(&C)) {
    do {
      TSNode K = ts_tree_cursor_current_node(&C);
      const char *FN = ts_tree_cursor_current_field_name(&C);
      if (FN && !strcmp(FN, "operators")) Ops.push_back(K);
      else if (ts_node_is_named(K) && !is(K, "comment")) Operands.push_back(K);
    } while (ts_tree_cursor_goto_next_sibling(&C));
  }
  ts_tree_cursor_delete(&C);
  std::vector<const Node *> Vs;
  for (TSNode O : Operands) Vs.push_back(asNode(expr(O), O));
  const Node *Acc = nullptr;
  for (size_t I = 0; I + 1 < Vs.size() && I < Ops.size(); ++I) {
    std::string Op = M.text(Ops[I]);
    Kind K = Op == "<" ? Kind::Lt : Op == "<=" ? Kind::Le : Op == ">" ? Kind::Gt
           : Op == ">=" ? Kind::Ge : Op == "==" ? Kind::Eq
           : (Op == "!=" || Op == "<>") ? Kind::Ne : Kind::Unknown;
    Node *Cmp = K == Kind::Unknown ? mk(Kind::Unknown, IntTy::boolean(), E)
                                   : mk(K, IntTy::boolean(), E, {Vs[I], Vs[I + 1]});
    if (Vs.size() > 2) {
      // a < b < c: each link gets the range of its own operands.
      Cmp->Range.Begin = Vs[I]->Range.Begin;
      Cmp->Range.End = Vs[I + 1]->Range.End;
    }
    Acc = Acc ? mk(Kind::LAnd, IntTy::boolean(), E, {Acc, Cmp}) : Cmp;
  }
  return Val::node(Acc ? Acc : unknown(E));
}

Val FnLowerer::binop(const std::string &Op, const Val &LV, const Val &RV, TSNode At) {
  if (!LV.isNode() || !RV.isNode()) {
    if (LV.K == Val::Tuple && RV.K == Val::Tuple && Op == "+") {
      Val T = LV;
      T.Elems.insert(T.Elems.end(), RV.Elems.begin(), RV.Elems.end());
      return T;
    }
    return Val::node(unknown(At));
  }
  const Node *L = LV.Nd, *R = RV.Nd;
  // Pointer arithmetic.
  if (Op == "+" || Op == "-") {
    if (L->Ty.Pointer && R->Ty.Pointer && Op == "-")
      return Val::node(mk(Kind::Sub, i64(), At, {L, R}));
    if (L->Ty.Pointer || (R->Ty.Pointer && Op == "+")) {
      const Node *P = L->Ty.Pointer ? L : R, *O = L->Ty.Pointer ? R : L;
      if (Op == "-") {
        Node *Ng = mk(Kind::Neg, O->Ty, At, {O});
        if (isWeak(O)) Weak.insert(Ng);
        O = Ng;
      }
      Node *N = mk(Kind::PtrAdd, IntTy::pointer(), At, {P, O});
      N->Name = P->Name;
      inheritPtr(N, P);
      return Val::node(N);
    }
  }
  bool BoolOps = L->Ty.Bool && R->Ty.Bool;
  if (BoolOps && (Op == "&" || Op == "|"))
    return Val::node(mk(Op == "&" ? Kind::LAnd : Kind::LOr, IntTy::boolean(), At, {L, R}));
  if (BoolOps && Op == "^")
    return Val::node(mk(Kind::Ne, IntTy::boolean(), At, {L, R}));
  Kind K;
  if (Op == "+") K = Kind::Add;
  else if (Op == "-") K = Kind::Sub;
  else if (Op == "*") K = Kind::Mul;
  else if (Op == "//") K = Kind::Div;
  else if (Op == "%") K = Kind::Rem;
  else if (Op == "<<") K = Kind::Shl;
  else if (Op == ">>") K = Kind::Shr;
  else if (Op == "&") K = Kind::And;
  else if (Op == "|") K = Kind::Or;
  else if (Op == "^") K = Kind::Xor;
  else {
    // `/` is true division (float), `**`, `@`: not integer index math.
    Node *N = mk(Kind::Unknown, Op == "/" ? IntTy::floating() : IntTy::unknown(), At, {L, R});
    N->Name = Op;
    return Val::node(N);
  }
  int64_t A, B;
  if (constOf(L, A) && constOf(R, B) && !L->Ty.Bool && !R->Ty.Bool) {
    __int128 V = 0;
    bool Ok = true;
    switch (K) {
    case Kind::Add: V = (__int128)A + B; break;
    case Kind::Sub: V = (__int128)A - B; break;
    case Kind::Mul: V = (__int128)A * B; break;
    case Kind::Div: if (B == 0) Ok = false; else { V = A / B; if ((A % B != 0) && ((A < 0) != (B < 0))) --V; } break;
    case Kind::Rem: if (B == 0) Ok = false; else { V = A % B; if (V != 0 && ((V < 0) != (B < 0))) V += B; } break;
    case Kind::Shl: if (B < 0 || B > 62) Ok = false; else V = (__int128)A << B; break;
    case Kind::Shr: if (B < 0 || B > 63) Ok = false; else V = A >> B; break;
    case Kind::And: V = A & B; break;
    case Kind::Or: V = A | B; break;
    case Kind::Xor: V = A ^ B; break;
    default: Ok = false;
    }
    if (Ok && V >= INT64_MIN && V <= INT64_MAX && isWeak(L) && isWeak(R))
      return Val::node(constant((int64_t)V, At));
  }
  IntTy T = promote(L, R);
  if (L->Ty.Pointer || R->Ty.Pointer) T = IntTy::unknown();
  Node *N = mk(K, T, At, {L, R});
  if (isWeak(L) && isWeak(R)) Weak.insert(N);
  return Val::node(N);
}

void FnLowerer::inheritPtr(const Node *To, const Node *From) {
  const Node *S = From;
  for (unsigned I = 0; S && I < 64; ++I) {
    auto It = PtrElem.find(S);
    if (It != PtrElem.end()) { PtrElem[To] = It->second; return; }
    if (S->K == Kind::Var || S->K == Kind::PtrAdd || S->K == Kind::Cast) S = S->op(0);
    else break;
  }
}

/// Element type of a load through Addr.
IntTy FnLowerer::elemOf(const Node *Addr) {
  const Node *S = Addr;
  for (unsigned I = 0; S && I < 64; ++I) {
    auto It = PtrElem.find(S);
    if (It != PtrElem.end()) return It->second;
    if (S->K == Kind::Var || S->K == Kind::PtrAdd || S->K == Kind::Cast) S = S->op(0);
    else if (S->K == Kind::Phi || S->K == Kind::Select) S = S->op(S->K == Kind::Select ? 1 : 0);
    else break;
  }
  return IntTy::integer(M.LoadBits, true);
}

/// The name of the pointer an address is based on (for Load::Name): the
/// parameter it derives from, else the first pointer variable spelled.
std::string FnLowerer::baseName(const Node *Addr) {
  std::string FirstVar;
  const Node *S = Addr;
  for (unsigned I = 0; S && I < 64; ++I) {
    if (S->K == Kind::Param) return S->Name;
    if (S->K == Kind::Var && FirstVar.empty()) FirstVar = S->Name;
    if (S->K == Kind::PtrAdd || S->K == Kind::Cast || S->K == Kind::Phi ||
        S->K == Kind::Var) {
      S = S->op(0);
      continue;
    }
    if (S->K == Kind::Select) {
      S = S->op(1);
      continue;
    }
    break;
  }
  return FirstVar;
}

/// Address not typed as a pointer: find the parameter it must be based on.
void FnLowerer::wantPointer(const Node *Addr) {
  std::vector<const Node *> Cands;
  std::function<void(const Node *, unsigned)> Rec = [&](const Node *N, unsigned D) {
    if (!N || D > 32) return;
    switch (N->K) {
    case Kind::Param: Cands.push_back(N); return;
    case Kind::Var: case Kind::Cast: Rec(N->op(0), D + 1); return;
    case Kind::Add: case Kind::Sub: case Kind::PtrAdd:
      Rec(N->op(0), D + 1);
      if (N->K == Kind::Add) Rec(N->op(1), D + 1);
      return;
    case Kind::Phi: case Kind::Select:
      for (const Node *O : N->Ops) if (O != N->op(0) || N->K == Kind::Phi) Rec(O, D + 1);
      return;
    default: return;
    }
  };
  Rec(Addr, 0);
  if (Cands.empty()) return;
  for (const Node *C : Cands)
    if (C->Name.find("ptr") != std::string::npos || C->Name.find("Ptr") != std::string::npos) {
      WantPtr.insert(C->Name);
      return;
    }
  WantPtr.insert(Cands[0]->Name);
}

std::vector<const Node *> *FnLowerer::stridesOf(const Node *N) {
  for (unsigned I = 0; N && I < 64; ++I) {
    auto It = BlockStrides.find(N);
    if (It != BlockStrides.end()) return &It->second;
    if (N->K == Kind::Var) N = N->op(0);
    else return nullptr;
  }
  return nullptr;
}

const Node *FnLowerer::recordAccess(AccessKind AK, const Node *Addr, const Node *Mask,
                                    const Node *Other, TSNode At) {
  if (Addr && !Addr->Ty.Pointer) wantPointer(Addr);
  // The address of an access is a pointer, even one returned by a helper
  // imported from another module (p + row * stride + col, p untyped).
  if (Addr && !Addr->Ty.Pointer) Addr = asAddress(F, Addr);
  if (Dry || !Addr) return Addr;
  Access A;
  A.AK = AK;
  A.Addr = Addr;
  A.Mask = Mask;
  A.Other = Other;
  A.Guards = Guards;
  if (Mask) A.Guards.push_back(Guard{Mask, false, Guard::Mask});
  A.Range = rng(At);
  F.Accesses.push_back(std::move(A));
  return Addr;
}

} // namespace triton
} // namespace kvlint
