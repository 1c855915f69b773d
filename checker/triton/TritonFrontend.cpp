//===- TritonFrontend.cpp - lowers @triton.jit functions to the kernel IR -===//
//
// Parses a Python file with tree-sitter-python and lowers every @triton.jit
// function into kvlint's kernel IR, following Triton's integer semantics:
//
//  * tl.program_id / tl.arange are int32 (arange bounded); unannotated integer
//    arguments are int32 scalars; `tl.constexpr` arguments are Python ints of
//    unknown magnitude (Kind::Symbolic, typed int32 so that promotion follows
//    Triton: a Python scalar never widens a tensor).
//  * Python scalars (literals, constexprs, module constants) are "weak": an
//    operation between a tensor and a weak scalar has the tensor's type; an
//    operation between two weak scalars happens in Python at compile time
//    (exact) and is typed int64.
//  * Everything else promotes like Triton's integer_promote_impl.
//
// The frontend never decides whether something is a bug; see IR.h.
// The lowering is split over several files; Lowering.h lists them.
//
//===----------------------------------------------------------------------===//
#include "Lowering.h"

#include <algorithm>
#include <memory>

namespace kvlint {
namespace triton {

namespace {

/// ERROR and MISSING nodes in document order (at most Max), where the
/// mistake starts. An ERROR that begins with a complete statement wraps valid
/// code (tree-sitter may wrap a whole file): it is not recorded, only
/// searched. Only subtrees that contain an error are visited.
std::vector<TSNode> errorNodes(TSNode Root, size_t Max) {
  std::vector<TSNode> Out;
  TSTreeCursor C = ts_tree_cursor_new(Root);
  for (;;) {
    TSNode N = ts_tree_cursor_current_node(&C);
    bool Record = ts_node_is_missing(N);
    if (ts_node_is_error(N)) {
      TSNode F = ts_node_named_child(N, 0);
      std::string T = ts_node_is_null(F) ? "" : ts_node_type(F);
      bool Wraps = !ts_node_is_null(F) && !ts_node_has_error(F) &&
                   (T.find("statement") != std::string::npos ||
                    T.find("definition") != std::string::npos);
      Record = !Wraps;
    }
    if (Record) {
      Out.push_back(N);
      if (Out.size() >= Max) break;
    }
    if (ts_node_has_error(N) && ts_tree_cursor_goto_first_child(&C)) continue;
    bool Done = false;
    while (!ts_tree_cursor_goto_next_sibling(&C))
      if (!ts_tree_cursor_goto_parent(&C)) { Done = true; break; }
    if (Done) break;
  }
  ts_tree_cursor_delete(&C);
  return Out;
}

} // namespace

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
      if (V.K == Val::Tuple && I < V.Elems.size())
        bind(Ts[I], V.Elems[I]);
      else
        bind(Ts[I], Val::node(unknown(Ts[I], M.text(Ts[I]))));
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
bool FnLowerer::block(TSNode B) {
  if (ts_node_is_null(B)) return false;
  if (StmtDepth >= MaxStmtDepth) { noteDepth(); return false; }
  ++StmtDepth;
  size_t GuardMark = Guards.size();
  bool Term = false;
  for (TSNode S : kids(B)) {
    if (Aborted) break;
    if (stmt(S)) { Term = true; break; }
  }
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
  bind(L, binop(O, LV, RV, A));
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
  for (const Branch &B : Bs) {
    if (&B == &Bs.back()) Cur->Locals = std::move(Base); // the last one may take it
    else Cur->Locals = Base;
    size_t Mark = Guards.size();
    Guards.insert(Guards.end(), B.Path.begin(), B.Path.end());
    bool Term = ts_node_is_null(B.Body) ? false : block(B.Body);
    Guards.resize(Mark);
    if (!Term) {
      Outs.push_back(std::move(Cur->Locals));
      Live.push_back(&B);
    }
  }
  if (Live.empty()) return true; // the rest of the block is unreachable
  Cur->Locals = merge(Outs, S);
  if (Live.size() == 1 && Live.size() < Bs.size()) {
    // Only one path reaches the rest of the block: its conditions hold there.
    for (Guard G : Live[0]->Path) {
      G.How = Guard::EarlyExit;
      Guards.push_back(G);
    }
  }
  return false;
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

namespace {

std::unique_ptr<Function> lowerFunction(Module &M, const JitFn &J,
                                        const std::map<std::string, bool> &Fixed,
                                        std::vector<std::string> &Notes) {
  std::set<std::string> Ptrs = pointerParams(M, J);
  std::unique_ptr<Function> F;
  // Parameters used as pointers are found by lowering; re-lower until stable.
  for (int Round = 0; Round < 4; ++Round) {
    F = std::make_unique<Function>();
    F->Name = J.Name;
    F->Lang = Language::Triton;
    F->IsKernel = true;
    SrcRange R;
    TSNode NameN = field(J.Def, "name");
    TSPoint S = ts_node_start_point(NameN), E = ts_node_end_point(NameN);
    R.Begin = {M.Path, S.row + 1, S.column + 1, ts_node_start_byte(NameN)};
    R.End = {M.Path, E.row + 1, E.column + 1, ts_node_end_byte(NameN)};
    F->Range = R;
    std::vector<std::string> RoundNotes;
    FnLowerer L(M, *F, Ptrs, RoundNotes);
    L.Fixed = Fixed;
    L.lowerEntry(J);
    size_t Before = Ptrs.size();
    Ptrs.insert(L.WantPtr.begin(), L.WantPtr.end());
    if (Ptrs.size() == Before || Round == 3) {
      Notes.insert(Notes.end(), RoundNotes.begin(), RoundNotes.end());
      break;
    }
  }
  return F;
}

} // namespace

} // namespace triton

using namespace triton;

LoweredFile lowerTritonSource(const std::string &Path, const std::string &Source,
                              const Options &Opts) {
  LoweredFile Out;
  // Fast path: a file without "jit" has no @triton.jit function.
  if (Source.find("jit") == std::string::npos) return Out;
  if (Source.size() > (64u << 20)) {
    Out.Notes.push_back("file larger than 64 MiB; not analysed");
    Out.Failed = true;
    return Out;
  }
  if (Source.find('\0') != std::string::npos) {
    Out.Notes.push_back("binary file (NUL bytes); not analysed");
    Out.Failed = true;
    return Out;
  }
  TSParser *P = ts_parser_new();
  if (!ts_parser_set_language(P, tree_sitter_python())) {
    ts_parser_delete(P);
    Out.Notes.push_back("tree-sitter-python ABI mismatch; Python not analysed");
    Out.Failed = true;
    return Out;
  }
  // Syntax errors: tree-sitter's recovery lets one unclosed bracket swallow
  // the rest of the file. Blank the first line in error (same length, so
  // every position stays exact) and reparse, a bounded number of times.
  std::string Work = Source;
  std::vector<unsigned> Skipped;
  bool HadErrors = false;
  TSTree *T = ts_parser_parse_string(P, nullptr, Work.data(), (uint32_t)Work.size());
  for (unsigned Round = 0; T && Round < MaxRecoveryRounds; ++Round) {
    TSNode Root = ts_tree_root_node(T);
    if (!ts_node_has_error(Root)) break;
    HadErrors = true;
    // The first line in error that is not a definition: blanking a `def` or
    // decorator line would lose the whole function.
    size_t LB = 0, LE = 0, First = std::string::npos;
    for (TSNode Err : errorNodes(Root, 64)) {
      // An ERROR may begin with the token before the mistake (the `:` of a
      // def line); its first named child is where the faulty code starts.
      TSNode At = ts_node_is_error(Err) && !ts_node_is_null(ts_node_named_child(Err, 0))
                      ? ts_node_named_child(Err, 0)
                      : Err;
      size_t B = ts_node_start_byte(At);
      if (ts_node_is_missing(Err) && B > 0) --B; // a missing token sits after the line
      size_t NL = B == 0 ? std::string::npos : Work.rfind('\n', B - 1);
      LB = NL == std::string::npos ? 0 : NL + 1;
      LE = Work.find('\n', LB);
      if (LE == std::string::npos) LE = Work.size();
      size_t F = Work.find_first_not_of(" \t\r", LB);
      if (F == std::string::npos || F >= LE) continue;
      std::string Head = Work.substr(F, std::min<size_t>(LE - F, 10));
      if (Head[0] == '@' || Head.rfind("def ", 0) == 0 || Head.rfind("async ", 0) == 0 ||
          Head.rfind("class ", 0) == 0)
        continue;
      First = F;
      break;
    }
    if (First == std::string::npos) break;
    for (size_t I = First; I < LE; ++I)
      if (Work[I] != '\r') Work[I] = ' ';
    unsigned Row = (unsigned)std::count(Work.begin(), Work.begin() + LB, '\n');
    Skipped.push_back(Row + 1);
    // Same length: an in-place edit, reparsed incrementally.
    TSInputEdit Edit;
    Edit.start_byte = (uint32_t)First;
    Edit.old_end_byte = Edit.new_end_byte = (uint32_t)LE;
    Edit.start_point = {Row, (uint32_t)(First - LB)};
    Edit.old_end_point = Edit.new_end_point = {Row, (uint32_t)(LE - LB)};
    ts_tree_edit(T, &Edit);
    TSTree *T2 = ts_parser_parse_string(P, T, Work.data(), (uint32_t)Work.size());
    ts_tree_delete(T);
    T = T2;
  }
  if (!T) {
    ts_parser_delete(P);
    Out.Notes.push_back("could not parse");
    Out.Failed = true;
    return Out;
  }
  TSNode Root = ts_tree_root_node(T);
  if (HadErrors) {
    std::string Note = "syntax errors; analysed what could be parsed";
    if (!Skipped.empty()) {
      std::sort(Skipped.begin(), Skipped.end());
      Note += " (skipped line";
      Note += Skipped.size() > 1 ? "s " : " ";
      for (size_t I = 0; I < Skipped.size(); ++I)
        Note += (I ? ", " : "") + std::to_string(Skipped[I]);
      Note += ")";
    }
    Out.Notes.push_back(Note);
  }

  Module M(Path, Work, Opts);
  int64_t Bits = Opts.getInt("triton.UnknownLoadBits", 32);
  M.LoadBits = (Bits == 8 || Bits == 16 || Bits == 32 || Bits == 64) ? unsigned(Bits) : 32;
  // Names most Triton code uses without importing them from triton directly.
  M.Alias["tl"] = "triton.language";
  M.Alias["triton"] = "triton";
  scanModule(M, Root, 0);
  for (auto &W : M.JitWraps) {
    auto D = M.PlainDefs.find(W.second);
    if (D == M.PlainDefs.end() || M.Jit.count(W.second)) continue;
    addJit(M, W.second, D->second);
    if (W.first != W.second && !M.Jit.count(W.first))
      M.Jit[W.first] = JitFn{W.first, D->second, true}; // callable by its new name
  }
  markHelpers(M);
  for (const std::string &N : M.JitOrder) {
    const JitFn &J = M.Jit[N];
    // Helpers called from another jit function are analysed inlined, with
    // their callers' argument facts; lowering them alone would judge their
    // parameters without those facts.
    if (J.Called) continue;
    FlagPlan Plan = planFlags(M, J);
    for (unsigned Combo = 0; Combo < (1u << Plan.Value.size()); ++Combo) {
      std::map<std::string, bool> Fixed;
      for (const std::string &W : Plan.Widen) Fixed[W] = true;
      for (size_t I = 0; I < Plan.Value.size(); ++I) Fixed[Plan.Value[I]] = (Combo >> I) & 1;
      Out.Functions.push_back(lowerFunction(M, J, Fixed, Out.Notes));
    }
  }
  // Specialisations repeat the same notes.
  std::vector<std::string> Unique;
  for (const std::string &N : Out.Notes)
    if (std::find(Unique.begin(), Unique.end(), N) == Unique.end()) Unique.push_back(N);
  Out.Notes = Unique;
  ts_tree_delete(T);
  ts_parser_delete(P);
  return Out;
}

} // namespace kvlint
