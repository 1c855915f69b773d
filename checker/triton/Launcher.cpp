//===- Launcher.cpp - what a file's launchers tell about its kernels -----===//
//
// The plain-Python functions of a file launch its kernels:
// `kernel[grid](args...)`. What they pass is a fact about the kernel that its
// body cannot show:
//
//  * a scalar parameter every launch site passes as a constant (an int
//    literal, a module constant, a local bound only to constants): the union
//    of those values, ValueHint::HasRange on the parameter;
//  * otherwise the name of what the sites pass (`n=num_tokens`, `T=T` after
//    `B, T, H, K = k.shape`, `x.shape[0]` once the shape was unpacked into a
//    name): ValueHint::BoundBy, for the envelope to map to a dimension;
//  * the element type of a table passed to a pointer parameter
//    (`x.to(torch.int32)`, `x.long()`, a local made by
//    `torch.empty(..., dtype=torch.int64)`): the ElemTy of loads through it;
//  * the grid along each axis, for tl.program_id(axis): a constant grid
//    bounds the id, a name bounds it (`(num_tokens,)`), and
//    `triton.cdiv(n, BLOCK)` / `(n + B - 1) // B` bounds it by n / BLOCK.
//
// Several sites must agree, else the fact is dropped (ranges are joined).
// Nothing here judges: lowering copies the facts onto the IR's nodes
// (ValueHint, ElemTy) and the bounds analysis weighs them. All evaluation is
// bounded (depth and work), so hostile or broken code neither crashes nor
// hangs the scan.
//
//===----------------------------------------------------------------------===//
#include "Lowering.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <deque>
#include <functional>

namespace kvlint {
namespace triton {

namespace {

constexpr unsigned MaxEvalDepth = 12;     // nested names/expressions evaluated
constexpr unsigned MaxScopeDepth = 8;     // nested function definitions
constexpr unsigned MaxEvalWork = 4000;    // evaluation steps per launch site
constexpr size_t MaxScopeNodes = 200000;  // syntax nodes indexed per scope

struct Rng {
  int64_t Lo = 0, Hi = 0;
};

/// The upper end of a range known only from below (next_power_of_2 of an
/// unknown). Intermediate results may carry it; facts never do.
constexpr int64_t Unbounded = int64_t(1) << 62;

bool fits(__int128 V) { return V >= INT64_MIN && V <= INT64_MAX; }

std::string stringValue(const Module &M, TSNode S) {
  if (!is(S, "string")) return "";
  std::string T = M.text(S);
  size_t B = T.find_first_of("'\""), E = T.find_last_of("'\"");
  if (B == std::string::npos || E <= B) return "";
  return T.substr(B + 1, E - B - 1);
}

/// A function body's bindings: what each local name is assigned, with a
/// null node for bindings that are not a plain `name = expr` (loops,
/// augmented assignments, unpacking of anything but a tuple or a shape).
struct Scope {
  const Scope *Parent = nullptr;
  std::set<std::string> Params;
  std::map<std::string, std::vector<TSNode>> Binds;
  std::map<std::string, std::vector<TSNode>> Defs; // nested def name -> defs
  /// ("k", 1) -> "T" for `B, T, H, K = k.shape` or `T = k.shape[1]`; also
  /// ("k", -3) for the same dimension counted from the end.
  std::map<std::pair<std::string, int64_t>, std::string> ShapeNames;
  /// `assert NK == 1`, `assert D <= 512`, `assert Lk in {16, 32, 64}`: the
  /// range a launcher asserts for a local or a parameter.
  std::map<std::string, std::pair<Rng, uint32_t>> Asserted; ///< range, where
  std::set<std::string> Contiguous; ///< `assert x.is_contiguous()`
  /// `if T <= 4096: k[grid](...)`: what a branch's condition says of a name,
  /// for the launches in [Begin, End) (the branch; after an `if` whose body
  /// returns or raises, the rest of the block, under the negation).
  struct BranchFact {
    std::string Name;
    Rng R;
    uint32_t Begin = 0, End = 0;
    /// Where the condition was evaluated, when before the branch: a flag
    /// bound above (`short = T <= 4096` ... `if short:`). The name must not
    /// be bound again from there on.
    uint32_t From = UINT32_MAX;
  };
  std::vector<BranchFact> Branch;
  std::map<std::string, std::vector<uint32_t>> BindAt; ///< where each name is bound
  /// `assert n_rows * x.stride(0) < 2**31`: the factors' expressions, the
  /// largest value of their product, where the assert is.
  struct ProductAssert {
    std::vector<TSNode> Factors;
    int64_t Max = 0;
    uint32_t At = 0;
  };
  std::vector<ProductAssert> Products;
  std::vector<TSNode> Launches; // kernel[grid](...) calls in this body
  std::vector<TSNode> Nested;   // nested function definitions
};

/// One `kernel[grid](...)` call.
struct Site {
  TSNode Call{};
  TSNode Grid{};
  const Scope *S = nullptr;
  std::vector<TSNode> Pos;
  std::map<std::string, TSNode> Kw;
  /// Per Pos entry: -1, or which element of a splatted `*x.stride()` or
  /// `*x.shape` (the Pos entry) the position receives.
  std::vector<int> Splat;
  bool StarPos = false, StarKw = false;
  unsigned Line = 0;
};

/// A kernel parameter as the launcher sees it.
struct KParam {
  std::string Name;
  TSNode Default{};
};

/// What one site passes for one parameter.
struct ArgFact {
  enum { None, Const, Name } K = None;
  Rng R;
  std::string Nm;
  bool Shape = false; ///< Nm is a product of a tensor's sizes (strideOf)
  IntTy Elem;
  /// A contiguous tensor the launcher shows the sizes of: their product
  /// ("M*N/128"), the most elements an in-bounds offset into it reaches.
  std::string Extent;
};

class Launcher {
public:
  explicit Launcher(Module &M) : M(M), Into(&M.Launches) {}
  /// Foreign mode: the launches in M of kernels of another module, called
  /// by the texts Targets names; their facts go to Out, by the kernels' keys.
  Launcher(Module &M, const std::map<std::string, ForeignKernel> &Targets,
           std::map<uint32_t, LaunchFacts> &Out)
      : M(M), Foreign(&Targets), Into(&Out) {}
  void run();

private:
  Module &M;
  const std::map<std::string, ForeignKernel> *Foreign = nullptr;
  std::map<uint32_t, LaunchFacts> *Into;
  std::deque<Scope> Scopes;
  unsigned Work = 0;

  // --- scopes ---------------------------------------------------------------
  void indexScope(TSNode Def, const Scope *Parent, unsigned Depth);
  void bindTarget(Scope &S, TSNode T, TSNode Value);
  void bindNull(Scope &S, TSNode T);
  void assertFacts(Scope &S, TSNode C, unsigned D);
  void condFacts(const Scope &S, TSNode C, bool Neg, std::vector<std::pair<std::string, Rng>> &Out,
                 unsigned D);
  std::string comparisonOp(TSNode C);
  bool comparisonFact(TSNode C, bool Neg, std::string &Name, Rng &R);
  void branchFacts(Scope &S, TSNode If);
  static const std::vector<TSNode> *lookup(const Scope *S, const std::string &N, bool &IsParam);
  std::vector<CheckedProduct> siteChecks(const Site &St, const std::vector<KParam> &Ps,
                                         const std::string &File);
  TSNode reboundParam(const Scope *S, const std::string &N, std::vector<TSNode> &Above);

  // --- evaluation -----------------------------------------------------------
  bool budget() { return ++Work <= MaxEvalWork; }
  /// Where condFacts last followed a flag to the condition it was bound to.
  uint32_t CondFrom = UINT32_MAX;
  /// Where the launch being evaluated is: asserts count above it only.
  uint32_t SiteAt = UINT32_MAX;
  bool constRange(TSNode E, const Scope *S, Rng &R, unsigned D);
  /// Whether N is bound in [From, SiteAt) in S or a scope up to Upto.
  bool reboundBetween(const Scope *S, const Scope *Upto, const std::string &N, uint32_t From) const {
    for (const Scope *Y = S; Y; Y = Y->Parent) {
      auto B = Y->BindAt.find(N);
      if (B != Y->BindAt.end())
        for (uint32_t At : B->second)
          if (At >= From && At < SiteAt) return true;
      if (Y == Upto) break;
    }
    return false;
  }
  bool constRangeImpl(TSNode E, const Scope *S, Rng &R, unsigned D);
  std::string valueName(TSNode E, const Scope *S, unsigned D);
  std::string productNames(TSNode E, const Scope *S);
  std::string strideOf(TSNode A, const Scope *S);
  std::vector<std::string> contiguousSizes(const std::string &X, const Scope *S, unsigned D);
  bool shapeIndex(TSNode E, std::string &Obj, int64_t &Idx);
  IntTy torchDtype(TSNode E);
  IntTy dtypeOf(TSNode E, const Scope *S, unsigned D);

  // --- grids ----------------------------------------------------------------
  bool gridAxes(TSNode G, const Site &St, const Scope *S, std::vector<ValueHint> &Axes,
                unsigned D);
  bool tupleAxes(TSNode T, const Site &St, const Scope *S, const std::string &Meta,
                 std::vector<ValueHint> &Axes);
  ValueHint axisFact(TSNode E, const Site &St, const Scope *S, const std::string &Meta,
                     unsigned Depth = 0);
  int64_t divisor(TSNode B, const Site &St, const Scope *S, const std::string &Meta);
  std::string divisorParam(TSNode B, const Site &St, const std::string &Meta);
  /// The launched kernel's parameters, while its sites' grids are read.
  const std::vector<KParam> *SiteParams = nullptr;

