//===- LaunchWalk.cpp - A launcher's body and its checks ------------------===//
//
// Part of the launch-facts pre-pass (LaunchScanner.h, LaunchFacts.cpp): the
// walk of a host function's body, which collects its launches (`<<<>>>`,
// hipLaunchKernelGGL, cudaLaunchKernel(Ex)), the locals it writes, and the
// checks it makes (TORCH_CHECK, assert, `if (c) throw`, an early return,
// the CheckedHelpers); and the mapping of a check's factors onto the
// parameters of a kernel launched after it.
//
//===----------------------------------------------------------------------===//
#include "LaunchScanner.h"

#include "clang/Lex/Lexer.h"

namespace kvlint {
namespace launchfacts {

// ---- walking ------------------------------------------------------------
void LaunchScanner::walk(const Stmt *S, unsigned Depth) {
  if (!S || Depth > 400)
    return;
  if (const ValueDecl *W = writtenDecl(S))
    Assigned.insert(W);
  if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
    if (BO->getOpcode() == BO_Assign) {
      configGrid(BO->getLHS(), BO->getRHS());
      dim3Member(BO->getLHS(), BO->getRHS());
    }
  } else if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(S);
             OC && OC->getOperator() == OO_Equal && OC->getNumArgs() == 2) {
    configGrid(OC->getArg(0), OC->getArg(1));
  } else if (const auto *KC = dyn_cast<CUDAKernelCallExpr>(S)) {
    const CallExpr *Cfg = KC->getConfig();
    addLaunch(KC->getCallee(), Cfg && Cfg->getNumArgs() ? Cfg->getArg(0) : nullptr,
              std::vector<const Expr *>(KC->arg_begin(), KC->arg_end()), KC->getBeginLoc());
  } else if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls())
      if (const auto *VD = dyn_cast<VarDecl>(D))
        addLocal(VD);
  } else if (const auto *IS = dyn_cast<IfStmt>(S)) {
    ifCheck(IS);
    // The branches: what the condition says holds in each.
    if (IS->getInit())
      walk(IS->getInit(), Depth + 1);
    if (IS->getConditionVariableDeclStmt())
      walk(IS->getConditionVariableDeclStmt(), Depth + 1);
    walk(IS->getCond(), Depth + 1);
    const Expr *C = IS->getCond();
    if (Branches.size() < 32 && C && !IS->isConstexpr()) {
      Branches.push_back({C, false});
      walk(IS->getThen(), Depth + 1);
      Branches.back().second = true;
      walk(IS->getElse(), Depth + 1);
      Branches.pop_back();
      return;
    }
    walk(IS->getThen(), Depth + 1);
    walk(IS->getElse(), Depth + 1);
    return;
  } else if (const auto *CO = dyn_cast<ConditionalOperator>(S)) {
    // assert(c) expands to `c ? void(0) : __assert_fail(...)`.
    if (CO->getBeginLoc().isMacroID() && checkMacro(CO->getBeginLoc()))
      addBounds(CO->getCond(), true, macroName(CO->getBeginLoc()), CO->getBeginLoc());
  } else if (const auto *E = dyn_cast<Expr>(S)) {
    std::string Name;
    std::vector<const Expr *> Args;
    if (callParts(E, Name, Args))
      call(Name, Args, E);
  }
  for (const Stmt *C : S->children())
    walk(C, Depth + 1);
}

/// grid.x = ... on a local dim3.
void LaunchScanner::dim3Member(const Expr *L, const Expr *R) {
  const auto *ME = dyn_cast<MemberExpr>(L->IgnoreParenImpCasts());
  if (!ME)
    return;
  StringRef M = ME->getMemberDecl()->getName();
  const auto *DR = dyn_cast<DeclRefExpr>(ME->getBase()->IgnoreParenImpCasts());
  const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
  const auto *RD = VD ? VD->getType()->getAsCXXRecordDecl() : nullptr;
  if (M.size() == 1 && (M == "x" || M == "y" || M == "z") && VD && VD->hasLocalStorage() && RD &&
      RD->getName() == "dim3")
    Dim3Member[{VD, M[0]}] = R;
}

/// config.gridDim = grid, for cudaLaunchKernelEx(&config, ...).
void LaunchScanner::configGrid(const Expr *L, const Expr *R) {
  if (const auto *ME = dyn_cast<MemberExpr>(L->IgnoreParenImpCasts()))
    if (ME->getMemberDecl()->getName() == "gridDim")
      if (const auto *DR = dyn_cast<DeclRefExpr>(ME->getBase()->IgnoreParenImpCasts()))
        ConfigGrid[DR->getDecl()] = R;
}

