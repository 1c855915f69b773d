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
//
//===----------------------------------------------------------------------===//
#include "kvlint/Frontend.h"

#include <tree_sitter/api.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

extern "C" const TSLanguage *tree_sitter_python(void);

namespace kvlint {
namespace {

// ---------------------------------------------------------------------------
// Limits: huge or hostile inputs must neither crash nor hang.
// ---------------------------------------------------------------------------
constexpr unsigned MaxExprDepth = 200;   // nested expressions lowered
constexpr unsigned MaxStmtDepth = 100;   // nested blocks lowered
constexpr unsigned MaxInlineDepth = 4;   // helper calls inlined
constexpr unsigned MaxDryLoopDepth = 3;  // loops lowered twice (loop-carried Phis)
constexpr size_t MaxNodesPerFunction = 400000;
constexpr unsigned MaxRecoveryRounds = 32; // lines blanked after syntax errors
constexpr unsigned MaxValueFlags = 3;      // constexpr flags specialised on (2^3 lowerings)

bool is(TSNode N, const char *T) { return !ts_node_is_null(N) && !strcmp(ts_node_type(N), T); }

/// Named children (comments skipped), iterated with a cursor: O(n).
std::vector<TSNode> kids(TSNode N) {
  std::vector<TSNode> Out;
  if (ts_node_is_null(N))
    return Out;
  TSTreeCursor C = ts_tree_cursor_new(N);
  if (ts_tree_cursor_goto_first_child(&C)) {
    do {
      TSNode K = ts_tree_cursor_current_node(&C);
      if (ts_node_is_named(K) && !is(K, "comment"))
        Out.push_back(K);
    } while (ts_tree_cursor_goto_next_sibling(&C));
  }
  ts_tree_cursor_delete(&C);
  return Out;
}

/// A field of N. Field names are string literals: their ids are cached per
/// literal (per thread: files are lowered in parallel).
TSNode field(TSNode N, const char *F) {
  thread_local std::unordered_map<const char *, TSFieldId> Ids;
  auto It = Ids.find(F);
  if (It == Ids.end())
    It = Ids.emplace(F, ts_language_field_id_for_name(tree_sitter_python(), F,
                                                      (uint32_t)strlen(F))).first;
  return ts_node_child_by_field_id(N, It->second);
}

/// The children of N in field F (a field can repeat: subscripts, imports).
std::vector<TSNode> fieldKids(TSNode N, const char *F) {
  std::vector<TSNode> Out;
  TSTreeCursor C = ts_tree_cursor_new(N);
  if (ts_tree_cursor_goto_first_child(&C)) {
    do {
      const char *FN = ts_tree_cursor_current_field_name(&C);
      if (FN && !strcmp(FN, F)) Out.push_back(ts_tree_cursor_current_node(&C));
    } while (ts_tree_cursor_goto_next_sibling(&C));
  }
  ts_tree_cursor_delete(&C);
  return Out;
}

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

/// Visits every node under Root without recursion.
template <typename Fn> void walk(TSNode Root, Fn &&F) {
  TSTreeCursor C = ts_tree_cursor_new(Root);
  for (;;) {
    F(ts_tree_cursor_current_node(&C));
    if (ts_tree_cursor_goto_first_child(&C))
      continue;
    for (;;) {
      if (ts_tree_cursor_goto_next_sibling(&C))
        break;
      if (!ts_tree_cursor_goto_parent(&C)) {
        ts_tree_cursor_delete(&C);
        return;
      }
    }
  }
}

IntTy i32() { return IntTy::integer(32, true); }
IntTy i64() { return IntTy::integer(64, true); }

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
    T = IntTy::unknown();
    IsFloat = true;
    return true;
  }
  return false;
}

