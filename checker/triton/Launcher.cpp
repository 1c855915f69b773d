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
#include "LauncherImpl.h"

namespace kvlint {
namespace triton {
namespace launch {

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
  if (S && checkedFlag(A, S, F)) return F;
  Rng R;
  // A flag (`IS_VARLEN=False`, or a name bound to one) is a constant too: a
  // constexpr every site passes the same way fixes the kernel's
  // specialisation (Calls.cpp), so the other side is dead code.
  if (constRange(A, S, R, 0)) {
    F.K = ArgFact::Const;
    F.R = R;
  } else if (S) {
    std::string St = strideOf(A, S, &F.From);
    if (St == "1") {
      F.K = ArgFact::Const;
      F.R = {1, 1};
    } else if (!St.empty()) {
      F.K = ArgFact::Name;
      F.Nm = St;
      F.Shape = true;
    } else {
      F.From.clear(); // the callers' sizes gave no stride
      std::string N = valueName(A, S, 0);
      if (!N.empty()) {
        F.K = ArgFact::Name;
        F.Nm = N;
      }
    }
  }
  if (S) F.Elem = dtypeOf(A, S, 0);
  if (S && is(stripParens(A), "identifier")) {
    std::vector<std::string> Sz = knownSizes(M.text(stripParens(A)), S, &F.From);
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
      // Facts the project's callers show say where (the allocation).
      std::string From = Fs[0].From;
      for (const ArgFact &F : Fs)
        if (F.From != From) From.clear();
      if (!From.empty()) From = Src + "; " + From;
      if (H.any()) {
        H.Source = From.empty() ? Src : From;
        LF.Params[Ps[I].Name] = H;
      }
      if (Elem.known()) LF.Elem[Ps[I].Name] = Elem;
      // An extent holds when every site passes a tensor of the same sizes.
      bool SameExtent = !Fs[0].Extent.empty();
      for (const ArgFact &F : Fs) SameExtent &= F.Extent == Fs[0].Extent;
      if (SameExtent) LF.Extent[Ps[I].Name] = {Fs[0].Extent, From.empty() ? Src : From};
      // A flag every site passes as an overflow check of tensors: where it is
      // false, every offset into the pointers those tensors are passed to
      // fits 32 bits.
      bool AllChecks = !Fs[0].Checks.empty();
      for (const ArgFact &F : Fs)
        AllChecks &= !F.Checks.empty() && F.FitsWhenTrue == Fs[0].FitsWhenTrue;
      if (AllChecks) {
        std::vector<std::string> Guarded;
        for (size_t J = 0; J < Ps.size(); ++J) {
          bool Every = true;
          for (size_t K = 0; K < Ss.size() && Every; ++K) {
            auto W = Ss[K].Kw.find(Ps[J].Name);
            TSNode A = W != Ss[K].Kw.end() ? W->second
                       : J < Ss[K].Pos.size() && Ss[K].Splat[J] < 0 ? Ss[K].Pos[J] : TSNode{};
            Every = !ts_node_is_null(A) && is(stripParens(A), "identifier") &&
                    std::count(Fs[K].Checks.begin(), Fs[K].Checks.end(), M.text(stripParens(A)));
          }
          if (Every) Guarded.push_back(Ps[J].Name);
        }
        if (!Guarded.empty())
          LF.FlagGuards[Ps[I].Name] = {Guarded,
                                       "'" + Fs[0].CheckText +
                                           (Fs[0].CheckIsCall ? "' finds" : "' says") +
                                           " every offset below 2^31 (" + Src + ")",
                                       Fs[0].FitsWhenTrue};
      }
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

} // namespace launch

using launch::Launcher;
using launch::mergeHint;
using launch::KParam;

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
