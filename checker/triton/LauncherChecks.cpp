//===- LauncherChecks.cpp - a launcher's overflow checks of its tensors ---===//
//
// Part of the launcher analysis (LauncherImpl.h). A launcher that picks the
// kernel's index width at run time passes a flag decided by a check of the
// tensors' sizes against 2^31:
//
//   UPCAST_INDICES=should_upcast_indices(x, w, y)    a helper whose every
//                                                    return is such a test
//   use_64_indexing=(k.stride(0) * N >= (1 << 31)    a test written inline
//                    or v.stride(0) * N >= (1 << 31))
//   use_buffer_load = cache_bytes < MAX_BYTES        a local bound once to
//   USE_BUFFER_LOAD=use_buffer_load                  one, true where it fits
//
// The tensors the test measures (the objects of .stride(), .numel(),
// .shape, the arguments of a call it makes, through locals bound once) are
// the ones whose offsets fit 32 bits on the side where the check passed.
//
//===----------------------------------------------------------------------===//
#include "LauncherImpl.h"

namespace kvlint {
namespace triton {
namespace launch {

/// 2^31 - 1 or 2^31 (`(1 << 31) - 1`, `2**31`, a local bound to one), or
/// `torch.iinfo(torch.int32).max`.
bool Launcher::int32Max(TSNode E, const Scope *S) {
  E = stripParens(E);
  if (M.text(E).find("iinfo(torch.int32).max") != std::string::npos) return true;
  Rng R;
  return constRange(E, S, R, 0) && R.Lo == R.Hi &&
         (R.Lo == int64_t(INT32_MAX) || R.Lo == int64_t(INT32_MAX) + 1);
}

/// Whether E, in the body of a plain function, is true exactly when some
/// offset passes 32 bits: `off > max_int32` (or `>=`), `any(g(t) for t in
/// args)` or `g(a) or g(b)` of such functions g.
bool Launcher::overflowTest(TSNode E, const Scope *Body, unsigned D) {
  E = stripParens(E);
  if (D > 3 || !budget()) return false;
  if (is(E, "comparison_operator")) {
    std::vector<TSNode> Ks = kids(E);
    std::string Op = comparisonOp(E);
    return Ks.size() == 2 && (Op == ">" || Op == ">=") && int32Max(Ks[1], Body);
  }
  if (is(E, "boolean_operator"))
    return M.text(field(E, "operator")) == "or" && overflowTest(field(E, "left"), Body, D + 1) &&
           overflowTest(field(E, "right"), Body, D + 1);
  if (is(E, "call")) {
    std::string Fn = M.text(field(E, "function"));
    TSNode Args = field(E, "arguments");
    std::vector<TSNode> As = is(Args, "generator_expression") ? std::vector<TSNode>{Args} : kids(Args);
    if (Fn == "any" && As.size() == 1 && is(As[0], "generator_expression")) {
      TSNode Body2 = field(As[0], "body");
      // `t is not None and g(t)`: the test is the last operand
      while (is(stripParens(Body2), "boolean_operator") &&
             M.text(field(stripParens(Body2), "operator")) == "and")
        Body2 = field(stripParens(Body2), "right");
      return overflowTest(Body2, Body, D + 1);
    }
    std::vector<std::string> Ignored;
    return overflowCheck(E, nullptr, Ignored, D + 1);
  }
  return false;
}

/// A call of a plain function of this module whose every `return` is an
/// overflow test of its arguments (aiter's `should_upcast_indices(x, w, y)`
/// over `can_overflow_int32`, which sums each tensor's (size - 1) * stride
/// and compares it with 2^31 - 1): Tensors are the arguments it checks.
bool Launcher::overflowCheck(TSNode Call, const Scope *S, std::vector<std::string> &Tensors,
                             unsigned D) {
  Call = stripParens(Call);
  if (D > 3 || !is(Call, "call") || !is(field(Call, "function"), "identifier")) return false;
  auto Def = M.PlainDefs.find(M.text(field(Call, "function")));
  if (Def == M.PlainDefs.end()) return false;
  // the function's own scope: its locals (`max_int32 = (1 << 31) - 1`)
  const Scope *Body = nullptr;
  for (const Scope &X : Scopes)
    if (ts_node_start_byte(X.Def) == ts_node_start_byte(Def->second)) Body = &X;
  if (!Body) {
    if (Scopes.size() > 4096) return false;
    size_t At = Scopes.size();
    indexScope(Def->second, nullptr, 0);
    if (Scopes.size() == At) return false;
    Body = &Scopes[At];
  }
  std::vector<TSNode> Returns;
  std::vector<TSNode> Work = {field(Def->second, "body")};
  for (unsigned Steps = 0; !Work.empty() && Steps < 2000; ++Steps) {
    TSNode N = Work.back();
    Work.pop_back();
    if (is(N, "function_definition") || is(N, "lambda")) continue;
    if (is(N, "return_statement")) {
      std::vector<TSNode> Ks = kids(N);
      if (Ks.empty()) return false; // a bare return: None
      Returns.push_back(Ks[0]);
      continue;
    }
    for (TSNode K : kids(N)) Work.push_back(K);
  }
  if (Returns.empty()) return false;
  for (TSNode R : Returns)
    if (!overflowTest(R, Body, D)) return false;
  if (S) {
    Tensors.clear();
    for (TSNode A : kids(field(Call, "arguments"))) {
      if (!is(stripParens(A), "identifier")) return false;
      Tensors.push_back(M.text(stripParens(A)));
    }
  }
  return true;
}

/// The names the block of a binding V binds to a measured tensor (`extra,
/// extra_idx = cache, idx` beside `cache_bytes = f(cache)`: in that branch
/// extra is the cache, measured too). Added to Measured, kept sorted.
void Launcher::aliasesInBlock(TSNode V, std::vector<std::string> &Measured) {
  TSNode B = V;
  for (unsigned I = 0; I < 6 && !ts_node_is_null(B) && !is(B, "block"); ++I)
    B = ts_node_parent(B);
  if (!is(B, "block")) return;
  std::vector<std::string> Add;
  for (TSNode St : kids(B)) {
    TSNode A = kids(St).empty() ? TSNode{} : kids(St)[0];
    if (!is(St, "expression_statement") || !is(A, "assignment")) continue;
    TSNode L = stripParens(field(A, "left")), R = stripParens(field(A, "right"));
    std::vector<TSNode> Ls = is(L, "identifier") ? std::vector<TSNode>{L} : kids(L);
    std::vector<TSNode> Rs = is(R, "identifier") ? std::vector<TSNode>{R} : kids(R);
    if (Ls.size() != Rs.size() || Ls.size() > 16) continue;
    for (size_t I = 0; I < Ls.size(); ++I)
      if (is(Ls[I], "identifier") && is(stripParens(Rs[I]), "identifier") &&
          std::binary_search(Measured.begin(), Measured.end(), M.text(stripParens(Rs[I]))))
        Add.push_back(M.text(Ls[I]));
  }
  Measured.insert(Measured.end(), Add.begin(), Add.end());
  std::sort(Measured.begin(), Measured.end());
  Measured.erase(std::unique(Measured.begin(), Measured.end()), Measured.end());
}

/// What a site passes for a constexpr flag when it is an overflow check:
/// the call or the comparison itself, or a local bound once to one.
bool Launcher::checkedFlag(TSNode A, const Scope *S, ArgFact &F) {
  TSNode X = stripParens(A);
  if (is(X, "identifier")) {
    bool IsParam;
    const std::vector<TSNode> *Bs = lookup(S, M.text(X), IsParam);
    if (IsParam || !Bs || Bs->size() != 1 || ts_node_is_null((*Bs)[0])) return false;
    X = stripParens((*Bs)[0]);
  }
  if (is(X, "call") && overflowCheck(X, S, F.Checks, 0)) {
    F.CheckText = M.text(X);
    F.CheckIsCall = true;
    return true;
  }
  std::vector<std::string> Ts;
  int Side = sizeTest(X, S, Ts, 0);
  if (!Side || Ts.empty()) return false;
  F.Checks = std::move(Ts);
  F.FitsWhenTrue = Side < 0;
  F.CheckText = M.text(X);
  if (F.CheckText.size() > 80) F.CheckText = F.CheckText.substr(0, 77) + "...";
  return true;
}

/// A comparison of a size with 2^31 in the launcher: 1 when E is true
/// where an offset may pass it (`a >= 2**31`, an `or` of such), -1 when E
/// is true where every offset fits (`a < MAX_BYTES`, an `and` of such), 0
/// when it is neither. Tensors: what the compared sizes measure.
int Launcher::sizeTest(TSNode E, const Scope *S, std::vector<std::string> &Tensors, unsigned D) {
  E = stripParens(E);
  if (D > 8 || !budget()) return 0;
  if (is(E, "comparison_operator")) {
    std::vector<TSNode> Ks = kids(E);
    std::string Op = comparisonOp(E);
    if (Ks.size() != 2 || !int32Max(Ks[1], S)) return 0;
    int Side = Op == ">" || Op == ">=" ? 1 : Op == "<" || Op == "<=" ? -1 : 0;
    if (Side) measuredTensors(Ks[0], S, Tensors, 0);
    return Side;
  }
  if (is(E, "boolean_operator")) {
    std::string Op = M.text(field(E, "operator"));
    int L = sizeTest(field(E, "left"), S, Tensors, D + 1);
    int R = L ? sizeTest(field(E, "right"), S, Tensors, D + 1) : 0;
    if (L != R) return 0;
    return (L > 0 && Op == "or") || (L < 0 && Op == "and") ? L : 0;
  }
  return 0;
}

/// The tensors a size expression measures: `k.stride(0) * n` measures k,
/// `max_addressable_bytes(cache)` measures cache, a local bound once is
/// read through.
void Launcher::measuredTensors(TSNode E, const Scope *S, std::vector<std::string> &Tensors,
                               unsigned D) {
  if (D > 3) return;
  std::vector<TSNode> Work = {E};
  for (unsigned Steps = 0; !Work.empty() && Steps < 400 && budget(); ++Steps) {
    TSNode N = stripParens(Work.back());
    Work.pop_back();
    if (is(N, "attribute")) {
      std::string A = M.text(field(N, "attribute"));
      TSNode O = stripParens(field(N, "object"));
      if (is(O, "identifier") &&
          (A == "stride" || A == "numel" || A == "shape" || A == "nbytes" || A == "element_size")) {
        Tensors.push_back(M.text(O));
        continue;
      }
    } else if (is(N, "identifier")) {
      // a local: what every binding of it measures (`cache_bytes = f(cache)`
      // in one branch, `max(f(cache), f(extra))` in the other: cache)
      bool IsParam;
      const std::vector<TSNode> *Bs = lookup(S, M.text(N), IsParam);
      if (IsParam || !Bs || Bs->empty() || Bs->size() > 4) continue;
      std::vector<std::string> Every;
      for (size_t I = 0; I < Bs->size(); ++I) {
        std::vector<std::string> One;
        if (!ts_node_is_null((*Bs)[I])) {
          measuredTensors((*Bs)[I], S, One, D + 1);
          aliasesInBlock((*Bs)[I], One);
        }
        if (I == 0) Every = One;
        std::vector<std::string> Both;
        std::set_intersection(Every.begin(), Every.end(), One.begin(), One.end(),
                              std::back_inserter(Both));
        Every = std::move(Both);
      }
      Tensors.insert(Tensors.end(), Every.begin(), Every.end());
      continue;
    } else if (is(N, "call") && is(field(N, "function"), "identifier")) {
      // a helper's arguments: `max_addressable_bytes(cache)`; `max(a, b)`
      // and `int(x)` are read through
      std::string Fn = M.text(field(N, "function"));
      for (TSNode A : kids(field(N, "arguments")))
        if (is(stripParens(A), "identifier") && Fn != "max" && Fn != "int" && Fn != "min")
          Tensors.push_back(M.text(stripParens(A)));
        else
          Work.push_back(A);
      continue;
    }
    for (TSNode K : kids(N)) Work.push_back(K);
  }
  std::sort(Tensors.begin(), Tensors.end());
  Tensors.erase(std::unique(Tensors.begin(), Tensors.end()), Tensors.end());
}

} // namespace launch
} // namespace triton
} // namespace kvlint
