//===- LaunchGrids.cpp - What a launch says about its kernel --------------===//
//
// Part of the launch-facts pre-pass (LaunchScanner.h, LaunchFacts.cpp): a
// launch's kernel (named, through a local, or picked by a helper), the
// bounds of its grid per axis and of its arguments, the caller index that
// bounds a launcher's parameter by what every caller passes, and the
// record of one launch site.
//
//===----------------------------------------------------------------------===//
#include "LaunchScanner.h"

#include "clang/AST/Attr.h"
#include "clang/Lex/Lexer.h"
#include "llvm/Support/Path.h"

#include <functional>

namespace kvlint {
namespace launchfacts {

// ---- launches -----------------------------------------------------------
const FunctionDecl *LaunchScanner::kernelOf(const Expr *E, unsigned Depth) {
  if (!E || Depth > 4)
    return nullptr;
  E = E->IgnoreParenCasts();
  if (const auto *UO = dyn_cast<UnaryOperator>(E); UO && UO->getOpcode() == UO_AddrOf)
    return kernelOf(UO->getSubExpr(), Depth + 1);
  if (const auto *DR = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *FD = dyn_cast<FunctionDecl>(DR->getDecl()))
      return FD;
    if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl())) // auto kernel = k<T, 4>;
      if (VD->hasLocalStorage() && VD->getInit() && !Assigned.count(VD))
        return kernelOf(VD->getInit(), Depth + 1);
    return nullptr;
  }
  if (const auto *UL = dyn_cast<UnresolvedLookupExpr>(E)) {
    // A template kernel named in a dependent context: one candidate.
    const FunctionDecl *Found = nullptr;
    for (const NamedDecl *D : UL->decls()) {
      const FunctionDecl *FD = nullptr;
      if (const auto *FT = dyn_cast<FunctionTemplateDecl>(D->getUnderlyingDecl()))
        FD = FT->getTemplatedDecl();
      else
        FD = dyn_cast<FunctionDecl>(D->getUnderlyingDecl());
      if (!FD || (Found && factsKey(Found) != factsKey(FD)))
        return nullptr;
      Found = FD;
    }
    return Found;
  }
  return nullptr;
}

/// The values a function body returns (null for a bare `return;`), outside
/// the lambdas it defines.
std::vector<const Expr *> LaunchScanner::returnValues(const Stmt *Body) {
  std::vector<const Expr *> Out;
  std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
    if (!S || isa<LambdaExpr>(S))
      return;
    if (const auto *R = dyn_cast<ReturnStmt>(S)) {
      Out.push_back(R->getRetValue());
      return;
    }
    for (const Stmt *C : S->children())
      Walk(C);
  };
  Walk(Body);
  return Out;
}

