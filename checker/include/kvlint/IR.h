//===- IR.h - the kvlint kernel IR ------------------------------*- C++ -*-===//
//
// One small IR that every frontend lowers into and every rule reads.
//
// A function is a set of memory accesses. Each access has an address (a
// pointer expression), the guard facts that hold where it executes, and, for
// Triton, its mask and `other=` value. Values are an expression DAG of Nodes;
// every Node carries its evaluated integer type (as the source language
// computes it: C++ usual arithmetic conversions, Triton promotion) and the
// source range it was written at.
//
// Frontends only lower: they never decide whether something is a bug.
//
//===----------------------------------------------------------------------===//
#ifndef KVLINT_IR_H
#define KVLINT_IR_H

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kvlint {

/// Whether S ends with Suffix: the frontends match callees, spellings and
/// paths by their last part (`x.cdiv`, `tl.program_id`, `kernel.cu`).
inline bool endsWith(std::string_view S, std::string_view Suffix) {
  return S.size() >= Suffix.size() && S.compare(S.size() - Suffix.size(), Suffix.size(), Suffix) == 0;
}

/// Why Src is not source text, or "" when it is: a control character other
/// than tab, newline, carriage return, form feed and vertical tab (random
/// bytes, a binary without NULs). A frontend does not analyse such a file.
std::string notSourceText(std::string_view Src);

/// Whether Src is valid UTF-8 (no overlong forms, no surrogates); when not,
/// At is the offset of the first byte that is not.
bool validUtf8(std::string_view Src, size_t &At);

enum class Language : uint8_t { Cpp, Cuda, Hip, Triton };
const char *languageName(Language L);

/// A position in a source file. Offset is the byte offset into the file and is
/// what fix-its use; Line/Col (1-based) are what diagnostics print.
struct SrcLoc {
  std::string File;
  unsigned Line = 0, Col = 0, Offset = 0;
  bool valid() const { return Line != 0; }
};

/// A half-open character range [Begin, End) in one file. InMacro is set when
/// the text is produced by a macro expansion, so no fix-it may edit it.
struct SrcRange {
  SrcLoc Begin, End;
  bool InMacro = false;
  bool valid() const { return Begin.valid(); }
};

/// The evaluated type of an integer or pointer value.
struct IntTy {
  uint8_t Bits = 0; ///< 0: unknown (dependent or unresolved), or a float
  bool Signed = true;
  bool Pointer = false; ///< a pointer / Triton pointer tensor
  bool Bool = false;    ///< result of a comparison or logical operator
  /// A floating-point value (Bits 0: it has no integer width). Arithmetic on
  /// it is no index math, and an integer converted from it is bounded by no
  /// fact of the expression that computed it.
  bool Float = false;

  static IntTy unknown() { return {}; }
  static IntTy floating() {
    IntTy T;
    T.Float = true;
    return T;
  }
  static IntTy integer(unsigned Bits, bool Signed) {
    IntTy T;
    T.Bits = uint8_t(Bits);
    T.Signed = Signed;
    return T;
  }
  static IntTy pointer() {
    IntTy T;
    T.Bits = 64;
    T.Signed = false;
    T.Pointer = true;
    return T;
  }
  static IntTy boolean() {
    IntTy T;
    T.Bits = 1;
    T.Signed = false;
    T.Bool = true;
    return T;
  }
  bool known() const { return Bits != 0; }
  bool narrow() const { return known() && !Pointer && Bits <= 32; }
};

/// What a frontend knows about a value from outside the expression that
/// computes it: the constants every launch site passes, the grid a launcher
/// shows, a dtype the launcher gives a table. The bounds analysis
/// (Bounds.h) combines hints with the deployment envelope (Envelope.h);
/// frontends only record them and never judge.
struct ValueHint {
  bool HasRange = false;
  int64_t Lo = 0, Hi = 0; ///< the value lies in [Lo, Hi]
  std::string BoundBy;    ///< the value is below this quantity, a name the
                          ///< envelope maps to a dimension ("num_tokens")
  int64_t BoundDiv = 1;   ///< ... divided by this (rounded up): a grid of
                          ///< cdiv(n, BLOCK) programs
  std::string DivBy;      ///< ... divided (rounded up) by the function's own
                          ///< parameter of this name: a grid of cdiv(n, B)
                          ///< programs launched with B passed as that
                          ///< parameter, so index * B stays below n
  bool Shape = false;     ///< BoundBy is a product of the sizes of a contiguous
                          ///< tensor the launcher shows, the parameter its
                          ///< stride ("H*D"): an upper bound, not a name
  /// A pointer: the tensor it points to holds at most this product of
  /// sizes ("M*N/128": names, constants, a name divided by a constant), as
  /// the launcher allocates or asserts it contiguous. An in-bounds offset
  /// into it is below that (Bounds::extentOf).
  std::string Extent;
  std::string Source;     ///< where the fact was read, for messages
  bool any() const { return HasRange || !BoundBy.empty(); }
};

enum class Kind : uint8_t {
  // Leaves: where values come from.
  Const,     ///< integer literal or folded constant; Value holds it
  Symbolic,  ///< compile-time constant of unknown value (template/constexpr param)
  Param,     ///< function parameter, or a member read from one (Name)
  LaunchIdx, ///< blockIdx.*, tl.program_id
  ThreadIdx, ///< threadIdx.*, lane ids: bounded by the block size
  LaunchDim, ///< blockDim.* (bounded), gridDim.* / tl.num_programs (Value=1)
  Range,     ///< tl.arange(Lo, Hi): Value = Hi, bounded [Lo, Hi)
  Load,      ///< value read from memory; Ops[0] is the address; ElemTy
  Call,      ///< result of a call that was not inlined; Name = callee
  Unknown,   ///< anything the frontend could not describe (globals, floats)
  Var,       ///< a use of a local variable: Ops[0] is its value, Name its name

  // Integer arithmetic (Ty is the evaluated type of the operation).
  Add, Sub, Mul, Div, Rem, Shl, Shr, And, Or, Xor, Neg, BitNot, Min, Max,
  Cast,   ///< Ops[0] converted to Ty; Explicit tells a written cast
  Select, ///< Ops[0] ? Ops[1] : Ops[2] (also tl.where)
  Phi,    ///< a value merged at a join (branches, loop back-edges): any of Ops

  // Addresses.
  PtrAdd, ///< Ops[0] (pointer) + Ops[1] (offset in elements); also p[i], p - i

  // Conditions (Ty is boolean).
  Lt, Le, Gt, Ge, Eq, Ne, LAnd, LOr, LNot,
};
const char *kindName(Kind K);
bool isComparison(Kind K);

struct Node {
  Kind K = Kind::Unknown;
  IntTy Ty;
  std::vector<const Node *> Ops;
  int64_t Value = 0;   ///< Const: the value; Range: the upper bound
  int64_t Value2 = 0;  ///< Range: the lower bound
  std::string Name;    ///< Param/Var/Call/Load base/launch var ("blockIdx.x")
  std::string Text;    ///< source text as written (may be shortened); messages
  SrcRange Range;      ///< where this expression is written
  bool Explicit = false; ///< Cast: written in the source (not implicit)
  IntTy ElemTy;        ///< Load: element type of the memory read
  ValueHint Hint;      ///< facts from outside the body (launch sites, grids)
  SrcRange DeclType;   ///< Var: the declared type of the local, as spelled;
                       ///< Call (inlined): the helper's return type
  bool OnChip = false; ///< an array in shared memory or registers: its extent is
                       ///< at most what a CTA holds, far below 2^31 elements
  /// Mul/Shl of a compound assignment (`x *= k`): Ops[0] is the variable
  /// itself, an lvalue no cast may wrap; widening x's declaration is the fix.
  bool Compound = false;
  /// A member (Param or Unknown): the object named before the dot (`smem` in
  /// `smem.state`, `params` in `this->params.h`), "this" for a member of
  /// `this`, "(expr)" for a member of another expression; empty otherwise.
  std::string Object;
  /// Call whose callee cannot be resolved (a member call on an object of
  /// dependent type: `binfo.q_offset(seqlen * h * d, h * d, bidb)`): its
  /// lowered arguments, the only thing the result can be computed from.
  /// Not in Ops, which holds an inlined callee's value.
  std::vector<const Node *> Args;

  const Node *op(unsigned I) const { return I < Ops.size() ? Ops[I] : nullptr; }
};

/// A condition known to hold where an access executes. Negated means the
/// condition is known to be false there (the else branch, code after
/// `if (c) return;`). Mask guards are Triton masks: they hold per lane.
struct Guard {
  const Node *Cond = nullptr;
  bool Negated = false;
  enum Origin : uint8_t { If, EarlyExit, Loop, Ternary, Logical, Mask } How = If;
};

enum class AccessKind : uint8_t {
  Load,    ///< memory read
  Store,   ///< memory write
  Address, ///< pointer formed (p + off) but not dereferenced here
};

struct Access {
  AccessKind AK = AccessKind::Load;
  const Node *Addr = nullptr; ///< a pointer expression (usually PtrAdd)
  std::vector<Guard> Guards;
  const Node *Mask = nullptr;  ///< Triton: mask= of tl.load/tl.store
  const Node *Other = nullptr; ///< Triton: other= of tl.load
  const Node *Value = nullptr; ///< Store: the value written, when the frontend sees one
                               ///< (an assignment's right side, tl.store's value)
  SrcRange Range;              ///< the whole access expression
  /// Store (C++): the statement the store is written in, from its first
  /// character through its ';' (`k_cache[i] = k[j];`), when it is an
  /// expression statement of the function itself (not of an inlined helper,
  /// not in a macro); invalid otherwise. Fix-its that guard the store wrap it.
  SrcRange Stmt;
  /// The leading whitespace of the line Stmt begins on (the file's
  /// indentation there), for fix-its that add lines around it.
  std::string Indent;
};

/// A barrier or warp collective the function executes (`__syncthreads()`,
/// `__syncwarp`, `cg::sync`, `__shfl_*_sync`, `__ballot_sync`,
/// `tl.debug_barrier()`): a thread that returns early before one leaves the
/// others waiting (or reading an undefined lane). Fix-its never add an early
/// return before one.
struct SyncPoint {
  std::string Name; ///< the callee as written
  SrcLoc Loc;
};

/// The deployment profile a function is judged in (docs/envelope.md):
/// inference (a serving step) or training (a varlen training batch).
/// Unknown: no fact says; the rules take the configured default.
enum class Profile : uint8_t { Unknown, Inference, Training };

/// A fact about the code around a function that its own body does not show:
/// a name and why it holds, for messages ("'slot_mapping': kernel
/// 'pad_slots' stores -1 into it (file.py:12)").
struct NamedFact {
  std::string Name; ///< normalised (ProjectFacts::norm)
  std::string Why;
};

/// Facts about the file and tree a function is in, filled after every
/// function of the file is lowered (shareFileFacts) and from tree-wide facts
/// the frontends gather; a project model may add cross-file ones later.
struct ProjectFacts {
  /// Tables the project writes a negative pad into (a kernel stores -1 or
  /// PAD_SLOT_ID; `fill_(-1)`, `torch.full(..., -1)` in Python).
  std::vector<NamedFact> PadWritten;
  /// Tables a consumer tests for the pad (`if (slot < 0) return;`).
  std::vector<NamedFact> PadChecked;
  /// Row widths some function bounds a block-table column by
  /// (`if (col >= block_table_stride)`).
  std::vector<NamedFact> GuardedWidths;

  /// A table or parameter name as the facts key it: lower case, without a
  /// `_ptr` suffix or a plural `s` (`slot_mappings_ptr` -> `slot_mapping`).
  static std::string norm(const std::string &Name);
  static const NamedFact *find(const std::vector<NamedFact> &In, const std::string &Name);
};

/// A product that host code checks before it launches the function
/// (`TORCH_CHECK(n * h * d <= INT_MAX)`, a checked-product helper): every
/// product of a subset of these factors, each at least 1, is at most Max.
/// Factors are the function's own names for the values (parameters,
/// members), or gridFactor(axis) for the grid's extent along an axis.
struct CheckedProduct {
  std::vector<std::string> Factors;
  int64_t Max = 0;
  std::string Source; ///< where the check is, for messages
};

/// The checked-product factor that stands for the launch grid's extent
/// along Axis (0..2): a launch index along it is below it.
inline std::string gridFactor(unsigned Axis) { return std::string("@grid_") + char('x' + Axis); }

/// How deep a value may nest: the longest chain of operands below it, a
/// def-use chain of locals (`a1 = a0 + 1; a2 = a1 + 1; ...`), nested `?:`,
/// an `else if` ladder's Phis and a long sum included. Every analysis and
/// rule walks values recursively, so a frontend cuts what is deeper
/// (Function::capDepth): the value at the cut becomes Unknown, what nothing
/// bounds, and the function says where (Function::Limits). Ordinary kernels
/// stay far below it; the deepest in test/ and examples/ is under 100.
inline constexpr unsigned MaxNodeDepth = 512;

/// A lowered function. Owns its nodes.
struct Function {
  std::string Name;
  Language Lang = Language::Cpp;
  bool IsKernel = false;    ///< __global__ / @triton.jit entry
  SrcRange Range;           ///< the function's name
  std::vector<Access> Accesses;
  std::vector<CheckedProduct> Checked; ///< host checks on its sizes
  /// What the frontend could not follow in this function, one line each
  /// without a file prefix ("expression nesting beyond 512 levels at line
  /// 7: analysed as unknown"): the driver reports them as notes on the file.
  std::vector<std::string> Limits;

  /// Cuts every value nested deeper than MaxDepth operands (MaxNodeDepth):
  /// the node becomes an Unknown leaf (its type, range, text and name kept),
  /// so no walk over the IR recurses deeper. The cut falls on a local's use
  /// or a join (Var, Phi) where the chain has one, else at 2 * MaxDepth. Records one line in Limits when
  /// anything was cut. Iterative; linear in the nodes. Returns the count cut.
  unsigned capDepth(unsigned MaxDepth = MaxNodeDepth);
  /// Adds a line to Limits unless it is there already.
  void noteLimit(const std::string &Line);

  /// Calls Fn on every source location the function holds (its own, its
  /// accesses' and its nodes'): a frontend that parsed a transcoded copy of
  /// a file (latin-1 under a coding cookie) maps them back to the file's
  /// bytes, where fix-its apply.
  template <typename Fn> void forEachLoc(Fn &&F) {
    auto Both = [&](SrcRange &R) {
      F(R.Begin);
      F(R.End);
    };
    Both(Range);
    for (Access &A : Accesses)
      Both(A.Range);
    for (Node &N : Nodes) {
      Both(N.Range);
      Both(N.DeclType);
    }
  }
  std::vector<SyncPoint> Syncs;        ///< barriers and warp collectives it executes
  ProjectFacts Facts;                  ///< what the file and the tree show around it
  /// The profile its callers put it in (a kernel reached only from an
  /// autograd.Function's forward/backward is Training), and why.
  Profile Prof = Profile::Unknown;
  std::string ProfileWhy;

  template <typename... Args> Node *make(Kind K, IntTy Ty, Args &&...Ops) {
    Nodes.emplace_back();
    Node *N = &Nodes.back();
    N->K = K;
    N->Ty = Ty;
    (N->Ops.push_back(Ops), ...);
    return N;
  }

private:
  std::deque<Node> Nodes; // stable addresses
};

/// Fills every function's Facts with what the file's functions show about
/// each other (a kernel that stores the pad into a table, a consumer that
/// tests it, a width a sibling bounds a column by), plus Extra (tree-wide
/// facts the frontend gathered, already in PadWritten form).
void shareFileFacts(std::vector<std::unique_ptr<Function>> &Fns,
                    const std::vector<NamedFact> *ExtraPadWritten = nullptr);

/// Looks through Var nodes (a use of a local is its assigned value).
const Node *stripVars(const Node *N);

/// The address of a load or store is a pointer, even where the frontend
/// could not type it (a pointer returned by a call into another module:
/// `p = _load_ptr(...)`, then `tl.load(p + row * stride + col)`). In an
/// untyped `Add` chain, the one operand that is not a known integer is the
/// pointer, and the chain is rebuilt as PtrAdds on it. Returns Addr itself
/// when it is typed, or when the pointer operand cannot be told.
const Node *asAddress(Function &F, const Node *Addr);

/// Prints a node as an S-expression; for tests and debugging.
std::string dump(const Node *N);

} // namespace kvlint

#endif
