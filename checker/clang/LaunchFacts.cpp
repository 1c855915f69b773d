//===- LaunchFacts.cpp - What host launches say about kernels -------------===//
//
// The launch-facts pre-pass of the Clang frontend (see LaunchFacts.h): reads
// the launches in host code, from the AST and, where clang dropped them,
// from tokens, and the checks made before them. The scanner is split along
// its seams (LaunchScanner.h lists its parts); this file holds the helpers
// the parts share, the scan of one function, the merge of what the sites
// say, and the entry point.
//
//===----------------------------------------------------------------------===//
#include "LaunchFacts.h"
#include "LaunchScanner.h"

#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace kvlint {

/// The key facts are recorded under: the primary template's declaration for
/// an instantiation, so that every instantiation and the template share them.
const FunctionDecl *factsKey(const FunctionDecl *FD) {
  if (!FD)
    return nullptr;
  if (const FunctionDecl *P = FD->getTemplateInstantiationPattern())
    FD = P;
  return FD->getCanonicalDecl();
}

namespace launchfacts {

const Expr *strip(const Expr *E) {
  for (unsigned I = 0; E && I < 32; ++I) {
    const Expr *Prev = E;
    E = E->IgnoreParens();
    if (const auto *C = dyn_cast<CastExpr>(E)) {
      // Keep casts to pointers and to dim3: only integer conversions go.
      QualType T = C->getType();
      if (!T.isNull() && (T->isIntegralOrEnumerationType() || T->isDependentType() ||
                          C->getCastKind() == CK_LValueToRValue || C->getCastKind() == CK_NoOp ||
                          C->getCastKind() == CK_ConstructorConversion))
        E = C->getSubExpr();
    } else if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(E)) {
      E = MT->getSubExpr();
    } else if (const auto *EW = dyn_cast<ExprWithCleanups>(E)) {
      E = EW->getSubExpr();
    } else if (const auto *BT = dyn_cast<CXXBindTemporaryExpr>(E)) {
      E = BT->getSubExpr();
    } else if (const auto *UC = dyn_cast<CXXUnresolvedConstructExpr>(E)) {
      if (UC->getNumArgs() == 1 && !UC->getTypeAsWritten()->isRecordType())
        E = UC->getArg(0);
    }
    if (E == Prev)
      break;
  }
  return E;
}

/// Text without whitespace: two spellings of one expression compare equal.
std::string squeeze(const std::string &T) {
  std::string Out;
  for (char C : T)
    if (!isspace(static_cast<unsigned char>(C)))
      Out += C;
  return Out;
}

/// What ceil(n / B) says, given what n is (N) and the divisor (B when it is a
/// constant, its text DenText): a range divided, or a bound by n's name with
/// the divisor (cdiv(cdiv(n, a), b) = cdiv(n, a*b)); the outermost divisor
/// that is no constant is kept by its text (i < cdiv(cdiv(n, a), b) still
/// gives i * b < n). Nothing when n is neither.
/// Whether a numerator of the quantity plus K (and DenTerms copies of a
/// symbolic divisor) over B is at most ceil(quantity / B):
/// floor((n + K) / B) <= ceil(n / B) needs K <= B - 1. A ceil-div helper's
/// call (Exact) is ceil(n / B) whatever its spelling.
bool roundsUpWithin(std::optional<int64_t> B, int DenTerms, int64_t K, bool Exact) {
  if (Exact)
    return true;
  if (B)
    return DenTerms != 0 || K <= *B - 1;
  return (DenTerms == 0 && K <= 0) || (DenTerms == 1 && K <= -1);
}

SiteFact divided(const SiteFact &N, std::optional<int64_t> B, const std::string &DenText) {
  SiteFact F;
  if (N.Known && N.HasRange && N.BoundBy.empty() && B && N.Lo >= 0) {
    // An extent of at most N.Hi + 1, divided: at most cdiv(N.Hi + 1, B).
    F.Known = F.HasRange = true;
    F.Hi = std::max<int64_t>((N.Hi + *B) / *B - 1, 0);
    return F;
  }
  if (!N.Known || N.BoundBy.empty())
    return F;
  F.Known = true;
  F.BoundBy = N.BoundBy;
  F.Div = B ? N.Div * *B : N.Div;
  F.DivText = B ? "" : squeeze(DenText);
  return F;
}

