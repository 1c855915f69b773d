//===- LauncherGrids.cpp - what a launch grid says of tl.program_id ---===//
//
// Part of the launcher analysis (LauncherImpl.h, Launcher.cpp).
//
//===----------------------------------------------------------------------===//
#include "LauncherImpl.h"

namespace kvlint {
namespace triton {
namespace launch {

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
      // min(num_sms * 2, n_rows): below each named quantity, so below the
      // least of them ("num_sms*2|n_rows", Bounds::named).
      std::vector<ValueHint> Named;
      for (TSNode A : As) {
        if (is(A, "keyword_argument") || Depth >= 3) continue;
        ValueHint Via = axisFact(A, St, S, Meta, Depth + 1);
        if (Via.HasRange || Via.BoundBy.empty() || Via.BoundDiv > 1 || !Via.DivBy.empty() ||
            Via.BoundBy.find('|') != std::string::npos) {
          Named.clear();
          break;
        }
        Named.push_back(Via);
      }
      if (Named.size() >= 2) {
        for (const ValueHint &V : Named)
          H.BoundBy += (H.BoundBy.empty() ? "" : "|") + V.BoundBy;
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

} // namespace launch
} // namespace triton
} // namespace kvlint
