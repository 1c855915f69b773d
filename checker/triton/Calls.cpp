//===- Calls.cpp - FnLowerer: parameters and calls ------------------------===//
//
// Parameter binding, calls to triton.language and to methods, and helpers
// defined in the file, inlined.
//
//===----------------------------------------------------------------------===//
#include "Lowering.h"
#include "project/Project.h"

#include <algorithm>

namespace kvlint {
namespace triton {

/// A constexpr parameter every launch site passes as the same constant.
bool FnLowerer::pinnedByLaunch(const std::string &Name) const {
  if (!Launch) return false;
  auto H = Launch->Params.find(Name);
  return H != Launch->Params.end() && pinnedHint(H->second);
}

/// Binds the parameters of Def. Entry: Args == nullptr (params are Param /
/// Symbolic leaves). Inlined: bound to the caller's values.
void FnLowerer::bindParams(TSNode Def, const std::vector<Val> *Pos,
                           const std::map<std::string, Val> *Kw, Env &Out) {
  size_t PI = 0;
  for (TSNode P : kids(field(Def, "parameters"))) {
    TSNode NameN{}, TypeN{}, DefN{};
    if (is(P, "identifier")) {
      NameN = P;
    } else if (is(P, "typed_parameter")) {
      for (TSNode K : kids(P))
        if (is(K, "identifier")) { NameN = K; break; }
      TypeN = field(P, "type");
    } else if (is(P, "default_parameter") || is(P, "typed_default_parameter")) {
      NameN = field(P, "name");
      TypeN = field(P, "type");
      DefN = field(P, "value");
    } else {
      continue; // *args, **kwargs, separators
    }
    if (!is(NameN, "identifier")) continue;
    std::string Name = M.text(NameN);
    bool Constexpr = !ts_node_is_null(TypeN) &&
                     tlMember(M.qualify(kids(TypeN).empty() ? TypeN : kids(TypeN)[0],
                                        nullptr)) == "constexpr";
    if (Pos || Kw) {
      if (Pos && PI < Pos->size()) {
        Out[Name] = (*Pos)[PI++];
        Out[Name].Leaf = false;
        continue;
      }
      if (Kw && Kw->count(Name)) {
        Out[Name] = Kw->at(Name);
        Out[Name].Leaf = false;
        continue;
      }
      if (!ts_node_is_null(DefN)) {
        Out[Name] = expr(DefN);
        continue;
      }
    }
    Node *N;
    IntTy Annot = Constexpr ? IntTy() : annotatedType(TypeN);
    if (Constexpr && !Pos && !Kw && Fixed.count(Name)) {
      N = mk(Kind::Const, IntTy::boolean(), NameN);
      N->Value = Fixed.at(Name);
      Weak.insert(N);
    } else if (Constexpr && !Pos && !Kw && pinnedByLaunch(Name)) {
      // every launch passes the same constant: Triton compiles the kernel
      // for that value alone (`IS_VARLEN=False` at its only launcher)
      N = mk(Kind::Const, i32(), NameN);
      N->Value = Launch->Params.at(Name).Lo;
      N->Hint = Launch->Params.at(Name);
      Weak.insert(N);
    } else if (Constexpr) {
      N = mk(Kind::Symbolic, i32(), NameN);
      Weak.insert(N);
    } else if (PtrParams.count(Name)) {
      N = mk(Kind::Param, IntTy::pointer(), NameN);
    } else {
      // `n: tl.int64` is a 64-bit scalar; unannotated integers are int32.
      N = mk(Kind::Param, Annot.known() && !Annot.Bool ? Annot : i32(), NameN);
    }
    N->Name = Name;
    if (Launch && !Pos && !Kw) {
      // What every launch site passes (entry only: an inlined helper's
      // parameters are the caller's values, which carry the caller's facts).
      if (N->Ty.Pointer) {
        auto E = Launch->Elem.find(Name);
        if (E != Launch->Elem.end()) PtrElem[N] = E->second;
        auto X = Launch->Extent.find(Name);
        if (X != Launch->Extent.end()) {
          N->Hint.Extent = X->second.first;
          N->Hint.Source = X->second.second;
        }
        // the launcher's overflow check, in the lowering that fixes the flag
        // to the side where it passed (planFlags enumerates such flags; one
        // left unfixed caps nothing: its code may run on either side)
        for (const auto &[Flag, G] : Launch->FlagGuards)
          if (Fixed.count(Flag) && Fixed.at(Flag) == G.FitsWhenTrue &&
              std::count(G.Ptrs.begin(), G.Ptrs.end(), Name)) {
            N->Hint.Extent = "2147483648";
            N->Hint.Source = Flag + (G.FitsWhenTrue ? " is true" : " is false") + " only where " + G.Why;
          }
      } else if (N->K == Kind::Param || N->K == Kind::Symbolic) {
        auto H = Launch->Params.find(Name);
        if (H != Launch->Params.end()) N->Hint = H->second;
      }
    }
    Out[Name] = Val::leaf(N);
  }
}

/// The integer type a parameter annotation names: `tl.int64`, `tl.uint32`,
/// also as a string (`"tl.int64"`, a forward reference); unknown otherwise.
IntTy FnLowerer::annotatedType(TSNode TypeN) const {
  if (ts_node_is_null(TypeN)) return IntTy();
  TSNode E = kids(TypeN).empty() ? TypeN : kids(TypeN)[0];
  std::string Q;
  if (is(E, "string")) {
    std::string S = M.text(E);
    size_t B = S.find_first_of("'\""), L = S.find_last_of("'\"");
    if (B == std::string::npos || L <= B) return IntTy();
    S = S.substr(B + 1, L - B - 1);
    S.erase(std::remove(S.begin(), S.end(), ' '), S.end());
    if (S.empty() || S.size() > 64) return IntTy();
    size_t Dot = S.find('.');
    std::string Head = S.substr(0, Dot);
    auto It = M.Alias.find(Head);
    Q = (It != M.Alias.end() ? It->second : Head) +
        (Dot == std::string::npos ? "" : S.substr(Dot));
  } else {
    Q = M.qualify(E, nullptr);
  }
  std::string Mem = tlMember(Q);
  IntTy T;
  bool IsFloat;
  if (Mem.empty() || !dtypeByName(Mem, T, IsFloat) || IsFloat) return IntTy();
  return T;
}

FnLowerer::Args FnLowerer::lowerArgs(TSNode ArgList) {
  Args A;
  for (TSNode K : kids(ArgList)) {
    if (is(K, "ERROR")) {
      A.Broken = true;
      expr(K);
    } else if (is(K, "keyword_argument")) {
      std::string N = M.text(field(K, "name"));
      A.Kw[N] = expr(field(K, "value"));
      A.KwN[N] = field(K, "value");
    } else {
      A.Pos.push_back(expr(K));
      A.PosN.push_back(K);
    }
  }
  return A;
}

const Node *FnLowerer::nodeArg(const Args &A, size_t I, const char *Name, TSNode At) {
  const Val *V = A.get(I, Name);
  if (!V || V->K == Val::None) return nullptr;
  return asNode(*V, A.node(I, Name, At));
}

Val FnLowerer::cast(const Val &V, const Val *To, TSNode At) {
  if (!V.isNode()) return V;
  IntTy T = IntTy::unknown();
  if (To && To->K == Val::DType) T = To->DT;
  Node *N = mk(Kind::Cast, T, At, {V.Nd});
  N->Explicit = true;
  if (T.Pointer) {
    N->Name = V.Nd->Name;
    if (To->Elem.known()) PtrElem[N] = To->Elem;
  }
  return Val::node(N);
}

/// sum_i Off[i] * Stride[i] for block pointers. make_block_ptr converts the
/// strides to int64 (Triton's semantic.make_block_ptr, require_i64); the
/// offsets stay 32-bit values (tt.make_tensor_ptr takes I32 offsets: a
/// coordinate is computed in its own type) and are extended to 64 bits only
/// to meet the stride, so the products are 64-bit and a wrap inside a
/// coordinate (page * PAGE_SIZE as a row) is still seen.
const Node *FnLowerer::blockOffset(const Val &Offs, const std::vector<const Node *> &Strides,
                                   const std::vector<TSNode> &OffNs, TSNode At) {
  const Node *Sum = nullptr;
  for (size_t I = 0; I < Offs.Elems.size() && I < Strides.size(); ++I) {
    const Val &O = Offs.Elems[I];
    if (!O.isNode()) continue;
    int64_t C;
    if (constOf(O.Nd, C) && C == 0) continue;
    TSNode ON = I < OffNs.size() ? OffNs[I] : At;
    const Node *Wide = extendCoord(O.Nd, ON);
    Node *Term = mk(Kind::Mul, promoteInts(Wide->Ty, i64()), ON, {Wide, Strides[I]});
    Sum = Sum ? mk(Kind::Add, promoteInts(Sum->Ty, Term->Ty), At, {Sum, Term}) : Term;
  }
  return Sum ? Sum : constant(0, At);
}

/// A coordinate extended to 64 bits after it was computed in its own type.
const Node *FnLowerer::extendCoord(const Node *N, TSNode At) {
  if (!N || N->Ty.Pointer || (N->Ty.known() && N->Ty.Bits >= 64)) return N;
  Node *C = mk(Kind::Cast, i64(), At, {N});
  C->Range = N->Range;
  C->Text = N->Text;
  return C;
}

/// Each element of a coordinate tuple (tl.advance, descriptor loads and
/// stores), extended to 64 bits (extendCoord).
Val FnLowerer::widenCoords(const Val &V) {
  if (V.K != Val::Tuple) return V;
  Val R = V;
  for (Val &E : R.Elems)
    if (E.isNode()) E.Nd = extendCoord(E.Nd, TSNode{});
  return R;
}

std::vector<TSNode> FnLowerer::tupleNodes(TSNode N) {
  while (is(N, "parenthesized_expression") && !kids(N).empty()) N = kids(N)[0];
  if (is(N, "tuple") || is(N, "list")) return kids(N);
  return {};
}

Val FnLowerer::call(TSNode E) {
  TSNode Fn = field(E, "function"), ArgList = field(E, "arguments");
  std::string Q = M.qualify(Fn, &Cur->Locals);

  // Helpers defined in this file: inline.
  if (!Q.empty() && Q.find('.') == std::string::npos && M.Jit.count(Q))
    return inlineCall(M.Jit[Q], E, ArgList);

  // Method calls on values: x.to(...), x.cast(...) (others are opaque)
  if (Q.empty() && is(Fn, "attribute")) {
    std::string Meth = M.text(field(Fn, "attribute"));
    Val Obj = expr(field(Fn, "object"));
    Args A = lowerArgs(ArgList);
    // Tensor descriptors: desc.load([coords]), desc.store([coords], v),
    // desc.atomic_add([coords], v): the coordinates are 64-bit in Triton.
    if ((Meth == "load" || Meth == "store" || Meth.rfind("atomic_", 0) == 0) &&
        !A.PosN.empty() && (is(A.PosN[0], "list") || is(A.PosN[0], "tuple")))
      A.Pos[0] = widenCoords(A.Pos[0]);
    // `x.cast(tl.int64)` is tl.cast as a tensor method, the same as x.to
    if (Meth == "to" || Meth == "cast") return cast(Obj, A.get(0, "dtype"), E);
    if (Meth == "load") return memoryRead(Obj, E); // smem.load(layout), desc.load([...])
    if (Meth == "__getitem__" || Meth == "broadcast_to" || Meth == "reshape" ||
        Meth == "view" || Meth == "expand_dims" || Meth == "trans" || Meth == "permute")
      return Obj;
    Node *N = mk(Kind::Call, IntTy::unknown(), E);
    N->Name = Meth;
    if (Obj.isNode()) N->Ops.push_back(Obj.Nd);
    return Val::node(N);
  }

  std::string B = tlMember(Q);
  // A @triton.jit helper of another module (imported): what the project
  // model's summary says it returns.
  if (B.empty() && !Q.empty() && M.Project && (is(Fn, "identifier") || is(Fn, "attribute")))
    if (const project::Definition *H = M.Project->importedJit(M.ProjectPath, M.text(Fn)))
      return importedCall(*H, E, ArgList);
  if (Q == "min" || Q == "max") B = Q == "min" ? "minimum" : "maximum";
  if (Q == "int") B = "__int";
  Args A = lowerArgs(ArgList);
  if (B.empty() || A.Broken) return opaqueCall(Q.empty() ? M.text(Fn) : Q, A, E);

  if (B == "program_id") return programId(nodeArg(A, 0, "axis", E), E);
  if (B == "num_programs") {
    Node *N = mk(Kind::LaunchDim, i32(), E);
    int64_t Ax = 0;
    const Node *AxN = nodeArg(A, 0, "axis", E);
    if (AxN) constOf(AxN, Ax);
    N->Value = 1;
    N->Name = "num_programs(" + std::to_string(Ax) + ")";
    return Val::node(N);
  }
  if (B == "arange") {
    const Node *Lo = nodeArg(A, 0, "start", E), *Hi = nodeArg(A, 1, "end", E);
    Node *N = mk(Kind::Range, i32(), E);
    int64_t V;
    if (Hi && constOf(Hi, V)) N->Value = V;
    if (Lo && constOf(Lo, V)) N->Value2 = V;
    return Val::node(N);
  }
  if (B == "load") {
    const Node *P = nodeArg(A, 0, "pointer", E);
    const Node *Mk = nodeArg(A, 1, "mask", E);
    const Node *Ot = nodeArg(A, 2, "other", E);
    if (!P) return Val::node(unknown(E));
    P = recordAccess(AccessKind::Load, P, Mk, Ot, E);
    IntTy ET = elemOf(P);
    Node *L = mk(Kind::Load, ET, E, {P});
    L->ElemTy = ET;
    L->Name = baseName(P);
    return Val::node(L);
  }
  if (B == "store") {
    const Node *P = nodeArg(A, 0, "pointer", E);
    const Node *Mk = nodeArg(A, 2, "mask", E);
    const Node *V = nodeArg(A, 1, "value", E);
    size_t Before = F.Accesses.size();
    if (P) recordAccess(AccessKind::Store, P, Mk, nullptr, E);
    if (F.Accesses.size() > Before) F.Accesses.back().Value = V; // the value written
    return Val();
  }
  if (B.rfind("atomic_", 0) == 0) {
    const Node *P = nodeArg(A, 0, "pointer", E);
    const Node *Mk = B == "atomic_cas" ? nullptr : nodeArg(A, 2, "mask", E);
    if (!P) return Val::node(unknown(E));
    P = recordAccess(AccessKind::Store, P, Mk, nullptr, E);
    IntTy ET = elemOf(P);
    Node *L = mk(Kind::Load, ET, E, {P});
    L->ElemTy = ET;
    L->Name = baseName(P);
    return Val::node(L);
  }
  if (endsWith(B, "load_shared_relaxed"))
    return memoryRead(A.Pos.empty() ? Val() : A.Pos[0], E);
  if (B == "buffer_load" || B == "buffer_load_to_shared" || B == "buffer_store") {
    // AMD buffer operations (Gluon): base pointer plus element offsets.
    size_t Base = B == "buffer_load" ? 0 : 1;
    const Node *P = nodeArg(A, Base, "ptr", E);
    const Node *Off = nodeArg(A, Base + 1, "offsets", E);
    const Node *Mk = nodeArg(A, Base + 2, "mask", E);
    const Node *Ot = B == "buffer_store" ? nullptr : nodeArg(A, Base + 3, "other", E);
    if (!P || !Off) return Val::node(unknown(E));
    Node *Addr = mk(Kind::PtrAdd, IntTy::pointer(), E, {P, Off});
    Addr->Name = P->Name;
    Addr->Range = Off->Range;
    Addr->Text = Off->Text;
    inheritPtr(Addr, P);
    if (!P->Ty.Pointer) wantPointer(P);
    recordAccess(B == "buffer_store" ? AccessKind::Store : AccessKind::Load, Addr, Mk, Ot, E);
    if (B != "buffer_load") return Val();
    IntTy ET = elemOf(Addr);
    Node *L = mk(Kind::Load, ET, E, {Addr});
    L->ElemTy = ET;
    L->Name = baseName(Addr);
    return Val::node(L);
  }
  if (B == "make_block_ptr") {
    const Node *Base = nodeArg(A, 0, "base", E);
    const Val *Strides = A.get(2, "strides");
    const Val *Offs = A.get(3, "offsets");
    if (!Base) return Val::node(unknown(E));
    std::vector<const Node *> S64;
    if (Strides && Strides->K == Val::Tuple)
      for (const Val &S : Strides->Elems) {
        const Node *SN = S.isNode() ? S.Nd : unknown(E);
        Node *C = mk(Kind::Cast, i64(), E, {SN});
        C->Range = SN->Range;
        S64.push_back(C);
      }
    const Node *Off = Offs && Offs->K == Val::Tuple
                          ? blockOffset(*Offs, S64, tupleNodes(A.node(3, "offsets", E)), E)
                          : constant(0, E);
    Node *N = mk(Kind::PtrAdd, IntTy::pointer(), E, {Base, Off});
    N->Name = Base->Name;
    inheritPtr(N, Base);
    BlockStrides[N] = S64;
    return Val::node(N);
  }
  if (B == "advance") {
    const Node *BP = nodeArg(A, 0, "base", E);
    const Val *Offs = A.get(1, "offsets");
    if (!BP) return Val::node(unknown(E));
    std::vector<const Node *> S64;
    if (auto *S = stridesOf(BP)) S64 = *S;
    const Node *Off = Offs && Offs->K == Val::Tuple
                          ? blockOffset(*Offs, S64, tupleNodes(A.node(1, "offsets", E)), E)
                          : constant(0, E);
    Node *N = mk(Kind::PtrAdd, IntTy::pointer(), E, {BP, Off});
    N->Name = BP->Name;
    inheritPtr(N, BP);
    BlockStrides[N] = S64;
    return Val::node(N);
  }
  if (B == "where") {
    const Node *C = nodeArg(A, 0, "condition", E);
    const Val *X = A.get(1, "x"), *Y = A.get(2, "y");
    if (!C || !X || !Y) return Val::node(unknown(E));
    return select(C, *X, *Y, E);
  }
  if (B == "minimum" || B == "maximum") {
    const Node *X = nodeArg(A, 0, "x", E), *Y = nodeArg(A, 1, "y", E);
    if (!X || !Y) return Val::node(unknown(E));
    Node *N = mk(B == "minimum" ? Kind::Min : Kind::Max, promote(X, Y), E, {X, Y});
    if (isWeak(X) && isWeak(Y)) Weak.insert(N);
    return Val::node(N);
  }
  if (B == "cdiv") {
    const Node *X = nodeArg(A, 0, "x", E), *Y = nodeArg(A, 1, "div", E);
    if (!X || !Y) return Val::node(unknown(E));
    int64_t CX, CY;
    if (constOf(X, CX) && constOf(Y, CY) && CY > 0 && isWeak(X) && isWeak(Y))
      return Val::node(constant((CX + CY - 1) / CY, E));
    Val One = Val::node(constant(1, E));
    Val YM1 = binop("-", Val::node(Y), One, E);
    Val Num = binop("+", Val::node(X), YM1, E);
    return binop("//", Num, Val::node(Y), E);
  }
  if (B == "make_tensor_descriptor" || B == "load_tensor_descriptor" ||
      B == "store_tensor_descriptor" || B == "_experimental_descriptor_load" ||
      B == "_experimental_descriptor_store") {
    // The coordinates (offsets) of a descriptor access are 64-bit; the
    // access goes through the descriptor, not a pointer expression.
    size_t OffI = B == "_experimental_descriptor_store" ? 2 : 1;
    if (B != "make_tensor_descriptor" && OffI < A.Pos.size())
      A.Pos[OffI] = widenCoords(A.Pos[OffI]);
    if (B == "load_tensor_descriptor" || B == "_experimental_descriptor_load")
      return memoryRead(A.Pos.empty() ? Val() : A.Pos[0], E);
    if (B == "make_tensor_descriptor") return opaqueCall(Q, A, E);
    return Val();
  }
  if (B == "cast") return cast(A.Pos.empty() ? Val() : A.Pos[0], A.get(1, "dtype"), E);
  if (B == "multiple_of" || B == "max_contiguous" || B == "max_constancy" ||
      B == "broadcast_to" || B == "reshape" || B == "view" || B == "expand_dims" ||
      B == "trans" || B == "permute" || B == "abs" || B == "__int" || B == "constexpr" ||
      B == "max" || B == "min") {
    // Value-preserving (or, for max/min reductions, magnitude-preserving).
    if (A.Pos.empty()) return Val::node(unknown(E));
    return A.Pos[0];
  }
  if (B == "zeros" || B == "full") {
    int64_t V = 0;
    if (B == "full") {
      const Node *VN = nodeArg(A, 1, "value", E);
      if (!VN || !constOf(VN, V)) {
        const Val *DT = A.get(2, "dtype");
        if (!VN) return Val::node(unknown(E));
        return cast(Val::node(VN), DT, E);
      }
    }
    const Val *DT = A.get(B == "full" ? 2 : 1, "dtype");
    Node *N = mk(Kind::Const, DT && DT->K == Val::DType ? DT->DT : i32(), E);
    N->Value = V;
    return Val::node(N);
  }
  if (B == "pointer_type") {
    const Val *E0 = A.get(0, "element_ty");
    return Val::dtype(IntTy::pointer(), E0 && E0->K == Val::DType ? E0->DT : IntTy());
  }
  if (B == "static_assert" || B == "device_assert" || B == "static_print" ||
      B == "device_print" || B == "debug_barrier" || B == "assume")
    return Val();
  return opaqueCall(Q, A, E);
}

/// A value read from shared memory or through a tensor descriptor: loaded,
/// but not through a pointer expression, so no global access is recorded.
Val FnLowerer::memoryRead(const Val &From, TSNode E) {
  const Node *Src = From.isNode() ? From.Nd : unknown(E);
  IntTy ET = IntTy::integer(M.LoadBits, true);
  Node *L = mk(Kind::Load, ET, E, {Src});
  L->ElemTy = ET;
  L->Name = Src->Name.empty() ? Src->Text : Src->Name;
  return Val::node(L);
}

Val FnLowerer::opaqueCall(const std::string &Name, const Args &A, TSNode E) {
  // A call on a float (tl.math.floor(x), tl.exp(x)) gives a float.
  const bool OnFloat = !A.Pos.empty() && A.Pos[0].isNode() && A.Pos[0].Nd->Ty.Float;
  Node *N = mk(Kind::Call, OnFloat ? IntTy::floating() : IntTy::unknown(), E);
  N->Name = Name;
  for (const Val &V : A.Pos)
    if (V.isNode()) N->Ops.push_back(V.Nd);
  for (auto &KV : A.Kw)
    if (KV.second.isNode()) N->Ops.push_back(KV.second.Nd);
  return Val::node(N);
}

/// tl.program_id(axis): a 32-bit launch index, bounded by the launcher's grid.
Val FnLowerer::programId(const Node *AxN, TSNode E, int64_t Ax) {
  Node *N = mk(Kind::LaunchIdx, i32(), E);
  if (AxN) constOf(AxN, Ax);
  N->Name = "program_id(" + std::to_string(Ax) + ")";
  if (Launch && Ax >= 0 && Ax < 3) N->Hint = Launch->Axis[Ax]; // the launcher's grid
  return Val::node(N);
}

/// A call of a @triton.jit helper another module defines: it cannot be
/// inlined (its source is not this file's), so the call is what the
/// project summary says every `return` of the helper gives
/// (project::Definition::Ret): an integer cast of an opaque value, a
/// constant, or tl.program_id of one of its arguments (cast or not).
Val FnLowerer::importedCall(const project::Definition &H, TSNode E, TSNode ArgList) {
  using R = project::Definition::Return;
  Args A = lowerArgs(ArgList);
  const R &Ret = H.Ret;
  if (A.Broken || Ret.Kind == R::None) return opaqueCall(H.Name, A, E);
  if (Ret.Kind == R::Const) {
    bool Fits = Ret.Value >= INT32_MIN && Ret.Value <= INT32_MAX;
    Node *N = mk(Kind::Const, Fits ? i32() : i64(), E);
    N->Value = Ret.Value;
    return Val::node(N);
  }
  Val V;
  if (Ret.Kind == R::ProgramId) {
    const Node *AxN = nullptr;
    if (Ret.Param >= 0) {
      AxN = nodeArg(A, size_t(Ret.Param), Ret.ParamName.c_str(), E);
      if (!AxN) return opaqueCall(H.Name, A, E); // the axis is a default: unknown
    }
    V = programId(AxN, E, Ret.Param >= 0 ? 0 : Ret.Value);
    if (!Ret.Bits) return V;
  } else {
    V = opaqueCall(H.Name, A, E);
  }
  Node *C = mk(Kind::Cast, IntTy::integer(Ret.Bits, Ret.Signed), E, {V.Nd});
  C->Explicit = true;
  return Val::node(C);
}

Val FnLowerer::inlineCall(const JitFn &J, TSNode E, TSNode ArgList) {
  Args A = lowerArgs(ArgList);
  if (CallStack.size() > MaxInlineDepth ||
      std::find(CallStack.begin(), CallStack.end(), J.Name) != CallStack.end())
    return opaqueCall(J.Name, A, E);
  Frame Fr;
  Frame *Saved = Cur;
  Cur = &Fr;
  CallStack.push_back(J.Name);
  unsigned SavedExpr = ExprDepth, SavedStmt = StmtDepth;
  bindParams(J.Def, &A.Pos, &A.Kw, Fr.Locals);
  block(field(J.Def, "body"));
  ExprDepth = SavedExpr;
  StmtDepth = SavedStmt;
  CallStack.pop_back();
  Cur = Saved;
  if (Fr.Returns.empty()) return Val();
  return join(Fr.Returns, J.Name, E);
}

} // namespace triton
} // namespace kvlint
