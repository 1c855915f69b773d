//===- ClangLowering.cpp - Clang AST into the kernel IR --------------------===//
//
// Walks each function body once, in source order, keeping an environment of
// the current value of every local variable, the guard facts that hold at
// the current point, and the accesses it meets. The walk is structural: the
// branches of an if merge their variables into Phi nodes, loops give their
// loop-carried variables a Phi, and `if (c) return/continue/break;` makes !c
// hold for the rest of the enclosing block.
//
// What the translation unit's launches say about a kernel is read first, by
// the pre-pass in LaunchFacts.cpp, and put on its Param and LaunchIdx nodes.
//
// This file only describes what the code does. Whether it is a bug is for
// the rules to say.
//
//===----------------------------------------------------------------------===//
#include "kvlint/ClangFrontend.h"
#include "LaunchFacts.h"
#include "kvlint/Utf8.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <map>
#include <set>

using namespace clang;

namespace kvlint {
namespace {

constexpr unsigned MaxInlineDepth = 3;
/// Expressions nest at most this deep in the lowering's recursion (a 1,600
/// deep `- - - x`, a 100k-term sum, a 14k-arm `?:` chain): deeper operands
/// are Unknown, and the function notes it (Function::Limits).
constexpr unsigned MaxExprDepth = 256;
/// Statements nest at most this deep (an 8k-arm `else if` ladder): deeper
/// statements are not lowered, and the function notes it.
constexpr unsigned MaxStmtDepth = 256;
/// Constant folding (Expr::EvaluateAsInt) is tried only on an expression
/// of at most this many nodes: clang's evaluator recurses over it, and
/// trying it at every level of a long sum would be quadratic.
constexpr unsigned MaxFoldNodes = 512;
/// A function's lowering makes at most this many expression nodes (a
/// hostile nesting of stores that re-reads its left sides); the rest of it
/// is Unknown, and the function notes it. The largest kernel in test/ makes
/// a few thousand.
constexpr size_t MaxFunctionNodes = size_t(1) << 21;

class Lowerer {
public:
  Lowerer(ASTContext &Ctx, Function &F, const KernelFacts *KF = nullptr)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), F(F), KF(KF) {}

  /// Records the calls this lowering inlines (Collector::dropSuperseded).
  void recordInlined(std::set<const CallExpr *> *S) { InlinedCalls = S; }

  void lowerFunction(const FunctionDecl *FD) {
    Stack.push_back(FD);
    if (const Stmt *Body = FD->getBody())
      lowerStmt(Body);
    Stack.pop_back();
  }

private:
  ASTContext &Ctx;
  SourceManager &SM;
  Function &F;
  const KernelFacts *KF; // what the launchers say about this kernel
  std::map<const ValueDecl *, const Node *> Env;
  std::vector<Guard> Guards;
  std::vector<const FunctionDecl *> Stack; // inlining stack
  std::set<const CallExpr *> *InlinedCalls = nullptr;
  std::vector<std::vector<const Node *>> Returns;
  unsigned Depth = 0;     // lower() calls on the stack
  size_t Made = 0;        // expression nodes made (MaxFunctionNodes)
  unsigned StmtDepth = 0; // lowerStmt() calls on the stack
  std::set<std::string> Limited; // the caps this function hit, noted once each

  /// Notes, once per cap, that What nested deeper than Max at L, and what
  /// became of it.
  void limit(const char *What, unsigned Max, SourceLocation L, const char *How) {
    limitAt(What, std::string(What) + " nesting beyond " + std::to_string(Max) + " levels", L, How);
  }
  void limitAt(const char *Key, const std::string &Head, SourceLocation L, const char *How) {
    if (!Limited.insert(Key).second)
      return;
    F.noteLimit(Head + " at line " + std::to_string(loc(L).Line) + " (in '" + F.Name + "'): " +
                How);
  }

  // ---- source ranges -----------------------------------------------------
  SrcLoc loc(SourceLocation L) {
    SrcLoc S;
    if (L.isInvalid())
      return S;
    L = SM.getFileLoc(L);
    FileID FID = SM.getFileID(L);
    OptionalFileEntryRef FE = SM.getFileEntryRefForID(FID);
    S.File = FE ? std::string(FE->getName()) : std::string(SM.getFilename(L));
    S.Line = SM.getSpellingLineNumber(L);
    S.Col = SM.getSpellingColumnNumber(L);
    S.Offset = SM.getFileOffset(L);
    return S;
  }

  SrcRange range(SourceRange R) {
    SrcRange Out;
    if (R.isInvalid())
      return Out;
    CharSourceRange CR = Lexer::makeFileCharRange(CharSourceRange::getTokenRange(R), SM,
                                                  Ctx.getLangOpts());
    if (CR.isValid()) {
      Out.Begin = loc(CR.getBegin());
      Out.End = loc(CR.getEnd());
      Out.InMacro = false;
    } else {
      Out.Begin = loc(R.getBegin());
      Out.End = Out.Begin;
      Out.InMacro = true;
    }
    return Out;
  }

  std::string text(SourceRange R) {
    CharSourceRange CR = Lexer::makeFileCharRange(CharSourceRange::getTokenRange(R), SM,
                                                  Ctx.getLangOpts());
    if (CR.isInvalid())
      CR = CharSourceRange::getTokenRange(SM.getExpansionRange(R).getAsRange());
    bool Invalid = false;
    StringRef T = Lexer::getSourceText(CR, SM, Ctx.getLangOpts(), &Invalid);
    if (Invalid)
      return "";
    std::string S;
    bool Space = false;
    for (char C : T) { // collapse whitespace, for one-line messages
      if (C == '\n' || C == '\t' || C == ' ' || C == '\r') {
        Space = !S.empty();
        continue;
      }
      if (Space)
        S += ' ';
      Space = false;
      S += C;
      if (S.size() > 80)
        break; // the rest is cut: a long expression costs no more
    }
    if (S.size() > 80)
      S = utf8Prefix(S, 77) + "..."; // never inside a UTF-8 character
    return S;
  }

  IntTy ty(QualType T) {
    if (T.isNull() || T->isDependentType())
      return IntTy::unknown();
    T = T.getCanonicalType();
    if (T->isPointerType() || T->isArrayType() || T->isReferenceType())
      return IntTy::pointer();
    if (T->isBooleanType())
      return IntTy::boolean();
    if (T->isRealFloatingType())
      return IntTy::floating();
    if (const auto *ET = T->getAs<EnumType>())
      T = ET->getDecl()->getIntegerType();
    if (T.isNull() || !T->isIntegerType())
      return IntTy::unknown();
    return IntTy::integer(unsigned(Ctx.getTypeSize(T)), T->isSignedIntegerType());
  }

  Node *make(Kind K, IntTy T, const Expr *E) {
    ++Made;
    Node *N = F.make(K, T);
    if (E) {
      N->Range = range(E->getSourceRange());
      N->Text = text(E->getSourceRange());
    }
    return N;
  }

  // ---- accesses ----------------------------------------------------------
  void access(AccessKind AK, const Node *Addr, const Expr *E) {
    if (!Addr)
      return;
    Access A;
    A.AK = AK;
    A.Addr = Addr;
    A.Guards = Guards;
    if (E)
      A.Range = range(E->getSourceRange());
    if (AK == AccessKind::Store && Stack.size() == 1) {
      A.Stmt = CurStmt;
      A.Indent = CurIndent;
    }
    F.Accesses.push_back(std::move(A));
  }

  /// The expression statement being lowered, through its ';' (Access::Stmt).
  SrcRange CurStmt;
  std::string CurIndent;