std::optional<int64_t> foldInt(const Expr *E, ASTContext &Ctx) {
  if (!E || E->getType().isNull() || E->isValueDependent() || E->isTypeDependent() ||
      E->containsErrors() || !E->getType()->isIntegralOrEnumerationType())
    return std::nullopt;
  Expr::EvalResult R;
  if (!E->EvaluateAsInt(R, Ctx))
    return std::nullopt;
  const llvm::APSInt &V = R.Val.getInt();
  if (V.getSignificantBits() > 64)
    return std::nullopt;
  return V.getExtValue();
}

/// The name of a callee, resolved or not (a RecoveryExpr's first child is
/// the unresolved callee of a call that failed to type-check).
std::string calleeOf(const Expr *C) {
  if (!C)
    return "";
  C = C->IgnoreParenImpCasts();
  if (const auto *DR = dyn_cast<DeclRefExpr>(C))
    return DR->getDecl()->getNameAsString();
  if (const auto *UL = dyn_cast<UnresolvedLookupExpr>(C))
    return UL->getName().getAsString();
  if (const auto *ME = dyn_cast<MemberExpr>(C))
    return ME->getMemberDecl()->getNameAsString();
  if (const auto *UM = dyn_cast<UnresolvedMemberExpr>(C))
    return UM->getMemberName().getAsString();
  if (const auto *DM = dyn_cast<CXXDependentScopeMemberExpr>(C))
    return DM->getMember().getAsString();
  if (const auto *DS = dyn_cast<DependentScopeDeclRefExpr>(C))
    return DS->getDeclName().getAsString();
  return "";
}

/// A call's callee name and arguments, also for calls clang could not
/// resolve (missing headers leave RecoveryExprs whose children are the
/// callee and the arguments).
bool callParts(const Expr *E, std::string &Name, std::vector<const Expr *> &Args) {
  if (const auto *CE = dyn_cast<CallExpr>(E)) {
    if (isa<CUDAKernelCallExpr>(CE))
      return false;
    Name = calleeOf(CE->getCallee());
    Args.assign(CE->arg_begin(), CE->arg_end());
    return !Name.empty();
  }
  if (const auto *RE = dyn_cast<RecoveryExpr>(E)) {
    auto Subs = RE->subExpressions();
    if (Subs.empty() || !isa<UnresolvedLookupExpr, UnresolvedMemberExpr, DeclRefExpr,
                             CXXDependentScopeMemberExpr>(Subs[0]->IgnoreParenImpCasts()))
      return false;
    Name = calleeOf(Subs[0]);
    Args.assign(Subs.begin() + 1, Subs.end());
    return !Name.empty();
  }
  return false;
}

void LaunchScanner::scanFunction(const FunctionDecl *FD) {
  const Stmt *Body = FD->getBody();
  if (!Body)
    return;
  Launches.clear();
  Checks.clear();
  Assigned.clear();
  ConfigGrid.clear();
  Dim3Member.clear();
  ScanBody = Body;
  Current = factsKey(FD);
  Locals.clear();
  for (const ParmVarDecl *P : FD->parameters())
    addLocal(P);
  walk(Body, 0);
  lexLaunches(FD);
  for (const Launch &L : Launches)
    record(L);
  for (const Check &C : Checks)
    for (const Launch &L : Launches)
      if (L.Kernel && L.Offset > C.Offset && L.File == C.File &&
          !(L.Offset >= C.SkipBegin && L.Offset < C.SkipEnd))
        recordCheck(C, L);
}

} // namespace launchfacts

