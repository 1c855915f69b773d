//===- Lowering.h - the Triton frontend's shared lowering types -*- C++ -*-===//
//
// Private to checker/triton/. The Triton frontend is split along its seams:
//
//   TritonFrontend.cpp  lowerTritonSource: parsing, syntax-error recovery,
//                       one lowering per kernel and flag specialisation
//   Module.cpp          module scan: imports, module constants, jit function
//                       discovery, helpers, pointer parameters, flag planning
//   Expressions.cpp     FnLowerer: nodes, names, expressions, addresses
//   Calls.cpp           FnLowerer: parameters, calls (triton.language and
//                       methods), inlined helpers
//   Statements.cpp      FnLowerer: blocks, statements, guards, joins, loops
//   Launcher.cpp        launcher facts: what the plain-Python functions of
//                       the file that launch a kernel (`kernel[grid](...)`)
//                       pass it -- constants, names, table dtypes, grids
//   TreeDtypes.cpp      the integer dtypes every Python file of the scan
//                       gives tensors, by name, for the launcher's last word
//   TsUtil.cpp          tree-sitter helpers
//
// Facts learnt outside the @triton.jit functions reach a kernel's lowering
// through lowerFunction: collectLaunchFacts runs after scanModule and fills
// Module::Launches; FnLowerer::Launch copies them onto the Param/Symbolic
// leaves, tl.program_id and the element types of pointer parameters.
//
//===----------------------------------------------------------------------===//
#ifndef KVLINT_TRITON_LOWERING_H
#define KVLINT_TRITON_LOWERING_H

#include "kvlint/Frontend.h"
#include "project/Summary.h"

#include <tree_sitter/api.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

extern "C" const TSLanguage *tree_sitter_python(void);