/// Triton's integer promotion for two (non-weak) integer types.
IntTy promoteInts(IntTy A, IntTy B) {
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

// ---------------------------------------------------------------------------
// Values the lowering tracks for names: an IR node, a tuple, a dtype, None.
// ---------------------------------------------------------------------------
struct Val {
  enum VK : uint8_t { None, N, Tuple, DType } K = None;
  const Node *Nd = nullptr;
  std::vector<Val> Elems;
  IntTy DT;         // DType: the type (unknown for floats)
  IntTy Elem;       // DType of a pointer_type: the element type
  bool Leaf = false; // N: a leaf (Param/Symbolic/global Const) cloned at each use

  static Val node(const Node *X) { Val V; V.K = X ? N : None; V.Nd = X; return V; }
  static Val leaf(const Node *X) { Val V = node(X); V.Leaf = true; return V; }
  static Val dtype(IntTy T, IntTy E = IntTy()) { Val V; V.K = DType; V.DT = T; V.Elem = E; return V; }
  static Val tuple(std::vector<Val> E) { Val V; V.K = Tuple; V.Elems = std::move(E); return V; }
  bool isNode() const { return K == N && Nd; }
  bool operator==(const Val &O) const {
    if (K != O.K) return false;
    switch (K) {
    case None: return true;
    case N: return Nd == O.Nd;
    case DType: return DT.Bits == O.DT.Bits && DT.Signed == O.DT.Signed && DT.Bool == O.DT.Bool &&
                       DT.Pointer == O.DT.Pointer;
    case Tuple: return Elems == O.Elems;
    }
    return false;
  }
  bool operator!=(const Val &O) const { return !(*this == O); }
};
using Env = std::map<std::string, Val>;

struct JitFn {
  std::string Name;
  TSNode Def{}; // function_definition
  bool Called = false;
};

/// Module-level facts: imports, constants, jit functions.
struct Module {
  std::string Path;
  const std::string &Src;
  std::map<std::string, std::string> Alias; // local name -> dotted module path
  std::map<std::string, TSNode> GlobalExprs; // NAME = <expr>, evaluated lazily
  std::map<std::string, JitFn> Jit;
  std::vector<std::string> JitOrder;
  std::map<std::string, TSNode> PlainDefs; // module-level functions not (yet) jit
  std::vector<std::pair<std::string, std::string>> JitWraps; // k = triton.jit(f)
  const Options &Opts;
  unsigned LoadBits = 32;

  Module(std::string P, const std::string &S, const Options &O)
      : Path(std::move(P)), Src(S), Opts(O) {}
  std::string text(TSNode N) const {
    uint32_t B = ts_node_start_byte(N), E = ts_node_end_byte(N);
    if (B > Src.size() || E > Src.size() || E < B) return "";
    return Src.substr(B, E - B);
  }

  /// Dotted, alias-resolved name of an identifier/attribute chain
  /// ("tl.load" -> "triton.language.load"), or "" when it is not one.
  std::string qualify(TSNode N, const Env *Locals, unsigned Depth = 0) const {
    if (Depth > 16) return "";
    if (is(N, "identifier")) {
      std::string S = text(N);
      if (Locals && Locals->count(S)) return "";
      auto It = Alias.find(S);
      if (It != Alias.end()) return It->second;
      return S;
    }
    if (is(N, "attribute")) {
      std::string O = qualify(field(N, "object"), Locals, Depth + 1);
      if (O.empty()) return "";
      return O + "." + text(field(N, "attribute"));
    }
    return "";
  }
};

/// The triton.language member a dotted name denotes, or "".
std::string tlMember(const std::string &Q) {
  static const char *Prefixes[] = {"triton.language.core.", "triton.language.math.",
                                   "triton.language.standard.", "triton.language.",
                                   "triton.experimental.gluon.language.",
                                   "triton.experimental.gluon.", "triton."};
  for (const char *P : Prefixes)
    if (Q.rfind(P, 0) == 0) {
      std::string M = Q.substr(strlen(P));
      // Gluon's target namespaces: gl.amd.cdna4.async_copy.buffer_load_to_shared
      size_t Dot = M.rfind('.');
      if (Dot != std::string::npos && M.find("buffer_", Dot) == Dot + 1) return M.substr(Dot + 1);
      return M;
    }
  return "";
}

// ---------------------------------------------------------------------------
// Lowering of one function (with helpers inlined).
// ---------------------------------------------------------------------------
class FnLowerer {
public:
  FnLowerer(Module &M, Function &F, const std::set<std::string> &PtrParams,
            std::vector<std::string> &Notes)
      : M(M), F(F), PtrParams(PtrParams), Notes(Notes) {}

  /// Params that were used as pointers but typed as integers this round.
  std::set<std::string> WantPtr;
  /// constexpr flags fixed for this specialisation (name -> value).
  std::map<std::string, bool> Fixed;
  bool Aborted = false;

  void lowerEntry(const JitFn &J) {
    Frame Fr;
    Cur = &Fr;
    CallStack.push_back(J.Name);
    bindParams(J.Def, nullptr, nullptr, Fr.Locals);
    block(field(J.Def, "body"));
  }

private:
  struct Frame {
    Env Locals;
    std::vector<Val> Returns;
  };

  Module &M;
  Function &F;
  const std::set<std::string> &PtrParams;
  std::vector<std::string> &Notes;
  Frame *Cur = nullptr;
  std::vector<Guard> Guards;
  std::vector<std::string> CallStack;
  unsigned ExprDepth = 0, StmtDepth = 0, LoopDepth = 0;
  bool Dry = false; // lowering a loop body once to find loop-carried values
  size_t NodeCount = 0;
  bool NotedDepth = false;
  std::unordered_set<const Node *> Weak;
  std::unordered_map<const Node *, std::vector<const Node *>> BlockStrides;
  std::unordered_map<const Node *, IntTy> PtrElem; // pointer -> element type
  std::set<std::string> EvaluatingGlobals;

  // --- nodes -------------------------------------------------------------
  SrcRange rng(TSNode N) const {
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

  Node *mk(Kind K, IntTy T, TSNode At, std::initializer_list<const Node *> Ops = {}) {
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
  std::string shortText(TSNode At) const {
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
    if (S.size() > 80) S = S.substr(0, 77) + "...";
    return S;
  }
  Node *unknown(TSNode At, const std::string &Name = "") {
    Node *N = mk(Kind::Unknown, IntTy::unknown(), At);
    N->Name = Name;
    return N;
  }
  Node *constant(int64_t V, TSNode At) {
    Node *N = mk(Kind::Const, (V >= INT32_MIN && V <= INT32_MAX) ? i32() : i64(), At);
    N->Value = V;
    Weak.insert(N);
    return N;
  }
  Node *boolConst(bool V, TSNode At) {
    Node *N = mk(Kind::Const, IntTy::boolean(), At);
    N->Value = V;
    Weak.insert(N);
    return N;
  }
  bool isWeak(const Node *N) const {
    for (unsigned I = 0; N && I < 64; ++I) {
      if (Weak.count(N)) return true;
      if (N->K != Kind::Var) return false;
      N = N->op(0);
    }
    return false;
  }
  static const Node *strip(const Node *N) {
    for (unsigned I = 0; N && N->K == Kind::Var && N->op(0) && I < 64; ++I)
      N = N->op(0);
    return N;
  }
  static bool constOf(const Node *N, int64_t &V) {
    N = strip(N);
    if (N && N->K == Kind::Const) { V = N->Value; return true; }
    return false;
  }

  /// Type of a binary arithmetic operation per Triton's promotion.
  IntTy promote(const Node *A, const Node *B) const {
    bool WA = isWeak(A), WB = isWeak(B);
    if (WA && WB) return i64(); // Python int arithmetic at compile time: exact
    if (WA) return B->Ty.Bool ? i32() : B->Ty;
    if (WB) return A->Ty.Bool ? i32() : A->Ty;
    return promoteInts(A->Ty, B->Ty);
  }

  // --- names ---------------------------------------------------------------
  Val useName(const std::string &Name, TSNode At) {
    auto It = Cur->Locals.find(Name);
    if (It != Cur->Locals.end()) return use(It->second, Name, At);
    return global(Name, At);
  }

  Val use(const Val &V, const std::string &Name, TSNode At) {
    if (!V.isNode()) return V;
    if (V.Leaf) {
      Node *C = mk(V.Nd->K, V.Nd->Ty, At);
      C->Name = V.Nd->Name;
      C->Value = V.Nd->Value;
      C->Value2 = V.Nd->Value2;
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

  Val global(const std::string &Name, TSNode At) {
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

  void bind(TSNode Target, const Val &V) {
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

  // --- parameters ----------------------------------------------------------
  /// Binds the parameters of Def. Entry: Args == nullptr (params are Param /
  /// Symbolic leaves). Inlined: bound to the caller's values.
  void bindParams(TSNode Def, const std::vector<Val> *Pos,
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
      if (Constexpr && !Pos && !Kw && Fixed.count(Name)) {
        N = mk(Kind::Const, IntTy::boolean(), NameN);
        N->Value = Fixed.at(Name);
        Weak.insert(N);
      } else if (Constexpr) {
        N = mk(Kind::Symbolic, i32(), NameN);
        Weak.insert(N);
      } else if (PtrParams.count(Name)) {
        N = mk(Kind::Param, IntTy::pointer(), NameN);
      } else {
        N = mk(Kind::Param, i32(), NameN);
      }
      N->Name = Name;
      Out[Name] = Val::leaf(N);
    }
  }

  // --- statements ----------------------------------------------------------
  /// Lowers a block; returns true when it always leaves (return/break/continue).
  bool block(TSNode B) {
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

  void noteDepth() {
    if (!NotedDepth) {
      NotedDepth = true;
      Notes.push_back("nesting too deep in '" + F.Name + "'; analysed in part");
    }
  }

  bool stmt(TSNode S) {
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

  void assignment(TSNode A) {
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

  void augAssignment(TSNode A) {
    TSNode L = field(A, "left"), R = field(A, "right"), Op = field(A, "operator");
    std::string O = M.text(Op);
    if (!O.empty() && O.back() == '=') O.pop_back();
    Val LV = expr(L), RV = expr(R);
    bind(L, binop(O, LV, RV, A));
  }

  /// Lowers if/elif/else. Early exits add guards to the rest of the block.
  bool ifStmt(TSNode S) {
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
  Env merge(std::vector<Env> &Outs, TSNode At) {
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

  Val join(const std::vector<Val> &Alts, const std::string &Name, TSNode At) {
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
  Node *phi(const std::vector<const Node *> &Ns, const std::string &Name, TSNode At) {
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
  bool carriesValues(TSNode At) const {
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

  template <typename BodyFn> void loop(TSNode At, BodyFn &&Body) {
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

  void forStmt(TSNode S) {
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

  void whileStmt(TSNode S) {
    TSNode C = field(S, "condition"), B = field(S, "body");
    loop(S, [&] {
      const Node *CN = asNode(expr(C), C);
      size_t Mark = Guards.size();
      Guards.push_back(Guard{CN, false, Guard::Loop});
      block(B);
      Guards.resize(Mark);
    });
  }

  // --- expressions ---------------------------------------------------------
  const Node *asNode(const Val &V, TSNode At) {
    if (V.isNode()) return V.Nd;
    return unknown(At);
  }

  Val expr(TSNode E) {
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

  Val exprImpl(TSNode E) {
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

  Val select(const Node *C, const Val &A, const Val &B, TSNode At) {
    if (!A.isNode() || !B.isNode()) return A.isNode() ? A : B;
    IntTy T = promote(A.Nd, B.Nd);
    if (A.Nd->Ty.Pointer) T = A.Nd->Ty;
    else if (B.Nd->Ty.Pointer) T = B.Nd->Ty;
    Node *N = mk(Kind::Select, T, At, {C, A.Nd, B.Nd});
    if (isWeak(A.Nd) && isWeak(B.Nd)) Weak.insert(N);
    return Val::node(N);
  }

  Val comparison(TSNode E) {
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

  Val binop(const std::string &Op, const Val &LV, const Val &RV, TSNode At) {
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
      Node *N = mk(Kind::Unknown, IntTy::unknown(), At, {L, R});
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

  void inheritPtr(const Node *To, const Node *From) {
    const Node *S = From;
    for (unsigned I = 0; S && I < 64; ++I) {
      auto It = PtrElem.find(S);
      if (It != PtrElem.end()) { PtrElem[To] = It->second; return; }
      if (S->K == Kind::Var || S->K == Kind::PtrAdd || S->K == Kind::Cast) S = S->op(0);
      else break;
    }
  }

  /// Element type of a load through Addr.
  IntTy elemOf(const Node *Addr) {
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
  static std::string baseName(const Node *Addr) {
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
  void wantPointer(const Node *Addr) {
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

  std::vector<const Node *> *stridesOf(const Node *N) {
    for (unsigned I = 0; N && I < 64; ++I) {
      auto It = BlockStrides.find(N);
      if (It != BlockStrides.end()) return &It->second;
      if (N->K == Kind::Var) N = N->op(0);
      else return nullptr;
    }
    return nullptr;
  }

  /// Returns the address as recorded: an untyped one is made a pointer
  /// (asAddress), so loads should use it too.
  const Node *recordAccess(AccessKind AK, const Node *Addr, const Node *Mask, const Node *Other,
                           TSNode At) {
    if (Addr && !Addr->Ty.Pointer) wantPointer(Addr);
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

  struct Args {
    std::vector<Val> Pos;
    std::vector<TSNode> PosN;
    std::map<std::string, Val> Kw;
    std::map<std::string, TSNode> KwN;
    bool Broken = false; // the argument list has syntax errors: positions lie
    const Val *get(size_t I, const char *Name) const {
      auto It = Kw.find(Name);
      if (It != Kw.end()) return &It->second;
      return I < Pos.size() ? &Pos[I] : nullptr;
    }
    TSNode node(size_t I, const char *Name, TSNode Dflt) const {
      auto It = KwN.find(Name);
      if (It != KwN.end()) return It->second;
      return I < PosN.size() ? PosN[I] : Dflt;
    }
  };

  Args lowerArgs(TSNode ArgList) {
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

  const Node *nodeArg(const Args &A, size_t I, const char *Name, TSNode At) {
    const Val *V = A.get(I, Name);
    if (!V || V->K == Val::None) return nullptr;
    return asNode(*V, A.node(I, Name, At));
  }

  Val cast(const Val &V, const Val *To, TSNode At) {
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
  /// strides to int64 (Triton's semantic.make_block_ptr, require_i64), so the
  /// products are 64-bit; a narrow offset computed before stays visible.
  const Node *blockOffset(const Val &Offs, const std::vector<const Node *> &Strides,
                          const std::vector<TSNode> &OffNs, TSNode At) {
    const Node *Sum = nullptr;
    for (size_t I = 0; I < Offs.Elems.size() && I < Strides.size(); ++I) {
      const Val &O = Offs.Elems[I];
      if (!O.isNode()) continue;
      int64_t C;
      if (constOf(O.Nd, C) && C == 0) continue;
      TSNode ON = I < OffNs.size() ? OffNs[I] : At;
      Node *Term = mk(Kind::Mul, promoteInts(O.Nd->Ty, i64()), ON, {O.Nd, Strides[I]});
      Sum = Sum ? mk(Kind::Add, promoteInts(Sum->Ty, Term->Ty), At, {Sum, Term}) : Term;
    }
    return Sum ? Sum : constant(0, At);
  }

  std::vector<TSNode> tupleNodes(TSNode N) {
    while (is(N, "parenthesized_expression") && !kids(N).empty()) N = kids(N)[0];
    if (is(N, "tuple") || is(N, "list")) return kids(N);
    return {};
  }

  Val call(TSNode E) {
    TSNode Fn = field(E, "function"), ArgList = field(E, "arguments");
    std::string Q = M.qualify(Fn, &Cur->Locals);

    // Helpers defined in this file: inline.
    if (!Q.empty() && Q.find('.') == std::string::npos && M.Jit.count(Q))
      return inlineCall(M.Jit[Q], E, ArgList);

    // Method calls on values: x.to(...), x.cast? (others are opaque)
    if (Q.empty() && is(Fn, "attribute")) {
      std::string Meth = M.text(field(Fn, "attribute"));
      Val Obj = expr(field(Fn, "object"));
      Args A = lowerArgs(ArgList);
      if (Meth == "to") return cast(Obj, A.get(0, "dtype"), E);
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
    if (Q == "min" || Q == "max") B = Q == "min" ? "minimum" : "maximum";
    if (Q == "int") B = "__int";
    Args A = lowerArgs(ArgList);
    if (B.empty() || A.Broken) return opaqueCall(Q.empty() ? M.text(Fn) : Q, A, E);

    if (B == "program_id") {
      Node *N = mk(Kind::LaunchIdx, i32(), E);
      int64_t Ax = 0;
      const Node *AxN = nodeArg(A, 0, "axis", E);
      if (AxN) constOf(AxN, Ax);
      N->Name = "program_id(" + std::to_string(Ax) + ")";
      return Val::node(N);
    }
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
      if (F.Accesses.size() > Before) F.Accesses.back().Value = V;
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
    if (B.size() >= 19 && B.compare(B.size() - 19, 19, "load_shared_relaxed") == 0)
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
  Val memoryRead(const Val &From, TSNode E) {
    const Node *Src = From.isNode() ? From.Nd : unknown(E);
    IntTy ET = IntTy::integer(M.LoadBits, true);
    Node *L = mk(Kind::Load, ET, E, {Src});
    L->ElemTy = ET;
    L->Name = Src->Name.empty() ? Src->Text : Src->Name;
    return Val::node(L);
  }

  Val opaqueCall(const std::string &Name, const Args &A, TSNode E) {
    Node *N = mk(Kind::Call, IntTy::unknown(), E);
    N->Name = Name;
    for (const Val &V : A.Pos)
      if (V.isNode()) N->Ops.push_back(V.Nd);
    for (auto &KV : A.Kw)
      if (KV.second.isNode()) N->Ops.push_back(KV.second.Nd);
    return Val::node(N);
  }

  Val inlineCall(const JitFn &J, TSNode E, TSNode ArgList) {
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
};

// ---------------------------------------------------------------------------
// Module scan.
// ---------------------------------------------------------------------------
void scanImports(Module &M, TSNode S) {
  if (is(S, "import_statement")) {
    for (TSNode K : kids(S)) {
      if (is(K, "aliased_import")) {
        M.Alias[M.text(field(K, "alias"))] = M.text(field(K, "name"));
      } else if (is(K, "dotted_name")) {
        std::string N = M.text(K);
        std::string First = N.substr(0, N.find('.'));
        M.Alias[First] = First;
      }
    }
  } else if (is(S, "import_from_statement")) {
    std::string Mod = M.text(field(S, "module_name"));
    for (TSNode K : fieldKids(S, "name")) {
      std::string Name, Local;
      if (is(K, "aliased_import")) {
        Name = M.text(field(K, "name"));
        Local = M.text(field(K, "alias"));
      } else {
        Name = Local = M.text(K);
      }
      std::string Full = Mod + "." + Name;
      // `from <anything> import tl, triton` (vllm.triton_utils and friends)
      if (Name == "tl" || (Mod == "triton" && Name == "language")) Full = "triton.language";
      else if (Name == "triton") Full = "triton";
      else if (Name == "jit" && Mod.find("gluon") != std::string::npos)
        Full = "triton.experimental.gluon.jit";
      else if (Name == "jit" && Mod.find("triton") != std::string::npos) Full = "triton.jit";
      M.Alias[Local] = Full;
    }
  }
}

bool isJitName(const std::string &Q) {
  return Q == "triton.jit" || Q == "triton.language.jit" || Q == "triton.runtime.jit.jit" ||
         Q == "triton.experimental.gluon.jit";
}

bool isJitDecorator(const Module &M, TSNode Dec) {
  std::vector<TSNode> Ks = kids(Dec);
  if (Ks.empty()) return false;
  TSNode E = Ks[0];
  if (is(E, "call")) E = field(E, "function");
  return isJitName(M.qualify(E, nullptr));
}

void addJit(Module &M, const std::string &Name, TSNode Def) {
  if (!M.Jit.count(Name)) M.JitOrder.push_back(Name);
  M.Jit[Name] = JitFn{Name, Def, false};
}

void scanModule(Module &M, TSNode Block, unsigned Depth) {
  if (Depth > 8) return;
  for (TSNode S : kids(Block)) {
    if (is(S, "import_statement") || is(S, "import_from_statement")) {
      scanImports(M, S);
    } else if (is(S, "decorated_definition")) {
      TSNode Def = field(S, "definition");
      bool Jit = false;
      for (TSNode K : kids(S))
        if (is(K, "decorator") && isJitDecorator(M, K)) Jit = true;
      if (Jit && is(Def, "function_definition")) {
        addJit(M, M.text(field(Def, "name")), Def);
      } else if (is(Def, "function_definition")) {
        M.PlainDefs[M.text(field(Def, "name"))] = Def;
      } else if (is(Def, "class_definition")) {
        scanModule(M, field(Def, "body"), Depth + 1);
      }
    } else if (is(S, "expression_statement")) {
      for (TSNode A : kids(S)) {
        if (!is(A, "assignment")) continue;
        TSNode L = field(A, "left"), R = field(A, "right");
        if (is(L, "identifier") && !ts_node_is_null(R) && !is(R, "assignment"))
          M.GlobalExprs[M.text(L)] = R;
        // kernel = triton.jit(fn) / triton.jit(...)(fn)
        if (is(L, "identifier") && is(R, "call")) {
          TSNode Fn = field(R, "function");
          if (is(Fn, "call")) Fn = field(Fn, "function");
          std::vector<TSNode> Args = kids(field(R, "arguments"));
          if (isJitName(M.qualify(Fn, nullptr)) && !Args.empty() && is(Args[0], "identifier"))
            M.JitWraps.push_back({M.text(L), M.text(Args[0])});
        }
      }
    } else if (is(S, "function_definition")) {
      M.PlainDefs[M.text(field(S, "name"))] = S;
    } else if (is(S, "if_statement") || is(S, "try_statement") || is(S, "with_statement")) {
      for (TSNode K : kids(S)) {
        if (is(K, "block")) scanModule(M, K, Depth + 1);
        else if (is(K, "else_clause") || is(K, "elif_clause") || is(K, "except_clause") ||
                 is(K, "finally_clause"))
          for (TSNode KK : kids(K))
            if (is(KK, "block")) scanModule(M, KK, Depth + 1);
      }
    } else if (is(S, "class_definition")) {
      scanModule(M, field(S, "body"), Depth + 1);
    }
  }
}

/// Marks jit functions called from other jit functions (helpers).
void markHelpers(Module &M) {
  for (auto &KV : M.Jit) {
    walk(field(KV.second.Def, "body"), [&](TSNode N) {
      if (!is(N, "call")) return;
      TSNode Fn = field(N, "function");
      if (!is(Fn, "identifier")) return;
      auto It = M.Jit.find(M.text(Fn));
      if (It != M.Jit.end() && It->first != KV.first) It->second.Called = true;
    });
  }
}

bool ptrLikeName(const std::string &N) {
  auto Ends = [&](const char *S) {
    size_t L = strlen(S);
    return N.size() >= L && N.compare(N.size() - L, L, S) == 0;
  };
  return N == "ptr" || Ends("_ptr") || Ends("Ptr") || Ends("_ptrs") || Ends("_pointer") ||
         N.rfind("ptr_", 0) == 0;
}

/// Parameters that are visibly pointers: named like one, or the leftmost
/// operand of a sum passed as the pointer of tl.load/store/atomic_*/
/// make_block_ptr (`tl.load(pos + offs)`). Lowering finds the rest.
std::set<std::string> pointerParams(const Module &M, const JitFn &J) {
  std::set<std::string> Params, Ptrs;
  for (TSNode P : kids(field(J.Def, "parameters"))) {
    TSNode N = is(P, "identifier") ? P : field(P, "name");
    if (ts_node_is_null(N))
      for (TSNode K : kids(P))
        if (is(K, "identifier")) { N = K; break; }
    if (!is(N, "identifier")) continue;
    Params.insert(M.text(N));
    if (ptrLikeName(M.text(N))) Ptrs.insert(M.text(N));
  }
  walk(field(J.Def, "body"), [&](TSNode C) {
    if (!is(C, "call")) return;
    std::string Mem = tlMember(M.qualify(field(C, "function"), nullptr));
    if (Mem != "load" && Mem != "store" && Mem != "make_block_ptr" &&
        Mem.rfind("atomic_", 0) != 0)
      return;
    TSNode Arg{};
    for (TSNode A : kids(field(C, "arguments"))) {
      if (is(A, "keyword_argument")) {
        std::string K = M.text(field(A, "name"));
        if (K == "pointer" || K == "base") { Arg = field(A, "value"); break; }
        continue;
      }
      Arg = A;
      break;
    }
    // Identifiers in additive position; the leftmost one is the pointer
    // unless another is named like a pointer.
    std::vector<std::string> Ids;
    std::vector<TSNode> Work = {Arg};
    while (!Work.empty() && Ids.size() < 16) {
      TSNode E = Work.back();
      Work.pop_back();
      if (is(E, "parenthesized_expression") && !kids(E).empty()) Work.push_back(kids(E)[0]);
      else if (is(E, "subscript")) Work.push_back(field(E, "value"));
      else if (is(E, "binary_operator") && (M.text(field(E, "operator")) == "+" ||
                                            M.text(field(E, "operator")) == "-")) {
        Work.push_back(field(E, "right"));
        Work.push_back(field(E, "left"));
      } else if (is(E, "identifier")) Ids.push_back(M.text(E));
    }
    for (const std::string &I : Ids)
      if (ptrLikeName(I)) return;
    if (!Ids.empty() && Params.count(Ids[0])) Ptrs.insert(Ids[0]);
  });
  return Ptrs;
}

/// constexpr flags worth specialising on. Triton compiles one kernel per
/// value of a constexpr, so a branch on a flag is resolved at compile time.
/// Lowering both arms into one function merges values of different
/// specialisations (an int32 varlen offset with an int64 dense one) into
/// Phis that no single compiled kernel computes. Flags whose branches assign
/// values are therefore fixed, one lowering per combination (the first
/// MaxValueFlags of them); a flag whose branch only widens values
/// (`if INT64_INDEX: pid = pid.to(tl.int64)`) is taken as set: the launcher
/// sets it when the sizes need it. Other flags only guard accesses and merge.
struct FlagPlan {
  std::vector<std::string> Value; // enumerated
  std::set<std::string> Widen;    // fixed to true
};

FlagPlan planFlags(const Module &M, const JitFn &J) {
  std::set<std::string> Constexprs;
  for (TSNode P : kids(field(J.Def, "parameters"))) {
    TSNode T = field(P, "type");
    if (ts_node_is_null(T) || kids(T).empty()) continue;
    if (tlMember(M.qualify(kids(T)[0], nullptr)) != "constexpr") continue;
    TSNode N = field(P, "name");
    if (ts_node_is_null(N))
      for (TSNode K : kids(P))
        if (is(K, "identifier")) { N = K; break; }
    if (is(N, "identifier")) Constexprs.insert(M.text(N));
  }
  FlagPlan Plan;
  std::set<std::string> Seen;
  walk(field(J.Def, "body"), [&](TSNode N) {
    if (!is(N, "if_statement") && !is(N, "elif_clause")) return;
    TSNode C = field(N, "condition");
    while (is(C, "parenthesized_expression") && !kids(C).empty()) C = kids(C)[0];
    if (is(C, "not_operator")) C = field(C, "argument");
    if (!is(C, "identifier") || !Constexprs.count(M.text(C))) return;
    std::string Flag = M.text(C);
    bool Assigns = false, WidenOnly = true;
    TSNode Body = field(N, "consequence");
    for (TSNode S : kids(Body)) {
      TSNode A = kids(S).empty() ? S : kids(S)[0];
      if (!is(S, "expression_statement") || !is(A, "assignment") ||
          M.text(field(A, "right")).find("int64") == std::string::npos)
        WidenOnly = false;
    }
    walk(N, [&](TSNode X) {
      if (is(X, "assignment") || is(X, "augmented_assignment")) Assigns = true;
    });
    bool HasElse = false;
    for (TSNode K : kids(N))
      if (is(K, "elif_clause") || is(K, "else_clause")) HasElse = true;
    if (!Assigns) return;
    if (WidenOnly && !HasElse && is(N, "if_statement")) {
      Plan.Widen.insert(Flag);
      return;
    }
    if (Seen.insert(Flag).second && Plan.Value.size() < MaxValueFlags)
      Plan.Value.push_back(Flag);
  });
  for (const std::string &V : Plan.Value) Plan.Widen.erase(V);
  return Plan;
}

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