/// The kernels a picker returns: `fp_kernel k = pick_kernel(m, bit);`
/// launched as `k<<<grid, block>>>(...)`, with every return of pick_kernel
/// a kernel (or null). Empty when not known.
std::vector<const FunctionDecl *> LaunchScanner::pickedKernels(const Expr *Callee) {
  std::vector<const FunctionDecl *> Ks;
  // `auto kernel = k4; if (bit == 8) kernel = k8;`: the kernel variable's
  // initializer and every assignment to it are kernels.
  if (const auto *DR = dyn_cast<DeclRefExpr>(strip(Callee)))
    if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl());
        VD && VD->hasLocalStorage() && !isa<ParmVarDecl>(VD) && VD->getInit() &&
        Assigned.count(VD) && ScanBody) {
      std::vector<const Expr *> Values = {VD->getInit()};
      bool Ok = true;
      std::function<void(const Stmt *)> Find = [&](const Stmt *S) {
        if (!S || !Ok)
          return;
        if (const auto *BO = dyn_cast<BinaryOperator>(S); BO && BO->isAssignmentOp()) {
          const auto *L = dyn_cast<DeclRefExpr>(BO->getLHS()->IgnoreParenImpCasts());
          if (L && L->getDecl() == VD) {
            if (BO->getOpcode() != BO_Assign)
              Ok = false;
            Values.push_back(BO->getRHS());
          }
        } else if (const auto *UO = dyn_cast<UnaryOperator>(S); UO && UO->getOpcode() == UO_AddrOf) {
          const auto *L = dyn_cast<DeclRefExpr>(UO->getSubExpr()->IgnoreParenImpCasts());
          if (L && L->getDecl() == VD)
            Ok = false; // written through a pointer
        }
        for (const Stmt *C : S->children())
          Find(C);
      };
      Find(ScanBody);
      for (const Expr *V : Values) {
        const FunctionDecl *K = Ok ? kernelOf(V->IgnoreParenCasts()) : nullptr;
        if (!K || !K->hasAttr<CUDAGlobalAttr>())
          return {};
        if (std::find(Ks.begin(), Ks.end(), K) == Ks.end())
          Ks.push_back(K);
      }
      return Ks;
    }
  const Expr *Init = initOf(strip(Callee));
  const auto *CE = Init ? dyn_cast<CallExpr>(strip(Init)) : nullptr;
  const FunctionDecl *P = CE ? CE->getDirectCallee() : nullptr;
  if (P && P->getDefinition())
    P = P->getDefinition();
  if (!P || !P->hasBody())
    return Ks;
  for (const Expr *R : returnValues(P->getBody())) {
    const Expr *V = R ? R->IgnoreParenCasts() : nullptr;
    if (!V || isa<GNUNullExpr, CXXNullPtrLiteralExpr, IntegerLiteral>(V))
      continue; // no kernel: the launcher checks for it
    const FunctionDecl *K = kernelOf(V);
    if (!K || !K->hasAttr<CUDAGlobalAttr>())
      return {};
    if (std::find(Ks.begin(), Ks.end(), K) == Ks.end())
      Ks.push_back(K);
  }
  if (Ks.size() > 256)
    Ks.clear();
  return Ks;
}

void LaunchScanner::addLaunch(const Expr *Callee, const Expr *Grid, std::vector<const Expr *> Args,
                              SourceLocation Loc, bool HasArgs) {
  if (const FunctionDecl *K = kernelOf(Callee)) {
    addLaunchOf(K, Grid, std::move(Args), Loc, HasArgs);
    return;
  }
  for (const FunctionDecl *K : pickedKernels(Callee))
    addLaunchOf(K, Grid, Args, Loc, HasArgs);
}

void LaunchScanner::addLaunchOf(const FunctionDecl *Kernel, const Expr *Grid,
                                std::vector<const Expr *> Args, SourceLocation Loc, bool HasArgs) {
  Launch L;
  L.Kernel = Kernel;
  if (!L.Kernel || !L.Kernel->hasAttr<CUDAGlobalAttr>())
    return;
  L.Grid = Grid;
  if (HasArgs)
    L.Args = std::move(Args);
  for (const Expr *A : L.Args)
    L.ArgText.push_back(A ? textOf(strip(A)) : "");
  L.Loc = Loc;
  SourceLocation FL = SM.getExpansionLoc(Loc);
  L.Offset = SM.getFileOffset(FL);
  L.Spelling = SM.getFileOffset(SM.getSpellingLoc(Loc));
  L.SpellFile = SM.getFileID(SM.getSpellingLoc(Loc));
  L.File = SM.getFileID(FL);
  L.Conds = Branches;
  Launches.push_back(std::move(L));
}

std::string LaunchScanner::where(SourceLocation L) {
  L = SM.getExpansionLoc(L);
  return llvm::sys::path::filename(SM.getFilename(L)).str() + ":" +
         std::to_string(SM.getExpansionLineNumber(L));
}