  void enterStmt(const Expr *E) {
    CurStmt = SrcRange();
    CurIndent.clear();
    if (Stack.size() != 1 || E->getBeginLoc().isMacroID() || E->getEndLoc().isMacroID())
      return;
    SourceLocation After =
        Lexer::findLocationAfterToken(E->getEndLoc(), tok::semi, SM, Ctx.getLangOpts(), false);
    if (After.isInvalid() || After.isMacroID())
      return;
    CurStmt.Begin = loc(E->getBeginLoc());
    CurStmt.End = loc(After);
    if (CurStmt.Begin.File != CurStmt.End.File || CurStmt.End.Offset <= CurStmt.Begin.Offset) {
      CurStmt = SrcRange();
      return;
    }
    bool Invalid = false;
    StringRef Buf = SM.getBufferData(SM.getFileID(SM.getFileLoc(E->getBeginLoc())), &Invalid);
    if (Invalid || CurStmt.Begin.Offset > Buf.size())
      return;
    size_t LineStart = Buf.rfind('\n', CurStmt.Begin.Offset ? CurStmt.Begin.Offset - 1 : 0);
    LineStart = LineStart == StringRef::npos || CurStmt.Begin.Offset == 0 ? 0 : LineStart + 1;
    for (size_t I = LineStart; I < Buf.size() && (Buf[I] == ' ' || Buf[I] == '\t'); ++I)
      CurIndent += Buf[I];
  }

  Node *load(const Node *Addr, QualType ElemT, const Expr *E, const std::string &Name) {
    Node *N = make(Kind::Load, ty(ElemT), E);
    N->Ops.push_back(Addr);
    N->ElemTy = ty(ElemT);
    N->Name = Name;
    return N;
  }

  // ---- constants ---------------------------------------------------------
  /// Whether E has at most MaxFoldNodes nodes (an iterative, bounded walk).
  static bool smallEnoughToFold(const Expr *E) {
    std::vector<const Stmt *> Work = {E};
    unsigned Seen = 0;
    while (!Work.empty()) {
      const Stmt *S = Work.back();
      Work.pop_back();
      if (!S)
        continue;
      if (++Seen > MaxFoldNodes)
        return false;
      for (const Stmt *C : S->children())
        Work.push_back(C);
    }
    return true;
  }

  const Node *tryConst(const Expr *E) {
    if (E->getType().isNull() || E->isValueDependent() || E->isTypeDependent() ||
        E->containsErrors())
      return nullptr;
    if (!E->getType()->isIntegralOrEnumerationType())
      return nullptr;
    if (!smallEnoughToFold(E))
      return nullptr;
    Expr::EvalResult R;
    // A constant past 64 bits (an __int128 or a _BitInt) is no fact here.
    if (!E->EvaluateAsInt(R, Ctx) || !R.Val.getInt().isRepresentableByInt64())
      return nullptr;
    Node *N = make(Kind::Const, ty(E->getType()), E);
    N->Value = R.Val.getInt().getExtValue();
    return N;
  }

  // ---- expressions -------------------------------------------------------
public:
  /// Lowers an rvalue expression: records the accesses it performs and
  /// returns its value.
  const Node *value(const Expr *E) { return lower(E, AccessKind::Load); }

private:
  const Node *lower(const Expr *E, AccessKind Ctxt) {
    if (!E)
      return nullptr;
    if (Made > MaxFunctionNodes) {
      limitAt("size", "function larger than " + std::to_string(MaxFunctionNodes) + " values",
              E->getBeginLoc(), "the rest analysed as unknown");
      return make(Kind::Unknown, ty(E->getType()), E);
    }
    if (Depth > MaxExprDepth) {
      limit("expression", MaxExprDepth, E->getBeginLoc(), "analysed as unknown");
      return make(Kind::Unknown, ty(E->getType()), E);
    }
    ++Depth;
    const Node *N = lowerImpl(E, Ctxt);
    --Depth;
    return N;
  }