  // --- sites ----------------------------------------------------------------
  bool mentionsLaunch(TSNode Def, bool OrWalrus = false) const;
  std::string launchedName(TSNode SubscriptValue) const;
  std::vector<KParam> kernelParams(TSNode Def);

public:
  std::vector<KParam> params(TSNode Def) { return kernelParams(Def); }

private:
  Site site(TSNode Call, const Scope *S);
  std::vector<Site> sites(TSNode Call, const Scope *S);
  bool splatDicts(TSNode E, const Scope *S, std::vector<std::map<std::string, TSNode>> &Out);
  bool dictLiteral(TSNode D, std::map<std::string, TSNode> &Out);
  ArgFact argFact(const Site &St, const KParam &P, size_t Index);
  int rankOf(TSNode Obj, const Scope *S);
  int splatWidth(TSNode E, const Scope *S);
  ArgFact splatFact(TSNode Splat, int I, const Scope *S);
};

// ---------------------------------------------------------------------------
// Scopes
// ---------------------------------------------------------------------------

void Launcher::bindNull(Scope &S, TSNode T) {
  if (is(T, "identifier")) {
    S.Binds[M.text(T)].push_back(TSNode{});
    S.BindAt[M.text(T)].push_back(ts_node_start_byte(T));
    return;
  }
  std::vector<TSNode> Work = {T};
  size_t Seen = 0;
  while (!Work.empty() && ++Seen < 256) {
    TSNode N = Work.back();
    Work.pop_back();
    if (is(N, "identifier")) {
      S.Binds[M.text(N)].push_back(TSNode{});
      S.BindAt[M.text(N)].push_back(ts_node_start_byte(N));
    } else if (!is(N, "attribute") && !is(N, "subscript"))
      for (TSNode K : kids(N)) Work.push_back(K);
  }
}

void Launcher::bindTarget(Scope &S, TSNode T, TSNode Value) {
  T = stripParens(T);
  TSNode V = stripParens(Value);
  if (is(T, "identifier")) {
    std::string N = M.text(T);
    S.Binds[N].push_back(Value);
    S.BindAt[N].push_back(ts_node_start_byte(T));
    std::string Obj;
    int64_t Idx;
    if (shapeIndex(V, Obj, Idx)) S.ShapeNames.emplace(std::make_pair(Obj, Idx), N);
    return;
  }
  if (is(T, "pattern_list") || is(T, "tuple_pattern") || is(T, "list_pattern") ||
      is(T, "tuple") || is(T, "expression_list")) {
    std::vector<TSNode> Ts = kids(T);
    bool Star = false;
    for (TSNode X : Ts) Star |= is(X, "list_splat_pattern") || is(X, "list_splat");
    // a, b = x, y
    if (!Star && (is(V, "tuple") || is(V, "expression_list") || is(V, "list"))) {
      std::vector<TSNode> Vs = kids(V);
      if (Vs.size() == Ts.size()) {
        for (size_t I = 0; I < Ts.size(); ++I) bindTarget(S, Ts[I], Vs[I]);
        return;
      }
    }
    // B, T, H, K = k.shape (or k.size())
    TSNode ShapeOf{};
    if (is(V, "attribute") && M.text(field(V, "attribute")) == "shape")
      ShapeOf = field(V, "object");
    if (is(V, "call") && is(field(V, "function"), "attribute") &&
        M.text(field(field(V, "function"), "attribute")) == "size" &&
        kids(field(V, "arguments")).empty())
      ShapeOf = field(field(V, "function"), "object");
    if (!Star && !ts_node_is_null(ShapeOf)) {
      std::string Obj = M.text(ShapeOf);
      int64_t N = int64_t(Ts.size());
      for (int64_t I = 0; I < N; ++I) {
        if (is(Ts[I], "identifier") && M.text(Ts[I]) != "_") {
          S.ShapeNames.emplace(std::make_pair(Obj, I), M.text(Ts[I]));
          S.ShapeNames.emplace(std::make_pair(Obj, I - N), M.text(Ts[I]));
        }
        bindNull(S, Ts[I]);
      }
      return;
    }
    for (TSNode X : Ts) bindNull(S, X);
    return;
  }
  // Attributes and subscripts as targets do not bind names.
  if (!is(T, "attribute") && !is(T, "subscript")) bindNull(S, T);
}

/// C op x is x op' C.
static std::string mirrorOp(const std::string &O) {
  return O == "<" ? ">" : O == "<=" ? ">=" : O == ">" ? "<" : O == ">=" ? "<=" : O;
}

/// What `assert c` says of a name: c is `x == C`, `x <= C`, `x < C` (or
/// mirrored), `x in (C1, C2, ...)`, or an `and` of those. Constants only;
/// an assert on two names says nothing here.
void Launcher::assertFacts(Scope &S, TSNode C, unsigned D) {
  C = stripParens(C);
  if (D > 8) return;
  if (is(C, "boolean_operator") && M.text(field(C, "operator")) == "and") {
    assertFacts(S, field(C, "left"), D + 1);
    assertFacts(S, field(C, "right"), D + 1);
    return;
  }
  if (is(C, "call")) { // assert x.is_contiguous()
    TSNode F = field(C, "function");
    if (is(F, "attribute") && M.text(field(F, "attribute")) == "is_contiguous" &&
        is(field(F, "object"), "identifier") && kids(field(C, "arguments")).empty())
      S.Contiguous.insert(M.text(field(F, "object")));
    return;
  }
  if (!is(C, "comparison_operator")) return;
  std::string Op = comparisonOp(C);
  if (Op.empty()) return; // chained comparisons (0 < x < 8) are left out
  std::vector<TSNode> Ks = kids(C);
  TSNode L = stripParens(Ks[0]), R = stripParens(Ks[1]);
  uint32_t At = ts_node_start_byte(C);
  auto IsProduct = [&](TSNode N) {
    return is(N, "binary_operator") && M.text(field(N, "operator")) == "*";
  };
  if (IsProduct(L) || IsProduct(R)) { // assert n * s < 2**31 (or mirrored)
    bool PFlip = !IsProduct(L);
    TSNode P = PFlip ? R : L, Cn = PFlip ? L : R;
    std::string POp = PFlip ? mirrorOp(Op) : Op;
    Rng CR;
    if (!constRange(Cn, nullptr, CR, 0) || CR.Lo != CR.Hi || (POp != "<" && POp != "<=")) return;
    Scope::ProductAssert PA;
    PA.Max = POp == "<" ? CR.Lo - 1 : CR.Lo;
    PA.At = At;
    std::vector<TSNode> Work = {P};
    while (!Work.empty() && PA.Factors.size() < 8) {
      TSNode N = stripParens(Work.back());
      Work.pop_back();
      if (IsProduct(N)) {
        Work.push_back(field(N, "right"));
        Work.push_back(field(N, "left"));
        continue;
      }
      Rng K;
      if (constRange(N, nullptr, K, 0) && K.Lo == K.Hi && K.Lo >= 1) {
        PA.Max /= K.Lo;
        continue;
      }
      PA.Factors.push_back(N);
    }
    if (PA.Factors.size() >= 2 && PA.Max > 0) S.Products.push_back(std::move(PA));
    return;
  }
  std::string Name;
  Rng X;
  if (!comparisonFact(C, false, Name, X)) return;
  auto It = S.Asserted.find(Name);
  if (It == S.Asserted.end()) S.Asserted[Name] = {X, At};
  else It->second = {{std::max(It->second.first.Lo, X.Lo), std::min(It->second.first.Hi, X.Hi)},
                     std::max(It->second.second, At)};
}

/// The operator of a comparison of two operands (`<`, `in`, `not in`);
/// empty for a chained one (`0 < x < 8`).
std::string Launcher::comparisonOp(TSNode C) {
  if (kids(C).size() != 2) return "";
  std::string Op;
  for (uint32_t I = 0; I < ts_node_child_count(C); ++I) {
    TSNode K = ts_node_child(C, I);
    if (!ts_node_is_named(K)) Op += (Op.empty() ? "" : " ") + M.text(K);
  }
  return Op;
}

/// What one comparison (Neg: its negation) says of a name from above: `x
/// == C`, `x <= C`, `x < C` (or mirrored; sizes are not negative, so a bound
/// from above is a range from 0), `x in (C1, C2, ...)` (not negated).
bool Launcher::comparisonFact(TSNode C, bool Neg, std::string &Name, Rng &R) {
  if (!is(C, "comparison_operator")) return false;
  std::string Op = comparisonOp(C);
  if (Op.empty()) return false;
  std::vector<TSNode> Ks = kids(C);
  TSNode L = stripParens(Ks[0]), Rt = stripParens(Ks[1]);
  if (Op == "in" && !Neg && is(L, "identifier") &&
      (is(Rt, "tuple") || is(Rt, "list") || is(Rt, "set"))) {
    Rng U{INT64_MAX, INT64_MIN};
    for (TSNode E : kids(Rt)) {
      Rng X;
      if (!constRange(E, nullptr, X, 0)) return false;
      U = {std::min(U.Lo, X.Lo), std::max(U.Hi, X.Hi)};
    }
    if (U.Lo > U.Hi) return false;
    Name = M.text(L);
    R = U;
    return true;
  }
  auto Negate = [](const std::string &O) -> std::string {
    return O == "<" ? ">=" : O == "<=" ? ">" : O == ">" ? "<=" : O == ">=" ? "<" : O == "==" ? "!=" : "";
  };
  bool Flip = !is(L, "identifier");
  if (Flip) std::swap(L, Rt);
  Rng X;
  if (!is(L, "identifier") || !constRange(Rt, nullptr, X, 0) || X.Lo != X.Hi) return false;
  if (Flip) Op = mirrorOp(Op);
  if (Neg) Op = Negate(Op);
  int64_t V = X.Lo;
  Name = M.text(L);
  if (Op == "==") R = {V, V};
  else if (Op == "<=" && V >= 0) R = {0, V};
  else if (Op == "<" && V >= 1) R = {0, V - 1};
  else return false;
  return true;
}

/// What a branch condition (negated: its else) says of names: upper bounds
/// only, from `x <= C`, `x < C`, `x == C`, `x in (C1, ...)` (or mirrored), an
/// `and` of them (negated: an `or`), `not c`, and a local bound once to such
/// a condition (`use_short = T <= 4096; if use_short:`).
void Launcher::condFacts(const Scope &S, TSNode C, bool Neg,
                         std::vector<std::pair<std::string, Rng>> &Out, unsigned D) {
  C = stripParens(C);
  if (D > 8 || Out.size() > 16) return;
  if (is(C, "not_operator")) {
    condFacts(S, field(C, "argument"), !Neg, Out, D + 1);
    return;
  }
  if (is(C, "boolean_operator")) {
    std::string Op = M.text(field(C, "operator"));
    if ((Op == "and" && !Neg) || (Op == "or" && Neg)) {
      condFacts(S, field(C, "left"), Neg, Out, D + 1);
      condFacts(S, field(C, "right"), Neg, Out, D + 1);
    }
    return;
  }
  if (is(C, "identifier")) {
    // A flag: the one condition it is bound to. Bindings to the literal
    // that makes the branch not run say nothing of it (`use_short = T <=
    // 4096`, then `if IS_NPU and ...: use_short = False`, then `if use_short:`).
    bool IsParam;
    const std::vector<TSNode> *Bs = lookup(&S, M.text(C), IsParam);
    if (IsParam || !Bs || Bs->empty() || Bs->size() > 8) return;
    TSNode Only{};
    unsigned Conds = 0;
    for (TSNode B : *Bs) {
      if (ts_node_is_null(B)) return;
      if (is(stripParens(B), Neg ? "true" : "false")) continue;
      Only = B;
      ++Conds;
    }
    if (Conds != 1) return;
    CondFrom = std::min(CondFrom, ts_node_start_byte(Only));
    condFacts(S, Only, Neg, Out, D + 1);
    return;
  }
  std::string Name;
  Rng X;
  if (comparisonFact(C, Neg, Name, X)) Out.push_back({Name, X});
}

/// The facts an `if` statement gives its branches: its condition in its
/// body, each `elif`'s with the negations of the conditions above it, the
/// negations of all of them in the `else`; and, when the body ends in
/// `return` or `raise` and there is no other branch, the negation for the
/// rest of the enclosing block.
void Launcher::branchFacts(Scope &S, TSNode If) {
  std::vector<std::pair<std::string, Rng>> Negs; // negations of the conditions so far
  // Where the conditions were evaluated: a flag's binding, above the `if`.
  CondFrom = UINT32_MAX;
  auto Add = [&](const std::vector<std::pair<std::string, Rng>> &Fs, TSNode Body) {
    if (ts_node_is_null(Body)) return;
    for (const auto &[N, R] : Fs)
      if (S.Branch.size() < 256)
        S.Branch.push_back({N, R, ts_node_start_byte(Body), ts_node_end_byte(Body), CondFrom});
  };
  std::vector<std::pair<std::string, Rng>> Own;
  condFacts(S, field(If, "condition"), false, Own, 0);
  Add(Own, field(If, "consequence"));
  condFacts(S, field(If, "condition"), true, Negs, 0);
  bool Other = false;
  for (TSNode K : kids(If)) {
    if (is(K, "elif_clause")) {
      Other = true;
      std::vector<std::pair<std::string, Rng>> Fs = Negs;
      condFacts(S, field(K, "condition"), false, Fs, 0);
      Add(Fs, field(K, "consequence"));
      condFacts(S, field(K, "condition"), true, Negs, 0);
    } else if (is(K, "else_clause")) {
      Other = true;
      Add(Negs, field(K, "body"));
    }
  }
  // if T > 4096: raise ...  (the rest of the block runs under T <= 4096)
  TSNode Body = field(If, "consequence");
  TSNode Parent = ts_node_parent(If);
  if (Other || ts_node_is_null(Body) || ts_node_is_null(Parent)) return;
  uint32_t NK = ts_node_named_child_count(Body);
  TSNode Last = NK ? ts_node_named_child(Body, NK - 1) : TSNode{};
  if (ts_node_is_null(Last) || !(is(Last, "return_statement") || is(Last, "raise_statement"))) return;
  for (const auto &[N, R] : Negs)
    if (S.Branch.size() < 256)
      S.Branch.push_back({N, R, ts_node_end_byte(If), ts_node_end_byte(Parent), CondFrom});
}

/// Indexes one function body (not the bodies nested in it, which become
/// scopes of their own), and the scopes nested in it.
void Launcher::indexScope(TSNode Def, const Scope *Parent, unsigned Depth) {
  if (Depth > MaxScopeDepth) return;
  Scopes.emplace_back();
  Scope &S = Scopes.back();
  S.Parent = Parent;
  for (TSNode P : kids(field(Def, "parameters"))) {
    TSNode N = is(P, "identifier") ? P : field(P, "name");
    if (ts_node_is_null(N))
      for (TSNode K : kids(P))
        if (is(K, "identifier")) { N = K; break; }
    if (is(N, "identifier")) S.Params.insert(M.text(N));
  }
  std::vector<TSNode> Work = kids(field(Def, "body"));
  std::reverse(Work.begin(), Work.end());
  size_t Seen = 0;
  while (!Work.empty() && ++Seen < MaxScopeNodes) {
    TSNode N = Work.back();
    Work.pop_back();
    if (is(N, "function_definition")) {
      std::string Name = M.text(field(N, "name"));
      S.Defs[Name].push_back(N);
      S.Binds[Name].push_back(TSNode{});
      S.Nested.push_back(N);
      continue;
    }
    if (is(N, "class_definition")) {
      S.Binds[M.text(field(N, "name"))].push_back(TSNode{});
      continue;
    }
    // Their own scopes: names bound inside do not leak.
    if (is(N, "lambda") || is(N, "list_comprehension") || is(N, "set_comprehension") ||
        is(N, "dictionary_comprehension") || is(N, "generator_expression"))
      continue;
    if (is(N, "assignment")) {
      std::vector<TSNode> Targets = {field(N, "left")};
      TSNode R = field(N, "right");
      for (unsigned I = 0; I < 64 && is(R, "assignment"); ++I) {
        Targets.push_back(field(R, "left"));
        R = field(R, "right");
      }
      if (!ts_node_is_null(R))
        for (TSNode T : Targets) bindTarget(S, T, R);
      if (!ts_node_is_null(R)) Work.push_back(R); // launches in the value
      continue;
    } else if (is(N, "augmented_assignment")) {
      bindNull(S, field(N, "left"));
    } else if (is(N, "for_statement")) {
      bindNull(S, field(N, "left"));
    } else if (is(N, "named_expression")) {
      TSNode Nm = field(N, "name");
      if (is(Nm, "identifier")) {
        S.Binds[M.text(Nm)].push_back(field(N, "value"));
        S.BindAt[M.text(Nm)].push_back(ts_node_start_byte(Nm));
      }
    } else if (is(N, "as_pattern")) {
      TSNode A = field(N, "alias");
      if (!ts_node_is_null(A)) bindNull(S, A);
    } else if (is(N, "global_statement") || is(N, "nonlocal_statement") ||
               is(N, "import_statement") || is(N, "import_from_statement")) {
      bindNull(S, N);
      continue;
    } else if (is(N, "assert_statement")) {
      std::vector<TSNode> Ks = kids(N);
      if (!Ks.empty()) assertFacts(S, Ks[0], 0);
      continue;
    } else if (is(N, "if_statement")) {
      branchFacts(S, N);
    } else if (is(N, "call")) {
      TSNode Fn = field(N, "function");
      if (is(Fn, "subscript") &&
          (Foreign ? Foreign->count(launchedName(field(Fn, "value")))
                   : M.Jit.count(launchedName(field(Fn, "value")))))
        S.Launches.push_back(N);
    }
    // Statements are walked; an expression only when its text may hold a
    // launch or a walrus binding (most do not: this keeps the scan cheap).
    const char *Ty = ts_node_type(N);
    bool Structural = strstr(Ty, "statement") || strstr(Ty, "block") || strstr(Ty, "clause") ||
                      !strcmp(Ty, "decorated_definition") || !strcmp(Ty, "with_item") ||
                      !strcmp(Ty, "as_pattern");
    if (!Structural && !mentionsLaunch(N, true)) continue;
    std::vector<TSNode> Ks = kids(N);
    for (size_t I = Ks.size(); I-- > 0;) Work.push_back(Ks[I]);
  }
  const Scope *Self = &S; // std::deque keeps addresses stable
  std::vector<TSNode> Nested = S.Nested;
  for (TSNode D : Nested) indexScope(D, Self, Depth + 1);
}

/// The bindings of N seen from S (enclosing scopes included); IsParam when
/// N is a parameter there (its value comes from callers).
/// The value a parameter holds at the launch being evaluated when the
/// launcher rebinds it above the launch in straight-line code (a statement of
/// the function's body itself, the last such one before the launch, with no
/// other binding of the name between it and the launch); null otherwise, with
/// Above holding the bindings above the launch (null nodes for bindings
/// without a value: a loop target).
TSNode Launcher::reboundParam(const Scope *S, const std::string &N, std::vector<TSNode> &Above) {
  Above.clear();
  for (unsigned I = 0; S && I <= MaxScopeDepth + 1; S = S->Parent, ++I) {
    if (!S->Params.count(N))
      continue;
    auto It = S->Binds.find(N);
    if (It == S->Binds.end()) return TSNode{};
    TSNode Best{};
    uint32_t BestAt = 0, LastAny = 0;
    for (TSNode V : It->second) {
      if (ts_node_is_null(V)) { Above.push_back(V); continue; }
      uint32_t At = ts_node_start_byte(V);
      if (At >= SiteAt) continue;
      Above.push_back(V);
      LastAny = std::max(LastAny, At);
      TSNode A = ts_node_parent(V), St = ts_node_parent(A), Blk = ts_node_parent(St),
             Fn = ts_node_parent(Blk);
      bool Straight = is(A, "assignment") && is(St, "expression_statement") && is(Blk, "block") &&
                      is(Fn, "function_definition");
      if (Straight && At >= BestAt) {
        Best = V;
        BestAt = At;
      }
    }
    if (ts_node_is_null(Best) || LastAny > BestAt) return TSNode{};
    return Best;
  }
  return TSNode{};
}

const std::vector<TSNode> *Launcher::lookup(const Scope *S, const std::string &N, bool &IsParam) {
  IsParam = false;
  for (unsigned I = 0; S && I <= MaxScopeDepth + 1; S = S->Parent, ++I) {
    if (S->Params.count(N)) {
      IsParam = true;
      return nullptr;
    }
    auto It = S->Binds.find(N);
    if (It != S->Binds.end()) return &It->second;
  }
  return nullptr;
}

// ---------------------------------------------------------------------------
// Evaluation of host code
// ---------------------------------------------------------------------------

/// x.shape[i], x.size(i), x.shape[-1]: the object's text and the index.
bool Launcher::shapeIndex(TSNode E, std::string &Obj, int64_t &Idx) {
  E = stripParens(E);
  TSNode IdxN{};
  if (is(E, "subscript")) {
    TSNode V = field(E, "value");
    std::vector<TSNode> Subs = fieldKids(E, "subscript");
    if (!is(V, "attribute") || M.text(field(V, "attribute")) != "shape" || Subs.size() != 1)
      return false;
    Obj = M.text(field(V, "object"));
    IdxN = Subs[0];
  } else if (is(E, "call")) {
    TSNode Fn = field(E, "function");
    std::vector<TSNode> As = kids(field(E, "arguments"));
    if (!is(Fn, "attribute") || M.text(field(Fn, "attribute")) != "size" || As.size() != 1)
      return false;
    Obj = M.text(field(Fn, "object"));
    IdxN = As[0];
  } else {
    return false;
  }
  bool Neg = false;
  if (is(IdxN, "unary_operator") && M.text(field(IdxN, "operator")) == "-") {
    Neg = true;
    IdxN = field(IdxN, "argument");
  }
  if (!is(IdxN, "integer") || !parseInt(M.text(IdxN), Idx) || Idx > 64) return false;
  if (Neg) Idx = -Idx;
  return !Obj.empty() && Obj.size() < 200;
}

bool Launcher::constRange(TSNode E, const Scope *S, Rng &R, unsigned D) {
  if (!constRangeImpl(E, S, R, D)) return false;
  // Only the top level judges: inner levels may carry the open end.
  return D > 0 || (R.Hi < Unbounded && R.Lo > -Unbounded);
}

bool Launcher::constRangeImpl(TSNode E, const Scope *S, Rng &R, unsigned D) {
  if (D > MaxEvalDepth || !budget()) return false;
  E = stripParens(E);
  if (is(E, "integer")) {
    int64_t V;
    if (!parseInt(M.text(E), V)) return false;
    R = {V, V};
    return true;
  }
  if (is(E, "unary_operator")) {
    std::string Op = M.text(field(E, "operator"));
    Rng A;
    if (!constRange(field(E, "argument"), S, A, D + 1)) return false;
    if (Op == "+") { R = A; return true; }
    if (Op == "-" && A.Lo != INT64_MIN) { R = {-A.Hi, -A.Lo}; return true; }
    return false;
  }
  if (is(E, "binary_operator")) {
    std::string Op = M.text(field(E, "operator"));
    Rng A, B;
    if (!constRange(field(E, "left"), S, A, D + 1) || !constRange(field(E, "right"), S, B, D + 1))
      return false;
    __int128 C[4];
    if (Op == "+") {
      if (!fits((__int128)A.Lo + B.Lo) || !fits((__int128)A.Hi + B.Hi)) return false;
      R = {A.Lo + B.Lo, A.Hi + B.Hi};
      return true;
    }
    if (Op == "-") {
      if (!fits((__int128)A.Lo - B.Hi) || !fits((__int128)A.Hi - B.Lo)) return false;
      R = {A.Lo - B.Hi, A.Hi - B.Lo};
      if (A.Hi >= Unbounded || B.Hi >= Unbounded) R = {-Unbounded, Unbounded};
      return true;
    }
    if (Op == "*") {
      C[0] = (__int128)A.Lo * B.Lo; C[1] = (__int128)A.Lo * B.Hi;
      C[2] = (__int128)A.Hi * B.Lo; C[3] = (__int128)A.Hi * B.Hi;
    } else if (Op == "//" && B.Lo > 0 && A.Lo >= 0) {
      C[0] = A.Lo / B.Hi; C[1] = A.Lo / B.Hi; C[2] = A.Hi / B.Lo; C[3] = A.Hi / B.Lo;
    } else if (Op == "%" && B.Lo > 0 && A.Lo >= 0) {
      R = {0, std::min(A.Hi, B.Hi - 1)};
      if (A.Lo == A.Hi && B.Lo == B.Hi) R = {A.Lo % B.Lo, A.Lo % B.Lo};
      return true;
    } else if (Op == "<<" && B.Lo >= 0 && B.Hi <= 62 && A.Lo >= 0) {
      C[0] = C[1] = (__int128)A.Lo << B.Lo;
      C[2] = C[3] = (__int128)A.Hi << B.Hi;
    } else if (Op == "**" && A.Lo == A.Hi && B.Lo == B.Hi && B.Lo >= 0 && B.Lo <= 62 &&
               A.Lo >= 0 && A.Lo <= 16) { // 2**31
      __int128 P = 1;
      for (int64_t I = 0; I < B.Lo && P <= ((__int128)1 << 64); ++I) P *= A.Lo;
      C[0] = C[1] = C[2] = C[3] = P;
    } else {
      return false;
    }
    __int128 Lo = *std::min_element(C, C + 4), Hi = *std::max_element(C, C + 4);
    if (!fits(Lo) || !fits(Hi)) return false;
    R = {(int64_t)Lo, (int64_t)Hi};
    if (A.Hi >= Unbounded || B.Hi >= Unbounded) R.Hi = std::max(R.Hi, Unbounded); // stays open
    return true;
  }
  if (is(E, "conditional_expression")) {
    std::vector<TSNode> Ks = kids(E);
    Rng A, B;
    if (Ks.size() != 3 || !constRange(Ks[0], S, A, D + 1) || !constRange(Ks[2], S, B, D + 1))
      return false;
    R = {std::min(A.Lo, B.Lo), std::max(A.Hi, B.Hi)};
    return true;
  }
  if (is(E, "identifier")) {
    std::string N = M.text(E);
    // What the branches the launch is in say of the name (if T <= 4096:).
    bool InBranch = false;
    Rng BR{INT64_MIN, INT64_MAX};
    for (const Scope *X = S; X; X = X->Parent)
      for (const Scope::BranchFact &F : X->Branch)
        if (F.Name == N && F.Begin <= SiteAt && SiteAt < F.End) {
          // Not when the name is bound again between the condition and
          // the launch.
          if (reboundBetween(S, X, N, std::min(F.Begin, F.From))) continue;
          BR = {std::max(BR.Lo, F.R.Lo), std::min(BR.Hi, F.R.Hi)};
          InBranch = true;
        }
    // What the launcher asserts of the name (assert NK == 1) holds at the
    // launches below the assert, unless the name is bound again in between.
    // The innermost scope's assert decides alone; inside a branch, every
    // scope's narrows the branch's range.
    Rng First, All{INT64_MIN, INT64_MAX};
    bool Asserted = false;
    for (const Scope *X = S; X; X = X->Parent) {
      auto It = X->Asserted.find(N);
      if (It == X->Asserted.end()) continue;
      const Rng &A = It->second.first;
      if (A.Lo <= A.Hi && It->second.second < SiteAt && !reboundBetween(S, X, N, It->second.second)) {
        if (!Asserted) First = A;
        Asserted = true;
        All = {std::max(All.Lo, A.Lo), std::min(All.Hi, A.Hi)};
      }
    }
    if (InBranch && BR.Lo <= BR.Hi) {
      R = {std::max(BR.Lo, All.Lo), std::min(BR.Hi, All.Hi)};
      if (R.Lo <= R.Hi) return true;
    }
    if (Asserted) {
      R = First;
      return true;
    }
    bool IsParam;
    const std::vector<TSNode> *Bs = lookup(S, N, IsParam);
    if (IsParam) return false;
    if (Bs) {
      if (Bs->empty() || Bs->size() > 16) return false;
      bool First = true;
      for (TSNode B : *Bs) {
        Rng X;
        if (ts_node_is_null(B) || !constRange(B, S, X, D + 1)) return false;
        R = First ? X : Rng{std::min(R.Lo, X.Lo), std::max(R.Hi, X.Hi)};
        First = false;
      }
      return true;
    }
    // A module constant (evaluated without locals).
    auto G = M.GlobalExprs.find(N);
    if (G == M.GlobalExprs.end()) return false;
    return constRange(G->second, nullptr, R, D + 1);
  }
  if (is(E, "call")) {
    std::string Q = M.qualify(field(E, "function"), nullptr);
    std::string Last = Q.substr(Q.rfind('.') == std::string::npos ? 0 : Q.rfind('.') + 1);
    std::vector<TSNode> As = kids(field(E, "arguments"));
    for (TSNode A : As)
      if (is(A, "keyword_argument") || is(A, "list_splat") || is(A, "dictionary_splat"))
        return false;
    // n.bit_length() of a known n >= 0: the bit lengths of its ends
    // (`1 << (n.bit_length() - 1)`, the largest power of two <= n).
    if (TSNode Fn = field(E, "function");
        As.empty() && is(Fn, "attribute") && M.text(field(Fn, "attribute")) == "bit_length") {
      Rng X;
      if (!constRange(field(Fn, "object"), S, X, D + 1) || X.Lo < 0 || X.Hi >= Unbounded) return false;
      auto Bits = [](int64_t V) { int64_t B = 0; while (V > 0) { ++B; V >>= 1; } return B; };
      R = {Bits(X.Lo), Bits(X.Hi)};
      return true;
    }
    std::vector<Rng> Vs;
    bool SomeUnknown = false;
    for (TSNode A : As) {
      Rng X;
      if (!constRange(A, S, X, D + 1)) {
        // next_power_of_2(n) is at least 1 whatever n is: with a min() of a
        // constant around it (BD = min(MAX_FUSED, next_power_of_2(D))) it is
        // a bounded block size.
        if (Last == "next_power_of_2" && As.size() == 1) {
          R = {1, Unbounded};
          return true;
        }
        // min(16, n // m): at most 16 whatever n // m is.
        if (Q == "min" && As.size() >= 2) {
          SomeUnknown = true;
          continue;
        }
        return false;
      }
      Vs.push_back(X);
    }
    if (SomeUnknown) {
      if (Vs.empty()) return false;
      R = {INT64_MIN, Vs[0].Hi};
      for (const Rng &X : Vs) R.Hi = std::min(R.Hi, X.Hi);
      return true;
    }
    if ((Q == "min" || Q == "max") && Vs.size() >= 2) {
      R = Vs[0];
      for (const Rng &X : Vs)
        R = Q == "min" ? Rng{std::min(R.Lo, X.Lo), std::min(R.Hi, X.Hi)}
                       : Rng{std::max(R.Lo, X.Lo), std::max(R.Hi, X.Hi)};
      return true;
    }
    if (Q == "int" && Vs.size() == 1) { R = Vs[0]; return true; }
    if (Last == "next_power_of_2" && Vs.size() == 1 && Vs[0].Lo >= 0 && Vs[0].Hi >= Unbounded) {
      R = {1, Unbounded};
      return true;
    }
    if (Last == "next_power_of_2" && Vs.size() == 1 && Vs[0].Lo >= 0 && Vs[0].Hi <= (1ll << 40)) {
      auto P2 = [](int64_t V) { int64_t P = 1; while (P < V) P <<= 1; return P; };
      R = {P2(Vs[0].Lo), P2(Vs[0].Hi)};
      return true;
    }
    if (Last == "cdiv" && Vs.size() == 2 && Vs[1].Lo > 0 && Vs[0].Lo >= 0 &&
        Vs[0].Hi < (INT64_MAX / 2)) {
      R = {(Vs[0].Lo + Vs[1].Hi - 1) / Vs[1].Hi, (Vs[0].Hi + Vs[1].Lo - 1) / Vs[1].Lo};
      return true;
    }
  }
  return false;
}

/// The name a launcher's value goes by: an identifier, the last attribute
/// (`self.num_heads`), a shape entry unpacked into a name (`k.shape[1]`
/// after `B, T, H, K = k.shape`), `int(x)` of those.
std::string Launcher::valueName(TSNode E, const Scope *S, unsigned D) {
  if (D > 4) return "";
  E = stripParens(E);
  if (is(E, "identifier")) {
    std::string N = M.text(E);
    if (N == "None" || N == "True" || N == "False" || N == "self" || N == "_") return "";
    return N;
  }
  if (is(E, "attribute")) {
    std::string A = M.text(field(E, "attribute"));
    static const std::set<std::string> NotSizes = {"shape", "dtype", "device", "data", "T",
                                                   "is_cuda", "grad", "mT", "layout"};
    if (NotSizes.count(A)) return "";
    return A;
  }
  std::string Obj;
  int64_t Idx;
  if (shapeIndex(E, Obj, Idx)) {
    for (const Scope *X = S; X; X = X->Parent) {
      auto It = X->ShapeNames.find({Obj, Idx});
      if (It != X->ShapeNames.end()) return It->second;
    }
    return "";
  }
  if (is(E, "call") && M.text(field(E, "function")) == "int") {
    std::vector<TSNode> As = kids(field(E, "arguments"));
    if (As.size() == 1) return valueName(As[0], S, D + 1);
  }
  return "";
}

IntTy Launcher::torchDtype(TSNode E) {
  std::string Q = M.qualify(stripParens(E), nullptr);
  if (Q.rfind("torch.", 0) != 0) return IntTy();
  return integerDtype(Q);
}

/// The integer element type of a tensor expression, when the host code shows
/// it; unknown otherwise (floats included).
IntTy Launcher::dtypeOf(TSNode E, const Scope *S, unsigned D) {
  if (D > MaxEvalDepth || !budget()) return IntTy();
  E = stripParens(E);
  if (is(E, "subscript")) return dtypeOf(field(E, "value"), S, D + 1); // slices keep it
  // The scan's last word: what every tensor of this name is made as in the
  // scanned tree (a parameter of the launcher, a metadata attribute).
  auto Tree = [&](const std::string &N) { return M.Tree ? M.Tree->dtypeOf(N) : IntTy(); };
  if (is(E, "attribute")) return Tree(M.text(field(E, "attribute")));
  if (is(E, "identifier")) {
    bool IsParam;
    const std::vector<TSNode> *Bs = lookup(S, M.text(E), IsParam);
    if (IsParam) {
      // A parameter the launcher rebinds above the launch (`input_ids =
      // input_ids.to(torch.int64)`): that assignment decides, not what the
      // tree makes of the name elsewhere.
      std::vector<TSNode> Above;
      TSNode Last = reboundParam(S, M.text(E), Above);
      if (!ts_node_is_null(Last)) return dtypeOf(Last, S, D + 1);
      // Rebound on some paths only (`if ...: slot_mapping = torch.full(...,
      // dtype=torch.int64)`): the parameter's type and every rebinding's,
      // when they agree.
      IntTy T = Tree(M.text(E));
      for (TSNode V : Above) {
        IntTy X = ts_node_is_null(V) ? IntTy() : dtypeOf(V, S, D + 1);
        if (!X.known() || !T.known() || X.Bits != T.Bits || X.Signed != T.Signed) return IntTy();
      }
      return T;
    }
    if (!Bs || Bs->empty()) return Tree(M.text(E));
    if (Bs->size() > 16) return IntTy();
    IntTy T;
    for (TSNode B : *Bs) {
      IntTy X = ts_node_is_null(B) ? Tree(M.text(E)) : dtypeOf(B, S, D + 1);
      if (!X.known() || (T.known() && (X.Bits != T.Bits || X.Signed != T.Signed))) return IntTy();
      T = X;
    }
    return T;
  }
  if (!is(E, "call")) return IntTy();
  TSNode Fn = field(E, "function");
  std::vector<TSNode> As = kids(field(E, "arguments"));
  TSNode DTypeKw{};
  std::vector<TSNode> Pos;
  for (TSNode A : As) {
    if (is(A, "keyword_argument")) {
      if (M.text(field(A, "name")) == "dtype") DTypeKw = field(A, "value");
    } else {
      Pos.push_back(A);
    }
  }
  if (is(Fn, "attribute")) {
    std::string Meth = M.text(field(Fn, "attribute"));
    TSNode Obj = field(Fn, "object");
    std::string Q = M.qualify(Fn, nullptr);
    if (Q.rfind("torch.", 0) != 0) {
      // Methods on a tensor.
      if (Meth == "int") return IntTy::integer(32, true);
      if (Meth == "long") return IntTy::integer(64, true);
      if (Meth == "short") return IntTy::integer(16, true);
      if (Meth == "byte") return IntTy::integer(8, false);
      if (Meth == "to" || Meth == "view" || Meth == "type") {
        if (!ts_node_is_null(DTypeKw)) return torchDtype(DTypeKw);
        for (TSNode A : Pos) {
          IntTy T = torchDtype(A);
          if (T.known()) return T;
          // .to(other.dtype), .to(torch.float16): not an integer table.
          std::string Tx = M.text(A);
          if (Tx.find("dtype") != std::string::npos || Tx.rfind("torch.", 0) == 0) return IntTy();
        }
        return dtypeOf(Obj, S, D + 1); // .to(device), .view(-1)
      }
      static const std::set<std::string> Keep = {
          "contiguous", "flatten", "reshape", "view_as", "clone", "squeeze", "unsqueeze",
          "expand", "expand_as", "transpose", "t", "permute", "narrow", "cuda", "cpu",
          "detach", "repeat", "repeat_interleave", "select", "index_select", "__getitem__"};
      if (Keep.count(Meth)) return dtypeOf(Obj, S, D + 1);
      return IntTy();
    }
  }
  // torch.empty(..., dtype=torch.int64) and friends.
  std::string Q = M.qualify(Fn, nullptr);
  static const std::set<std::string> Makers = {
      "torch.empty", "torch.zeros", "torch.ones", "torch.full", "torch.arange",
      "torch.tensor", "torch.as_tensor", "torch.empty_strided", "torch.randint",
      "torch.empty_like", "torch.zeros_like", "torch.ones_like", "torch.full_like"};
  if (!Makers.count(Q)) return IntTy();
  if (!ts_node_is_null(DTypeKw)) return torchDtype(DTypeKw);
  if (Q.size() > 5 && endsWith(Q, "_like") && !Pos.empty())
    return dtypeOf(Pos[0], S, D + 1);
  // Integer ranges and random integers default to int64 (a table of
  // indices: kv_indices = torch.arange(total_tokens)).
  if (Q == "torch.arange" || Q == "torch.randint") {
    for (TSNode A : Pos)
      if (is(stripParens(A), "float")) return IntTy();
    return IntTy::integer(64, true);
  }
  return IntTy();
}

// ---------------------------------------------------------------------------
// Grids
// ---------------------------------------------------------------------------

/// The value of a block size in a grid: a constant, or META["BLOCK"] of a
/// grid function, which is the constant the launch passes as BLOCK. 1 when
/// unknown (n / 1 is still a bound).
int64_t Launcher::divisor(TSNode B, const Site &St, const Scope *S, const std::string &Meta) {
  B = stripParens(B);
  Rng R;
  if (is(B, "subscript") && !Meta.empty() && M.text(field(B, "value")) == Meta) {
    std::vector<TSNode> Subs = fieldKids(B, "subscript");
    std::string Key = Subs.size() == 1 ? stringValue(M, Subs[0]) : "";
    auto It = St.Kw.find(Key);
    if (It != St.Kw.end() && constRange(It->second, St.S, R, 0) && R.Lo >= 1) return R.Lo;
    return 1;
  }
  if (constRange(B, S, R, 0) && R.Lo >= 1) return R.Lo;
  return 1;
}

/// The kernel parameter a grid's block size is passed as, when it is not a
/// constant: META["BLOCK"] of a grid function is the parameter BLOCK; a
/// launcher's local is the parameter the same name is passed for
/// (`BLOCK_SIZE=BLOCK_SIZE`, or positionally). Empty when none or several.
std::string Launcher::divisorParam(TSNode B, const Site &St, const std::string &Meta) {
  B = stripParens(B);
  if (is(B, "subscript") && !Meta.empty() && M.text(field(B, "value")) == Meta) {
    std::vector<TSNode> Subs = fieldKids(B, "subscript");
    std::string Key = Subs.size() == 1 ? stringValue(M, Subs[0]) : "";
    if (SiteParams)
      for (const KParam &P : *SiteParams)
        if (P.Name == Key) return Key;
    return "";
  }
  if (!is(B, "identifier") || !SiteParams) return "";
  std::string T = M.text(B), Found;
  unsigned N = 0;
  for (size_t I = 0; I < SiteParams->size(); ++I) {
    const std::string &P = (*SiteParams)[I].Name;
    TSNode A{};
    auto It = St.Kw.find(P);
    if (It != St.Kw.end()) A = It->second;
    else if (I < St.Pos.size()) A = St.Pos[I];
    if (ts_node_is_null(A) || !is(stripParens(A), "identifier") || M.text(stripParens(A)) != T) continue;
    Found = P;
    ++N;
  }
  return N == 1 ? Found : "";
}

/// What a grid entry says about tl.program_id along its axis.
ValueHint Launcher::axisFact(TSNode E, const Site &St, const Scope *S, const std::string &Meta,
                             unsigned Depth) {
  ValueHint H;
  E = stripParens(E);
  Rng R;
  if (constRange(E, S, R, 0)) {
    if (R.Hi >= 1) {
      H.HasRange = true;
      H.Lo = 0;
      H.Hi = R.Hi - 1;
    }
    return H;
  }
  // cdiv(n, B), triton.cdiv(n, B), (n + B - 1) // B, n // B
  TSNode N{}, B{};
  if (is(E, "call")) {
    std::string Q = M.qualify(field(E, "function"), nullptr);
    std::vector<TSNode> As = kids(field(E, "arguments"));
    if ((Q == "cdiv" || (Q.size() > 5 && endsWith(Q, ".cdiv"))) &&
        As.size() == 2 && !is(As[0], "keyword_argument") && !is(As[1], "keyword_argument")) {
      N = As[0];
      B = As[1];
    } else if (Q == "min") {
      // min(n, C): at most C programs.
      int64_t Best = INT64_MAX;
      for (TSNode A : As) {
        Rng X;
        if (constRange(A, S, X, 0) && X.Hi >= 1) Best = std::min(Best, X.Hi);
      }
      if (Best != INT64_MAX) {
        H.HasRange = true;
        H.Lo = 0;
        H.Hi = Best - 1;
        return H;
      }
      // min(cdiv(numel, s), max_num_blocks): at most any of them; the last
      // one that says something (a cap is usually written last).
      for (auto It = As.rbegin(); It != As.rend() && Depth < 3; ++It) {
        if (is(*It, "keyword_argument")) continue;
        ValueHint Via = axisFact(*It, St, S, Meta, Depth + 1);
        if (Via.any()) return Via;
      }
      return H;
    }
  } else if (is(E, "binary_operator") && M.text(field(E, "operator")) == "//") {
    B = field(E, "right");
    TSNode L = stripParens(field(E, "left"));
    std::string BT = M.text(stripParens(B));
    N = L;
    // (n + B - 1) // B  and  (n + (B - 1)) // B
    if (is(L, "binary_operator")) {
      std::string Op = M.text(field(L, "operator"));
      TSNode LL = stripParens(field(L, "left")), LR = stripParens(field(L, "right"));
      if (Op == "-" && M.text(LR) == "1" && is(LL, "binary_operator") &&
          M.text(field(LL, "operator")) == "+" && M.text(stripParens(field(LL, "right"))) == BT)
        N = field(LL, "left");
      else if (Op == "+" && is(LR, "binary_operator") && M.text(field(LR, "operator")) == "-" &&
               M.text(stripParens(field(LR, "left"))) == BT &&
               M.text(stripParens(field(LR, "right"))) == "1")
        N = LL;
      else if (Op == "+") {
        // (n + 127) // 128: at most cdiv(n, 128) when the addend is below B.
        Rng C, Dv;
        if (constRange(LR, S, C, 0) && constRange(B, S, Dv, 0) && C.Lo >= 0 && C.Hi < Dv.Lo)
          N = LL;
      }
    }
  }
  if (!ts_node_is_null(N)) {
    int64_t Div = divisor(B, St, S, Meta);
    if (constRange(N, S, R, 0)) {
      if (R.Hi >= 1 && R.Lo >= 0) {
        H.HasRange = true;
        H.Lo = 0;
        H.Hi = (R.Hi + Div - 1) / Div - 1;
      }
      return H;
    }
    std::string Nm = valueName(N, S, 0);
    if (!Nm.empty()) {
      H.BoundBy = Nm;
      H.BoundDiv = Div;
      H.DivBy = divisorParam(B, St, Meta);
    }
    return H;
  }
  // NT = triton.cdiv(T, BT); grid = (NV, NT, B * H): the local's one
  // binding says more than its name.
  if (is(E, "identifier") && Depth < 3) {
    bool IsParam;
    const std::vector<TSNode> *Bs = lookup(S, M.text(E), IsParam);
    if (Bs && Bs->size() == 1 && !ts_node_is_null((*Bs)[0])) {
      TSNode R = stripParens((*Bs)[0]);
      bool Div = is(R, "binary_operator") && M.text(field(R, "operator")) == "//";
      std::string Q = is(R, "call") ? M.qualify(field(R, "function"), nullptr) : "";
      if (Div || Q == "cdiv" || Q == "min" ||
          (Q.size() > 5 && endsWith(Q, ".cdiv"))) {
        ValueHint Via = axisFact(R, St, S, "", Depth + 1);
        if (Via.any()) return Via;
      }
    }
  }
  std::string Nm = valueName(E, S, 0);
  if (Nm.empty()) Nm = productNames(E, S);
  if (!Nm.empty()) {
    H.BoundBy = Nm;
    return H;
  }
  // cdiv(N_CTX, BLOCK) * Z * H: a tile of rows of every (batch, head): the
  // product of the names over the tile.
  if (is(E, "binary_operator") && M.text(field(E, "operator")) == "*" && Depth < 3) {
    TSNode L = stripParens(field(E, "left")), R = stripParens(field(E, "right"));
    for (int Side = 0; Side < 2; ++Side) {
      TSNode Tile = Side ? R : L, Rest = Side ? L : R;
      ValueHint T = axisFact(Tile, St, S, Meta, Depth + 1);
      std::string RestN = valueName(Rest, S, 0);
      if (RestN.empty()) RestN = productNames(Rest, S);
      if (!T.HasRange && !T.BoundBy.empty() && T.BoundDiv > 1 && !RestN.empty()) {
        H.BoundBy = T.BoundBy + "*" + RestN;
        H.BoundDiv = T.BoundDiv;
        return H;
      }
    }
  }
  return H;
}

/// `B * H`, `B * H * 2` as "B*H*2": a grid axis that spans a product of
/// named sizes (and constants). Empty unless every factor is one.
std::string Launcher::productNames(TSNode E, const Scope *S) {
  std::vector<TSNode> Stack = {stripParens(E)};
  std::string Out;
  unsigned Factors = 0;
  while (!Stack.empty() && Factors < 6) {
    TSNode X = stripParens(Stack.back());
    Stack.pop_back();
    if (is(X, "binary_operator") && M.text(field(X, "operator")) == "*") {
      Stack.push_back(field(X, "right"));
      Stack.push_back(field(X, "left"));
      continue;
    }
    std::string F;
    Rng R;
    if (constRange(X, S, R, 0) && R.Lo == R.Hi && R.Hi >= 1)
      F = std::to_string(R.Hi);
    else
      F = valueName(X, S, 0);
    if (F.empty() || F.find('*') != std::string::npos) return "";
    Out += (Out.empty() ? "" : "*") + F;
    ++Factors;
  }
  return Stack.empty() && Factors >= 2 ? Out : "";
}

bool Launcher::tupleAxes(TSNode T, const Site &St, const Scope *S, const std::string &Meta,
                         std::vector<ValueHint> &Axes) {
  T = stripParens(T);
  if (!is(T, "tuple") && !is(T, "list") && !is(T, "expression_list")) return false;
  std::vector<TSNode> Es = kids(T);
  if (Es.empty() || Es.size() > 3) return false;
  Axes.clear();
  for (TSNode E : Es) {
    if (is(E, "list_splat")) return false;
    Axes.push_back(axisFact(E, St, S, Meta));
  }
  return true;
}

/// Merges what two grids (two bindings of `grid`, two launch sites) say about
/// one axis: ranges join, a bound by the same name keeps the smaller
/// divisor, anything else is no fact.
ValueHint mergeHint(const ValueHint &A, const ValueHint &B) {
  ValueHint H;
  if (A.HasRange && B.HasRange && A.BoundBy.empty() && B.BoundBy.empty()) {
    H.HasRange = true;
    H.Lo = std::min(A.Lo, B.Lo);
    H.Hi = std::max(A.Hi, B.Hi);
  } else if (!A.HasRange && !B.HasRange && !A.BoundBy.empty() && A.BoundBy == B.BoundBy) {
    H.BoundBy = A.BoundBy;
    H.BoundDiv = std::min(A.BoundDiv, B.BoundDiv);
    if (A.DivBy == B.DivBy) H.DivBy = A.DivBy;
  }
  H.Source = A.Source.empty() ? B.Source : A.Source;
  return H;
}

/// The grid of a launch: a tuple, or a name bound (in every binding) to a
/// tuple, a lambda returning one, or a nested def returning one.
bool Launcher::gridAxes(TSNode G, const Site &St, const Scope *S, std::vector<ValueHint> &Axes,
                        unsigned D) {
  if (D > 3 || !budget()) return false;
  G = stripParens(G);
  if (tupleAxes(G, St, S, "", Axes)) return true;
  if (is(G, "lambda")) {
    std::string Meta;
    std::vector<TSNode> Ps = kids(field(G, "parameters"));
    if (!Ps.empty() && is(Ps[0], "identifier")) Meta = M.text(Ps[0]);
    return tupleAxes(field(G, "body"), St, S, Meta, Axes);
  }
  if (!is(G, "identifier")) return false;
  std::string Name = M.text(G);
  bool IsParam;
  const std::vector<TSNode> *Bs = lookup(S, Name, IsParam);
  if (!Bs || Bs->empty()) return false;
  // Nested `def grid(meta): return (...)` of the scope that binds the name:
  // a binding without a value is one of them when they account for all.
  std::vector<TSNode> Defs;
  for (const Scope *X = S; X; X = X->Parent) {
    auto It = X->Binds.find(Name);
    if (It == X->Binds.end()) continue;
    auto DI = X->Defs.find(Name);
    if (DI != X->Defs.end()) Defs = DI->second;
    break;
  }
  size_t NullBinds = 0;
  for (TSNode B : *Bs) NullBinds += ts_node_is_null(B);
  // `grid = (...)` rebound before each launch of a function: the binding
  // that reaches this launch is the last one before it in a block that
  // holds the launch (straight-line host code).
  if (D == 0 && Bs->size() > 1) {
    TSNode Reaching{};
    uint32_t At = ts_node_start_byte(St.Call);
    for (TSNode B : *Bs) {
      if (ts_node_is_null(B) || ts_node_start_byte(B) >= At) continue;
      TSNode Block = B;
      for (unsigned I = 0; I < 4 && !ts_node_is_null(Block) && !is(Block, "block") &&
                           !is(Block, "module");
           ++I)
        Block = ts_node_parent(Block);
      if (ts_node_is_null(Block) || (!is(Block, "block") && !is(Block, "module")) ||
          ts_node_end_byte(Block) < At)
        continue;
      if (ts_node_is_null(Reaching) || ts_node_start_byte(B) > ts_node_start_byte(Reaching))
        Reaching = B;
    }
    // No other binding may sit between it and the launch (one in a
    // branch): a value, or a `def grid(meta)` (an `else:` below the launch
    // that defines its own grid is not between).
    auto Between = [&](TSNode X) {
      return ts_node_start_byte(X) > ts_node_start_byte(Reaching) && ts_node_start_byte(X) < At;
    };
    bool Cut = NullBinds != Defs.size();
    for (TSNode B : *Bs) Cut |= !ts_node_is_null(B) && Between(B);
    for (TSNode Df : Defs) Cut |= Between(Df);
    if (!ts_node_is_null(Reaching) && !Cut) return gridAxes(Reaching, St, S, Axes, D + 1);
  }
  if (Bs->size() > 8) return false;
  bool First = true;
  auto Merge = [&](std::vector<ValueHint> &Got) {
    if (First) {
      Axes = Got;
      First = false;
      return;
    }
    size_t N = std::max(Axes.size(), Got.size());
    std::vector<ValueHint> Out(N);
    for (size_t I = 0; I < N; ++I) {
      ValueHint Zero;
      Zero.HasRange = true; // a grid without this axis runs one program along it
      const ValueHint &A = I < Axes.size() ? Axes[I] : Zero;
      const ValueHint &B = I < Got.size() ? Got[I] : Zero;
      Out[I] = mergeHint(A, B);
    }
    Axes = Out;
  };
  for (TSNode B : *Bs) {
    if (ts_node_is_null(B)) continue;
    std::vector<ValueHint> Got;
    if (!gridAxes(B, St, S, Got, D + 1)) return false;
    Merge(Got);
  }
  // Every null binding must be one of the nested defs.
  if (NullBinds != Defs.size()) return false;
  for (TSNode Def : Defs) {
    std::string Meta;
    std::vector<TSNode> Ps = kids(field(Def, "parameters"));
    if (!Ps.empty() && is(Ps[0], "identifier")) Meta = M.text(Ps[0]);
    TSNode Ret{};
    unsigned Returns = 0;
    for (TSNode St2 : kids(field(Def, "body")))
      if (is(St2, "return_statement")) {
        ++Returns;
        std::vector<TSNode> Ks = kids(St2);
        if (!Ks.empty()) Ret = Ks[0];
      }
    if (Returns != 1 || ts_node_is_null(Ret)) return false;
    // The def's own locals are not indexed: names resolve in the enclosing
    // scope, which is where a grid function finds them (closures).
    std::vector<ValueHint> Got;
    if (!tupleAxes(Ret, St, S, Meta, Got)) return false;
    Merge(Got);
  }
  return !First;
}

// ---------------------------------------------------------------------------
// Sites
// ---------------------------------------------------------------------------

std::vector<KParam> Launcher::kernelParams(TSNode Def) {
  std::vector<KParam> Out;
  for (TSNode P : kids(field(Def, "parameters"))) {
    KParam K;
    TSNode N{};
    if (is(P, "identifier")) N = P;
    else if (is(P, "typed_parameter")) {
      for (TSNode X : kids(P))
        if (is(X, "identifier")) { N = X; break; }
    } else if (is(P, "default_parameter") || is(P, "typed_default_parameter")) {
      N = field(P, "name");
      K.Default = field(P, "value");
    } else if (is(P, "list_splat_pattern") || is(P, "dictionary_splat_pattern")) {
      break; // *args: later positions are not parameters by name
    } else {
      continue; // `*`, `/` separators
    }
    if (!is(N, "identifier")) break;
    K.Name = M.text(N);
    Out.push_back(K);
  }
  return Out;
}

Site Launcher::site(TSNode Call, const Scope *S) {
  Site St;
  St.Call = Call;
  St.S = S;
  St.Line = ts_node_start_point(Call).row + 1;
  TSNode Fn = field(Call, "function");
  std::vector<TSNode> Subs = fieldKids(Fn, "subscript");
  if (Subs.size() == 1) St.Grid = Subs[0];
  for (TSNode A : kids(field(Call, "arguments"))) {
    if (is(A, "keyword_argument")) {
      St.Kw[M.text(field(A, "name"))] = field(A, "value");
    } else if (is(A, "list_splat")) {
      std::vector<TSNode> Ks = kids(A);
      int N = St.StarPos || Ks.empty() ? 0 : splatWidth(Ks.back(), S);
      for (int I = 0; I < N; ++I) {
        St.Pos.push_back(A);
        St.Splat.push_back(I);
      }
      if (!N) St.StarPos = true;
    } else if (is(A, "dictionary_splat")) {
      St.StarKw = true;
    } else if (!St.StarPos) {
      St.Pos.push_back(A);
      St.Splat.push_back(-1);
    }
  }
  return St;
}

/// A dict literal with string keys (`{"BLOCK_SIZE_N": 128, ...}`), or
/// `dict(BLOCK_SIZE_N=128, ...)`: its entries. False for anything else (a
/// `**` inside, a computed key).
bool Launcher::dictLiteral(TSNode D, std::map<std::string, TSNode> &Out) {
  D = stripParens(D);
  Out.clear();
  if (is(D, "dictionary")) {
    for (TSNode P : kids(D)) {
      if (!is(P, "pair")) return false;
      std::string K = stringValue(M, field(P, "key"));
      if (K.empty()) return false;
      Out[K] = field(P, "value");
    }
    return true;
  }
  if (is(D, "call") && M.text(field(D, "function")) == "dict") {
    for (TSNode A : kids(field(D, "arguments"))) {
      if (!is(A, "keyword_argument")) return false;
      Out[M.text(field(A, "name"))] = field(A, "value");
    }
    return true;
  }
  return false;
}

/// What a `**E` of a launch passes: one entry map per way the launcher can
/// reach it. E is a local bound only to dict literals (`extra_kargs = {}`,
/// then `extra_kargs = {"waves_per_eu": 1}` on one platform: each binding is
/// a way), or a subscript of a local bound once to a dict of dict literals
/// (batch_invariant's `**configs[dtype]`: each inner dict is a way). False
/// when E is anything else, or the ways are too many.
bool Launcher::splatDicts(TSNode E, const Scope *S, std::vector<std::map<std::string, TSNode>> &Out) {
  E = stripParens(E);
  Out.clear();
  bool IsParam;
  if (is(E, "identifier")) {
    const std::vector<TSNode> *Bs = lookup(S, M.text(E), IsParam);
    if (IsParam || !Bs || Bs->empty() || Bs->size() > 4) return false;
    for (TSNode B : *Bs) {
      std::map<std::string, TSNode> D;
      if (ts_node_is_null(B) || !dictLiteral(B, D)) return false;
      Out.push_back(std::move(D));
    }
    return true;
  }
  if (is(E, "subscript")) {
    TSNode V = stripParens(field(E, "value"));
    if (!is(V, "identifier")) return false;
    const std::vector<TSNode> *Bs = lookup(S, M.text(V), IsParam);
    if (IsParam || !Bs || Bs->size() != 1 || ts_node_is_null((*Bs)[0])) return false;
    TSNode Outer = stripParens((*Bs)[0]);
    if (!is(Outer, "dictionary")) return false;
    for (TSNode P : kids(Outer)) {
      std::map<std::string, TSNode> D;
      if (!is(P, "pair") || !dictLiteral(field(P, "value"), D) || Out.size() >= 8) return false;
      Out.push_back(std::move(D));
    }
    return !Out.empty();
  }
  return false;
}

/// The sites of one launch: one, or one per way a `**` splat of dict
/// literals can pass its entries (splatDicts). Facts join across sites, so
/// each way bounds the kernel as a launch of its own would.
std::vector<Site> Launcher::sites(TSNode Call, const Scope *S) {
  Site Base = site(Call, S);
  if (!Base.StarKw || Base.StarPos) return {Base};
  std::vector<Site> Out = {Base};
  Out[0].StarKw = false;
  for (TSNode A : kids(field(Call, "arguments"))) {
    if (!is(A, "dictionary_splat")) continue;
    std::vector<TSNode> Ks = kids(A);
    std::vector<std::map<std::string, TSNode>> Ways;
    if (Ks.empty() || !splatDicts(Ks.back(), S, Ways) || Ways.empty() ||
        Out.size() * Ways.size() > 16)
      return {Base};
    std::vector<Site> Next;
    for (const Site &St : Out)
      for (const auto &W : Ways) {
        Site X = St;
        for (const auto &[K, V] : W)
          if (!X.Kw.count(K)) X.Kw[K] = V;
        Next.push_back(std::move(X));
      }
    Out = std::move(Next);
  }
  return Out;
}

/// The product asserts above a site, each factor named as the kernel names
/// it: the parameter the site passes the same expression to, or the grid
/// axis whose extent it is (gridFactor: a launch index along it is below it).
/// A factor neither is left out (the rest is still bounded); one parameter
/// at most INT32_MAX says nothing its type does not.
std::vector<CheckedProduct> Launcher::siteChecks(const Site &St, const std::vector<KParam> &Ps,
                                                 const std::string &File) {
  std::vector<CheckedProduct> Out;
  auto Text = [&](TSNode N) { return M.text(stripParens(N)); };
  std::vector<TSNode> GridAxes;
  TSNode G = stripParens(St.Grid);
  if (!ts_node_is_null(G) && is(G, "identifier")) {
    bool IsParam;
    const std::vector<TSNode> *Bs = lookup(St.S, M.text(G), IsParam);
    G = Bs && Bs->size() == 1 && !ts_node_is_null((*Bs)[0]) ? stripParens((*Bs)[0]) : TSNode{};
  }
  if (!ts_node_is_null(G) && (is(G, "tuple") || is(G, "list"))) GridAxes = kids(G);
  for (const Scope *X = St.S; X; X = X->Parent)
    for (const Scope::ProductAssert &PA : X->Products) {
      if (PA.At >= SiteAt) continue;
      CheckedProduct C;
      C.Max = PA.Max;
      for (TSNode F : PA.Factors) {
        std::string FT = Text(F), Name;
        for (size_t I = 0; I < Ps.size() && Name.empty(); ++I) {
          auto It = St.Kw.find(Ps[I].Name);
          TSNode A = It != St.Kw.end() ? It->second : I < St.Pos.size() ? St.Pos[I] : TSNode{};
          if (!ts_node_is_null(A) && Text(A) == FT) Name = Ps[I].Name;
        }
        for (size_t Ax = 0; Ax < GridAxes.size() && Ax < 3 && Name.empty(); ++Ax)
          if (Text(GridAxes[Ax]) == FT) Name = gridFactor(unsigned(Ax));
        if (!Name.empty()) C.Factors.push_back(Name);
      }
      if (C.Factors.empty() || (C.Factors.size() == 1 && C.Max >= INT32_MAX)) continue;
      C.Source = "assert at " + File + ":" + std::to_string(ts_node_start_point(PA.Factors[0]).row + 1);
      Out.push_back(std::move(C));
    }
  return Out;
}

/// The rank of a tensor the launcher shows: the sizes it allocates or
/// unpacks (`B, T, H = x.shape`), or the sizes a `.view(...)` /
/// `.reshape(...)` gives it. 0: not known.
int Launcher::rankOf(TSNode Obj, const Scope *S) {
  Obj = stripParens(Obj);
  if (is(Obj, "identifier")) {
    std::string X = M.text(Obj);
    std::vector<std::string> Sz = contiguousSizes(X, S, 0);
    if (!Sz.empty()) return int(Sz.size());
    for (const Scope *Y = S; Y; Y = Y->Parent) {
      int64_t N = 0;
      while (N < 8 && Y->ShapeNames.count({X, N})) ++N;
      if (N && Y->ShapeNames.count({X, -N}) && !Y->ShapeNames.count({X, N})) return int(N);
    }
    return 0;
  }
  if (is(Obj, "call") && is(field(Obj, "function"), "attribute")) {
    std::string Meth = M.text(field(field(Obj, "function"), "attribute"));
    if (Meth != "view" && Meth != "reshape") return 0;
    std::vector<TSNode> As = kids(field(Obj, "arguments"));
    if (As.size() == 1 && (is(stripParens(As[0]), "tuple") || is(stripParens(As[0]), "list")))
      As = kids(stripParens(As[0]));
    for (TSNode A : As)
      if (is(A, "keyword_argument") || is(A, "list_splat")) return 0;
    return As.size() <= 8 ? int(As.size()) : 0;
  }
  return 0;
}

/// How many positions a splatted `*x.stride()` or `*x.shape` fills: x's
/// rank when the launcher shows it, else 0 (the positions after it are
/// unknown).
int Launcher::splatWidth(TSNode E, const Scope *S) {
  E = stripParens(E);
  if (is(E, "call") && is(field(E, "function"), "attribute") &&
      M.text(field(field(E, "function"), "attribute")) == "stride" &&
      kids(field(E, "arguments")).empty())
    return rankOf(field(field(E, "function"), "object"), S);
  if (is(E, "attribute") && M.text(field(E, "attribute")) == "shape")
    return rankOf(field(E, "object"), S);
  return 0;
}

/// What element I of a splatted `*x.stride()` / `*x.shape` is: a stride of a
/// contiguous tensor the launcher shows the sizes of (strideOf), a size the
/// launcher unpacked into a name.
ArgFact Launcher::splatFact(TSNode Splat, int I, const Scope *S) {
  ArgFact F;
  std::vector<TSNode> Ks = kids(Splat);
  if (Ks.empty()) return F;
  TSNode E = stripParens(Ks.back());
  if (is(E, "call")) { // x.stride()
    TSNode Obj = stripParens(field(field(E, "function"), "object"));
    if (!is(Obj, "identifier")) return F;
    std::vector<std::string> Sz = contiguousSizes(M.text(Obj), S, 0);
    if (I >= int(Sz.size())) return F;
    if (I == int(Sz.size()) - 1) {
      F.K = ArgFact::Const;
      F.R = {1, 1};
      return F;
    }
    std::string P;
    for (size_t J = size_t(I) + 1; J < Sz.size(); ++J) P += (P.empty() ? "" : "*") + Sz[J];
    F.K = ArgFact::Name;
    F.Nm = P;
    F.Shape = true;
    return F;
  }
  TSNode Obj = stripParens(field(E, "object")); // x.shape
  if (!is(Obj, "identifier")) return F;
  for (const Scope *Y = S; Y; Y = Y->Parent) {
    auto It = Y->ShapeNames.find({M.text(Obj), I});
    if (It != Y->ShapeNames.end()) {
      F.K = ArgFact::Name;
      F.Nm = It->second;
      return F;
    }
  }
  return F;
}

ArgFact Launcher::argFact(const Site &St, const KParam &P, size_t Index) {
  ArgFact F;
  TSNode A{};
  const Scope *S = St.S;
  auto It = St.Kw.find(P.Name);
  if (It == St.Kw.end() && Index < St.Pos.size() && Index < St.Splat.size() && St.Splat[Index] >= 0)
    return splatFact(St.Pos[Index], St.Splat[Index], S);
  if (It != St.Kw.end()) A = It->second;
  else if (Index < St.Pos.size()) A = St.Pos[Index];
  else if (St.StarPos || St.StarKw) return F; // passed through *args / **kwargs
  else if (!ts_node_is_null(P.Default)) {
    A = P.Default;
    S = nullptr; // a default is evaluated where the kernel is defined
  } else {
    return F; // autotuned, or a launch that does not run
  }
  Rng R;
  if (!is(stripParens(A), "true") && !is(stripParens(A), "false") && constRange(A, S, R, 0)) {
    F.K = ArgFact::Const;
    F.R = R;
  } else if (S) {
    std::string St = strideOf(A, S);
    if (St == "1") {
      F.K = ArgFact::Const;
      F.R = {1, 1};
    } else if (!St.empty()) {
      F.K = ArgFact::Name;
      F.Nm = St;
      F.Shape = true;
    } else {
      std::string N = valueName(A, S, 0);
      if (!N.empty()) {
        F.K = ArgFact::Name;
        F.Nm = N;
      }
    }
  }
  if (S) F.Elem = dtypeOf(A, S, 0);
  if (S && is(stripParens(A), "identifier")) {
    std::vector<std::string> Sz = contiguousSizes(M.text(stripParens(A)), S, 0);
    for (const std::string &Z : Sz) {
      if (Z == "?") { // reshape(-1, n): the outer size is unknown
        F.Extent.clear();
        break;
      }
      F.Extent += (F.Extent.empty() ? "" : "*") + Z;
    }
  }
  return F;
}

/// The sizes of a contiguous tensor the launcher shows, outermost first: one
/// it allocates (torch.empty(a, b, c), torch.zeros((a, b)), x.new_empty(...),
/// torch.empty(y.shape)), or one made contiguous (`y.contiguous()`,
/// `assert x.is_contiguous()`) whose shape the launcher unpacks (B, T, H, K =
/// x.shape). Each size is a constant (spelled in decimal) or a name; empty:
/// not known.
std::vector<std::string> Launcher::contiguousSizes(const std::string &X, const Scope *S,
                                                   unsigned D) {
  if (D > 3) return {};
  auto Unpacked = [&](const std::string &Obj) -> std::vector<std::string> {
    for (const Scope *Y = S; Y; Y = Y->Parent) {
      int64_t N = 0;
      while (N < 8 && Y->ShapeNames.count({Obj, N})) ++N;
      // A full unpacking records the dimensions from the end too.
      if (N && Y->ShapeNames.count({Obj, -N}) && !Y->ShapeNames.count({Obj, N})) {
        std::vector<std::string> Out;
        for (int64_t I = 0; I < N; ++I) Out.push_back(Y->ShapeNames.at({Obj, I}));
        return Out;
      }
    }
    return {};
  };
  // A size a local holds as the next power of two of another
  // (`block_size_t = triton.next_power_of_2(topk)`) is below twice it.
  auto PowerOfTwo = [&](TSNode E) -> std::string {
    E = stripParens(E);
    if (!is(E, "identifier")) return "";
    bool IsParam;
    const std::vector<TSNode> *Bs = lookup(S, M.text(E), IsParam);
    if (IsParam || !Bs || Bs->size() != 1 || ts_node_is_null((*Bs)[0])) return "";
    TSNode V = stripParens((*Bs)[0]);
    if (!is(V, "call")) return "";
    if (!endsWith(M.text(field(V, "function")), "next_power_of_2")) return "";
    std::vector<TSNode> As = kids(field(V, "arguments"));
    if (As.size() != 1) return "";
    std::string N = valueName(As[0], S, 1);
    return N.empty() || N.find('*') != std::string::npos ? "" : "2*" + N;
  };
  // A size spelled as an expression, as a product of factors: a constant,
  // a name, a name divided by a constant (`n // 128`, `triton.cdiv(n, 128)`,
  // `(n + 127) // 128`: "n/128", the envelope bounds n, then the
  // division), a product of those (`Z * H`), a local bound once to one of
  // those. Empty when it is anything else (a sum, a local bound twice).
  std::function<std::string(TSNode, unsigned)> term = [&](TSNode E, unsigned Dp) -> std::string {
    E = stripParens(E);
    if (Dp > 4 || ts_node_is_null(E)) return "";
    Rng R;
    if (constRange(E, S, R, 0)) return R.Lo == R.Hi && R.Lo >= 1 ? std::to_string(R.Lo) : "";
    if (is(E, "identifier")) {
      bool IsParam;
      const std::vector<TSNode> *Bs = lookup(S, M.text(E), IsParam);
      if (!IsParam && Bs && Bs->size() == 1 && !ts_node_is_null((*Bs)[0]))
        if (std::string T = term((*Bs)[0], Dp + 1); !T.empty()) return T;
      return valueName(E, S, 0);
    }
    TSNode Num{}, Den{};
    if (is(E, "binary_operator")) {
      std::string Op = M.text(field(E, "operator"));
      if (Op == "*") {
        std::string L = term(field(E, "left"), Dp + 1), Rt = term(field(E, "right"), Dp + 1);
        return L.empty() || Rt.empty() ? "" : L + "*" + Rt;
      }
      if (Op != "//") return valueName(E, S, 0);
      Num = stripParens(field(E, "left"));
      Den = field(E, "right");
      if (is(Num, "binary_operator") && M.text(field(Num, "operator")) == "+")
        Num = stripParens(field(Num, "left")); // (n + B - 1) // B
    } else if (is(E, "call") && endsWith(M.text(field(E, "function")), "cdiv")) {
      std::vector<TSNode> As = kids(field(E, "arguments"));
      if (As.size() != 2) return "";
      Num = As[0];
      Den = As[1];
    } else {
      return valueName(E, S, 0);
    }
    if (!constRange(Den, S, R, 0) || R.Lo != R.Hi || R.Lo < 1) return "";
    std::string N = term(Num, Dp + 1);
    if (N.empty()) return "";
    size_t Last = N.find_last_of('*');
    std::string Tail = Last == std::string::npos ? N : N.substr(Last + 1);
    if (Tail.find('/') != std::string::npos) return ""; // n // a // b: not one division
    return N + "/" + std::to_string(R.Lo);
  };
  auto Sizes = [&](const std::vector<TSNode> &Es) -> std::vector<std::string> {
    std::vector<std::string> Out;
    for (TSNode E : Es) {
      Rng R;
      if (constRange(E, S, R, 0) && R.Lo == R.Hi && R.Lo >= 1) {
        Out.push_back(std::to_string(R.Lo));
        continue;
      }
      if (std::string P = PowerOfTwo(E); !P.empty()) {
        Out.push_back(P);
        continue;
      }
      std::string N = valueName(E, S, 0);
      if (N.empty() || is(stripParens(E), "identifier")) N = term(E, 0);
      if (N.empty()) return {};
      Out.push_back(N);
    }
    return Out;
  };
  for (const Scope *Y = S; Y; Y = Y->Parent)
    if (Y->Contiguous.count(X)) return Unpacked(X);
  // The one binding of X (a parameter rebound as `x = x.contiguous()`
  // included).
  const std::vector<TSNode> *Bs = nullptr;
  for (const Scope *Y = S; Y && !Bs; Y = Y->Parent) {
    auto It = Y->Binds.find(X);
    if (It != Y->Binds.end()) Bs = &It->second;
    else if (Y->Params.count(X)) break;
  }
  if (!Bs || Bs->size() != 1 || ts_node_is_null((*Bs)[0])) return {};
  TSNode V = stripParens((*Bs)[0]);
  if (!is(V, "call")) return {};
  TSNode Fn = field(V, "function");
  std::vector<TSNode> Pos;
  for (TSNode A : kids(field(V, "arguments")))
    if (!is(A, "keyword_argument")) Pos.push_back(A);
  // y.contiguous(): y's unpacked shape.
  if (is(Fn, "attribute") && M.text(field(Fn, "attribute")) == "contiguous" && Pos.empty()) {
    TSNode Obj = stripParens(field(Fn, "object"));
    // y.reshape(-1, n).contiguous() / y.view(a, n).contiguous(): the sizes
    // it is given. The outermost may be -1 or anything: no stride is
    // the product of it.
    if (is(Obj, "call") && is(field(Obj, "function"), "attribute")) {
      std::string RM = M.text(field(field(Obj, "function"), "attribute"));
      std::vector<TSNode> RA;
      for (TSNode A : kids(field(Obj, "arguments")))
        if (!is(A, "keyword_argument")) RA.push_back(A);
      if ((RM == "reshape" || RM == "view") && !RA.empty()) {
        if (RA.size() == 1 && (is(stripParens(RA[0]), "tuple") || is(stripParens(RA[0]), "list")))
          RA = kids(stripParens(RA[0]));
        if (RA.size() < 2) return {};
        std::vector<std::string> Inner = Sizes(std::vector<TSNode>(RA.begin() + 1, RA.end()));
        if (Inner.empty()) return {};
        Inner.insert(Inner.begin(), "?");
        return Inner;
      }
      return {};
    }
    if (!is(Obj, "identifier")) return {};
    std::vector<std::string> N = Unpacked(M.text(Obj));
    if (N.empty()) N = Unpacked(X);
    if (N.empty()) N = contiguousSizes(M.text(Obj), S, D + 1);
    return N;
  }
  std::string Q = M.qualify(Fn, nullptr);
  std::string Meth = is(Fn, "attribute") ? M.text(field(Fn, "attribute")) : "";
  static const std::set<std::string> Makers = {"torch.empty", "torch.zeros", "torch.ones",
                                               "torch.full", "torch.rand", "torch.randn"};
  static const std::set<std::string> NewMakers = {"new_empty", "new_zeros", "new_ones",
                                                  "new_full"};
  bool Full = Q == "torch.full" || Meth == "new_full";
  if (!Makers.count(Q) && !NewMakers.count(Meth)) return {};
  if (Pos.empty()) return {};
  TSNode First = stripParens(Pos[0]);
  // torch.empty(y.shape), torch.empty((a, b)), torch.empty(a, b)
  if (is(First, "attribute") && M.text(field(First, "attribute")) == "shape" &&
      is(field(First, "object"), "identifier"))
    return Unpacked(M.text(field(First, "object")));
  if (is(First, "tuple") || is(First, "list")) return Sizes(kids(First));
  if (Full) return {}; // torch.full(size, value): the size is a tuple
  return Sizes(Pos);
}

/// x.stride(i) (or x.stride()[i]) of a contiguous tensor whose sizes the
/// launcher shows (contiguousSizes): the product of the sizes inside
/// dimension i, spelled "H*D" ("1" for the last dimension). Empty when not
/// known. The analysis takes the product as the stride's bound, before the
/// stride's own name, only where every size says what it is
/// (ValueHint::Shape; a constant or a name the envelope maps): names like
/// `K` (a head dim in attention, the reduction of a matmul) made more
/// findings than they removed (docs/precision.md).
std::string Launcher::strideOf(TSNode A, const Scope *S) {
  A = stripParens(A);
  TSNode Obj{}, IdxN{};
  if (is(A, "call")) {
    TSNode Fn = field(A, "function");
    std::vector<TSNode> As = kids(field(A, "arguments"));
    if (!is(Fn, "attribute") || M.text(field(Fn, "attribute")) != "stride" || As.size() != 1)
      return "";
    Obj = field(Fn, "object");
    IdxN = As[0];
  } else if (is(A, "subscript")) {
    TSNode V = stripParens(field(A, "value"));
    std::vector<TSNode> Subs = fieldKids(A, "subscript");
    if (!is(V, "call") || Subs.size() != 1) return "";
    TSNode Fn = field(V, "function");
    if (!is(Fn, "attribute") || M.text(field(Fn, "attribute")) != "stride" ||
        !kids(field(V, "arguments")).empty())
      return "";
    Obj = field(Fn, "object");
    IdxN = Subs[0];
  } else {
    return "";
  }
  Rng I;
  if (!is(Obj, "identifier") || !constRange(IdxN, nullptr, I, 0) || I.Lo != I.Hi) return "";
  std::vector<std::string> Sz = contiguousSizes(M.text(Obj), S, 0);
  int64_t N = int64_t(Sz.size()), K = I.Lo < 0 ? I.Lo + N : I.Lo;
  if (N < 1 || K < 0 || K >= N) return "";
  if (K == N - 1) return "1";
  std::string P;
  for (int64_t J = K + 1; J < N; ++J) P += (P.empty() ? "" : "*") + Sz[J];
  return P;
}

/// The kernel a launch subscripts: `kernel[grid]`, or
/// `torch.library.wrap_triton(kernel)[grid]` (a kernel wrapped for
/// torch.compile is launched the same way).
std::string Launcher::launchedName(TSNode V) const {
  V = stripParens(V);
  if (is(V, "identifier")) return M.text(V);
  if (Foreign && is(V, "attribute")) return M.text(V); // mod.kernel[grid]
  if (!is(V, "call")) return "";
  std::string F = M.text(field(V, "function"));
  if (!endsWith(F, "wrap_triton")) return "";
  std::vector<TSNode> As = kids(field(V, "arguments"));
  if (As.size() != 1 || !is(As[0], "identifier")) return "";
  return M.text(As[0]);
}

/// A cheap filter on the text: does the function spell `kernel[` for one
/// of the file's jit kernels? Most plain functions do not, and indexing
/// their bodies would cost more than the rest of the scan of the file.
bool Launcher::mentionsLaunch(TSNode Def, bool OrWalrus) const {
  uint32_t B = ts_node_start_byte(Def), E = ts_node_end_byte(Def);
  if (E > M.Src.size() || E < B) return false;
  if (M.Src.find("wrap_triton(", B) < E) return true;
  if (Foreign) { // the body only: a search past it would cost the file per function
    std::string_view Body(M.Src.data() + B, E - B);
    for (const auto &KV : *Foreign)
      for (size_t At = Body.find(KV.first); At != std::string_view::npos;
           At = Body.find(KV.first, At + 1)) {
        size_t J = Body.find_first_not_of(' ', At + KV.first.size());
        if (J != std::string_view::npos && Body[J] == '[') return true;
      }
    return false;
  }
  if (OrWalrus)
    for (uint32_t I = B; I + 1 < E; ++I)
      if (M.Src[I] == ':' && M.Src[I + 1] == '=') return true;
  auto IdChar = [](char C) {
    return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') || (C >= '0' && C <= '9') || C == '_';
  };
  for (uint32_t I = B; I < E; ++I) {
    if (M.Src[I] != '[') continue;
    uint32_t J = I;
    while (J > B && M.Src[J - 1] == ' ') --J;
    uint32_t End = J;
    while (J > B && IdChar(M.Src[J - 1])) --J;
    if (End > J && M.Jit.count(M.Src.substr(J, End - J))) return true;
  }
  return false;
}

void Launcher::run() {
  // Index every plain function (nested ones become scopes of their own).
  for (TSNode D : M.PlainAll) {
    if (Scopes.size() > 4096) break;
    if (mentionsLaunch(D)) indexScope(D, nullptr, 0);
  }
  // Sites per kernel definition.
  std::map<uint32_t, std::vector<Site>> Sites;
  std::map<uint32_t, std::vector<KParam>> ParamsOf;
  for (const Scope &S : Scopes)
    for (TSNode C : S.Launches) {
      std::string Name = launchedName(field(field(C, "function"), "value"));
      uint32_t Key;
      if (Foreign) {
        auto T = Foreign->find(Name);
        if (T == Foreign->end()) continue;
        Key = T->second.Key;
        if (!ParamsOf.count(Key))
          for (const std::string &P : T->second.Params) ParamsOf[Key].push_back({P, TSNode{}});
      } else {
        auto J = M.Jit.find(Name);
        if (J == M.Jit.end()) continue;
        Key = ts_node_start_byte(J->second.Def);
        if (!ParamsOf.count(Key)) ParamsOf[Key] = kernelParams(J->second.Def);
      }
      for (Site &St : sites(C, &S))
        if (Sites[Key].size() < 64) Sites[Key].push_back(std::move(St));
    }
  // A foreign module's path is the project's (relative to its root): a
  // launch in another directory is named so that it can be found.
  std::string File = Foreign ? M.Path : M.Path.substr(M.Path.find_last_of('/') == std::string::npos
                                       ? 0
                                       : M.Path.find_last_of('/') + 1);
  for (auto &KV : Sites) {
    const std::vector<Site> &Ss = KV.second;
    LaunchFacts LF;
    LF.Sites = unsigned(Ss.size());
    std::string Src = "launch at " + File + ":" + std::to_string(Ss[0].Line);
    if (Ss.size() > 1) Src += " (and " + std::to_string(Ss.size() - 1) + " more)";
    std::vector<KParam> Ps = ParamsOf[KV.first];
    for (size_t I = 0; I < Ps.size(); ++I) {
      std::vector<ArgFact> Fs;
      for (const Site &St : Ss) {
        Work = 0;
        SiteAt = ts_node_start_byte(St.Call);
        Fs.push_back(argFact(St, Ps[I], I));
      }
      ValueHint H;
      bool AllConst = true, AllName = true;
      IntTy Elem = Fs[0].Elem;
      for (const ArgFact &F : Fs) {
        AllConst &= F.K == ArgFact::Const;
        AllName &= F.K == ArgFact::Name && F.Nm == Fs[0].Nm && F.Shape == Fs[0].Shape;
        if (!F.Elem.known() || F.Elem.Bits != Elem.Bits || F.Elem.Signed != Elem.Signed)
          Elem = IntTy();
      }
      if (AllConst) {
        H.HasRange = true;
        H.Lo = Fs[0].R.Lo;
        H.Hi = Fs[0].R.Hi;
        for (const ArgFact &F : Fs) {
          H.Lo = std::min(H.Lo, F.R.Lo);
          H.Hi = std::max(H.Hi, F.R.Hi);
        }
      } else if (AllName) {
        H.BoundBy = Fs[0].Nm;
        H.Shape = Fs[0].Shape;
      }
      if (H.any()) {
        H.Source = Src;
        LF.Params[Ps[I].Name] = H;
      }
      if (Elem.known()) LF.Elem[Ps[I].Name] = Elem;
      // An extent holds when every site passes a tensor of the same sizes.
      bool SameExtent = !Fs[0].Extent.empty();
      for (const ArgFact &F : Fs) SameExtent &= F.Extent == Fs[0].Extent;
      if (SameExtent) LF.Extent[Ps[I].Name] = {Fs[0].Extent, Src};
    }
    // Grids: every site's grid must be seen.
    SiteParams = &Ps;
    std::vector<std::vector<ValueHint>> Gs;
    for (const Site &St : Ss) {
      Work = 0;
      SiteAt = ts_node_start_byte(St.Call);
      std::vector<ValueHint> Axes;
      if (ts_node_is_null(St.Grid) || !gridAxes(St.Grid, St, St.S, Axes, 0)) {
        Gs.clear();
        break;
      }
      Gs.push_back(Axes);
    }
    SiteParams = nullptr;
    if (!Gs.empty()) {
      for (unsigned Ax = 0; Ax < 3; ++Ax) {
        ValueHint H;
        for (size_t I = 0; I < Gs.size(); ++I) {
          ValueHint A;
          if (Ax < Gs[I].size()) A = Gs[I][Ax];
          else A.HasRange = true; // [0, 0]: one program along a missing axis
          H = I == 0 ? A : mergeHint(H, A);
        }
        if (H.any()) H.Source = Src;
        LF.Axis[Ax] = H;
      }
    }
    // Host asserts of a product (`assert n_rows * x.stride(0) < 2**31`), in
    // the kernel's names: kept when every site is under the same one.
    for (size_t I = 0; I < Ss.size(); ++I) {
      SiteAt = ts_node_start_byte(Ss[I].Call);
      std::vector<CheckedProduct> Mine = siteChecks(Ss[I], Ps, File);
      if (I == 0) {
        LF.Checked = std::move(Mine);
        continue;
      }
      std::vector<CheckedProduct> Both;
      for (const CheckedProduct &C : LF.Checked)
        for (const CheckedProduct &D : Mine)
          if (C.Factors == D.Factors && C.Max == D.Max) Both.push_back(C);
      LF.Checked = std::move(Both);
    }
    (*Into)[KV.first] = std::move(LF);
  }
}

} // namespace

ValueHint joinSiteHints(const ValueHint &A, const ValueHint &B) { return mergeHint(A, B); }

void collectLaunchFacts(Module &M) {
  if (M.PlainAll.empty() || M.Src.find('[') == std::string::npos) return;
  Launcher L(M);
  L.run();
}

void collectForeignLaunchFacts(Module &M, const std::map<std::string, ForeignKernel> &Targets,
                               std::map<uint32_t, LaunchFacts> &Out) {
  if (M.PlainAll.empty() || Targets.empty() || M.Src.find('[') == std::string::npos) return;
  Launcher L(M, Targets, Out);
  L.run();
}

std::vector<std::string> kernelParamNames(Module &M, TSNode Def) {
  Launcher L(M);
  std::vector<std::string> Out;
  for (const KParam &P : L.params(Def)) Out.push_back(P.Name);
  return Out;
}

} // namespace triton
} // namespace kvlint