/// A local's initializer, when the local is never written after it.
const Expr *LaunchScanner::initOf(const Expr *E) {
  const auto *DR = dyn_cast<DeclRefExpr>(E);
  if (!DR)
    return nullptr;
  const auto *VD = dyn_cast<VarDecl>(DR->getDecl());
  if (!VD || !VD->hasLocalStorage() || isa<ParmVarDecl>(VD) || Assigned.count(VD) ||
      VD->getType()->isReferenceType())
    return nullptr;
  return VD->getInit();
}

std::string LaunchScanner::nameOf(const Expr *E) {
  if (const auto *DR = dyn_cast<DeclRefExpr>(E))
    return DR->getDecl()->getNameAsString();
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    return ME->getMemberDecl()->getNameAsString();
  if (const auto *DM = dyn_cast<CXXDependentScopeMemberExpr>(E))
    return DM->getMember().getAsString();
  return "";
}

bool LaunchScanner::ceilDivName(StringRef N) {
  std::string L = N.lower();
  return L == "ceil_div" || L == "cdiv" || L == "div_ceil" || L == "divup" || L == "div_up" ||
         L == "ceildiv" || L == "div_round_up" || L == "ceil_div_int" || L == "ceildivup" ||
         L == "round_up_div" || L == "iceil_div" || L == "ceil_divide" || L == "ceil";
}

/// The range of what a helper of this translation unit returns, when every
/// return in its body is a constant or a call to such a helper
/// (`compute_k_split(size_k)` returning 4, 2 or 1).
bool LaunchScanner::constantReturns(const FunctionDecl *FD, int64_t &Lo, int64_t &Hi,
                                    unsigned Depth) {
  if (!FD || Depth > 3)
    return false;
  if (const FunctionDecl *Def = FD->getDefinition())
    FD = Def;
  if (!FD->hasBody() || !FD->getReturnType()->isIntegerType())
    return false;
  bool Any = false;
  for (const Expr *R : returnValues(FD->getBody())) {
    const Expr *V = R ? strip(R) : nullptr;
    int64_t L = 0, H = 0;
    if (auto C = V ? foldInt(V, Ctx) : std::nullopt)
      L = H = *C;
    else if (const auto *CE = dyn_cast_or_null<CallExpr>(V);
             !CE || !constantReturns(CE->getDirectCallee(), L, H, Depth + 1))
      return false;
    Lo = Any ? std::min(Lo, L) : L;
    Hi = Any ? std::max(Hi, H) : H;
    Any = true;
  }
  return Any;
}

/// One axis of a grid (or one scalar grid): what bounds the number of
/// blocks along it.
SiteFact LaunchScanner::axis(const Expr *E, unsigned Depth) {
  SiteFact F;
  if (!E || Depth > 6)
    return F;
  if (const auto *DA = dyn_cast<CXXDefaultArgExpr>(E))
    E = DA->getExpr();
  E = strip(E);
  if (auto V = foldInt(E, Ctx)) {
    if (*V >= 1) {
      F.Known = F.HasRange = true;
      F.Hi = *V - 1;
    }
    return F;
  }
  if (const auto *CE = dyn_cast<CallExpr>(E)) {
    int64_t Lo = 0, Hi = 0;
    if (constantReturns(CE->getDirectCallee(), Lo, Hi) && Hi >= 1) {
      F.Known = F.HasRange = true;
      F.Hi = Hi - 1;
      return F;
    }
  }
  // A parameter every caller passes bounded (`if (size_m < 32)
  // launch_small(..., size_m)`): an extent below the bound.
  if (auto M = callerMaxOf(E); M && *M >= 1) {
    F.Known = F.HasRange = true;
    F.Hi = *M - 1;
    return F;
  }
  if (const Expr *Init = initOf(E)) {
    F = axis(Init, Depth + 1);
    if (!F.Known) {
      F.Known = true;
      F.BoundBy = nameOf(E);
    }
    return F;
  }
  if (isa<DeclRefExpr, MemberExpr, CXXDependentScopeMemberExpr>(E)) {
    std::string N = nameOf(E);
    if (!N.empty() && !E->getType().isNull() && !E->getType()->isPointerType()) {
      F.Known = true;
      F.BoundBy = N;
    }
    return F;
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(E); BO && BO->getOpcode() == BO_Div)
    return ceilDiv(BO->getLHS(), BO->getRHS(), Depth);
  std::string Name;
  std::vector<const Expr *> Args;
  if (callParts(E, Name, Args)) {
    if (Args.size() == 2 && ceilDivName(Name))
      return ceilDiv(Args[0], Args[1], Depth, /*Exact=*/true);
    if (Args.size() == 2 && (Name == "min" || Name == "__min" || Name == "umin")) {
      auto A = foldInt(strip(Args[0]), Ctx), B = foldInt(strip(Args[1]), Ctx);
      if (!A && !B) { // min(a, b) is below a and below b: the first named
        F = axis(Args[0], Depth + 1);
        return F.Known ? F : axis(Args[1], Depth + 1);
      }
      if (A || B) { // min(n, 65535): [0, 65534], and below n
        if (A && B)
          return axis(*A < *B ? Args[0] : Args[1], Depth + 1);
        int64_t C = A ? *A : *B;
        F = axis(A ? Args[1] : Args[0], Depth + 1);
        if (C >= 1 && (!F.HasRange || F.Hi > C - 1)) {
          F.Known = F.HasRange = true;
          F.Lo = 0;
          F.Hi = C - 1;
        }
        return F;
      }
    }
  }
  return F;
}