  const Node *lowerImpl(const Expr *E, AccessKind Ctxt) {
    E = E->IgnoreParens();
    if (!isa<DeclRefExpr>(E)) // keep names of constants for messages
      if (Ctxt == AccessKind::Load)
        if (const Node *C = tryConst(E))
          return C;

    if (const auto *IL = dyn_cast<IntegerLiteral>(E)) {
      Node *N = make(Kind::Const, ty(E->getType()), E);
      N->Value = IL->getValue().getSExtValue();
      return N;
    }
    if (const auto *DR = dyn_cast<DeclRefExpr>(E))
      return declRef(DR);
    if (isa<UnaryExprOrTypeTraitExpr>(E)) {
      // sizeof/alignof of a dependent type (`sizeof(PackedType)`): a
      // compile-time constant, like a template's tile size.
      Node *N = make(Kind::Symbolic, ty(E->getType()), E);
      N->Name = "sizeof";
      return N;
    }
    if (const auto *ICE = dyn_cast<ImplicitCastExpr>(E))
      return implicitCast(ICE, Ctxt);
    if (const auto *CE = dyn_cast<ExplicitCastExpr>(E))
      return explicitCast(CE->getSubExprAsWritten(), E->getType(), E, Ctxt);
    if (const auto *FC = dyn_cast<CXXUnresolvedConstructExpr>(E)) {
      if (FC->getNumArgs() == 1)
        return explicitCast(FC->getArg(0), E->getType(), E, Ctxt);
      return opaque(E);
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(E))
      return binary(BO, Ctxt);
    if (const auto *UO = dyn_cast<UnaryOperator>(E))
      return unary(UO, Ctxt);
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
      // getBase() is the LHS only when the RHS is known to be an integer:
      // with a dependent index (`p[i + params.n]`) it returns the index.
      // `i[p]` is written only with an integer on the left.
      bool Swapped = AS->getLHS()->getType()->isIntegerType() &&
                     !AS->getRHS()->getType()->isIntegerType();
      return Swapped ? subscript(AS->getRHS(), AS->getLHS(), E, Ctxt)
                     : subscript(AS->getLHS(), AS->getRHS(), E, Ctxt);
    }
    if (const auto *ME = dyn_cast<MemberExpr>(E))
      return member(ME->getBase(), ME->getMemberDecl()->getNameAsString(), ME->isArrow(), E,
                    Ctxt);
    if (const auto *DM = dyn_cast<CXXDependentScopeMemberExpr>(E)) {
      if (DM->isImplicitAccess())
        return param(DM->getMember().getAsString(), E);
      return member(DM->getBase(), DM->getMember().getAsString(), DM->isArrow(), E, Ctxt);
    }
    if (const auto *DS = dyn_cast<DependentScopeDeclRefExpr>(E)) {
      // A member of a dependent type (`Cta_tile::M`, `Traits::kBlockN`): a
      // compile-time constant, named with its qualifier so that a tile's `M`
      // is not read as the token count a bare `M` names.
      Node *N = make(Kind::Symbolic, ty(E->getType()), E);
      std::string Q;
      if (const NestedNameSpecifier *NNS = DS->getQualifier()) {
        llvm::raw_string_ostream OS(Q);
        NNS->print(OS, Ctx.getPrintingPolicy());
      }
      N->Name = Q + DS->getDeclName().getAsString();
      return N;
    }
    if (const auto *CO = dyn_cast<ConditionalOperator>(E))
      return conditional(CO);
    if (const auto *CE = dyn_cast<CallExpr>(E))
      return call(CE);
    if (const auto *PO = dyn_cast<PseudoObjectExpr>(E))
      return lower(PO->getSyntacticForm(), Ctxt);
    if (const auto *MP = dyn_cast<MSPropertyRefExpr>(E))
      if (const Node *LV =
              launchVar(MP->getBaseExpr(), MP->getPropertyDecl()->getNameAsString(), E))
        return LV;
    if (const auto *CB = dyn_cast<CXXBoolLiteralExpr>(E)) {
      Node *N = make(Kind::Const, IntTy::boolean(), E);
      N->Value = CB->getValue();
      return N;
    }
    if (const auto *EW = dyn_cast<ExprWithCleanups>(E))
      return lower(EW->getSubExpr(), Ctxt);
    if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(E))
      return lower(MT->getSubExpr(), Ctxt);
    if (const auto *CD = dyn_cast<CXXDefaultArgExpr>(E))
      return lower(CD->getExpr(), Ctxt);
    if (isa<CXXThisExpr>(E))
      return param("this", E);
    return opaque(E);
  }

  /// An expression the IR does not model: its subexpressions are still
  /// lowered, so the accesses inside it are seen.
  const Node *opaque(const Expr *E) {
    for (const Stmt *C : E->children())
      if (const auto *CE = dyn_cast_or_null<Expr>(C))
        value(CE);
    return make(Kind::Unknown, ty(E->getType()), E);
  }

  Node *param(const std::string &Name, const Expr *E) {
    Node *N = make(Kind::Param, ty(E->getType()), E);
    N->Name = Name;
    return N;
  }

  const Node *declRef(const DeclRefExpr *DR) {
    const ValueDecl *D = DR->getDecl();
    auto It = Env.find(D);
    if (It != Env.end()) {
      Node *N = make(Kind::Var, It->second ? It->second->Ty : ty(DR->getType()), DR);
      if (!DR->getType()->isDependentType())
        N->Ty = ty(DR->getType());
      N->Name = D->getNameAsString();
      N->Ops.push_back(It->second);
      // The declared type as written (not `auto`): a fix-it that widens the
      // value stored in this local widens the local too.
      if (const auto *VD = dyn_cast<VarDecl>(D))
        if (const TypeSourceInfo *TSI = VD->getTypeSourceInfo())
          if (!VD->getType()->getContainedAutoType() && !isa<ParmVarDecl>(VD))
            N->DeclType = range(TSI->getTypeLoc().getSourceRange());
      return N;
    }
    if (isa<NonTypeTemplateParmDecl>(D)) {
      Node *N = make(Kind::Symbolic, ty(DR->getType()), DR);
      N->Name = D->getNameAsString();
      return N;
    }
    if (isa<EnumConstantDecl>(D) || (isa<VarDecl>(D) && !cast<VarDecl>(D)->hasLocalStorage())) {
      if (const Node *C = tryConst(DR)) {
        const_cast<Node *>(C)->Name = D->getNameAsString();
        return C;
      }
      if (const auto *VD = dyn_cast<VarDecl>(D)) {
        std::string Name = VD->getNameAsString();
        if (Name == "threadIdx" || Name == "blockIdx" || Name == "blockDim" ||
            Name == "gridDim" || Name == "warpSize") {
          Node *N = make(Kind::Unknown, ty(DR->getType()), DR);
          N->Name = Name;
          return N;
        }
        if (VD->getType().isConstQualified() || VD->isConstexpr()) {
          Node *N = make(Kind::Symbolic, ty(DR->getType()), DR);
          N->Name = Name;
          return N;
        }
      }
      Node *N = make(Kind::Unknown, ty(DR->getType()), DR);
      N->Name = D->getNameAsString();
      N->OnChip = onChip(dyn_cast<VarDecl>(D));
      return N;
    }
    if (const auto *PD = dyn_cast<ParmVarDecl>(D)) {
      Node *N = param(D->getNameAsString(), DR);
      hintParam(N, PD);
      return N;
    }
    if (const auto *VD = dyn_cast<VarDecl>(D)) {
      // A local the walk has not seen assigned (declared in a construct the
      // walk does not model): a constant if its initializer folds.
      if (VD->getType().isConstQualified())
        if (const Node *C = tryConst(DR))
          return C;
      Node *N = make(Kind::Unknown, ty(DR->getType()), DR);
      N->Name = D->getNameAsString();
      N->OnChip = onChip(VD);
      return N;
    }
    return opaque(DR);
  }

  /// `__shared__` memory (static or extern) and local arrays of constant
  /// extent live on the chip: no index into them reaches 2^31 elements.
  static bool onChip(const VarDecl *VD) {
    if (!VD)
      return false;
    if (VD->hasAttr<CUDASharedAttr>())
      return true;
    return VD->hasLocalStorage() && fixedArray(VD->getType());
  }

  /// A local reference or pointer whose initializer is `__shared__` memory
  /// through casts, `*` and `&` (`*reinterpret_cast<SharedStorage *>(smem)`).
  static bool overShared(const VarDecl *VD) {
    if (!VD || !VD->hasLocalStorage() || !VD->getInit() ||
        !(VD->getType()->isReferenceType() || VD->getType()->isPointerType()))
      return false;
    const Expr *X = VD->getInit();
    for (unsigned I = 0; X && I < 8; ++I) {
      X = X->IgnoreParenImpCasts();
      if (const auto *C = dyn_cast<ExplicitCastExpr>(X))
        X = C->getSubExpr();
      else if (const auto *U = dyn_cast<UnaryOperator>(X))
        X = U->getOpcode() == UO_Deref || U->getOpcode() == UO_AddrOf ? U->getSubExpr() : nullptr;
      else if (const auto *DR = dyn_cast<DeclRefExpr>(X)) {
        const auto *V = dyn_cast<VarDecl>(DR->getDecl());
        return V && V->hasAttr<CUDASharedAttr>();
      } else
        return false;
    }
    return false;
  }

  /// An array whose extent is a compile-time constant, known or given by a
  /// template (`float acc[MMAS_M][4]`): registers, shared memory or a
  /// member of a small struct, never 2^31 elements.
  static bool fixedArray(QualType T) {
    return T->isConstantArrayType() || T->isDependentSizedArrayType();
  }

  /// A parameter of the function being lowered: what its launchers pass.
  void hintParam(Node *N, const ParmVarDecl *PD) {
    if (!KF || Stack.empty())
      return;
    const auto *Owner = dyn_cast<FunctionDecl>(PD->getDeclContext());
    unsigned I = PD->getFunctionScopeIndex();
    if (Owner && factsKey(Owner) == factsKey(Stack.front()) && I < KF->Args.size())
      N->Hint = KF->Args[I];
  }

  /// blockIdx along an axis ('x', 'y', 'z'): the grid the launchers show.
  void hintLaunchIdx(Node *N, char Axis) {
    if (KF && Axis >= 'x' && Axis <= 'z')
      N->Hint = KF->Axis[Axis - 'x'];
  }

  /// threadIdx.x, blockIdx.y, blockDim.x, gridDim.z as launch nodes.
  const Node *launchVar(const Expr *Base, const std::string &Field, const Expr *E) {
    const auto *DR = dyn_cast<DeclRefExpr>(Base->IgnoreParenImpCasts());
    if (!DR)
      return nullptr;
    std::string B = DR->getDecl()->getNameAsString();
    std::string Comp = Field;
    if (Comp.rfind("__fetch_builtin_", 0) == 0)
      Comp = Comp.substr(16);
    Kind K;
    int64_t V = 0;
    if (B == "threadIdx" || B == "__cuda_builtin_threadIdx_t")
      K = Kind::ThreadIdx;
    else if (B == "blockIdx")
      K = Kind::LaunchIdx;
    else if (B == "blockDim")
      K = Kind::LaunchDim;
    else if (B == "gridDim")
      K = Kind::LaunchDim, V = 1;
    else
      return nullptr;
    Node *N = make(K, IntTy::integer(32, false), E);
    N->Name = B + "." + Comp;
    N->Value = V;
    if (K == Kind::LaunchIdx && Comp.size() == 1)
      hintLaunchIdx(N, Comp[0]);
    return N;
  }

  const Node *implicitCast(const ImplicitCastExpr *ICE, AccessKind Ctxt) {
    const Expr *Sub = ICE->getSubExpr();
    switch (ICE->getCastKind()) {
    case CK_IntegralCast:
    case CK_IntegralToBoolean: {
      const Node *Inner = value(Sub);
      IntTy To = ty(ICE->getType());
      if (Inner && Inner->K == Kind::Const) {
        Node *C = make(Kind::Const, To, ICE);
        C->Value = Inner->Value;
        C->Name = Inner->Name;
        C->Text = Inner->Text;
        return C;
      }
      Node *N = make(Kind::Cast, To, ICE);
      N->Ops.push_back(Inner);
      N->Range = Inner ? Inner->Range : N->Range;
      N->Text = Inner ? Inner->Text : N->Text;
      return N;
    }
    case CK_LValueToRValue:
    case CK_NoOp:
    case CK_ArrayToPointerDecay:
    case CK_UncheckedDerivedToBase:
    case CK_DerivedToBase:
    case CK_BitCast:
    case CK_AddressSpaceConversion:
      return lower(Sub, Ctxt);
    default:
      value(Sub);
      return make(Kind::Unknown, ty(ICE->getType()), ICE);
    }
  }

  const Node *explicitCast(const Expr *Sub, QualType To, const Expr *E, AccessKind Ctxt) {
    IntTy T = ty(To);
    if (T.Pointer) // reinterpret_cast<uint4*>(cache + off) keeps the address
      return lower(Sub, Ctxt);
    const Node *Inner = value(Sub);
    if (To->isDependentType() || T.known() || T.Bool) {
      Node *N = make(Kind::Cast, T, E);
      N->Explicit = true;
      N->Ops.push_back(Inner);
      return N;
    }
    return make(Kind::Unknown, T, E);
  }

  static Kind binKind(BinaryOperatorKind Op) {
    switch (Op) {
    case BO_Add: case BO_AddAssign: return Kind::Add;
    case BO_Sub: case BO_SubAssign: return Kind::Sub;
    case BO_Mul: case BO_MulAssign: return Kind::Mul;
    case BO_Div: case BO_DivAssign: return Kind::Div;
    case BO_Rem: case BO_RemAssign: return Kind::Rem;
    case BO_Shl: case BO_ShlAssign: return Kind::Shl;
    case BO_Shr: case BO_ShrAssign: return Kind::Shr;
    case BO_And: case BO_AndAssign: return Kind::And;
    case BO_Or: case BO_OrAssign: return Kind::Or;
    case BO_Xor: case BO_XorAssign: return Kind::Xor;
    case BO_LT: return Kind::Lt;
    case BO_LE: return Kind::Le;
    case BO_GT: return Kind::Gt;
    case BO_GE: return Kind::Ge;
    case BO_EQ: return Kind::Eq;
    case BO_NE: return Kind::Ne;
    case BO_LAnd: return Kind::LAnd;
    case BO_LOr: return Kind::LOr;
    default: return Kind::Unknown;
    }
  }

  static bool isPtrTy(const Expr *E) {
    QualType T = E->getType();
    return !T.isNull() && (T->isPointerType() || T->isArrayType());
  }

  /// p + i, i + p, p - i as an address; records that an address is formed.
  const Node *ptrArith(const Node *P, const Node *I, bool Minus, const Expr *E) {
    if (Minus) {
      Node *Neg = make(Kind::Neg, I ? I->Ty : IntTy::unknown(), nullptr);
      Neg->Ops.push_back(I);
      if (I) {
        Neg->Range = I->Range;
        Neg->Text = I->Text;
      }
      I = Neg;
    }
    Node *N = make(Kind::PtrAdd, IntTy::pointer(), E);
    N->Ops = {P, I};
    return N;
  }

  const Node *binary(const BinaryOperator *BO, AccessKind Ctxt) {
    BinaryOperatorKind Op = BO->getOpcode();
    const Expr *L = BO->getLHS(), *R = BO->getRHS();
    if (Op == BO_Comma) {
      value(L);
      return lower(R, Ctxt);
    }
    if (Op == BO_Assign)
      return assign(L, value(R), BO);
    if (BO->isCompoundAssignmentOp()) {
      const auto *CAO = cast<CompoundAssignOperator>(BO);
      const Node *Old = lower(L, AccessKind::Load);
      const Node *Rhs = value(R);
      const Node *New;
      if (isPtrTy(L) && (Op == BO_AddAssign || Op == BO_SubAssign)) {
        New = ptrArith(Old, Rhs, Op == BO_SubAssign, BO);
        access(AccessKind::Address, New, BO);
      } else {
        Node *N = make(binKind(Op), ty(CAO->getComputationResultType()), BO);
        N->Ops = {Old, Rhs};
        N->Compound = true;
        New = N;
      }
      return assign(L, New, BO, /*Lowered=*/true);
    }
    if (Op == BO_LAnd || Op == BO_LOr) {
      const Node *A = value(L);
      Guards.push_back({A, Op == BO_LOr, Guard::Logical});
      const Node *B = value(R);
      Guards.pop_back();
      Node *N = make(binKind(Op), IntTy::boolean(), BO);
      N->Ops = {A, B};
      return N;
    }
    if ((Op == BO_Add || Op == BO_Sub) && (isPtrTy(L) || isPtrTy(R))) {
      if (isPtrTy(L) && isPtrTy(R)) { // pointer difference
        value(L);
        value(R);
        return make(Kind::Unknown, ty(BO->getType()), BO);
      }
      const Node *P = isPtrTy(L) ? value(L) : value(R);
      const Node *I = isPtrTy(L) ? value(R) : value(L);
      const Node *N = ptrArith(P, I, Op == BO_Sub, BO);
      if (Ctxt == AccessKind::Load)
        access(AccessKind::Address, N, BO);
      return N;
    }
    Kind K = binKind(Op);
    if (K == Kind::Unknown)
      return opaque(BO);
    const Node *A = value(L);
    const Node *B = value(R);
    IntTy T = isComparison(K) || K == Kind::LAnd ? IntTy::boolean() : ty(BO->getType());
    Node *N = make(K, T, BO);
    N->Ops = {A, B};
    return N;
  }

  /// An assignment: to a local it updates the environment; to memory it is
  /// a store.
  /// Stores V through L. Lowered: the caller has just lowered L (a compound
  /// assignment or ++/-- reads it first).
  const Node *assign(const Expr *L, const Node *V, const Expr *E, bool Lowered = false) {
    L = L->IgnoreParenImpCasts();
    // `--(--x)`, `(a += b) += c`: a left side that is itself a store, and
    // was lowered already, is not lowered again for its address: that would
    // double the work at each level (2^800 for 1,600 `-` signs).
    if (Lowered) {
      if (const auto *UO = dyn_cast<UnaryOperator>(L); UO && UO->isIncrementDecrementOp())
        return V;
      if (const auto *BO = dyn_cast<BinaryOperator>(L); BO && BO->isAssignmentOp())
        return V;
    }
    if (const auto *DR = dyn_cast<DeclRefExpr>(L)) {
      if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl())) {
        if (VD->hasLocalStorage() && !VD->getType()->isReferenceType()) {
          Env[VD] = V;
          return V;
        }
      }
    }
    size_t Before = F.Accesses.size();
    lower(L, AccessKind::Store);
    (void)E;
    // The value written: the last store the left side recorded.
    for (size_t I = F.Accesses.size(); I > Before; --I)
      if (F.Accesses[I - 1].AK == AccessKind::Store) {
        F.Accesses[I - 1].Value = V;
        break;
      }
    return V;
  }

  const Node *unary(const UnaryOperator *UO, AccessKind Ctxt) {
    const Expr *Sub = UO->getSubExpr();
    switch (UO->getOpcode()) {
    case UO_Deref: {
      const Node *Addr = value(Sub);
      access(Ctxt, Addr, UO);
      return load(Addr, UO->getType(), UO, "");
    }
    case UO_AddrOf:
      return lower(Sub, AccessKind::Address);
    case UO_Minus: {
      Node *N = make(Kind::Neg, ty(UO->getType()), UO);
      N->Ops.push_back(value(Sub));
      return N;
    }
    case UO_Not: {
      Node *N = make(Kind::BitNot, ty(UO->getType()), UO);
      N->Ops.push_back(value(Sub));
      return N;
    }
    case UO_LNot: {
      Node *N = make(Kind::LNot, IntTy::boolean(), UO);
      N->Ops.push_back(value(Sub));
      return N;
    }
    case UO_Plus:
      return value(Sub);
    case UO_PreInc:
    case UO_PreDec:
    case UO_PostInc:
    case UO_PostDec: {
      const Node *Old = lower(Sub, AccessKind::Load);
      Node *One = make(Kind::Const, IntTy::integer(32, true), nullptr);
      One->Value = 1;
      const Node *New;
      bool Dec = UO->isDecrementOp();
      if (isPtrTy(Sub)) {
        New = ptrArith(Old, One, Dec, UO);
      } else {
        Node *N = make(Dec ? Kind::Sub : Kind::Add, ty(Sub->getType()), UO);
        N->Ops = {Old, One};
        New = N;
      }
      assign(Sub, New, UO, /*Lowered=*/true);
      return UO->isPrefix() ? New : Old;
    }
    default:
      return opaque(UO);
    }
  }

  const Node *subscript(const Expr *Base, const Expr *Idx, const Expr *E, AccessKind Ctxt) {
    if (!isPtrTy(Base) && isPtrTy(Idx))
      std::swap(Base, Idx); // i[p]
    const Node *P = value(Base);
    const Node *I = value(Idx);
    Node *Addr = make(Kind::PtrAdd, IntTy::pointer(), E);
    Addr->Ops = {P, I};
    access(Ctxt, Addr, E);
    if (Ctxt == AccessKind::Address)
      return Addr;
    std::string Name = P ? P->Name : "";
    Node *L = load(Addr, E->getType(), E, Name);
    // A row of an on-chip multi-dimensional array (`rows[g]` of `float
    // rows[4][256]`, or of a struct over shared memory whose type a template
    // leaves dependent) is on chip too; a pointer read from an on-chip array
    // of pointers (`const T *ptrs[ngpus]`, dependent or not) is not.
    QualType RT = E->getType();
    if (P && P->OnChip &&
        (RT->isArrayType() || (RT->isDependentType() && !RT->isPointerType())))
      L->OnChip = true;
    return L;
  }

  const Node *member(const Expr *Base, const std::string &Field, bool Arrow, const Expr *E,
                     AccessKind Ctxt) {
    if (const Node *LV = launchVar(Base, Field, E))
      return LV;
    const Expr *B = Base->IgnoreParenImpCasts();
    // A member of a parameter, of `this`, or of a struct of parameters reads
    // a kernel argument: params.block_table, paged_kv.stride_page. Object is
    // what is named before the dot: `smem` in `smem.state`.
    bool FromParam = false;
    std::string Object = "(expr)";
    if (isa<CXXThisExpr>(B)) {
      FromParam = true;
      Object = "this";
    } else if (const auto *DR = dyn_cast<DeclRefExpr>(B)) {
      FromParam = isa<ParmVarDecl>(DR->getDecl()) && !Env.count(DR->getDecl());
      Object = DR->getDecl()->getNameAsString();
    } else if (const auto *M = dyn_cast<MemberExpr>(B)) {
      FromParam = isa<CXXThisExpr>(M->getBase()->IgnoreParenImpCasts());
      Object = M->getMemberDecl()->getNameAsString();
    }
    if (FromParam && Ctxt != AccessKind::Store) {
      // this->params.h keeps its path in messages, as written.
      Node *N = param(isa<MemberExpr>(B) ? Object + "." + Field : Field, E);
      N->Object = Object;
      N->OnChip = fixedArray(E->getType()); // this->elt_[ROWS][COLS]
      return N;
    }
    const Node *BV = value(Base);
    if (Arrow) {
      access(Ctxt, BV, E);
      return load(BV, E->getType(), E, Field);
    }
    if (BV && BV->K == Kind::Load) // element.field of a loaded struct
      return load(BV->op(0), E->getType(), E, Field);
    Node *N = make(Kind::Unknown, ty(E->getType()), E);
    // A member of an expression (`params.dim` of a struct from a missing
    // header) is named in messages as written.
    if (Object != "(expr)")
      N->Name = Field;
    N->Object = Object;
    // An array member of constant extent (`smem.state` of a struct laid
    // over shared memory) holds what a struct holds, far below 2^31; so does
    // any member of a struct laid over shared memory (`SharedStorage &storage
    // = *reinterpret_cast<SharedStorage *>(smem_buf)`), whose type a template
    // may leave dependent.
    N->OnChip = fixedArray(E->getType());
    if (const auto *DR = dyn_cast<DeclRefExpr>(B))
      N->OnChip |= overShared(dyn_cast<VarDecl>(DR->getDecl()));
    return N;
  }

  const Node *conditional(const ConditionalOperator *CO) {
    const Node *C = value(CO->getCond());
    Guards.push_back({C, false, Guard::Ternary});
    const Node *A = value(CO->getTrueExpr());
    Guards.back().Negated = true;
    const Node *B = value(CO->getFalseExpr());
    Guards.pop_back();
    Node *N = make(Kind::Select, ty(CO->getType()), CO);
    N->Ops = {C, A, B};
    return N;
  }

  static std::string calleeName(const CallExpr *CE) {
    if (const FunctionDecl *FD = CE->getDirectCallee())
      return FD->getNameAsString();
    const Expr *C = CE->getCallee()->IgnoreParenImpCasts();
    if (const auto *UL = dyn_cast<UnresolvedLookupExpr>(C))
      return UL->getName().getAsString();
    if (const auto *UM = dyn_cast<UnresolvedMemberExpr>(C))
      return UM->getMemberName().getAsString();
    if (const auto *DM = dyn_cast<CXXDependentScopeMemberExpr>(C))
      return DM->getMember().getAsString();
    if (const auto *DR = dyn_cast<DeclRefExpr>(C))
      return DR->getDecl()->getNameAsString();
    return "";
  }

  /// Barriers and warp collectives: a thread that leaves before one hangs
  /// the block or reads an undefined lane (Function::Syncs).
  static bool isSync(const std::string &N) {
    static const char *Prefix[] = {"__syncthreads", "__syncwarp", "__shfl", "__ballot",
                                   "__any_sync", "__all_sync", "__reduce_", "__match_",
                                   "__builtin_amdgcn_s_barrier", "__barrier"};
    for (const char *P : Prefix)
      if (N.rfind(P, 0) == 0)
        return true;
    return N == "sync" || N == "barrier_sync" || N == "bar_sync" || N == "__syncblock" ||
           N == "arrive_and_wait" || N == "Sum" || N == "Reduce" || N == "ExclusiveSum" ||
           N == "InclusiveSum";
  }

  const Node *call(const CallExpr *CE) {
    std::string Name = calleeName(CE);
    unsigned N = CE->getNumArgs();
    if (isSync(Name))
      F.Syncs.push_back({Name, loc(CE->getBeginLoc())});
    // Index builtins of both vendors.
    if (N == 0) {
      static const std::pair<const char *, Kind> Builtins[] = {
          {"__builtin_amdgcn_workitem_id_x", Kind::ThreadIdx},
          {"__builtin_amdgcn_workitem_id_y", Kind::ThreadIdx},
          {"__builtin_amdgcn_workitem_id_z", Kind::ThreadIdx},
          {"__builtin_amdgcn_workgroup_id_x", Kind::LaunchIdx},
          {"__builtin_amdgcn_workgroup_id_y", Kind::LaunchIdx},
          {"__builtin_amdgcn_workgroup_id_z", Kind::LaunchIdx},
          {"__nvvm_read_ptx_sreg_tid_x", Kind::ThreadIdx},
          {"__nvvm_read_ptx_sreg_ctaid_x", Kind::LaunchIdx},
          {"__lane_id", Kind::ThreadIdx},
          {"__lanemask_lt", Kind::ThreadIdx},
      };
      for (auto &B : Builtins)
        if (Name == B.first) {
          Node *X = make(B.second, IntTy::integer(32, false), CE);
          X->Name = Name;
          if (B.second == Kind::LaunchIdx)
            hintLaunchIdx(X, Name.back());
          return X;
        }
    }
    // A block's rank inside its thread-block cluster and the cluster's size
    // (cooperative groups' cluster_group::block_rank() / num_blocks()): a
    // cluster holds at most 16 blocks (8 portably), whatever the grid.
    if (N == 0 && (Name == "block_rank" || Name == "num_blocks")) {
      const CXXRecordDecl *RD = nullptr;
      if (const auto *MC = dyn_cast<CXXMemberCallExpr>(CE))
        RD = MC->getRecordDecl();
      if (RD && RD->getQualifiedNameAsString() == "cooperative_groups::cluster_group") {
        Node *X = make(Kind::Range, IntTy::integer(32, false), CE);
        X->Value = Name == "block_rank" ? 16 : 17; // [0, 15] / [1, 16]
        X->Value2 = Name == "block_rank" ? 0 : 1;
        X->Name = Name;
        return X;
      }
    }
    if (Name.rfind("__ld", 0) == 0 && N == 1 && isPtrTy(CE->getArg(0))) {
      const Node *Addr = value(CE->getArg(0));
      access(AccessKind::Load, Addr, CE);
      QualType ET = CE->getArg(0)->IgnoreParenImpCasts()->getType();
      QualType Elem = ET->isPointerType() ? ET->getPointeeType() : CE->getType();
      return load(Addr, Elem, CE, Addr ? Addr->Name : "");
    }
    if (Name.rfind("atomic", 0) == 0 && N >= 2 && isPtrTy(CE->getArg(0))) {
      const Node *Addr = value(CE->getArg(0));
      for (unsigned I = 1; I < N; ++I)
        value(CE->getArg(I));
      access(AccessKind::Store, Addr, CE);
      return load(Addr, CE->getType(), CE, "");
    }
    if (N == 2 && (Name == "min" || Name == "max" || Name == "umin" || Name == "umax" ||
                   Name == "fminf" || Name == "fmaxf" || Name == "__min" || Name == "__max")) {
      Node *X = make(Name.find("min") != std::string::npos ? Kind::Min : Kind::Max,
                     ty(CE->getType()), CE);
      X->Ops = {value(CE->getArg(0)), value(CE->getArg(1))};
      return X;
    }
    // Calls whose body this translation unit has: inline them, so that an
    // offset built in a helper is seen where it is used.
    const FunctionDecl *FD = CE->getDirectCallee();
    if (FD) {
      if (const FunctionDecl *Def = FD->getDefinition())
        FD = Def;
      else if (const FunctionDecl *Pat = FD->getTemplateInstantiationPattern())
        FD = Pat->getDefinition() ? Pat->getDefinition() : FD;
    }
    std::vector<const Node *> Args;
    const Expr *Obj = nullptr;
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(CE))
      Obj = MC->getImplicitObjectArgument();
    for (unsigned I = 0; I < N; ++I)
      Args.push_back(value(CE->getArg(I)));
    // The standard library's bodies (std::vector::resize) compute sizes, not
    // the caller's offsets: a system header's function stays a call.
    bool System = FD && SM.isInSystemHeader(SM.getExpansionLoc(FD->getLocation()));
    // A lambda's call (`store(row, v)`): its body is inlined like a helper's,
    // the lambda object being argument 0; captured locals are the enclosing
    // function's, which the body names directly.
    unsigned First = 0;
    if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(CE);
        OC && OC->getOperator() == OO_Call && FD && isa<CXXMethodDecl>(FD) &&
        cast<CXXMethodDecl>(FD)->getParent() && cast<CXXMethodDecl>(FD)->getParent()->isLambda())
      First = 1;
    // In a template the call is dependent and names no callee: the lambda
    // is the callee's closure type (a CXXOperatorCallExpr when resolved, a
    // plain CallExpr on the variable when not).
    if (!FD) {
      const Expr *Callee = isa<CXXOperatorCallExpr>(CE) && N >= 1 ? CE->getArg(0) : CE->getCallee();
      const CXXRecordDecl *RD =
          Callee ? Callee->IgnoreParenImpCasts()->getType().getNonReferenceType()->getAsCXXRecordDecl()
                 : nullptr;
      const CXXMethodDecl *Op = RD && RD->isLambda() ? RD->getLambdaCallOperator() : nullptr;
      // `auto store = [&](...) {...}` in a template: the variable's type is
      // not deduced yet, its initializer is the lambda.
      if (!Op && Callee)
        if (const auto *DR = dyn_cast<DeclRefExpr>(Callee->IgnoreParenImpCasts()))
          if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl()); VD && VD->getInit())
            if (const auto *LE = dyn_cast<LambdaExpr>(VD->getInit()->IgnoreImplicit()))
              Op = LE->getCallOperator();
      if (Op && Op->hasBody()) {
        FD = Op;
        First = isa<CXXOperatorCallExpr>(CE) ? 1 : 0;
      }
    }
    // A kernel launch (`k<<<grid, block>>>(args)`, or a call of a
    // __global__ function) is not a call: the kernel runs on its own, and is
    // lowered as a function of its own, with its launch facts. Inlined here
    // its body would be judged again without them, in the launcher's name.
    bool Launch = isa<CUDAKernelCallExpr>(CE) || (FD && FD->hasAttr<CUDAGlobalAttr>());
    if (FD && FD->hasBody() && !System && !Launch && Stack.size() <= MaxInlineDepth &&
        std::find(Stack.begin(), Stack.end(), FD) == Stack.end() &&
        (!isa<CXXOperatorCallExpr>(CE) || First == 1) && FD->getNumParams() + First == N &&
        (ty(CE->getType()).known() || ty(CE->getType()).Pointer ||
         CE->getType()->isVoidType() || CE->getType()->isDependentType())) {
      auto SavedEnv = Env;
      for (unsigned I = First; I < N; ++I)
        Env[FD->getParamDecl(I - First)] = Args[I];
      if (InlinedCalls)
        InlinedCalls->insert(CE);
      Stack.push_back(FD);
      Returns.emplace_back();
      lowerStmt(FD->getBody());
      std::vector<const Node *> Rs = std::move(Returns.back());
      Returns.pop_back();
      Stack.pop_back();
      Env = std::move(SavedEnv);
      Node *X = make(Kind::Call, ty(CE->getType()), CE);
      X->Name = Name;
      // The helper's return type as written (`__device__ int offset(...)`):
      // a fix-it that widens a product returned through it widens it too.
      if (const TypeSourceInfo *TSI = FD->getTypeSourceInfo())
        if (auto FTL = TSI->getTypeLoc().getAsAdjusted<FunctionTypeLoc>())
          if (!FD->getReturnType()->getContainedAutoType())
            X->DeclType = range(FTL.getReturnLoc().getSourceRange());
      if (Rs.size() == 1) {
        X->Ops.push_back(Rs[0]);
      } else if (Rs.size() > 1) {
        Node *P = make(Kind::Phi, ty(CE->getType()), CE);
        P->Ops = Rs;
        X->Ops.push_back(P);
      }
      return X;
    }
    if (Obj)
      value(Obj);
    if (!FD)
      value(CE->getCallee());
    Node *X = make(Kind::Call, ty(CE->getType()), CE);
    X->Name = Name;
    if (!FD)
      X->Args = Args;
    return X;
  }

  // ---- statements --------------------------------------------------------
  /// Whether S always leaves the block (return, continue, break, throw, a
  /// trap). Past MaxStmtDepth nested blocks or arms: not known to, so no
  /// early-exit guard is assumed.
  static bool exits(const Stmt *S, unsigned Nest = 0) {
    if (!S || Nest > MaxStmtDepth)
      return false;
    if (isa<ReturnStmt>(S) || isa<ContinueStmt>(S) || isa<BreakStmt>(S) ||
        isa<CXXThrowExpr>(S))
      return true;
    if (const auto *CS = dyn_cast<CompoundStmt>(S))
      return !CS->body_empty() && exits(CS->body_back(), Nest + 1);
    if (const auto *IS = dyn_cast<IfStmt>(S))
      return IS->getElse() && exits(IS->getThen(), Nest + 1) && exits(IS->getElse(), Nest + 1);
    if (const auto *CE = dyn_cast<CallExpr>(S)) {
      std::string N = calleeName(CE);
      return N == "__trap" || N == "abort" || N == "exit" || N == "__builtin_trap" ||
             N == "__builtin_unreachable" || N == "asm_trap";
    }
    return false;
  }

  void mergeInto(const std::map<const ValueDecl *, const Node *> &A,
                 const std::map<const ValueDecl *, const Node *> &B, const Stmt *S) {
    Env.clear();
    for (auto &[D, V] : A) {
      auto It = B.find(D);
      if (It == B.end())
        continue; // declared inside one branch only
      if (It->second == V) {
        Env[D] = V;
        continue;
      }
      Node *P = F.make(Kind::Phi, V ? V->Ty : IntTy::unknown());
      P->Ops = {V, It->second};
      P->Range = range(S->getSourceRange());
      P->Name = D->getNameAsString();
      Env[D] = P;
    }
  }

  void lowerIf(const IfStmt *IS, size_t &PendingGuards) {
    if (IS->getInit())
      lowerStmt(IS->getInit());
    if (const auto *CV = IS->getConditionVariableDeclStmt())
      lowerStmt(CV);
    const Node *C = value(IS->getCond());
    if (IS->isConstexpr()) {
      // getNondiscardedCase asserts a valid constant; a condition with errors
      // (a macro from a missing header) or a dependent one takes both arms.
      const Expr *CE = IS->getCond();
      bool Value = false;
      if (CE && !CE->isValueDependent() && !CE->containsErrors() &&
          CE->EvaluateAsBooleanCondition(Value, Ctx)) {
        lowerStmt(Value ? IS->getThen() : IS->getElse());
        return;
      }
    }
    auto Before = Env;
    Guards.push_back({C, false, Guard::If});
    lowerStmt(IS->getThen());
    Guards.pop_back();
    auto AfterThen = Env;
    bool ThenExits = exits(IS->getThen());
    Env = Before;
    bool ElseExits = false;
    if (IS->getElse()) {
      Guards.push_back({C, true, Guard::If});
      lowerStmt(IS->getElse());
      Guards.pop_back();
      ElseExits = exits(IS->getElse());
    }
    auto AfterElse = Env;
    if (ThenExits && !ElseExits) {
      Env = AfterElse;
      Guards.push_back({C, true, Guard::EarlyExit}); // !c holds from here on
      ++PendingGuards;
    } else if (ElseExits && !ThenExits) {
      Env = AfterThen;
      Guards.push_back({C, false, Guard::EarlyExit});
      ++PendingGuards;
    } else {
      mergeInto(AfterThen, AfterElse, IS);
    }
  }

  /// Variables a loop assigns, so they get a loop-carried Phi. Iterative:
  /// a loop body may hold a 100k-term expression.
  void assigned(const Stmt *Root, std::set<const ValueDecl *> &Out) {
    auto Note = [&](const Expr *E) {
      E = E->IgnoreParenImpCasts();
      if (const auto *DR = dyn_cast<DeclRefExpr>(E))
        if (Env.count(DR->getDecl()))
          Out.insert(DR->getDecl());
    };
    std::vector<const Stmt *> Work = {Root};
    while (!Work.empty()) {
      const Stmt *S = Work.back();
      Work.pop_back();
      if (!S)
        continue;
      if (const auto *BO = dyn_cast<BinaryOperator>(S))
        if (BO->isAssignmentOp())
          Note(BO->getLHS());
      if (const auto *UO = dyn_cast<UnaryOperator>(S))
        if (UO->isIncrementDecrementOp())
          Note(UO->getSubExpr());
      for (const Stmt *C : S->children())
        Work.push_back(C);
    }
  }

  void lowerLoop(const Stmt *Init, const Expr *Cond, const Expr *Inc, const Stmt *Body,
                 const Stmt *Whole, bool CondFirst) {
    if (Init)
      lowerStmt(Init);
    std::set<const ValueDecl *> Carried;
    assigned(Body, Carried);
    assigned(Inc, Carried);
    assigned(Cond, Carried);
    std::map<const ValueDecl *, Node *> Phis;
    for (const ValueDecl *D : Carried) {
      Node *P = F.make(Kind::Phi, Env[D] ? Env[D]->Ty : IntTy::unknown());
      P->Ops.push_back(Env[D]);
      P->Name = D->getNameAsString();
      P->Range = range(Whole->getSourceRange());
      Phis[D] = P;
      Env[D] = P;
    }
    size_t Pushed = 0;
    if (Cond && CondFirst) {
      Guards.push_back({value(Cond), false, Guard::Loop});
      ++Pushed;
    }
    lowerStmt(Body);
    if (Inc)
      value(Inc);
    if (Cond && !CondFirst)
      value(Cond);
    while (Pushed--)
      Guards.pop_back();
    for (auto &[D, P] : Phis) {
      auto It = Env.find(D);
      if (It != Env.end() && It->second != P)
        P->Ops.push_back(It->second);
      Env[D] = P;
    }
  }