/// The elements of `void *args[] = {&a, (void *)&b, ...}`: a, b, ...
bool LaunchScanner::argsArray(const Expr *E, std::vector<const Expr *> &Out) {
  const auto *DR = dyn_cast<DeclRefExpr>(E->IgnoreParenCasts());
  const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
  if (!VD || !VD->hasLocalStorage() || !VD->getType()->isArrayType() || !VD->getInit() ||
      Assigned.count(VD))
    return false;
  const auto *IL = dyn_cast<InitListExpr>(VD->getInit()->IgnoreParenImpCasts());
  if (!IL)
    return false;
  for (const Expr *I : IL->inits()) {
    const auto *UO = dyn_cast<UnaryOperator>(I->IgnoreParenCasts());
    if (!UO || UO->getOpcode() != UO_AddrOf)
      return false;
    Out.push_back(UO->getSubExpr());
  }
  return !Out.empty();
}

/// The variable S writes: the left side of an assignment (`x = ...`, `x
/// += ...`, a class's `operator=`), what `++`/`--` change, what `&` takes
/// the address of; a member's object (`grid.x = ...` writes grid).
const ValueDecl *LaunchScanner::writtenDecl(const Stmt *S) {
  const Expr *E = nullptr;
  if (const auto *BO = dyn_cast<BinaryOperator>(S); BO && BO->isAssignmentOp())
    E = BO->getLHS();
  else if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(S);
           OC && OC->getOperator() == OO_Equal && OC->getNumArgs() == 2)
    E = OC->getArg(0);
  else if (const auto *UO = dyn_cast<UnaryOperator>(S);
           UO && (UO->isIncrementDecrementOp() || UO->getOpcode() == UO_AddrOf))
    E = UO->getSubExpr();
  if (!E)
    return nullptr;
  E = E->IgnoreParenImpCasts();
  while (const auto *ME = dyn_cast<MemberExpr>(E))
    E = ME->getBase()->IgnoreParenImpCasts();
  const auto *DR = dyn_cast<DeclRefExpr>(E);
  return DR ? DR->getDecl() : nullptr;
}

bool LaunchScanner::isCheckName(StringRef N) {
  return N.contains("CHECK") || N.contains("ASSERT") || N == "assert" ||
         N.contains("ENFORCE");
}

std::string LaunchScanner::macroName(SourceLocation L) {
  for (unsigned I = 0; L.isMacroID() && I < 16; ++I) {
    StringRef N = Lexer::getImmediateMacroName(L, SM, Ctx.getLangOpts());
    if (isCheckName(N))
      return N.str();
    L = SM.getImmediateMacroCallerLoc(L);
  }
  return "";
}