/// ceil(n / B) in its spellings: (n + B - 1) / B, DIVUP(n, B), n / B.
SiteFact LaunchScanner::ceilDiv(const Expr *Num, const Expr *Den, unsigned Depth, bool Exact) {
  SiteFact F;
  auto B = foldInt(strip(Den), Ctx);
  if (B && *B <= 0)
    return F;
  std::string DenText = textOf(strip(Den));
  // The additive terms of the numerator: one that names the quantity,
  // constants, and (for a symbolic B) B itself.
  std::vector<std::pair<const Expr *, bool>> Work = {{Num, false}};
  const Expr *Main = nullptr;
  int64_t K = 0;
  int DenTerms = 0;
  while (!Work.empty()) {
    auto [E, Neg] = Work.back();
    Work.pop_back();
    E = strip(E);
    if (const auto *BO = dyn_cast<BinaryOperator>(E);
        BO && (BO->getOpcode() == BO_Add || BO->getOpcode() == BO_Sub)) {
      Work.push_back({BO->getLHS(), Neg});
      Work.push_back({BO->getRHS(), BO->getOpcode() == BO_Sub ? !Neg : Neg});
      continue;
    }
    if (auto V = foldInt(E, Ctx)) {
      K += Neg ? -*V : *V;
      continue;
    }
    if (!B && !Neg && textOf(E) == DenText) {
      ++DenTerms;
      continue;
    }
    if (Main || Neg)
      return F;
    Main = E;
  }
  if (!Main)
    return F;
  if (!roundsUpWithin(B, DenTerms, K, Exact))
    return F;
  return divided(axis(Main, Depth + 1), B, DenText);
}

std::string LaunchScanner::textOf(const Expr *E) {
  CharSourceRange R = CharSourceRange::getTokenRange(E->getSourceRange());
  R = Lexer::makeFileCharRange(R, SM, Ctx.getLangOpts());
  if (R.isInvalid())
    R = CharSourceRange::getTokenRange(SM.getExpansionRange(E->getSourceRange()).getAsRange());
  bool Invalid = false;
  StringRef T = Lexer::getSourceText(R, SM, Ctx.getLangOpts(), &Invalid);
  std::string S;
  if (!Invalid)
    for (char C : T)
      if (!isspace(static_cast<unsigned char>(C)))
        S += C;
  return S;
}