public:
  void lowerStmt(const Stmt *S) {
    if (!S)
      return;
    if (StmtDepth >= MaxStmtDepth) {
      limit("statement", MaxStmtDepth, S->getBeginLoc(), "not analysed");
      return;
    }
    struct Enter {
      unsigned &D;
      Enter(unsigned &D) : D(++D) {}
      ~Enter() { --D; }
    } InStmt(StmtDepth);
    if (const auto *E = dyn_cast<Expr>(S)) {
      SrcRange SavedStmt = CurStmt;
      std::string SavedIndent = CurIndent;
      enterStmt(E);
      value(E);
      CurStmt = SavedStmt;
      CurIndent = SavedIndent;
      return;
    }
    if (const auto *CS = dyn_cast<CompoundStmt>(S)) {
      size_t Pending = 0;
      for (const Stmt *C : CS->body()) {
        if (const auto *IS = dyn_cast<IfStmt>(C))
          lowerIf(IS, Pending);
        else
          lowerStmt(C);
      }
      while (Pending--)
        Guards.pop_back();
      return;
    }
    if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      for (const Decl *D : DS->decls()) {
        const auto *VD = dyn_cast<VarDecl>(D);
        if (!VD || !VD->hasLocalStorage())
          continue;
        const Node *V = nullptr;
        if (const Expr *Init = VD->getInit()) {
          V = value(Init);
          // A declaration narrower than its initializer is a narrowing
          // cast, even when the initializer is a braced or dependent one.
          IntTy T = ty(VD->getType());
          if (V && T.known() && V->Ty.known() && !T.Pointer && T.Bits < V->Ty.Bits &&
              V->K != Kind::Cast && V->K != Kind::Const) {
            Node *C = F.make(Kind::Cast, T);
            C->Ops.push_back(V);
            C->Range = V->Range;
            C->Text = V->Text;
            V = C;
          }
        } else {
          Node *U = F.make(Kind::Unknown, ty(VD->getType()));
          U->Name = VD->getNameAsString();
          V = U;
        }
        if (VD->getType()->isArrayType())
          continue; // loads from a local array are loads
        Env[VD] = V;
      }
      return;
    }
    if (const auto *IS = dyn_cast<IfStmt>(S)) {
      size_t Pending = 0;
      lowerIf(IS, Pending);
      while (Pending--)
        Guards.pop_back();
      return;
    }
    if (const auto *FS = dyn_cast<ForStmt>(S)) {
      auto Saved = Env;
      lowerLoop(FS->getInit(), FS->getCond(), FS->getInc(), FS->getBody(), FS, true);
      // Variables declared in the for-init go out of scope.
      for (auto It = Env.begin(); It != Env.end();)
        It = Saved.count(It->first) ? std::next(It) : Env.erase(It);
      return;
    }
    if (const auto *WS = dyn_cast<WhileStmt>(S)) {
      lowerLoop(nullptr, WS->getCond(), nullptr, WS->getBody(), WS, true);
      return;
    }
    if (const auto *DS = dyn_cast<DoStmt>(S)) {
      lowerLoop(nullptr, DS->getCond(), nullptr, DS->getBody(), DS, false);
      return;
    }
    if (const auto *RS = dyn_cast<CXXForRangeStmt>(S)) {
      value(RS->getRangeInit());
      lowerLoop(nullptr, nullptr, nullptr, RS->getBody(), RS, true);
      return;
    }
    if (const auto *RS = dyn_cast<ReturnStmt>(S)) {
      const Node *V = RS->getRetValue() ? value(RS->getRetValue()) : nullptr;
      if (!Returns.empty() && V)
        Returns.back().push_back(V);
      return;
    }
    if (isa<LambdaExpr>(S))
      return;
    // switch, case, labels, try: walk children in order.
    for (const Stmt *C : S->children())
      lowerStmt(C);
  }
};

