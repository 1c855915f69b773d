//===- LauncherScopes.cpp - a launcher body: bindings, asserts, branches ---===//
//
// Part of the launcher analysis (LauncherImpl.h, Launcher.cpp).
//
//===----------------------------------------------------------------------===//
#include "LauncherImpl.h"

namespace kvlint {
namespace triton {
namespace launch {

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
  if (Op == "==") { // assert x.stride(-1) == 1 (or mirrored)
    std::string Obj;
    int64_t Dim;
    Rng One;
    for (int Side = 0; Side < 2; ++Side) {
      TSNode St = Side ? R : L, Cn = Side ? L : R;
      if (strideCall(St, Obj, Dim) && constRange(Cn, nullptr, One, 0) && One.Lo == 1 &&
          One.Hi == 1) {
        S.UnitStride[{Obj, Dim}] = At;
        return;
      }
    }
  }
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
  S.Def = Def;
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

} // namespace launch
} // namespace triton
} // namespace kvlint