/// The three axes of a grid expression: a dim3 (constructed here or in a
/// local) or a scalar.
void LaunchScanner::grid(const Expr *E, SiteFact (&Axes)[3], unsigned Depth) {
  if (!E || Depth > 6)
    return;
  E = strip(E);
  if (const auto *CC = dyn_cast<CXXConstructExpr>(E)) {
    if (CC->getNumArgs() == 1 && CC->getArg(0)->getType()->isRecordType()) // copy
      return grid(CC->getArg(0), Axes, Depth + 1);
    for (unsigned I = 0; I < 3 && I < CC->getNumArgs(); ++I)
      Axes[I] = axis(CC->getArg(I), Depth + 1);
    return;
  }
  if (const auto *IL = dyn_cast<InitListExpr>(E)) {
    for (unsigned I = 0; I < 3; ++I)
      Axes[I] = I < IL->getNumInits() ? axis(IL->getInit(I), Depth + 1) : axis1();
    return;
  }
  if (const auto *UC = dyn_cast<CXXUnresolvedConstructExpr>(E)) { // dim3(dependent...)
    for (unsigned I = 0; I < 3; ++I)
      Axes[I] = I < UC->getNumArgs() ? axis(UC->getArg(I), Depth + 1) : axis1();
    return;
  }
  if (const auto *PL = dyn_cast<ParenListExpr>(E)) {
    for (unsigned I = 0; I < 3; ++I)
      Axes[I] = I < PL->getNumExprs() ? axis(PL->getExpr(I), Depth + 1) : axis1();
    return;
  }
  QualType T = E->getType();
  bool Dim3 = !T.isNull() && T->isRecordType();
  // A local dim3 whose axes are assigned one by one (`dim3 grid;
  // grid.z = DIVIDE(size_k, BLOCK);`): each axis its last assignment, or
  // what the declaration gave it (1 for a default dim3).
  if (const auto *DR = dyn_cast<DeclRefExpr>(E); Dim3 && DR) {
    const ValueDecl *VD = DR->getDecl();
    bool Any = false;
    for (char C : {'x', 'y', 'z'})
      Any |= Dim3Member.count({VD, C}) != 0;
    if (Any) {
      const auto *V = dyn_cast<VarDecl>(VD);
      const auto *CC = V && V->getInit() ? dyn_cast<CXXConstructExpr>(strip(V->getInit())) : nullptr;
      for (unsigned I = 0; I < 3; ++I) {
        auto It = Dim3Member.find({VD, char('x' + I)});
        if (It != Dim3Member.end())
          Axes[I] = axis(It->second, Depth + 1);
        else if (CC && I < CC->getNumArgs()) // a default argument is 1
          Axes[I] = axis(CC->getArg(I), Depth + 1);
        else if (CC || (V && !V->getInit()))
          Axes[I] = axis1();
      }
      return;
    }
  }
  if (Dim3) {
    if (const Expr *Init = initOf(E))
      grid(Init, Axes, Depth + 1);
    return; // a dim3 the launcher computes elsewhere
  }
  Axes[0] = axis(E, Depth + 1); // k<<<n, ...>>>: y and z are 1
  Axes[1] = Axes[2] = axis1();
}

SiteFact LaunchScanner::axis1() {
  SiteFact F;
  F.Known = F.HasRange = true;
  return F;
}

/// The function a call or reference names: the callee, or the one
/// template a dependent call (`launch<T>(...)` in a template) can reach.
const FunctionDecl *LaunchScanner::calleeKey(const Expr *E) {
  E = E ? E->IgnoreParenImpCasts() : nullptr;
  if (const auto *DR = dyn_cast_or_null<DeclRefExpr>(E))
    return factsKey(dyn_cast<FunctionDecl>(DR->getDecl()));
  if (const auto *UL = dyn_cast_or_null<UnresolvedLookupExpr>(E)) {
    if (UL->getNumDecls() != 1)
      return nullptr;
    const NamedDecl *D = (*UL->decls_begin())->getUnderlyingDecl();
    if (const auto *FT = dyn_cast<FunctionTemplateDecl>(D))
      return factsKey(FT->getTemplatedDecl());
    return factsKey(dyn_cast<FunctionDecl>(D));
  }
  return nullptr;
}