bool isKernel(const FunctionDecl *FD) {
  return FD->hasAttr<CUDAGlobalAttr>();
}

/// A device function (not a kernel, not host-only) written in the file.
bool isHelper(const FunctionDecl *FD) {
  return FD->hasAttr<CUDADeviceAttr>() && !FD->hasAttr<CUDAGlobalAttr>() &&
         !isa<CXXMethodDecl>(FD);
}

/// Every reference to a function: the direct calls, and all uses (a call's
/// callee is one use; an address taken is a use that is no call).
class References : public RecursiveASTVisitor<References> {
public:
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool VisitCallExpr(CallExpr *CE) {
    if (const FunctionDecl *FD = CE->getDirectCallee())
      if (isa<DeclRefExpr>(CE->getCallee()->IgnoreParenImpCasts()))
        Calls[canon(FD)].insert(CE);
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *DR) {
    if (const auto *FD = dyn_cast<FunctionDecl>(DR->getDecl()))
      ++Uses[canon(FD)];
    return true;
  }
  bool VisitUnresolvedLookupExpr(UnresolvedLookupExpr *UL) {
    for (const NamedDecl *D : UL->decls())
      if (const auto *FD = dyn_cast<FunctionDecl>(D->getUnderlyingDecl()))
        Uses[canon(FD)] += 1000; // a dependent call: resolved per instantiation
    return true;
  }
  static const FunctionDecl *canon(const FunctionDecl *FD) {
    if (const FunctionDecl *P = FD->getTemplateInstantiationPattern())
      FD = P;
    return FD->getCanonicalDecl();
  }
  std::map<const FunctionDecl *, std::set<const CallExpr *>> Calls;
  std::map<const FunctionDecl *, size_t> Uses;
};