void LaunchScanner::call(const std::string &Name, const std::vector<const Expr *> &Args,
                         const Expr *E) {
  if (Name == "hipLaunchKernelGGL" && Args.size() >= 5) {
    addLaunch(Args[0], Args[1], std::vector<const Expr *>(Args.begin() + 5, Args.end()),
              E->getBeginLoc());
    return;
  }
  if ((Name == "cudaLaunchKernel" || Name == "hipLaunchKernel") && Args.size() >= 2) {
    // cudaLaunchKernel((void *)k, grid, block, args, smem, stream), with
    // void *args[] = {&a, &b, ...} a local array.
    std::vector<const Expr *> KArgs;
    bool Have = Args.size() >= 4 && argsArray(Args[3], KArgs);
    addLaunch(Args[0], Args[1], KArgs, E->getBeginLoc(), Have);
    return;
  }
  if ((Name == "cudaLaunchKernelEx" || Name == "hipLaunchKernelEx") && Args.size() >= 2) {
    // cudaLaunchKernelEx(&config, k, args...), config.gridDim = grid;
    const Expr *Grid = nullptr;
    if (const auto *UO = dyn_cast<UnaryOperator>(Args[0]->IgnoreParenCasts());
        UO && UO->getOpcode() == UO_AddrOf)
      if (const auto *DR = dyn_cast<DeclRefExpr>(UO->getSubExpr()->IgnoreParenImpCasts())) {
        auto It = ConfigGrid.find(DR->getDecl());
        if (It != ConfigGrid.end())
          Grid = It->second;
      }
    addLaunch(Args[1], Grid, std::vector<const Expr *>(Args.begin() + 2, Args.end()),
              E->getBeginLoc());
    return;
  }
  if (Helpers.match(Name)) {
    // CheckedInt32Product({a, b, c}, "what") or check_int32(a, b, c).
    std::vector<const Expr *> Factors;
    for (const Expr *A : Args) {
      const Expr *S = strip(A);
      if (const auto *SI = dyn_cast<CXXStdInitializerListExpr>(S))
        S = strip(SI->getSubExpr());
      if (const auto *IL = dyn_cast<InitListExpr>(S)) {
        for (const Expr *I : IL->inits())
          Factors.push_back(I);
        continue;
      }
      QualType T = S->getType();
      if (!T.isNull() && (T->isIntegralOrEnumerationType() || T->isDependentType()) &&
          !isa<StringLiteral>(S))
        Factors.push_back(A);
    }
    if (!Factors.empty())
      addCheck(Factors, INT32_MAX, Name, E->getBeginLoc());
    return;
  }
  if (!isCheckName(Name) || Args.empty())
    return;
  // TORCH_CHECK_LE(a, b), TORCH_CHECK_LT(a, b), CHECK_GE(b, a), ...
  StringRef N(Name);
  if (Args.size() >= 2 && (N.ends_with("_LE") || N.ends_with("_LT") || N.ends_with("_GE") ||
                           N.ends_with("_GT"))) {
    bool Upper = N.ends_with("_LE") || N.ends_with("_LT");
    bool Strict = N.ends_with("_LT") || N.ends_with("_GT");
    const Expr *P = Upper ? Args[0] : Args[1], *M = Upper ? Args[1] : Args[0];
    if (auto V = foldInt(strip(M), Ctx))
      addProduct(P, Strict ? *V - 1 : *V, Name, E->getBeginLoc());
    return;
  }
  // TORCH_CHECK(cond, ...), assert(cond), TVM_FFI_ICHECK(cond): the first
  // argument holds after the call.
  addBounds(Args[0], true, Name, E->getBeginLoc());
}

/// `if (c) throw/abort/TORCH_CHECK(false, ...)`: !c holds afterwards; and
/// the expansion of a check macro (`if (!(cond)) fail(...)`).
void LaunchScanner::ifCheck(const IfStmt *IS) {
  const Expr *C = IS->getCond();
  if (!C)
    return;
  if (IS->getIfLoc().isMacroID()) {
    std::string M = macroName(IS->getIfLoc());
    if (!M.empty()) {
      addBounds(C, false, M, IS->getIfLoc());
      return;
    }
  }
  if (!IS->getElse() && fails(IS->getThen()))
    addBounds(C, false, "check", IS->getIfLoc());
  // `if ((int64_t)n * h > INT_MAX) return cudaErrorInvalidValue;`: the
  // launches below run only when c is false. A launch inside the branch
  // (`if (big) { wide<<<...>>>(...); return; }`, a dispatch) runs under c:
  // the check skips it.
  else if (!IS->getElse() && returns(IS->getThen())) {
    size_t Before = Checks.size();
    addBounds(C, false, "early return", IS->getIfLoc());
    SourceRange R = IS->getThen()->getSourceRange();
    SourceLocation B = SM.getExpansionLoc(R.getBegin()), E = SM.getExpansionLoc(R.getEnd());
    for (size_t I = Before; I < Checks.size(); ++I) {
      Checks[I].SkipBegin = SM.getFileOffset(B);
      Checks[I].SkipEnd = SM.getFileOffset(E) + 1;
    }
  }
}

bool LaunchScanner::returns(const Stmt *S) {
  if (const auto *CS = dyn_cast_or_null<CompoundStmt>(S))
    return !CS->body_empty() && returns(CS->body_back());
  return S && isa<ReturnStmt>(S);
}

bool LaunchScanner::fails(const Stmt *S) {
  if (!S)
    return false;
  if (const auto *CS = dyn_cast<CompoundStmt>(S))
    return !CS->body_empty() && fails(CS->body_back());
  if (const auto *E = dyn_cast<Expr>(S)) {
    E = E->IgnoreParenImpCasts();
    if (isa<CXXThrowExpr>(E))
      return true;
    std::string Name;
    std::vector<const Expr *> Args;
    if (callParts(E, Name, Args)) {
      StringRef N(Name);
      return N == "abort" || N == "exit" || N == "__trap" || N.contains("Fail") ||
             N.contains("fail") || N.contains("THROW") || N.contains("ERROR") ||
             (isCheckName(N) && !Args.empty() && foldInt(strip(Args[0]), Ctx) == 0);
    }
  }
  return false;
}