void LaunchScanner::indexStmt(const Stmt *S, const FunctionDecl *Caller,
                              std::vector<std::pair<const Expr *, bool>> &Br, unsigned Depth) {
  if (!S || Depth > 200)
    return;
  if (const auto *IS = dyn_cast<IfStmt>(S)) {
    indexStmt(IS->getInit(), Caller, Br, Depth + 1);
    indexStmt(IS->getCond(), Caller, Br, Depth + 1);
    if (IS->getCond() && !IS->isConstexpr() && Br.size() < 32) {
      Br.push_back({IS->getCond(), false});
      indexStmt(IS->getThen(), Caller, Br, Depth + 1);
      Br.back().second = true;
      indexStmt(IS->getElse(), Caller, Br, Depth + 1);
      Br.pop_back();
    } else {
      indexStmt(IS->getThen(), Caller, Br, Depth + 1);
      indexStmt(IS->getElse(), Caller, Br, Depth + 1);
    }
    return;
  }
  if (const auto *CS = dyn_cast<CompoundStmt>(S)) {
    size_t Pushed = 0;
    for (const Stmt *C : CS->body()) {
      indexStmt(C, Caller, Br, Depth + 1);
      // if (c) { ...; return; }: the rest of the block runs under !c.
      const auto *IS = dyn_cast<IfStmt>(C);
      if (IS && !IS->getElse() && IS->getCond() && !IS->isConstexpr() && Br.size() < 32 &&
          (returns(IS->getThen()) || fails(IS->getThen()))) {
        Br.push_back({IS->getCond(), true});
        ++Pushed;
      }
    }
    Br.resize(Br.size() - Pushed);
    return;
  }
  if (const auto *CE = dyn_cast<CallExpr>(S); CE && !isa<CUDAKernelCallExpr>(CE))
    if (const FunctionDecl *K = calleeKey(CE->getCallee())) {
      CallSite C;
      C.Args.assign(CE->arg_begin(), CE->arg_end());
      C.Conds = Br;
      C.Caller = Caller;
      Callers[K].push_back(std::move(C));
      ++CallUses[K];
    }
  for (const Stmt *C : S->children())
    indexStmt(C, Caller, Br, Depth + 1);
}

/// Whether D is written in S (writtenDecl): a caller's condition on it
/// then need not hold where it is passed. Past 200 levels it may be: the
/// side that bounds nothing.
bool LaunchScanner::writtenIn(const ValueDecl *D, const Stmt *S, unsigned Depth) {
  if (!S)
    return false;
  if (Depth > 200)
    return true;
  if (writtenDecl(S) == D)
    return true;
  for (const Stmt *C : S->children())
    if (writtenIn(D, C, Depth + 1))
      return true;
  return false;
}

/// The largest value parameter P of function F (a factsKey) is passed by
/// every call in the TU, when each call passes a constant, a value its
/// branch conditions bound from above, or a parameter of its caller that
/// is bounded so in turn; none when a call says nothing, or F may have
/// callers the TU does not show.
std::optional<int64_t> LaunchScanner::callerMax(const FunctionDecl *F, unsigned P, unsigned Depth) {
  if (!F || Depth > 3 || F->hasAttr<CUDAGlobalAttr>())
    return std::nullopt;
  if (!holdsEveryCaller(F))
    return std::nullopt;
  auto It = Callers.find(F);
  if (It == Callers.end() || It->second.empty() || Uses[F] != CallUses[F])
    return std::nullopt;
  std::optional<int64_t> Max;
  for (const CallSite &C : It->second) {
    if (P >= C.Args.size())
      return std::nullopt;
    const Expr *A = strip(C.Args[P]);
    std::optional<int64_t> V = foldInt(A, Ctx);
    const auto *ADR = dyn_cast<DeclRefExpr>(A);
    if (ADR && C.Caller && writtenIn(ADR->getDecl(), C.Caller->getBody()))
      return std::nullopt; // the caller changes the value it passes
    if (!V)
      V = branchMax(A, C.Conds);
    if (!V)
      if (const auto *DR = dyn_cast<DeclRefExpr>(A))
        if (const auto *PV = dyn_cast<ParmVarDecl>(DR->getDecl()))
          if (C.Caller && PV->getFunctionScopeIndex() < C.Caller->getNumParams())
            V = callerMax(C.Caller, PV->getFunctionScopeIndex(), Depth + 1);
    if (!V)
      return std::nullopt;
    Max = Max ? std::max(*Max, *V) : *V;
  }
  return Max;
}