class Collector : public RecursiveASTVisitor<Collector> {
public:
  Collector(ASTContext &Ctx, Language L, bool MainOnly,
            std::vector<std::unique_ptr<Function>> &Out, const FactsMap &Facts)
      : Ctx(Ctx), L(L), MainOnly(MainOnly), Out(Out), Facts(Facts) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return false; }

  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (!FD->doesThisDeclarationHaveABody() || FD->isImplicit())
      return true;
    const SourceManager &SM = Ctx.getSourceManager();
    SourceLocation Loc = SM.getFileLoc(FD->getLocation());
    if (MainOnly && !SM.isInMainFile(Loc))
      return true;
    if (SM.isInSystemHeader(Loc))
      return true;
    if (!Seen.insert(FD).second)
      return true;
    auto Fn = std::make_unique<Function>();
    Fn->Name = FD->getQualifiedNameAsString();
    Fn->Lang = L;
    Fn->IsKernel = isKernel(FD);
    const KernelFacts *KF = nullptr;
    if (Fn->IsKernel) {
      auto It = Facts.find(factsKey(FD));
      if (It != Facts.end()) {
        KF = &It->second;
        Fn->Checked = KF->Checked;
      }
    }
    Lowerer Lw(Ctx, *Fn, KF);
    Lw.recordInlined(&Inlined);
    Fn->Range.Begin.File = std::string(SM.getFilename(Loc));
    Fn->Range.Begin.Line = SM.getSpellingLineNumber(Loc);
    Fn->Range.Begin.Col = SM.getSpellingColumnNumber(Loc);
    Fn->Range.Begin.Offset = SM.getFileOffset(Loc);
    Lw.lowerFunction(FD);
    Fn->capDepth(); // no walk over the IR recurses past MaxNodeDepth
    if (isHelper(FD))
      Helpers.push_back({Out.size(), References::canon(FD)});
    if (FD->isDependentContext())
      Patterns.push_back({Out.size(), FD->getCanonicalDecl()});
    else if (const FunctionDecl *P = FD->getTemplateInstantiationPattern())
      Instantiated.insert(P->getCanonicalDecl());
    Out.push_back(std::move(Fn));
    return true;
  }

  /// A template the file instantiates is analysed as instantiated: its
  /// instantiations know the template arguments (tile sizes, head dims,
  /// a router's expert count) that the pattern only names. The pattern is
  /// dropped where at least one instantiation was lowered, and kept where
  /// none was (a header's template, instantiated in other files).
  void dropSuperseded() {
    std::vector<bool> Drop(Out.size(), false);
    for (const auto &[Index, Key] : Patterns)
      if (Instantiated.count(Key))
        Drop[Index] = true;
    // A device helper whose every reference in the file is a call that was
    // inlined is judged where it is called, with what each caller passes
    // (`cp_async_state_chunk(..., /*slot=*/0, ...)`): alone, its
    // parameters would be bounded by their names only. A helper referenced
    // otherwise (its address taken, a call not inlined: too deep, recursive)
    // is judged alone as well.
    if (!Helpers.empty()) {
      References Refs;
      Refs.TraverseDecl(Ctx.getTranslationUnitDecl());
      for (const auto &[Index, Key] : Helpers) {
        auto C = Refs.Calls.find(Key);
        if (C == Refs.Calls.end() || C->second.empty() || Refs.Uses[Key] != C->second.size())
          continue;
        bool All = true;
        for (const CallExpr *CE : C->second)
          All = All && Inlined.count(CE);
        if (All)
          Drop[Index] = true;
      }
    }
    size_t W = 0;
    for (size_t I = 0; I < Out.size(); ++I)
      if (!Drop[I])
        Out[W++] = std::move(Out[I]);
    Out.resize(W);
  }

private:
  ASTContext &Ctx;
  Language L;
  bool MainOnly;
  std::vector<std::unique_ptr<Function>> &Out;
  const FactsMap &Facts;
  std::set<const FunctionDecl *> Seen;
  std::vector<std::pair<size_t, const FunctionDecl *>> Patterns; ///< (index in Out, pattern)
  std::vector<std::pair<size_t, const FunctionDecl *>> Helpers;  ///< (index in Out, helper)
  std::set<const CallExpr *> Inlined; ///< calls some lowering inlined
  std::set<const FunctionDecl *> Instantiated; ///< patterns with a lowered instantiation
};

} // namespace

void lowerASTContext(ASTContext &Ctx, Language L, bool MainFileOnly,
                     std::vector<std::unique_ptr<Function>> &Out,
                     const std::string &CheckedHelpers) {
  FactsMap Facts = scanLaunches(Ctx, CheckedHelpers, MainFileOnly);
  Collector C(Ctx, L, MainFileOnly, Out, Facts);
  C.TraverseDecl(Ctx.getTranslationUnitDecl());
  C.dropSuperseded();
  shareFileFacts(Out);
}

} // namespace kvlint