/// Bounds from a host check: each `p <= M` it says is a checked product.
void LaunchScanner::addBounds(const Expr *C, bool Holds, const std::string &What,
                              SourceLocation Loc) {
  upperBounds(C, Holds, [&](const Expr *P, int64_t Max) { addProduct(P, Max, What, Loc); });
}

/// p <= Max where p is a product: its factors, constants folded into Max.
void LaunchScanner::addProduct(const Expr *P, int64_t Max, const std::string &What,
                               SourceLocation Loc) {
  std::vector<const Expr *> Factors;
  std::vector<const Expr *> Work = {P};
  while (!Work.empty() && Factors.size() < 16) {
    const Expr *E = strip(Work.back());
    Work.pop_back();
    if (const auto *BO = dyn_cast<BinaryOperator>(E); BO && BO->getOpcode() == BO_Mul) {
      Work.push_back(BO->getRHS());
      Work.push_back(BO->getLHS());
      continue;
    }
    if (auto V = foldInt(E, Ctx)) {
      if (*V <= 0)
        return;
      Max /= *V;
      continue;
    }
    Factors.push_back(E);
  }
  if (!Factors.empty() && Max > 0)
    addCheck(Factors, Max, What, Loc);
}

void LaunchScanner::addCheck(const std::vector<const Expr *> &Factors, int64_t Max,
                             const std::string &What, SourceLocation Loc) {
  Check C;
  C.Factors = Factors;
  C.Max = Max;
  C.What = What;
  C.Loc = Loc;
  SourceLocation FL = SM.getExpansionLoc(Loc);
  C.Offset = SM.getFileOffset(FL);
  C.File = SM.getFileID(FL);
  Checks.push_back(std::move(C));
}

// ---- checks ---------------------------------------------------------------
/// The kernel's name for a factor the launcher checks: the parameter the
/// same value (same variable, same text, or a local initialised by it) is
/// passed as, `numel(p)` for x.numel() when x.data_ptr() is passed as p,
/// or, when the launch's arguments are unknown, a parameter of the same name.
std::string LaunchScanner::mapFactor(const Expr *F, const Launch &L, const FunctionDecl *Def) {
  F = strip(F);
  std::string FT = textOf(F);
  const Expr *FInit = initOf(F);
  std::string FInitText = FInit ? textOf(strip(FInit)) : "";
  const ValueDecl *FD = nullptr;
  if (const auto *DR = dyn_cast<DeclRefExpr>(F))
    FD = DR->getDecl();
  // x.numel(): the tensor whose data pointer is passed.
  std::string NumelOf;
  if (const auto *MC = dyn_cast<CallExpr>(F)) {
    const Expr *C = MC->getCallee()->IgnoreParenImpCasts();
    if (const auto *DM = dyn_cast<CXXDependentScopeMemberExpr>(C)) // x unresolved
      if (DM->getMember().getAsString() == "numel" && !DM->isImplicitAccess())
        NumelOf = textOf(strip(DM->getBase()));
    if (const auto *MCE = dyn_cast<CXXMemberCallExpr>(MC))
      if (calleeOf(C) == "numel")
        NumelOf = textOf(strip(MCE->getImplicitObjectArgument()));
  }
  unsigned N = std::min<unsigned>(Def->getNumParams(), L.ArgText.size());
  for (unsigned I = 0; I < N; ++I) {
    const std::string &AT = L.ArgText[I];
    std::string Param = Def->getParamDecl(I)->getNameAsString();
    if (Param.empty() || AT.empty())
      continue;
    if (!NumelOf.empty()) {
      // x.data_ptr<T>(), (T *)x.data_ptr(), reinterpret_cast<T *>(x.data_ptr())
      if (passesData(AT, NumelOf))
        return "numel(" + Param + ")";
      continue;
    }
    if (FD && !L.Lexical)
      if (const auto *DR = dyn_cast<DeclRefExpr>(strip(L.Args[I])); DR && DR->getDecl() == FD)
        return Param;
    if (AT == FT || AT == FInitText)
      return Param;
    const Expr *AInit = nullptr;
    if (!L.Lexical)
      AInit = initOf(strip(L.Args[I]));
    else if (const VarDecl *VD = local(AT))
      if (!isa<ParmVarDecl>(VD) && !Assigned.count(VD))
        AInit = VD->getInit();
    if (AInit && textOf(strip(AInit)) == FT)
      return Param;
  }
  // Not passed, but the grid's extent along an axis (`k<<<num_tokens, 256>>>`, `dim3(n,
  // heads)`): a launch index along it is below the factor, so the check
  // bounds the index as well.
  if (!L.Lexical && NumelOf.empty())
    for (unsigned A = 0; A < 3; ++A)
      if (const Expr *G = gridAxisExpr(L.Grid, A)) {
        const Expr *GS = strip(G);
        bool Same = textOf(GS) == FT || (!FInitText.empty() && textOf(GS) == FInitText);
        if (const auto *DR = dyn_cast<DeclRefExpr>(GS); DR && FD && DR->getDecl() == FD)
          Same = true;
        if (Same)
          return gridFactor(A);
      }
  // A kernel parameter of the same name, only when the launch's
  // arguments are unknown: when they are known, a parameter of that name
  // may well be passed something else.
  if (!NumelOf.empty() || !L.ArgText.empty())
    return "";
  std::string Name = nameOf(F);
  if (!Name.empty())
    for (const ParmVarDecl *P : Def->parameters())
      if (P->getName() == Name)
        return Name;
  return "";
}

