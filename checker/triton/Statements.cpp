//===- Statements.cpp - FnLowerer: statements, guards and joins -----------===//
//
// Function bodies, assignments, if/elif/else with early exits, loops lowered
// twice for their loop-carried values, and the Phis where paths join.
//
//===----------------------------------------------------------------------===//
#include "Lowering.h"
#include "kvlint/Analysis.h"

#include <algorithm>
#include <cctype>

namespace kvlint {
namespace triton {

void FnLowerer::lowerEntry(const JitFn &J) {
  Frame Fr;
  Cur = &Fr;
  CallStack.push_back(J.Name);
  bindParams(J.Def, nullptr, nullptr, Fr.Locals);
  block(field(J.Def, "body"));
}

void FnLowerer::bind(TSNode Target, const Val &V) {
  if (is(Target, "identifier")) {
    Val B = V;
    B.Leaf = false;
    Cur->Locals[M.text(Target)] = B;
    return;
  }
  if (is(Target, "pattern_list") || is(Target, "tuple_pattern") ||
      is(Target, "list_pattern") || is(Target, "tuple") || is(Target, "expression_list")) {
    std::vector<TSNode> Ts = kids(Target);
    for (size_t I = 0; I < Ts.size(); ++I) {
      if (V.K == Val::Tuple && I < V.Elems.size()) {
        bind(Ts[I], V.Elems[I]);
      } else {
        // An element of an opaque value (a tuple returned by an imported
        // helper): unknown, but computed from that value. Ops: the value
        // and the element's index (so two elements never compare equal).
        Node *U = unknown(Ts[I], M.text(Ts[I]));
        if (V.isNode()) {
          U->Ops.push_back(V.Nd);
          U->Ops.push_back(constant(int64_t(I), Ts[I]));
        }
        bind(Ts[I], Val::node(U));
      }
    }
    return;
  }
  if (is(Target, "parenthesized_expression")) {
    std::vector<TSNode> Ts = kids(Target);
    if (!Ts.empty()) bind(Ts[0], V);
  }
  // Attributes and subscripts as targets: not tracked.
}

/// Lowers a block; returns true when it always leaves (return/break/continue).
bool FnLowerer::block(TSNode B, std::vector<Guard> *Exits) {
  if (ts_node_is_null(B)) return false;
  if (StmtDepth >= MaxStmtDepth) { noteDepth(); return false; }
  ++StmtDepth;
  size_t GuardMark = Guards.size();
  bool Term = false;
  for (TSNode S : kids(B)) {
    if (Aborted) break;
    if (stmt(S)) { Term = true; break; }
  }
  if (Exits)
    for (size_t I = GuardMark; I < Guards.size(); ++I)
      if (Guards[I].How == Guard::EarlyExit) Exits->push_back(Guards[I]);
  Guards.resize(GuardMark);
  --StmtDepth;
  return Term;
}

void FnLowerer::noteDepth() {
  if (!NotedDepth) {
    NotedDepth = true;
    Notes.push_back("nesting too deep in '" + F.Name + "'; analysed in part");
  }
}

bool FnLowerer::stmt(TSNode S) {
  if (is(S, "expression_statement")) {
    for (TSNode E : kids(S)) {
      if (is(E, "call") && endsWith(M.text(field(E, "function")), "debug_barrier")) {
        TSPoint P = ts_node_start_point(E); // a barrier (Function::Syncs)
        F.Syncs.push_back({M.text(field(E, "function")),
                           {M.Path, P.row + 1, P.column + 1, ts_node_start_byte(E)}});
      }
      if (is(E, "assignment")) assignment(E);
      else if (is(E, "augmented_assignment")) augAssignment(E);
      else expr(E);
    }
    return false;
  }
  if (is(S, "return_statement")) {
    std::vector<TSNode> Ks = kids(S);
    Cur->Returns.push_back(Ks.empty() ? Val() : expr(Ks[0]));
    return true;
  }
  if (is(S, "break_statement") || is(S, "continue_statement")) return true;
  if (is(S, "if_statement")) return ifStmt(S);
  if (is(S, "for_statement")) { forStmt(S); return false; }
  if (is(S, "while_statement")) { whileStmt(S); return false; }
  if (is(S, "with_statement")) {
    for (TSNode K : kids(S))
      if (is(K, "with_clause"))
        for (TSNode I : kids(K)) expr(kids(I).empty() ? I : kids(I)[0]);
    return block(field(S, "body"));
  }
  if (is(S, "try_statement")) {
    return block(field(S, "body"));
  }
  if (is(S, "block")) return block(S);
  // pass, assert, import, nested def/class, global...: nothing to lower.
  return false;
}

void FnLowerer::assignment(TSNode A) {
  // a = b = c: one value, every target bound to it.
  std::vector<TSNode> Targets = {field(A, "left")};
  TSNode R = field(A, "right");
  while (is(R, "assignment")) {
    Targets.push_back(field(R, "left"));
    R = field(R, "right");
  }
  if (ts_node_is_null(R)) return; // a bare annotation `x: int`
  Val V = expr(R);
  for (TSNode T : Targets) bind(T, V);
}

void FnLowerer::augAssignment(TSNode A) {
  TSNode L = field(A, "left"), R = field(A, "right"), Op = field(A, "operator");
  std::string O = M.text(Op);
  if (!O.empty() && O.back() == '=') O.pop_back();
  Val LV = expr(L), RV = expr(R);
  Val V = binop(O, LV, RV, A);
  // x *= k: x itself is the left operand, which no .to() may wrap.
  if (V.isNode() && (V.Nd->K == Kind::Mul || V.Nd->K == Kind::Shl) && V.Nd->op(0) == LV.Nd)
    const_cast<Node *>(V.Nd)->Compound = true;
  bind(L, V);
}

/// Lowers if/elif/else. Early exits add guards to the rest of the block.
bool FnLowerer::ifStmt(TSNode S) {
  struct Branch { std::vector<Guard> Path; TSNode Body{}; };
  std::vector<Branch> Bs;
  std::vector<Guard> Neg; // conditions known false on later branches
  bool HasElse = false;
  bool Static = false; // a branch known taken at compile time ends the chain
  auto AddCond = [&](TSNode CondN, TSNode Body) {
    if (Static) return;
    const Node *C = asNode(expr(CondN), CondN);
    int64_t V;
    if (constOf(C, V)) {
      // A constexpr condition: Triton compiles only the branch taken.
      if (V) {
        Branch B;
        B.Path = Neg;
        B.Body = Body;
        Bs.push_back(B);
        Static = true;
      }
      return;
    }
    Branch B;
    B.Path = Neg;
    B.Path.push_back(Guard{C, false, Guard::If});
    B.Body = Body;
    Bs.push_back(B);
    Neg.push_back(Guard{C, true, Guard::If});
  };
  AddCond(field(S, "condition"), field(S, "consequence"));
  for (TSNode K : kids(S)) {
    if (is(K, "elif_clause")) {
      // The condition is evaluated only where earlier ones failed.
      size_t Mark = Guards.size();
      Guards.insert(Guards.end(), Neg.begin(), Neg.end());
      AddCond(field(K, "condition"), field(K, "consequence"));
      Guards.resize(Mark);
    } else if (is(K, "else_clause") && !Static) {
      Branch B;
      B.Path = Neg;
      B.Body = field(K, "body");
      Bs.push_back(B);
      HasElse = true;
    }
  }
  if (!HasElse && !Static) {
    Branch B;
    B.Path = Neg;
    Bs.push_back(B); // the fall-through path
  }
  Env Base = std::move(Cur->Locals);
  std::vector<Env> Outs;
  std::vector<const Branch *> Live;
  std::vector<std::vector<Guard>> LiveExits; // early exits inside each live branch
  for (const Branch &B : Bs) {
    if (&B == &Bs.back()) Cur->Locals = std::move(Base); // the last one may take it
    else Cur->Locals = Base;
    size_t Mark = Guards.size();
    Guards.insert(Guards.end(), B.Path.begin(), B.Path.end());
    std::vector<Guard> Exits;
    bool Term = ts_node_is_null(B.Body) ? false : block(B.Body, &Exits);
    Guards.resize(Mark);
    if (!Term) {
      Outs.push_back(std::move(Cur->Locals));
      Live.push_back(&B);
      LiveExits.push_back(std::move(Exits));
    }
  }
  if (Live.empty()) return true; // the rest of the block is unreachable
  Cur->Locals = merge(Outs, S);
  if (Live.size() == 1) {
    // Only one path reaches the rest of the block: its conditions hold
    // there, and so do the early exits inside it (`if HAS_IDX: idx = ...;
    // if idx < 0: return`, then the stores after the outer if).
    if (Live.size() < Bs.size())
      for (Guard G : Live[0]->Path) {
        G.How = Guard::EarlyExit;
        Guards.push_back(G);
      }
    Guards.insert(Guards.end(), LiveExits[0].begin(), LiveExits[0].end());
  } else {
    // Several paths reach the rest: what each of them exits on holds there
    // (`if SW > 0: if a or p >= len: return` / `else: if p >= len: return`
    // leaves p < len after the if).
    for (const Guard &G : commonExits(LiveExits)) Guards.push_back(G);
  }
  return false;
}

/// The comparisons every path's early exits rule out, as exit guards.
std::vector<Guard> FnLowerer::commonExits(const std::vector<std::vector<Guard>> &Paths) {
  auto AtomsOf = [](const std::vector<Guard> &Gs) {
    std::vector<std::pair<const Node *, bool>> As;
    for (const Guard &G : Gs) guardAtoms(G.Cond, !G.Negated, As);
    return As;
  };
  auto Same = [](const std::pair<const Node *, bool> &A, const std::pair<const Node *, bool> &B) {
    return A.second == B.second && A.first->K == B.first->K && A.first->Ops.size() == 2 &&
           B.first->Ops.size() == 2 && sameValue(A.first->op(0), B.first->op(0)) &&
           sameValue(A.first->op(1), B.first->op(1));
  };
  std::vector<Guard> Out;
  if (Paths.empty()) return Out;
  std::vector<std::vector<std::pair<const Node *, bool>>> All;
  for (const auto &P : Paths) All.push_back(AtomsOf(P));
  for (const auto &A : All[0]) {
    bool Everywhere = true;
    for (size_t I = 1; I < All.size() && Everywhere; ++I)
      Everywhere = std::any_of(All[I].begin(), All[I].end(),
                               [&](const auto &B) { return Same(A, B); });
    if (Everywhere) Out.push_back(Guard{A.first, !A.second, Guard::EarlyExit});
  }
  return Out;
}

/// Joins the environments at the end of branches: names bound to the same
/// value everywhere keep it, others get a Phi of their values. The maps are
/// sorted, so one lock-step pass visits every name once.
Env FnLowerer::merge(std::vector<Env> &Outs, TSNode At) {
  if (Outs.size() == 1) return std::move(Outs[0]);
  Env R;
  std::vector<Env::const_iterator> Its, Ends;
  for (const Env &E : Outs) {
    Its.push_back(E.begin());
    Ends.push_back(E.end());
  }
  std::vector<Val> Alts;
  for (;;) {
    const std::string *Min = nullptr;
    for (size_t I = 0; I < Its.size(); ++I)
      if (Its[I] != Ends[I] && (!Min || Its[I]->first < *Min)) Min = &Its[I]->first;
    if (!Min) break;
    std::string Name = *Min;
    Alts.clear();
    bool Same = true;
    for (size_t I = 0; I < Its.size(); ++I)
      if (Its[I] != Ends[I] && Its[I]->first == Name) {
        if (!Alts.empty() && Its[I]->second != Alts[0]) Same = false;
        Alts.push_back(Its[I]->second);
        ++Its[I];
      }
    R.emplace_hint(R.end(), Name, Same ? Alts[0] : join(Alts, Name, At));
  }
  return R;
}

Val FnLowerer::join(const std::vector<Val> &Alts, const std::string &Name, TSNode At) {
  std::vector<Val> U;
  for (const Val &V : Alts)
    if (std::find(U.begin(), U.end(), V) == U.end()) U.push_back(V);
  if (U.size() == 1) return U[0];
  bool AllNodes = true, AllTuples = true;
  for (const Val &V : U) {
    AllNodes &= V.isNode();
    AllTuples &= V.K == Val::Tuple && V.Elems.size() == U[0].Elems.size();
  }
  if (AllTuples) {
    std::vector<Val> E;
    for (size_t I = 0; I < U[0].Elems.size(); ++I) {
      std::vector<Val> Col;
      for (const Val &V : U) Col.push_back(V.Elems[I]);
      E.push_back(join(Col, Name, At));
    }
    return Val::tuple(E);
  }
  if (!AllNodes) {
    for (const Val &V : U)
      if (V.K != Val::None) return V;
    return U[0];
  }
  std::vector<const Node *> Ns;
  for (const Val &V : U) Ns.push_back(V.Nd);
  return Val::node(phi(Ns, Name, At));
}

/// The type of a Phi. Alternatives of different widths mean some paths
/// compute in the narrow type, so the Phi is as narrow as its narrowest
/// alternative -- unless every narrow alternative is widened on the other
/// paths (`if INT64_INDEX: pid = pid.to(tl.int64)`: a flag the launcher sets
/// when the sizes need it), where the kernel's intent is the wide type.
Node *FnLowerer::phi(const std::vector<const Node *> &Ns, const std::string &Name, TSNode At) {
  IntTy Wide = Ns[0]->Ty, Narrow = Ns[0]->Ty;
  bool AllWeak = true;
  for (const Node *N : Ns) AllWeak &= isWeak(N);
  bool First = true;
  for (const Node *N : Ns) {
    // Python scalars adapt to the other alternatives' type.
    if (!AllWeak && isWeak(N)) continue;
    if (First) { Wide = Narrow = N->Ty; First = false; }
    if (N->Ty.Pointer) { Wide = Narrow = N->Ty; continue; }
    if (Wide.Pointer || !N->Ty.known()) continue;
    if (!Wide.known() || N->Ty.Bits > Wide.Bits) Wide = N->Ty;
    if (!Narrow.known() || N->Ty.Bits < Narrow.Bits) Narrow = N->Ty;
  }
  IntTy T = Wide;
  if (Wide.known() && Narrow.known() && Narrow.Bits < Wide.Bits && !Wide.Pointer) {
    for (const Node *N : Ns) {
      if (!N->Ty.known() || N->Ty.Bits >= Wide.Bits || isWeak(N)) continue;
      bool Widened = false;
      for (const Node *W : Ns) {
        const Node *C = strip(W);
        if (W->Ty.Bits == Wide.Bits && C && C->K == Kind::Cast && strip(C->op(0)) == strip(N))
          Widened = true;
      }
      if (!Widened) { T = Narrow; break; }
    }
  }
  Node *P = mk(Kind::Phi, T, At);
  P->Ops = Ns;
  P->Name = Name;
  if (AllWeak) Weak.insert(P);
  for (const Node *N : Ns) {
    auto It = BlockStrides.find(strip(N));
    if (It != BlockStrides.end()) { BlockStrides[P] = It->second; break; }
  }
  return P;
}

/// Lowers a loop body: once dry to find loop-carried values, then for real
/// with those values as Phi(initial, updated). The graph stays acyclic.
/// True when the loop at At assigns a name that is bound before it (so a
/// value may be carried around the back-edge).
bool FnLowerer::carriesValues(TSNode At) const {
  bool Carries = false;
  walk(At, [&](TSNode N) {
    if (Carries) return;
    TSNode L{};
    if (is(N, "assignment") || is(N, "augmented_assignment")) L = field(N, "left");
    else if (is(N, "for_statement")) L = field(N, "left");
    else return;
    std::vector<TSNode> Targets = {L};
    if (!is(L, "identifier")) Targets = kids(L);
    for (TSNode T : Targets)
      if (is(T, "identifier") && Cur->Locals.count(M.text(T))) Carries = true;
  });
  return Carries;
}

template <typename BodyFn> void FnLowerer::loop(TSNode At, BodyFn &&Body) {
  Env Before = Cur->Locals;
  // Inside a dry pass only the names a loop changes matter: one pass does.
  if (!Dry && LoopDepth < MaxDryLoopDepth && carriesValues(At)) {
    bool SavedDry = Dry;
    size_t Rets = Cur->Returns.size();
    Dry = true;
    ++LoopDepth;
    size_t GuardMark = Guards.size();
    Body();
    Guards.resize(GuardMark);
    --LoopDepth;
    Dry = SavedDry;
    Cur->Returns.resize(Rets);
    Env After = Cur->Locals;
    Cur->Locals = Before;
    for (auto &KV : After) {
      auto It = Before.find(KV.first);
      if (It != Before.end() && It->second != KV.second)
        Cur->Locals[KV.first] = join({It->second, KV.second}, KV.first, At);
    }
  }
  ++LoopDepth;
  size_t GuardMark = Guards.size();
  Body();
  Guards.resize(GuardMark);
  --LoopDepth;
  std::vector<Env> Outs;
  Outs.push_back(std::move(Before));
  Outs.push_back(std::move(Cur->Locals));
  // Names first defined in the loop keep their in-loop value (a join of
  // one alternative).
  Cur->Locals = merge(Outs, At);
}

void FnLowerer::forStmt(TSNode S) {
  TSNode L = field(S, "left"), R = field(S, "right"), B = field(S, "body");
  // range(a, b[, step]), tl.range(...), tl.static_range(...)
  const Node *Start = nullptr, *End = nullptr;
  bool IsRange = false, Down = false; // Down: a negative constant step
  TSNode EndN{};
  if (is(R, "call")) {
    std::string Q = M.qualify(field(R, "function"), &Cur->Locals);
    std::string Mem = tlMember(Q);
    if (Q == "range" || Mem == "range" || Mem == "static_range") {
      IsRange = true;
      std::vector<TSNode> As;
      for (TSNode A : kids(field(R, "arguments")))
        if (!is(A, "keyword_argument")) As.push_back(A);
      if (As.size() == 1) {
        EndN = As[0];
        End = asNode(expr(As[0]), As[0]);
        Start = constant(0, As[0]);
      } else if (As.size() >= 2) {
        Start = asNode(expr(As[0]), As[0]);
        EndN = As[1];
        End = asNode(expr(As[1]), As[1]);
        for (size_t I = 2; I < As.size(); ++I) {
          const Node *Step = asNode(expr(As[I]), As[I]);
          int64_t SV;
          if (I == 2 && constOf(Step, SV) && SV < 0) Down = true;
        }
      }
    }
  }
  const Node *IV = nullptr;
  if (IsRange && Start && End) {
    int64_t A, Bv;
    IntTy T = promote(Start, End);
    if (isWeak(Start) && isWeak(End)) T = i32();
    if (constOf(Start, A) && constOf(End, Bv)) {
      Node *Rn = mk(Kind::Range, T, L);
      Rn->Value = Bv;
      Rn->Value2 = A;
      IV = Rn;
    } else {
      Node *P = phi({Start, End}, M.text(L), L);
      P->Ty = T; // the induction variable has the bounds' promoted type
      IV = P;
    }
  } else if (!IsRange) {
    expr(R);
  }
  loop(S, [&] {
    size_t Mark = Guards.size();
    if (IV && is(L, "identifier")) {
      Cur->Locals[M.text(L)] = Val::node(IV);
      Val Use = useName(M.text(L), L);
      Node *C = mk(Down ? Kind::Gt : Kind::Lt, IntTy::boolean(), EndN, {Use.Nd, End});
      Guards.push_back(Guard{C, false, Guard::Loop});
    } else {
      bind(L, Val::node(unknown(L, M.text(L))));
    }
    block(B);
    Guards.resize(Mark);
  });
}

void FnLowerer::whileStmt(TSNode S) {
  TSNode C = field(S, "condition"), B = field(S, "body");
  loop(S, [&] {
    const Node *CN = asNode(expr(C), C);
    size_t Mark = Guards.size();
    Guards.push_back(Guard{CN, false, Guard::Loop});
    block(B);
    Guards.resize(Mark);
  });
}

// ---------------------------------------------------------------------------
// The profile of a kernel, from the plain functions of its file that launch
// it (Function::Prof). A training root is the forward or backward of a class
// derived from autograd.Function that defines a backward (an inference-only
// wrapper defines forward alone); a function the file calls from nothing else
// is a root of its own (an entry point). A kernel is training when it is
// launched, and every launcher is reached from training roots only, or when
// the file sits in a training-only module (a `training/` or `train/` folder).
// ---------------------------------------------------------------------------
namespace {

bool identChar(char C) { return std::isalnum(static_cast<unsigned char>(C)) || C == '_'; }

/// Does Body name Fn followed by Open (`fn(`, `kernel[`), as an identifier?
bool namesCall(const std::string &Body, const std::string &Fn, char Open) {
  if (Fn.empty())
    return false;
  for (size_t P = Body.find(Fn); P != std::string::npos; P = Body.find(Fn, P + 1)) {
    if (P && identChar(Body[P - 1]))
      continue;
    size_t E = P + Fn.size();
    while (E < Body.size() && (Body[E] == ' '))
      ++E;
    if (E < Body.size() && Body[E] == Open)
      return true;
  }
  return false;
}

std::string txt(const Module &M, TSNode N) { return ts_node_is_null(N) ? "" : M.text(N); }

} // namespace

Profile kernelProfile(const Module &M, const std::string &Kernel, std::string &Why) {
  for (const char *Dir : {"/training/", "/train/", "/trainer/"})
    if (M.Path.find(Dir) != std::string::npos || M.Path.rfind(Dir + 1, 0) == 0) {
      Why = std::string("the file is in a training-only module ('") + (Dir + 1) + "')";
      return Profile::Training;
    }
  struct Def {
    std::string Name, Qual, Body;
    bool Root = false;
  };
  std::vector<Def> Defs;
  for (TSNode D : M.PlainAll) {
    if (Defs.size() >= 256)
      break;
    Def X;
    X.Name = txt(M, field(D, "name"));
    X.Qual = X.Name;
    X.Body = txt(M, field(D, "body"));
    TSNode Up = ts_node_parent(D);
    for (unsigned I = 0; I < 4 && !ts_node_is_null(Up) && !is(Up, "class_definition"); ++I)
      Up = ts_node_parent(Up);
    if (is(Up, "class_definition") && (X.Name == "forward" || X.Name == "backward")) {
      std::string Bases = txt(M, field(Up, "superclasses"));
      std::string Class = txt(M, field(Up, "body"));
      if (Bases.find("Function") != std::string::npos && namesCall(Class, "backward", '('))
        X.Root = true;
      X.Qual = txt(M, field(Up, "name")) + "." + X.Name;
    }
    Defs.push_back(std::move(X));
  }
  size_t N = Defs.size();
  std::vector<std::vector<size_t>> Callers(N);
  for (size_t I = 0; I < N; ++I)
    for (size_t J = 0; J < N; ++J)
      if (I != J && !Defs[I].Root && namesCall(Defs[J].Body, Defs[I].Name, '('))
        Callers[I].push_back(J);
  // Inf: reached from an entry point that is not a training root.
  std::vector<bool> Inf(N), Tr(N);
  for (size_t I = 0; I < N; ++I) {
    Inf[I] = !Defs[I].Root && Callers[I].empty();
    Tr[I] = Defs[I].Root;
  }
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (size_t I = 0; I < N; ++I)
      for (size_t J : Callers[I]) {
        if (Inf[J] && !Inf[I] && !Defs[I].Root)
          Inf[I] = Changed = true;
        if (Tr[J] && !Tr[I])
          Tr[I] = Changed = true;
      }
  }
  std::string Via;
  bool Any = false;
  for (size_t I = 0; I < N; ++I) {
    if (!namesCall(Defs[I].Body, Kernel, '['))
      continue;
    Any = true;
    if (Inf[I] || !Tr[I])
      return Profile::Unknown;
    if (Via.empty())
      Via = Defs[I].Qual;
  }
  if (!Any)
    return Profile::Unknown;
  Why = "launched only from the forward/backward of an autograd.Function (via '" + Via + "')";
  return Profile::Training;
}

} // namespace triton
} // namespace kvlint