/// Whether the TU shows every call of F: F is defined in a source file
/// being scanned as the main file (a header's functions are called by
/// every file that includes it), and no other file can name it: internal
/// linkage, or a template the file does not instantiate explicitly.
bool LaunchScanner::holdsEveryCaller(const FunctionDecl *F) {
  const SourceManager &SM = Ctx.getSourceManager();
  if (!SM.isInMainFile(SM.getExpansionLoc(F->getLocation())))
    return false;
  OptionalFileEntryRef Main = SM.getFileEntryRefForID(SM.getMainFileID());
  StringRef Ext = Main ? llvm::sys::path::extension(Main->getName()) : StringRef();
  if (!(Ext == ".cu" || Ext == ".cpp" || Ext == ".cc" || Ext == ".cxx" || Ext == ".hip" ||
        Ext == ".c"))
    return false;
  if (!F->isExternallyVisible())
    return true;
  const FunctionTemplateDecl *FT = F->getDescribedFunctionTemplate();
  if (!FT)
    return false;
  for (const FunctionDecl *Spec : FT->specializations()) {
    TemplateSpecializationKind K = Spec->getTemplateSpecializationKind();
    if (K == TSK_ExplicitInstantiationDefinition || K == TSK_ExplicitInstantiationDeclaration ||
        K == TSK_ExplicitSpecialization)
      return false;
  }
  return true;
}

/// callerMax of a parameter of the function being scanned.
std::optional<int64_t> LaunchScanner::callerMaxOf(const ParmVarDecl *PV) {
  if (!PV || !Current || factsKey(dyn_cast_or_null<FunctionDecl>(PV->getDeclContext())) != Current)
    return std::nullopt;
  if (Assigned.count(PV))
    return std::nullopt; // the parameter is written before the launch
  return callerMax(Current, PV->getFunctionScopeIndex());
}

std::optional<int64_t> LaunchScanner::callerMaxOf(const Expr *E) {
  const auto *DR = dyn_cast_or_null<DeclRefExpr>(E ? strip(E) : nullptr);
  return callerMaxOf(DR ? dyn_cast<ParmVarDecl>(DR->getDecl()) : nullptr);
}

/// The largest value X takes where the launch's branch conditions (true =
/// negated) hold: the smallest `X <= M` they say (upperBounds).
std::optional<int64_t>
LaunchScanner::branchMax(const Expr *X, const std::vector<std::pair<const Expr *, bool>> &Cs) {
  const auto *XD = dyn_cast<DeclRefExpr>(X);
  if (!XD)
    return std::nullopt;
  std::optional<int64_t> Best;
  for (const auto &[C, Neg] : Cs)
    upperBounds(C, !Neg, [&](const Expr *P, int64_t M) {
      const auto *D = dyn_cast<DeclRefExpr>(strip(P));
      if (D && D->getDecl() == XD->getDecl() && (!Best || M < *Best))
        Best = M;
    });
  return Best;
}