/// Axis A's extent of a launch's grid written at the launch: a scalar grid
/// (axis x), or the arguments of a dim3 constructed there.
const Expr *LaunchScanner::gridAxisExpr(const Expr *Grid, unsigned A) const {
  if (!Grid)
    return nullptr;
  const Expr *E = strip(Grid);
  if (const auto *CC = dyn_cast<CXXConstructExpr>(E)) {
    if (CC->getNumArgs() == 1 && CC->getArg(0)->getType()->isRecordType())
      return nullptr; // a copy of a dim3 built elsewhere
    return A < CC->getNumArgs() && !isa<CXXDefaultArgExpr>(CC->getArg(A)) ? CC->getArg(A) : nullptr;
  }
  QualType T = E->getType();
  if (!T.isNull() && T->isRecordType())
    return nullptr;
  return A == 0 ? E : nullptr;
}

/// Whether an argument's text passes X's data: X.data_ptr<T>(),
/// reinterpret_cast<T *>(X.data_ptr()), X->data(), ...
bool LaunchScanner::passesData(StringRef AT, StringRef X) {
  for (size_t P = AT.find(X); P != StringRef::npos; P = AT.find(X, P + 1)) {
    if (P > 0 && (isAsciiIdentifierContinue(AT[P - 1]) || AT[P - 1] == '.'))
      continue;
    StringRef Rest = AT.substr(P + X.size());
    if (!Rest.consume_front(".") && !Rest.consume_front("->"))
      continue;
    size_t E = 0;
    while (E < Rest.size() && isAsciiIdentifierContinue(Rest[E]))
      ++E;
    if (Rest.substr(0, E).contains("data"))
      return true;
  }
  return false;
}

void LaunchScanner::recordCheck(const Check &C, const Launch &L) {
  const FunctionDecl *Key = factsKey(L.Kernel);
  const FunctionDecl *Def = Key->getDefinition() ? Key->getDefinition() : Key;
  CheckedProduct P;
  P.Max = C.Max;
  for (const Expr *F : C.Factors) {
    std::string N = mapFactor(F, L, Def);
    if (!N.empty()) // an unmapped factor is left out: the rest is still bounded
      P.Factors.push_back(N);
  }
  if (P.Factors.empty())
    return;
  // One 32-bit parameter at most INT_MAX says nothing its type does not.
  if (P.Factors.size() == 1 && P.Max >= INT32_MAX)
    for (const ParmVarDecl *PD : Def->parameters())
      if (PD->getName() == P.Factors[0] && !PD->getType()->isDependentType() &&
          PD->getType()->isIntegerType() && Ctx.getTypeSize(PD->getType()) <= 32)
        return;
  P.Source = C.What + " at " + where(C.Loc);
  auto &Ks = Out[Key].Checked;
  for (const CheckedProduct &Q : Ks)
    if (Q.Factors == P.Factors && Q.Max == P.Max)
      return;
  Ks.push_back(std::move(P));
}

} // namespace launchfacts
} // namespace kvlint