namespace kvlint {
namespace triton {

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

// ---------------------------------------------------------------------------
// tree-sitter helpers (TsUtil.cpp).
// ---------------------------------------------------------------------------
inline bool is(TSNode N, const char *T) {
  return !ts_node_is_null(N) && !strcmp(ts_node_type(N), T);
}

std::vector<TSNode> kids(TSNode N);
TSNode field(TSNode N, const char *F);
std::vector<TSNode> fieldKids(TSNode N, const char *F);
/// N without the parentheses around it.
TSNode stripParens(TSNode N);
/// The source text of N ("" for a null node or a range outside Src).
std::string sourceText(const std::string &Src, TSNode N);
/// `a.b.c` of an identifier/attribute chain, as written, or "".
std::string dottedText(const std::string &Src, TSNode N, unsigned Depth = 0);
/// The value of a Python integer literal's text; false when it is not one
/// or does not fit 64 bits.
bool parseInt(const std::string &Text, int64_t &V);

/// Visits every node under Root without recursion.
template <typename Fn> void walk(TSNode Root, Fn &&F) {
  if (ts_node_is_null(Root)) return;
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

// ---------------------------------------------------------------------------
// The project summary's tensor arguments (ArgTensors.cpp).
// ---------------------------------------------------------------------------
/// CallSite::ArgTensors of Calls[First...], the calls of a function body
/// whose parameters are Params; Args holds each call's argument nodes.
void argTensors(const std::string &Src, TSNode Body, const std::vector<std::string> &Params,
                const std::vector<std::vector<TSNode>> &Args, std::vector<project::CallSite> &Calls,
                size_t First);

// ---------------------------------------------------------------------------
// Triton's types (Expressions.cpp).
// ---------------------------------------------------------------------------
inline IntTy i32() { return IntTy::integer(32, true); }
inline IntTy i64() { return IntTy::integer(64, true); }

bool dtypeByName(const std::string &S, IntTy &T, bool &IsFloat);
IntTy promoteInts(IntTy A, IntTy B);

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

/// What the launch sites of one kernel in the same file tell about it
/// (Launcher.cpp). Only facts every site agrees on are kept.
struct LaunchFacts {
  unsigned Sites = 0;
  std::map<std::string, ValueHint> Params; ///< scalar parameter -> range / name
  std::map<std::string, IntTy> Elem;       ///< pointer parameter -> element type
  /// pointer parameter -> (the sizes of the contiguous tensor every site
  /// passes, "M*N/128"; where the sites are): ValueHint::Extent
  std::map<std::string, std::pair<std::string, std::string>> Extent;
  /// A constexpr flag every site decides by an overflow check of the tensors
  /// it passes to Ptrs: `UPCAST_INDICES=should_upcast_indices(x, w, y)`,
  /// `use_64_indexing=(k.stride(0) * N >= 1 << 31 or ...)` (true where an
  /// offset may pass 2^31), `USE_BUFFER_LOAD=cache_bytes < MAX_BYTES` (true
  /// where every offset fits: FitsWhenTrue). In the specialization where the
  /// check passed, every offset into those pointers fits 32 bits.
  struct FlagGuard {
    std::vector<std::string> Ptrs;
    std::string Why; ///< for messages: the check and where the sites are
    bool FitsWhenTrue = false;
  };
  std::map<std::string, FlagGuard> FlagGuards;
  ValueHint Axis[3];                        ///< tl.program_id(axis) -> grid fact
  std::vector<CheckedProduct> Checked;      ///< products every site's asserts bound
};

/// The launch sites agree on one constant for the parameter.
inline bool pinnedHint(const ValueHint &H) {
  return H.HasRange && H.Lo == H.Hi && H.BoundBy.empty();
}

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
  std::vector<TSNode> PlainAll;            // every plain function and method
  std::map<uint32_t, LaunchFacts> Launches; // kernel def's start byte -> facts
  std::vector<std::pair<std::string, std::string>> JitWraps; // k = triton.jit(f)
  const Options &Opts;
  const TreeDtypes *Tree = nullptr; ///< dtypes the rest of the scan allocates
  /// The scan's project model, and this file's path as it knows it.
  const project::ProjectModel *Project = nullptr;
  std::string ProjectPath;
  unsigned LoadBits = 32;

  Module(std::string P, const std::string &S, const Options &O)
      : Path(std::move(P)), Src(S), Opts(O) {}
  /// An absent field's text is "" (`x: int` has no right side).
  std::string text(TSNode N) const { return sourceText(Src, N); }

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

/// The profile the file's launchers put Kernel in, and why (Statements.cpp).
Profile kernelProfile(const Module &M, const std::string &Kernel, std::string &Why);

// triton.language names (Module.cpp).
std::string tlMember(const std::string &Q);

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
  /// What the file's launchers pass this kernel, or null.
  const LaunchFacts *Launch = nullptr;
  bool Aborted = false;

  void lowerEntry(const JitFn &J);

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

  // --- nodes, names, expressions, addresses (Expressions.cpp) -------------
  SrcRange rng(TSNode N) const;
  Node *mk(Kind K, IntTy T, TSNode At, std::initializer_list<const Node *> Ops = {});
  std::string shortText(TSNode At) const;
  Node *unknown(TSNode At, const std::string &Name = "");
  Node *constant(int64_t V, TSNode At);
  Node *boolConst(bool V, TSNode At);
  bool isWeak(const Node *N) const;
  static const Node *strip(const Node *N);
  static bool constOf(const Node *N, int64_t &V);
  bool pinnedByLaunch(const std::string &Name) const;
  static std::vector<Guard> commonExits(const std::vector<std::vector<Guard>> &Paths);
  IntTy promote(const Node *A, const Node *B) const;
  Val useName(const std::string &Name, TSNode At);
  Val use(const Val &V, const std::string &Name, TSNode At);
  Val global(const std::string &Name, TSNode At);
  const Node *asNode(const Val &V, TSNode At);
  Val expr(TSNode E);
  Val exprImpl(TSNode E);
  Val select(const Node *C, const Val &A, const Val &B, TSNode At);
  Val comparison(TSNode E);
  Val binop(const std::string &Op, const Val &LV, const Val &RV, TSNode At);
  void inheritPtr(const Node *To, const Node *From);
  IntTy elemOf(const Node *Addr);
  static std::string baseName(const Node *Addr);
  void wantPointer(const Node *Addr);
  std::vector<const Node *> *stridesOf(const Node *N);
  /// Records an access and returns its address as recorded: an untyped
  /// one is made a pointer (asAddress), so loads should use it too.
  const Node *recordAccess(AccessKind AK, const Node *Addr, const Node *Mask, const Node *Other,
                           TSNode At);

  // --- parameters and calls (Calls.cpp) -----------------------------------
  void bindParams(TSNode Def, const std::vector<Val> *Pos,
                  const std::map<std::string, Val> *Kw, Env &Out);
  IntTy annotatedType(TSNode TypeN) const;
  Args lowerArgs(TSNode ArgList);
  const Node *nodeArg(const Args &A, size_t I, const char *Name, TSNode At);
  Val cast(const Val &V, const Val *To, TSNode At);
  const Node *blockOffset(const Val &Offs, const std::vector<const Node *> &Strides,
                          const std::vector<TSNode> &OffNs, TSNode At);
  Val widenCoords(const Val &V);
  const Node *extendCoord(const Node *N, TSNode At);
  std::vector<TSNode> tupleNodes(TSNode N);
  Val call(TSNode E);
  Val memoryRead(const Val &From, TSNode E);
  Val opaqueCall(const std::string &Name, const Args &A, TSNode E);
  Val inlineCall(const JitFn &J, TSNode E, TSNode ArgList);
  Val importedCall(const project::Definition &H, TSNode E, TSNode ArgList);
  Val programId(const Node *AxN, TSNode E, int64_t Ax = 0);

  // --- statements, joins and loops (Statements.cpp) -----------------------
  void bind(TSNode Target, const Val &V);
  /// Exits, when given, receives the early exits the block's own
  /// statements added (they hold after it, on the path through it).
  bool block(TSNode B, std::vector<Guard> *Exits = nullptr);
  void noteDepth();
  bool stmt(TSNode S);
  void assignment(TSNode A);
  void augAssignment(TSNode A);
  bool ifStmt(TSNode S);
  Env merge(std::vector<Env> &Outs, TSNode At);
  Val join(const std::vector<Val> &Alts, const std::string &Name, TSNode At);
  Node *phi(const std::vector<const Node *> &Ns, const std::string &Name, TSNode At);
  bool carriesValues(TSNode At) const;
  template <typename BodyFn> void loop(TSNode At, BodyFn &&Body);
  void forStmt(TSNode S);
  void whileStmt(TSNode S);
};

// ---------------------------------------------------------------------------
// Module scan (Module.cpp).
// ---------------------------------------------------------------------------
void addJit(Module &M, const std::string &Name, TSNode Def);
void scanModule(Module &M, TSNode Block, unsigned Depth);
void markHelpers(Module &M);
std::set<std::string> pointerParams(const Module &M, const JitFn &J);

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

FlagPlan planFlags(const Module &M, const JitFn &J);

// ---------------------------------------------------------------------------
// Launcher facts (Launcher.cpp).
// ---------------------------------------------------------------------------
/// Reads the launches `kernel[grid](args...)` in the file's plain functions
/// (Module::PlainAll) and fills Module::Launches.
void collectLaunchFacts(Module &M);

/// A kernel of another module as launches in this one see it: its key there
/// (the def's start byte) and its parameters, in order.
struct ForeignKernel {
  uint32_t Key = 0;
  std::vector<std::string> Params;
};
/// The launch facts of M's launches of Targets' kernels (by the text the
/// launches call each by), into Out by the kernels' keys (Launcher.cpp).
void collectForeignLaunchFacts(Module &M, const std::map<std::string, ForeignKernel> &Targets,
                               std::map<uint32_t, LaunchFacts> &Out);
/// Two launch sites' facts for one value: ranges join, a name must agree.
ValueHint joinSiteHints(const ValueHint &A, const ValueHint &B);
/// The text tree-sitter parses (TritonFrontend.cpp): UTF-8, latin-1
/// transcoded (Back maps bytes back), CR-only lines read as newlines.
bool decodeSource(const std::string &Src, std::string &Text, std::vector<uint32_t> &Back,
                  std::string &Why);
/// A kernel definition's parameters by name, up to a `*args`.
std::vector<std::string> kernelParamNames(Module &M, TSNode Def);
/// The launches of M's kernels in other files of the project
/// (ForeignLaunches.cpp): their facts joined into M.Launches.
void joinForeignLaunches(Module &M);

/// The integer type a dotted dtype name denotes (`torch.int64`, `torch.long`,
/// `np.int32`), unknown for anything else (floats, bool, a variable). Shared
/// by the launcher (TreeDtypes.cpp).
IntTy integerDtype(const std::string &Dotted);

} // namespace triton
} // namespace kvlint

#endif // KVLINT_TRITON_LOWERING_H