namespace {

using launchfacts::LaunchScanner;

/// Merges what the sites say: a range if every site gives one (their
/// union), a name if every site gives the same name.
ValueHint merge(const std::vector<const SiteFact *> &Fs, const std::vector<std::string> &Where) {
  ValueHint H;
  if (Fs.empty())
    return H;
  bool AllRange = true, SameName = true;
  int64_t Lo = INT64_MAX, Hi = INT64_MIN, Div = INT64_MAX;
  for (const SiteFact *F : Fs) {
    if (!F || !F->Known)
      return H;
    AllRange &= F->HasRange;
    if (F->HasRange)
      Lo = std::min(Lo, F->Lo), Hi = std::max(Hi, F->Hi);
    SameName &= !F->BoundBy.empty() && F->BoundBy == Fs[0]->BoundBy;
    Div = std::min(Div, F->Div);
  }
  if (AllRange) {
    H.HasRange = true;
    H.Lo = Lo;
    H.Hi = Hi;
  }
  if (SameName) {
    H.BoundBy = Fs[0]->BoundBy;
    H.BoundDiv = Div;
    bool SameDiv = true;
    for (const SiteFact *F : Fs)
      SameDiv &= F->DivBy == Fs[0]->DivBy;
    if (SameDiv)
      H.DivBy = Fs[0]->DivBy;
  }
  if (H.any()) {
    H.Source = "launch at " + Where[0];
    if (Where.size() > 1)
      H.Source += " (+" + std::to_string(Where.size() - 1) + " more)";
  }
  return H;
}

void finish(KernelFacts &K) {
  std::vector<std::string> Where;
  for (const LaunchSite &S : K.Sites)
    Where.push_back(S.Where);
  for (unsigned A = 0; A < 3; ++A) {
    std::vector<const SiteFact *> Fs;
    for (const LaunchSite &S : K.Sites)
      Fs.push_back(&S.Axis[A]);
    K.Axis[A] = merge(Fs, Where);
  }
  size_t NP = 0;
  for (const LaunchSite &S : K.Sites)
    NP = std::max(NP, S.Args.size());
  K.Args.resize(NP);
  for (size_t I = 0; I < NP; ++I) {
    std::vector<const SiteFact *> Fs;
    for (const LaunchSite &S : K.Sites)
      Fs.push_back(I < S.Args.size() ? &S.Args[I] : nullptr);
    K.Args[I] = merge(Fs, Where);
  }
}

class LaunchCollector : public RecursiveASTVisitor<LaunchCollector> {
public:
  LaunchCollector(ASTContext &Ctx, LaunchScanner &S, bool MainOnly)
      : SM(Ctx.getSourceManager()), S(S), MainOnly(MainOnly) {}
  bool shouldVisitTemplateInstantiations() const { return false; }
  bool shouldVisitImplicitCode() const { return false; }
  bool TraverseDecl(Decl *D) {
    // Only the files whose functions are lowered: a launch elsewhere is of
    // a kernel that is not lowered here, and headers are most of a TU.
    if (D && !isa<TranslationUnitDecl>(D) && D->getLocation().isValid()) {
      SourceLocation L = SM.getExpansionLoc(D->getLocation());
      if (SM.isInSystemHeader(L) || (MainOnly && !SM.isInMainFile(L)))
        return true;
    }
    return RecursiveASTVisitor::TraverseDecl(D);
  }
  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (FD->hasAttr<CUDAGlobalAttr>()) {
      S.Kernels.emplace(FD->getNameAsString(), FD);
      return true;
    }
    if (!FD->doesThisDeclarationHaveABody())
      return true;
    if (const auto *MD = dyn_cast<CXXMethodDecl>(FD); MD && MD->getParent()->isLambda())
      return true; // walked with the function that holds the lambda
    Hosts.push_back(FD);
    return true;
  }
  std::vector<const FunctionDecl *> Hosts; // scanned once every kernel is known

  bool VisitDeclRefExpr(DeclRefExpr *DR) {
    S.noteUse(DR);
    return true;
  }
  bool VisitUnresolvedLookupExpr(UnresolvedLookupExpr *UL) {
    S.noteUse(UL);
    return true;
  }

private:
  SourceManager &SM;
  LaunchScanner &S;
  bool MainOnly;
};

} // namespace

FactsMap scanLaunches(ASTContext &Ctx, const std::string &Helpers, bool MainOnly) {
  FactsMap M;
  llvm::Regex R("^(" + (Helpers.empty() ? std::string("$^") : Helpers) + ")$");
  LaunchScanner S(Ctx, M, R);
  LaunchCollector C(Ctx, S, MainOnly);
  C.TraverseDecl(Ctx.getTranslationUnitDecl());
  for (const FunctionDecl *FD : C.Hosts)
    S.indexCalls(FD);
  for (const FunctionDecl *FD : C.Hosts)
    S.scanFunction(FD);
  S.scanFileTokens(Ctx.getSourceManager().getMainFileID());
  for (auto &[K, F] : M)
    finish(F);
  return M;
}

} // namespace kvlint