SiteFact LaunchScanner::argFact(const Expr *E, unsigned Depth,
                                const std::vector<std::pair<const Expr *, bool>> *Conds) {
  SiteFact F;
  if (!E || Depth > 4)
    return F;
  E = strip(E);
  const auto *EDR = dyn_cast<DeclRefExpr>(E);
  // (Not for a variable the launcher writes: `if (m < 64) { m *= k; launch(m); }`.)
  if (Conds && !Conds->empty() && !(EDR && Assigned.count(EDR->getDecl())))
    if (auto M = branchMax(E, *Conds); M && *M >= 0) {
      F.Known = F.HasRange = true;
      F.Lo = 0; // a size the launch is guarded by from above
      F.Hi = *M;
      return F;
    }
  if (auto M = callerMaxOf(E); M && *M >= 0) {
    F.Known = F.HasRange = true;
    F.Lo = 0; // a size every caller passes bounded from above
    F.Hi = *M;
    return F;
  }
  if (auto V = foldInt(E, Ctx)) {
    F.Known = F.HasRange = true;
    F.Lo = F.Hi = *V;
    return F;
  }
  if (const Expr *Init = initOf(E)) {
    if (auto V = foldInt(strip(Init), Ctx)) {
      F.Known = F.HasRange = true;
      F.Lo = F.Hi = *V;
      return F;
    }
    if (const auto *CE = dyn_cast<CallExpr>(strip(Init)))
      if (constantReturns(CE->getDirectCallee(), F.Lo, F.Hi)) {
        F.Known = F.HasRange = true;
        return F;
      }
  }
  if (isa<DeclRefExpr, MemberExpr, CXXDependentScopeMemberExpr>(E)) {
    std::string N = nameOf(E);
    if (!N.empty()) {
      F.Known = true;
      F.BoundBy = N;
    }
  }
  return F;
}

void LaunchScanner::record(const Launch &L) {
  const FunctionDecl *Key = factsKey(L.Kernel);
  KernelFacts &K = Out[Key];
  std::string W = where(L.Loc);
  // The same launch seen twice. Two launches from one macro invocation
  // share their expansion location but not their spelling.
  for (const LaunchSite &S : K.Sites)
    if (S.Offset == L.Offset && S.Spelling == L.Spelling && S.Where == W)
      return;
  LaunchSite S;
  S.Where = W;
  S.Offset = L.Offset;
  S.Spelling = L.Spelling;
  S.SpellFile = L.SpellFile;
  if (L.Lexical)
    std::copy(std::begin(L.LexAxis), std::end(L.LexAxis), S.Axis);
  else
    grid(L.Grid, S.Axis);
  const FunctionDecl *Def = Key->getDefinition() ? Key->getDefinition() : Key;
  // A grid of cdiv(n, b) programs where b is passed on as a parameter:
  // the parameter's name.
  for (SiteFact &Ax : S.Axis) {
    if (Ax.DivText.empty())
      continue;
    unsigned Hits = 0;
    size_t NA0 = L.Lexical ? L.ArgText.size() : L.Args.size();
    for (unsigned I = 0; I < Def->getNumParams() && I < NA0; ++I) {
      std::string T = L.Lexical ? squeeze(L.ArgText[I]) : squeeze(textOf(strip(L.Args[I])));
      if (T == Ax.DivText && !Def->getParamDecl(I)->getName().empty()) {
        Ax.DivBy = Def->getParamDecl(I)->getName().str();
        ++Hits;
      }
    }
    if (Hits != 1)
      Ax.DivBy.clear();
  }
  S.Args.resize(Def->getNumParams());
  size_t NA = L.Lexical ? L.LexArgs.size() : L.Args.size();
  for (unsigned I = 0; I < Def->getNumParams() && I < NA; ++I) {
    QualType T = Def->getParamDecl(I)->getType();
    if (T.isNull() || T->isPointerType() || T->isRealFloatingType() || T->isRecordType())
      continue;
    S.Args[I] = L.Lexical ? L.LexArgs[I] : argFact(L.Args[I], 0, &L.Conds);
  }
  K.Sites.push_back(std::move(S));
}

} // namespace launchfacts
} // namespace kvlint
