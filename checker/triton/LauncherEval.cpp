//===- LauncherEval.cpp - evaluation of a launcher's host code ---===//
//
// Part of the launcher analysis (LauncherImpl.h, Launcher.cpp).
//
//===----------------------------------------------------------------------===//
#include "LauncherImpl.h"
#include "project/Project.h"

namespace kvlint {
namespace triton {
namespace launch {

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
  // A flag literal (Python's bools are 0 and 1): through a name bound to it,
  // a module's `_USE_INT64_STRIDES = True` that every launch passes pins the
  // kernel's specialisation as a literal argument does (Calls.cpp).
  if (is(E, "true") || is(E, "false")) {
    R.Lo = R.Hi = is(E, "true");
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
/// `x.stride(i)` or `x.stride()[i]` with a literal i: x and i.
bool Launcher::strideCall(TSNode A, std::string &Obj, int64_t &Dim, TSNode *ObjN) {
  A = stripParens(A);
  TSNode O{}, IdxN{};
  if (is(A, "call")) {
    TSNode Fn = field(A, "function");
    std::vector<TSNode> As = kids(field(A, "arguments"));
    if (!is(Fn, "attribute") || M.text(field(Fn, "attribute")) != "stride" || As.size() != 1)
      return false;
    O = field(Fn, "object");
    IdxN = As[0];
  } else if (is(A, "subscript")) {
    TSNode V = stripParens(field(A, "value"));
    std::vector<TSNode> Subs = fieldKids(A, "subscript");
    if (!is(V, "call") || Subs.size() != 1) return false;
    TSNode Fn = field(V, "function");
    if (!is(Fn, "attribute") || M.text(field(Fn, "attribute")) != "stride" ||
        !kids(field(V, "arguments")).empty())
      return false;
    O = field(Fn, "object");
    IdxN = Subs[0];
  } else {
    return false;
  }
  Rng I;
  if (!is(O, "identifier") || !constRange(IdxN, nullptr, I, 0) || I.Lo != I.Hi) return false;
  Obj = M.text(O);
  Dim = I.Lo;
  if (ObjN) *ObjN = O;
  return true;
}

std::string Launcher::strideOf(TSNode A, const Scope *S, std::string *From) {
  A = stripParens(A);
  // asserted above the launch: `assert x.stride(-1) == 1`
  {
    std::string O;
    int64_t Dim;
    TSNode ObjN{};
    if (strideCall(A, O, Dim, &ObjN)) {
      int Rank = -1;
      for (const Scope *Y = S; Y; Y = Y->Parent)
        for (const auto &[Key, At] : Y->UnitStride) {
          if (Key.first != O || At >= SiteAt) continue;
          if (Key.second == Dim) return "1";
          if ((Key.second < 0) != (Dim < 0)) { // -1 against rank - 1
            if (Rank < 0) Rank = rankOf(ObjN, S);
            if (Rank > 0 && (Key.second < 0 ? Key.second + Rank : Key.second) ==
                                (Dim < 0 ? Dim + Rank : Dim))
              return "1";
          }
        }
    }
  }
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
  std::vector<std::string> Sz = knownSizes(M.text(Obj), S, From);
  int64_t N = int64_t(Sz.size()), K = I.Lo < 0 ? I.Lo + N : I.Lo;
  if (N < 1 || K < 0 || K >= N) return "";
  if (K == N - 1) return "1";
  std::string P;
  for (int64_t J = K + 1; J < N; ++J) {
    if (Sz[J] == "?") return "";
    P += (P.empty() ? "" : "*") + Sz[J];
  }
  return P;
}

/// What the project's callers say of a launcher's tensor parameter X
/// (ProjectModel::callerTensor): X is a parameter of a top-level function,
/// never rebound there, and every call of that function passes a
/// contiguous tensor it allocates, all of one rank.
const project::ProjectModel::CallerTensor *Launcher::callerTensor(const std::string &X,
                                                                  const Scope *S) {
  if (!M.Project) return nullptr;
  const Scope *Y = S;
  while (Y && !Y->Params.count(X)) {
    if (Y->Binds.count(X)) return nullptr;
    Y = Y->Parent;
  }
  if (!Y || Y->Parent || Y->Binds.count(X) || ts_node_is_null(Y->Def)) return nullptr;
  std::string Fn = M.text(field(Y->Def, "name"));
  auto Key = std::make_pair(Fn, X);
  auto It = Callers.find(Key);
  if (It == Callers.end())
    It = Callers.emplace(Key, M.Project->callerTensor(M.ProjectPath, Fn, X)).first;
  return It->second.Known ? &It->second : nullptr;
}

/// The sizes of tensor X: those the launcher shows (contiguousSizes),
/// else those every caller in the project allocates it with
/// (callerTensor), with From set to where they do.
std::vector<std::string> Launcher::knownSizes(const std::string &X, const Scope *S,
                                              std::string *From) {
  std::vector<std::string> Sz = contiguousSizes(X, S, 0);
  if (!Sz.empty()) return Sz;
  const project::ProjectModel::CallerTensor *T = callerTensor(X, S);
  if (!T) return {};
  if (From) *From = T->Where;
  return T->Sizes;
}

/// The rank of a tensor the launcher shows: the sizes it allocates or
/// unpacks (`B, T, H = x.shape`), or the sizes a `.view(...)` /
/// `.reshape(...)` gives it. 0: not known.
int Launcher::rankOf(TSNode Obj, const Scope *S) {
  Obj = stripParens(Obj);
  if (is(Obj, "identifier")) {
    std::string X = M.text(Obj);
    std::vector<std::string> Sz = knownSizes(X, S, nullptr);
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
    std::vector<std::string> Sz = knownSizes(M.text(Obj), S, &F.From);
    if (I >= int(Sz.size())) return F;
    if (I == int(Sz.size()) - 1) {
      F.K = ArgFact::Const;
      F.R = {1, 1};
      return F;
    }
    std::string P;
    for (size_t J = size_t(I) + 1; J < Sz.size(); ++J) {
      if (Sz[J] == "?") return F;
      P += (P.empty() ? "" : "*") + Sz[J];
    }
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

} // namespace launch
} // namespace triton
} // namespace kvlint
