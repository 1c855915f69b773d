//===- LaunchFacts.cpp - What host launches say about kernels -------------===//
//
// The launch-facts pre-pass of the Clang frontend (see LaunchFacts.h): reads
// the launches in host code, from the AST and, where clang dropped them,
// from tokens, and the checks made before them.
//
//===----------------------------------------------------------------------===//
#include "LaunchFacts.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

#include <functional>
#include <map>
#include <optional>
#include <set>

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

namespace {

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

class LaunchScanner {
public:
  LaunchScanner(ASTContext &Ctx, FactsMap &Out, const llvm::Regex &Helpers)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Out(Out), Helpers(Helpers) {}

  void scanFunction(const FunctionDecl *FD) {
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

private:
  struct Launch {
    const FunctionDecl *Kernel = nullptr;
    const Expr *Grid = nullptr;
    std::vector<const Expr *> Args;
    std::vector<std::string> ArgText; ///< each argument, without whitespace
    SourceLocation Loc;
    unsigned Offset = 0, Spelling = 0; ///< of the expansion and of the spelling
    FileID File, SpellFile;
    /// The host conditions that hold at the launch: the `if` branches it
    /// is in (`if (size_m < 64) k<<<...>>>(..., size_m)`); true = negated.
    std::vector<std::pair<const Expr *, bool>> Conds;
    bool Lexical = false; ///< read from tokens: LexAxis and LexArgs hold the facts
    SiteFact LexAxis[3];
    std::vector<SiteFact> LexArgs;
  };
  std::vector<std::pair<const Expr *, bool>> Branches; ///< during walk()
  struct Check {
    std::vector<const Expr *> Factors;
    int64_t Max = 0;
    std::string What; ///< TORCH_CHECK, CheckedInt32Product, ...
    SourceLocation Loc;
    unsigned Offset = 0;
    /// Launches in [SkipBegin, SkipEnd) are not under the check: the branch
    /// of an `if (c) { k<<<...>>>(); return; }` runs them when c holds.
    unsigned SkipBegin = 0, SkipEnd = 0;
    FileID File;
  };

  ASTContext &Ctx;
  SourceManager &SM;
  FactsMap &Out;
  const llvm::Regex &Helpers;
  std::vector<Launch> Launches;
  std::vector<Check> Checks;
  std::set<const ValueDecl *> Assigned; // locals written after their init
  std::map<const ValueDecl *, const Expr *> ConfigGrid; // config.gridDim = ...
  /// `dim3 grid; grid.z = DIVIDE(size_k, BLOCK);`: the last value assigned to
  /// each axis of a local dim3 before the launch that reads it.
  std::map<std::pair<const ValueDecl *, char>, const Expr *> Dim3Member;
  const Stmt *ScanBody = nullptr; ///< the body of the function being scanned
  const FunctionDecl *Current = nullptr; ///< factsKey of the function being scanned

  // ---- callers --------------------------------------------------------------
  //
  // `if (size_m < 32) { launch_small<T>(..., size_m, ...); return; }`: a host
  // function that launches a kernel with its parameter, called only under a
  // condition that bounds the argument, passes the kernel that bound. The
  // index holds every call of every host function of the TU with the branch
  // conditions that hold at it; a function is taken only when the TU holds
  // all its callers (a template, or internal linkage) and its every use is a
  // call (no address taken).
  struct CallSite {
    std::vector<const Expr *> Args;
    std::vector<std::pair<const Expr *, bool>> Conds;
    const FunctionDecl *Caller = nullptr; ///< factsKey
  };
  std::map<const FunctionDecl *, std::vector<CallSite>> Callers;
  std::map<const FunctionDecl *, unsigned> Uses, CallUses;

  std::map<std::string, const VarDecl *> Locals; // by name; null when ambiguous

public:
  std::multimap<std::string, const FunctionDecl *> Kernels; // by name, for lexLaunches

  /// Adds the calls in FD's body to the caller index (before any scan).
  void indexCalls(const FunctionDecl *FD) {
    std::vector<std::pair<const Expr *, bool>> Br;
    indexStmt(FD->getBody(), factsKey(FD), Br, 0);
  }
  /// A reference to a function anywhere in the TU (a call's callee, an
  /// address taken, a global's initializer): a function with more
  /// references than indexed calls has callers the index does not show.
  void noteUse(const Expr *E) {
    if (const FunctionDecl *K = calleeKey(E))
      ++Uses[K];
  }

private:
  void addLocal(const VarDecl *VD) {
    auto [It, New] = Locals.emplace(VD->getNameAsString(), VD);
    if (!New && It->second != VD)
      It->second = nullptr;
  }

  // ---- launches clang dropped ----------------------------------------------
  //
  // A launch whose statement did not type-check is not in the AST: the
  // commonest case is a launch inside a dispatch macro whose definition is in
  // a missing header (VLLM_DISPATCH_FLOATING_TYPES(..., [&] {
  // k<scalar_t><<<grid, block>>>(...); })), where scalar_t is undeclared.
  // The launch is then read from the tokens of the function body: the
  // kernel's name, the grid (a name, a constant, dim3(...), a ceil-div call)
  // and the arguments (names, members, constants). Names of the function's
  // locals resolve through the AST, which still has their declarations.

  struct Tok {
    tok::TokenKind K;
    std::string S;
    unsigned Offset;
  };

  void lexLaunches(const FunctionDecl *FD) {
    SourceRange R = FD->getBody()->getSourceRange();
    SourceLocation B = SM.getExpansionLoc(R.getBegin()), E = SM.getExpansionLoc(R.getEnd());
    FileID FID = SM.getFileID(B);
    if (FID != SM.getFileID(E))
      return;
    for (const Launch &L : Launches)
      SeenLaunches.insert({L.File, L.Offset});
    std::vector<Tok> Ts;
    if (!lexRange(FID, SM.getFileOffset(B), SM.getFileOffset(E), Ts))
      return;
    for (size_t I = 0; I < Ts.size(); ++I)
      if (Ts[I].K == tok::lesslessless)
        lexLaunch(Ts, 0, I, FID);
  }

public:
  /// The launches in a file that no function the AST has holds: a host
  /// function whose signature names a type from a missing header
  /// (torch::Tensor) is parsed as a variable and its body dropped. Its
  /// locals are read from the tokens too (dim3 grid(...); int n = ...;).
  /// Checks in such functions are not read.
  void scanFileTokens(FileID FID) {
    bool Invalid = false;
    StringRef Buf = SM.getBufferData(FID, &Invalid);
    if (Invalid || Buf.find("<<<") == StringRef::npos)
      return;
    std::vector<Tok> Ts;
    if (!lexRange(FID, 0, Buf.size(), Ts))
      return;
    // The body each token is in: the outermost brace that is not a
    // namespace's or an extern "C" block's.
    std::vector<size_t> Region(Ts.size(), 0);
    std::vector<std::pair<size_t, bool>> Braces; // open index, transparent
    size_t Open = 0;
    bool InBody = false;
    for (size_t I = 0; I < Ts.size(); ++I) {
      if (Ts[I].K == tok::l_brace) {
        bool Transparent =
            !InBody && ((I >= 1 && Ts[I - 1].S == "namespace") ||
                        (I >= 2 && Ts[I - 2].S == "namespace") ||
                        (I >= 1 && Ts[I - 1].K == tok::string_literal) ||
                        (I >= 1 && (Ts[I - 1].S == "struct" || Ts[I - 1].S == "class")) ||
                        (I >= 2 && (Ts[I - 2].S == "struct" || Ts[I - 2].S == "class")));
        Braces.push_back({I, Transparent});
        if (!Transparent && !InBody) {
          InBody = true;
          Open = I;
        }
      } else if (Ts[I].K == tok::r_brace && !Braces.empty()) {
        Braces.pop_back();
        InBody = false;
        for (auto &Br : Braces)
          if (!Br.second) {
            InBody = true;
            break;
          }
      }
      Region[I] = InBody ? Open : I;
    }
    std::map<std::string, LaunchMacro> Macros = launchMacros(FID);
    for (size_t I = 0; I < Ts.size(); ++I) {
      if (Ts[I].K == tok::lesslessless) {
        Launches.clear();
        Assigned.clear();
        Locals.clear();
        lexLaunch(Ts, Region[I], I, FID);
        for (const Launch &L : Launches)
          record(L);
        continue;
      }
      // LAUNCH_KERNEL(T, 128) where the macro's body launches: the body,
      // with the arguments put in, read like the function's own tokens.
      if (Ts[I].K != tok::raw_identifier || Region[I] == I || I + 1 >= Ts.size() ||
          Ts[I + 1].K != tok::l_paren)
        continue;
      auto M = Macros.find(Ts[I].S);
      if (M == Macros.end())
        continue;
      M->second.Read = true;
      if (SeenLaunches.count({FID, Ts[I].Offset}))
        continue; // the AST has this invocation's launches
      std::vector<std::vector<Tok>> Actual;
      if (split(Ts, I + 2, tok::r_paren, Actual) >= Ts.size())
        continue;
      if (Actual.size() == 1 && Actual[0].empty())
        Actual.clear();
      std::vector<Tok> Body;
      for (const Tok &T : M->second.Body) {
        auto P = std::find(M->second.Params.begin(), M->second.Params.end(), T.S);
        if (T.K == tok::raw_identifier && T.S == "__VA_ARGS__") {
          for (size_t A = M->second.Params.size(); A < Actual.size(); ++A) {
            if (A > M->second.Params.size())
              Body.push_back({tok::comma, ",", T.Offset});
            Body.insert(Body.end(), Actual[A].begin(), Actual[A].end());
          }
        } else if (T.K == tok::raw_identifier && P != M->second.Params.end()) {
          size_t A = size_t(P - M->second.Params.begin());
          if (A < Actual.size())
            Body.insert(Body.end(), Actual[A].begin(), Actual[A].end());
        } else {
          Body.push_back(T);
        }
      }
      Launches.clear();
      Assigned.clear();
      Locals.clear();
      LexToks = &Ts;
      LexBegin = Region[I];
      LexAt = I;
      for (size_t B = 0; B < Body.size(); ++B)
        if (Body[B].K == tok::lesslessless)
          parseLaunch(Body, B, FID, Ts[I].Offset);
      SeenLaunches.insert({FID, Ts[I].Offset});
      for (const Launch &L : Launches)
        record(L);
    }
    // A macro invoked only from other macros (or not at all here): its body
    // is still the launch, with the macro's parameters unknown and no local
    // resolvable. Constants and the caller's names it spells are facts.
    for (auto &[Name, M] : Macros) {
      if (M.Read)
        continue;
      std::vector<Tok> Body = M.Body;
      for (Tok &T : Body)
        if (T.K == tok::raw_identifier &&
            (T.S == "__VA_ARGS__" ||
             std::find(M.Params.begin(), M.Params.end(), T.S) != M.Params.end()))
          T = {tok::unknown, "?", T.Offset};
      Launches.clear();
      Assigned.clear();
      Locals.clear();
      LexToks = nullptr;
      LexBegin = LexAt = 0;
      for (size_t B = 0; B < Body.size(); ++B)
        if (Body[B].K == tok::lesslessless)
          parseLaunch(Body, B, FID, std::nullopt);
      for (const Launch &L : Launches) {
        // Expanded inside another macro's invocation, the AST may have read
        // this very launch: its spelling is in this body.
        bool Had = false;
        auto It = Out.find(factsKey(L.Kernel));
        if (It != Out.end())
          for (const LaunchSite &S : It->second.Sites)
            Had |= S.SpellFile == L.SpellFile && S.Spelling == L.Spelling;
        if (!Had)
          record(L);
      }
    }
  }

private:
  /// A function-like macro whose body launches a kernel.
  struct LaunchMacro {
    bool Read = false; ///< an invocation was read (here or by the AST)
    std::vector<std::string> Params;
    std::vector<Tok> Body;
  };

  std::map<std::string, LaunchMacro> launchMacros(FileID FID) {
    std::map<std::string, LaunchMacro> Out;
    bool Invalid = false;
    StringRef Buf = SM.getBufferData(FID, &Invalid);
    if (Invalid)
      return Out;
    Lexer Lx(SM.getLocForStartOfFile(FID), Ctx.getLangOpts(), Buf.begin(), Buf.begin(),
             Buf.end());
    Token T;
    Lx.LexFromRawLexer(T);
    while (T.isNot(tok::eof)) {
      if (!(T.is(tok::hash) && T.isAtStartOfLine())) {
        Lx.LexFromRawLexer(T);
        continue;
      }
      // One directive: # define NAME ( params ) body
      std::vector<Tok> Line;
      Lx.LexFromRawLexer(T);
      while (T.isNot(tok::eof) && !T.isAtStartOfLine()) {
        std::string S = T.is(tok::raw_identifier) ? T.getRawIdentifier().str()
                                                   : Lexer::getSpelling(T, SM, Ctx.getLangOpts());
        Line.push_back({T.getKind(), S, SM.getFileOffset(T.getLocation())});
        Lx.LexFromRawLexer(T);
      }
      if (Line.size() < 4 || Line[0].S != "define" || Line[2].K != tok::l_paren ||
          Line[2].Offset != Line[1].Offset + Line[1].S.size())
        continue;
      LaunchMacro M;
      size_t I = 3;
      for (; I < Line.size() && Line[I].K != tok::r_paren; ++I)
        if (Line[I].K == tok::raw_identifier)
          M.Params.push_back(Line[I].S);
        else if (Line[I].K == tok::ellipsis)
          M.Params.push_back("...");
      if (!M.Params.empty() && M.Params.back() == "...")
        M.Params.pop_back();
      bool Launches = false, Pastes = false;
      for (size_t J = I + 1; J < Line.size(); ++J) {
        Launches |= Line[J].K == tok::lesslessless;
        Pastes |= Line[J].K == tok::hashhash || Line[J].K == tok::hash;
        M.Body.push_back(Line[J]);
      }
      if (Launches && !Pastes)
        Out[Line[1].S] = std::move(M);
    }
    return Out;
  }


private:
  std::set<std::pair<FileID, unsigned>> SeenLaunches; // launches already read
  const std::vector<Tok> *LexToks = nullptr;          // for lexDecl
  size_t LexBegin = 0, LexAt = 0;

  bool lexRange(FileID FID, unsigned BO, unsigned EO, std::vector<Tok> &Ts) {
    bool Invalid = false;
    StringRef Buf = SM.getBufferData(FID, &Invalid);
    if (Invalid || EO <= BO || EO > Buf.size() ||
        Buf.substr(BO, EO - BO).find("<<<") == StringRef::npos)
      return false;
    Lexer Lx(SM.getLocForStartOfFile(FID), Ctx.getLangOpts(), Buf.begin(), Buf.begin() + BO,
             Buf.end());
    Token T;
    while (true) {
      Lx.LexFromRawLexer(T);
      if (T.is(tok::eof))
        break;
      unsigned Off = SM.getFileOffset(T.getLocation());
      if (Off > EO)
        break;
      while (T.is(tok::hash) && T.isAtStartOfLine()) { // skip directive lines
        do
          Lx.LexFromRawLexer(T);
        while (T.isNot(tok::eof) && !T.isAtStartOfLine());
      }
      if (T.is(tok::eof))
        break;
      Off = SM.getFileOffset(T.getLocation());
      if (Off > EO)
        break;
      std::string S = T.is(tok::raw_identifier) ? T.getRawIdentifier().str()
                                                 : Lexer::getSpelling(T, SM, Ctx.getLangOpts());
      Ts.push_back({T.getKind(), S, Off});
    }
    return true;
  }

  /// A local declared by tokens before the launch, in the same body, and
  /// not written again before it: `dim3 grid(a, b)`, `int n = ...;`.
  struct LexLocal {
    bool Dim3 = false;
    bool Ctor = false; ///< NAME(args) / NAME{args}: Parts; NAME = init: Init
    std::vector<std::vector<Tok>> Parts;
    std::vector<Tok> Init;
  };

  std::optional<LexLocal> lexDecl(const std::string &N) {
    if (!LexToks || N.empty())
      return std::nullopt;
    const std::vector<Tok> &Ts = *LexToks;
    int Closed = 0; // blocks closed between a token and the launch
    std::optional<LexLocal> Found;
    for (size_t J = LexAt; J-- > LexBegin + 1;) {
      if (Ts[J].K == tok::r_brace)
        ++Closed;
      else if (Ts[J].K == tok::l_brace && Closed > 0)
        --Closed;
      if (Closed > 0) // a declaration in a block that ended is out of scope
        continue;
      if (Ts[J].K != tok::raw_identifier || Ts[J].S != N || J + 1 >= Ts.size())
        continue;
      tok::TokenKind Next = Ts[J + 1].K;
      bool TypeBefore = Ts[J - 1].K == tok::raw_identifier || Ts[J - 1].K == tok::greater;
      static const std::set<std::string> NotTypes = {"return", "case", "else", "do",
                                                      "throw", "goto", "co_return"};
      if (!TypeBefore || NotTypes.count(Ts[J - 1].S) ||
          (Next != tok::l_paren && Next != tok::l_brace && Next != tok::equal)) {
        // A write after the declaration: n = ..., grid.x = ..., n += ...
        continue;
      }
      // Two declarations in scope are the branches of an #if: either may
      // be the one compiled.
      if (Found)
        return std::nullopt;
      // Writes between the declaration and the launch.
      for (size_t K = J + 2; K + 1 < LexAt; ++K) {
        if (Ts[K].K != tok::raw_identifier || Ts[K].S != N)
          continue;
        size_t W = K + 1;
        if (W + 1 < LexAt && Ts[W].K == tok::period && Ts[W + 1].K == tok::raw_identifier)
          W += 2;
        tok::TokenKind WK = Ts[W].K;
        if (WK == tok::equal || WK == tok::plusequal || WK == tok::minusequal ||
            WK == tok::starequal || WK == tok::slashequal || WK == tok::plusplus ||
            WK == tok::minusminus || (K > 0 && Ts[K - 1].K == tok::amp))
          return std::nullopt;
      }
      LexLocal L;
      for (size_t B = J; B-- > LexBegin && B + 4 > J;)
        L.Dim3 |= Ts[B].S == "dim3";
      if (Next == tok::equal) {
        for (size_t K = J + 2; K < Ts.size() && Ts[K].K != tok::semi; ++K)
          L.Init.push_back(Ts[K]);
      } else {
        L.Ctor = true;
        if (split(Ts, J + 2, Next == tok::l_paren ? tok::r_paren : tok::r_brace, L.Parts) >=
            Ts.size())
          return std::nullopt;
        if (L.Parts.size() == 1 && L.Parts[0].empty())
          L.Parts.clear();
      }
      Found = std::move(L);
    }
    return Found;
  }

  /// Splits Ts[From..] at top-level commas until the closing token Close at
  /// depth 0; returns the index of Close (or Ts.size()).
  static size_t split(const std::vector<Tok> &Ts, size_t From, tok::TokenKind Close,
                      std::vector<std::vector<Tok>> &Groups) {
    int Depth = 0;
    Groups.emplace_back();
    for (size_t I = From; I < Ts.size(); ++I) {
      tok::TokenKind K = Ts[I].K;
      if (Depth == 0 && K == Close)
        return I;
      if (K == tok::l_paren || K == tok::l_square || K == tok::l_brace)
        ++Depth;
      if (K == tok::r_paren || K == tok::r_square || K == tok::r_brace)
        if (--Depth < 0)
          return Ts.size();
      if (K == tok::semi)
        return Ts.size();
      if (Depth == 0 && K == tok::comma) {
        Groups.emplace_back();
        continue;
      }
      Groups.back().push_back(Ts[I]);
    }
    return Ts.size();
  }

  void lexLaunch(const std::vector<Tok> &Ts, size_t Begin, size_t At, FileID FID) {
    LexToks = &Ts;
    LexBegin = Begin;
    LexAt = At;
    parseLaunch(Ts, At, FID, std::nullopt);
  }

  /// The launch whose `<<<` is Ts[At]. Names resolve in LexToks before
  /// LexAt. Invocation: the offset of the macro invocation whose expansion
  /// Ts is (the launch's location), or none when Ts are the file's tokens.
  void parseLaunch(const std::vector<Tok> &Ts, size_t At, FileID FID,
                   std::optional<unsigned> Invocation) {
    // The kernel's name, before its template arguments.
    size_t J = At;
    if (J == 0)
      return;
    --J;
    if (Ts[J].K == tok::greater || Ts[J].K == tok::greatergreater) {
      int Depth = 0;
      for (;; --J) {
        tok::TokenKind K = Ts[J].K;
        Depth += K == tok::greater ? 1 : K == tok::greatergreater ? 2 : K == tok::less ? -1 : 0;
        if (Depth == 0 || J == 0)
          break;
      }
      if (Depth != 0 || J == 0)
        return;
      --J;
    }
    if (Ts[J].K != tok::raw_identifier)
      return;
    std::string Name = Ts[J].S;
    while (J >= 2 && Ts[J - 1].K == tok::coloncolon && Ts[J - 2].K == tok::raw_identifier)
      J -= 2;
    if (!Invocation && !SeenLaunches.insert({FID, Ts[J].Offset}).second)
      return; // the AST or a function's tokens had this launch
    std::vector<std::vector<Tok>> Cfg, Args;
    size_t End = split(Ts, At + 1, tok::greatergreatergreater, Cfg);
    if (End + 1 >= Ts.size() || Ts[End + 1].K != tok::l_paren)
      return;
    size_t Close = split(Ts, End + 2, tok::r_paren, Args);
    if (Close >= Ts.size())
      return;
    if (Args.size() == 1 && Args[0].empty())
      Args.clear();
    const FunctionDecl *K = kernelNamed(Name, Args.size());
    if (!K)
      return;
    Launch L;
    L.Kernel = K;
    L.Lexical = true;
    L.Loc = SM.getComposedLoc(FID, Invocation ? *Invocation : Ts[J].Offset);
    L.Offset = Invocation ? *Invocation : Ts[J].Offset;
    L.Spelling = Ts[J].Offset;
    L.SpellFile = FID;
    L.File = FID;
    if (!Cfg.empty())
      lexGrid(Cfg[0], L.LexAxis);
    for (const auto &A : Args) {
      L.ArgText.push_back(join(A));
      L.LexArgs.push_back(lexArg(A));
    }
    Launches.push_back(std::move(L));
  }

  static std::string join(const std::vector<Tok> &Ts) {
    std::string S;
    for (const Tok &T : Ts)
      S += T.S;
    return S;
  }

  const FunctionDecl *kernelNamed(const std::string &Name, size_t NArgs) {
    auto [B, E] = Kernels.equal_range(Name);
    const FunctionDecl *Found = nullptr;
    for (auto It = B; It != E; ++It) {
      const FunctionDecl *FD = It->second;
      if (FD->getNumParams() != NArgs)
        continue;
      if (Found && factsKey(Found) != factsKey(FD))
        return nullptr; // overloads: ambiguous
      Found = FD;
    }
    return Found;
  }

  static std::optional<int64_t> literal(const std::vector<Tok> &Ts) {
    if (Ts.size() != 1 || Ts[0].K != tok::numeric_constant)
      return std::nullopt;
    std::string S = Ts[0].S;
    while (!S.empty() && (S.back() == 'u' || S.back() == 'U' || S.back() == 'l' ||
                          S.back() == 'L'))
      S.pop_back();
    int64_t V = 0;
    if (StringRef(S).getAsInteger(0, V))
      return std::nullopt;
    return V;
  }

  /// A name the tokens spell: `n`, `p.n`, `p->n`, `static_cast<int>(n)`.
  static std::string lexName(const std::vector<Tok> &Ts) {
    if (Ts.size() == 1 && Ts[0].K == tok::raw_identifier)
      return Ts[0].S;
    if (Ts.size() == 3 && Ts[0].K == tok::raw_identifier &&
        (Ts[1].K == tok::period || Ts[1].K == tok::arrow) && Ts[2].K == tok::raw_identifier)
      return Ts[2].S;
    return "";
  }

  /// Drops a static_cast<T>(...) or (int) around the tokens.
  static std::vector<Tok> unwrap(std::vector<Tok> Ts) {
    for (int I = 0; I < 4; ++I) {
      if (Ts.size() > 5 && Ts[0].S == "static_cast" && Ts.back().K == tok::r_paren) {
        size_t P = 0;
        while (P < Ts.size() && Ts[P].K != tok::l_paren)
          ++P;
        Ts = std::vector<Tok>(Ts.begin() + P + 1, Ts.end() - 1);
        continue;
      }
      if (Ts.size() >= 4 && Ts[0].K == tok::l_paren && Ts[2].K == tok::r_paren &&
          Ts[1].K == tok::raw_identifier) { // (int)n, (int64_t)n
        Ts = std::vector<Tok>(Ts.begin() + 3, Ts.end());
        continue;
      }
      if (Ts.size() >= 3 && Ts[0].K == tok::l_paren && Ts.back().K == tok::r_paren) {
        std::vector<std::vector<Tok>> G;
        if (split(Ts, 1, tok::r_paren, G) == Ts.size() - 1 && G.size() == 1) {
          Ts = G[0];
          continue;
        }
      }
      break;
    }
    return Ts;
  }

  /// A local (or parameter) of the function being scanned, by name.
  const VarDecl *local(const std::string &Name) {
    auto It = Locals.find(Name);
    return It == Locals.end() ? nullptr : It->second;
  }

  /// A constant the tokens spell: a literal, or a local initialised by one.
  std::optional<int64_t> lexConst(const std::vector<Tok> &A, unsigned Depth = 0) {
    std::vector<Tok> Ts = unwrap(A);
    if (auto V = literal(Ts))
      return V;
    std::string N = Ts.size() == 1 ? lexName(Ts) : "";
    if (N.empty() || Depth > 3)
      return std::nullopt;
    if (const VarDecl *VD = local(N)) {
      if (!isa<ParmVarDecl>(VD) && VD->getInit() && !Assigned.count(VD))
        return foldInt(strip(VD->getInit()), Ctx);
      return std::nullopt;
    }
    if (auto D = lexDecl(N)) {
      if (!D->Ctor)
        return lexConst(D->Init, Depth + 1);
      if (D->Parts.size() == 1)
        return lexConst(D->Parts[0], Depth + 1);
    }
    return std::nullopt;
  }

  SiteFact lexAxis(std::vector<Tok> Ts, unsigned Depth = 0) {
    Ts = unwrap(std::move(Ts));
    SiteFact F;
    if (Depth > 4)
      return F;
    if (auto V = lexConst(Ts)) {
      if (*V >= 1) {
        F.Known = F.HasRange = true;
        F.Hi = *V - 1;
      }
      return F;
    }
    std::string N = lexName(Ts);
    if (!N.empty()) {
      if (Ts.size() == 1) {
        if (const VarDecl *VD = local(N)) {
          if (VD->getType()->isRecordType() || VD->getType()->isPointerType())
            return F;
          if (!isa<ParmVarDecl>(VD) && VD->getInit() && !Assigned.count(VD) &&
              !VD->getType()->isReferenceType())
            F = axis(VD->getInit());
          if (auto M = callerMaxOf(dyn_cast<ParmVarDecl>(VD)); M && *M >= 1) {
            F.Known = F.HasRange = true;
            F.Hi = *M - 1;
            return F;
          }
        } else if (auto D = lexDecl(N)) {
          if (D->Dim3)
            return F;
          if (!D->Ctor)
            F = lexAxis(D->Init, Depth + 1);
          else if (D->Parts.size() == 1)
            F = lexAxis(D->Parts[0], Depth + 1);
        }
      }
      if (!F.Known) {
        F.Known = true;
        F.BoundBy = N;
      }
      return F;
    }
    // std::min(a, b): below a constant, and below the first named.
    {
      size_t P = Ts.size() >= 3 && Ts[0].S == "std" && Ts[1].K == tok::coloncolon ? 2 : 0;
      if (Ts.size() >= P + 5 && (Ts[P].S == "min" || Ts[P].S == "__min" || Ts[P].S == "umin") &&
          Ts[P + 1].K == tok::l_paren && Ts.back().K == tok::r_paren) {
        std::vector<std::vector<Tok>> G;
        if (split(Ts, P + 2, tok::r_paren, G) == Ts.size() - 1 && G.size() == 2) {
          auto A = lexConst(G[0]), B = lexConst(G[1]);
          if (A && B)
            return lexAxis(*A < *B ? G[0] : G[1], Depth + 1);
          if (!A && !B) {
            F = lexAxis(G[0], Depth + 1);
            return F.Known ? F : lexAxis(G[1], Depth + 1);
          }
          F = lexAxis(A ? G[1] : G[0], Depth + 1);
          int64_t C = A ? *A : *B;
          if (C >= 1 && (!F.HasRange || F.Hi > C - 1)) {
            F.Known = F.HasRange = true;
            F.Lo = 0;
            F.Hi = C - 1;
          }
          return F;
        }
      }
    }
    // DIVUP(n, 128), ceil_div(n, BLOCK)
    if (Ts.size() >= 4 && Ts[0].K == tok::raw_identifier && ceilDivName(Ts[0].S) &&
        Ts[1].K == tok::l_paren && Ts.back().K == tok::r_paren) {
      std::vector<std::vector<Tok>> G;
      if (split(Ts, 2, tok::r_paren, G) == Ts.size() - 1 && G.size() == 2)
        return lexCeilDiv(G[0], G[1], true, Depth);
      return F;
    }
    // (n + B - 1) / B, n / B
    int Paren = 0;
    size_t Slash = Ts.size();
    for (size_t I = 0; I < Ts.size(); ++I) {
      Paren += Ts[I].K == tok::l_paren ? 1 : Ts[I].K == tok::r_paren ? -1 : 0;
      if (Paren == 0 && Ts[I].K == tok::slash)
        Slash = I;
      if (Paren == 0 && (Ts[I].K == tok::star || Ts[I].K == tok::question ||
                         Ts[I].K == tok::percent || Ts[I].K == tok::lessless))
        return F; // a product or a choice: no single quantity
    }
    if (Slash > 0 && Slash + 1 < Ts.size())
      return lexCeilDiv(std::vector<Tok>(Ts.begin(), Ts.begin() + Slash),
                        std::vector<Tok>(Ts.begin() + Slash + 1, Ts.end()), false, Depth);
    return F;
  }

  /// ceil(Num / Den) spelled by tokens; Exact for a ceil-div helper's call.
  SiteFact lexCeilDiv(const std::vector<Tok> &NumT, const std::vector<Tok> &DenT, bool Exact,
                      unsigned Depth) {
    SiteFact F;
    std::vector<Tok> Num = unwrap(NumT), Den = unwrap(DenT);
    auto B = lexConst(Den);
    if (B && *B <= 0)
      return F;
    std::string DenText = join(Den);
    // Additive terms at depth 0.
    std::vector<std::pair<std::vector<Tok>, bool>> Terms(1);
    int Paren = 0;
    for (const Tok &T : Num) {
      Paren += T.K == tok::l_paren ? 1 : T.K == tok::r_paren ? -1 : 0;
      if (Paren == 0 && (T.K == tok::plus || T.K == tok::minus) && !Terms.back().first.empty()) {
        Terms.push_back({{}, T.K == tok::minus});
        continue;
      }
      Terms.back().first.push_back(T);
    }
    const std::vector<Tok> *Main = nullptr;
    int64_t K = 0;
    int DenTerms = 0;
    for (auto &[T, Neg] : Terms) {
      if (auto V = lexConst(T)) {
        K += Neg ? -*V : *V;
        continue;
      }
      if (!B && !Neg && join(unwrap(T)) == DenText) {
        ++DenTerms;
        continue;
      }
      if (Main || Neg)
        return F;
      Main = &T;
    }
    if (!Main)
      return F;
    if (!Exact) {
      if (B && DenTerms == 0 && K > *B - 1)
        return F;
      if (!B && !(DenTerms == 0 && K <= 0) && !(DenTerms == 1 && K <= -1))
        return F;
    }
    return divided(lexAxis(*Main, Depth + 1), B, DenText);
  }

  void lexGrid(const std::vector<Tok> &G, SiteFact (&Axes)[3], unsigned Depth = 0) {
    std::vector<Tok> Ts = unwrap(G);
    if (Depth > 3)
      return;
    // dim3(a, b, c), dim3{a, b}, {a, b}
    size_t Open = Ts.size();
    if (Ts.size() >= 3 && Ts[0].S == "dim3" &&
        (Ts[1].K == tok::l_paren || Ts[1].K == tok::l_brace))
      Open = 1;
    else if (Ts.size() >= 2 && Ts[0].K == tok::l_brace)
      Open = 0;
    if (Open < Ts.size()) {
      std::vector<std::vector<Tok>> Parts;
      tok::TokenKind Close = Ts[Open].K == tok::l_paren ? tok::r_paren : tok::r_brace;
      if (split(Ts, Open + 1, Close, Parts) != Ts.size() - 1)
        return;
      for (unsigned I = 0; I < 3; ++I)
        Axes[I] = I < Parts.size() ? lexAxis(Parts[I]) : axis1();
      return;
    }
    std::string N = Ts.size() == 1 ? lexName(Ts) : "";
    if (!N.empty()) {
      if (const VarDecl *VD = local(N)) {
        if (VD->getType()->isRecordType()) { // dim3 grid(...) declared outside the lambda
          if (!isa<ParmVarDecl>(VD) && VD->getInit() && !Assigned.count(VD))
            grid(VD->getInit(), Axes);
          return;
        }
      } else if (auto D = lexDecl(N)) {
        if (D->Dim3) {
          if (!D->Ctor)
            return lexGrid(D->Init, Axes, Depth + 1);
          for (unsigned I = 0; I < 3; ++I)
            Axes[I] = I < D->Parts.size() ? lexAxis(D->Parts[I]) : axis1();
          return;
        }
      } else if (!scalarParam(N)) {
        return; // a name we cannot type: it may be a dim3
      }
    }
    Axes[0] = lexAxis(Ts);
    Axes[1] = Axes[2] = axis1();
  }

  /// Whether N is a parameter of the function the launch is in, declared
  /// with a type other than dim3 (read from the tokens of its signature).
  bool scalarParam(const std::string &N) {
    if (!LexToks || LexBegin == 0)
      return false;
    const std::vector<Tok> &Ts = *LexToks;
    for (size_t J = LexBegin; J-- > 0 && J + 200 > LexBegin;) {
      if (Ts[J].K == tok::semi || Ts[J].K == tok::r_brace)
        return false;
      if (Ts[J].K == tok::raw_identifier && Ts[J].S == N) {
        for (size_t B = J; B-- > 0 && B + 4 > J;)
          if (Ts[B].S == "dim3")
            return false;
        return J + 1 < Ts.size() && (Ts[J + 1].K == tok::comma || Ts[J + 1].K == tok::r_paren);
      }
    }
    return false;
  }

  SiteFact lexArg(const std::vector<Tok> &A) {
    std::vector<Tok> Ts = unwrap(A);
    SiteFact F;
    if (auto V = lexConst(Ts)) {
      F.Known = F.HasRange = true;
      F.Lo = F.Hi = *V;
      return F;
    }
    std::string N = lexName(Ts);
    if (N.empty())
      return F;
    F.Known = true;
    F.BoundBy = N;
    return F;
  }



  // ---- walking ------------------------------------------------------------
  void walk(const Stmt *S, unsigned Depth) {
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
  void dim3Member(const Expr *L, const Expr *R) {
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
  void configGrid(const Expr *L, const Expr *R) {
    if (const auto *ME = dyn_cast<MemberExpr>(L->IgnoreParenImpCasts()))
      if (ME->getMemberDecl()->getName() == "gridDim")
        if (const auto *DR = dyn_cast<DeclRefExpr>(ME->getBase()->IgnoreParenImpCasts()))
          ConfigGrid[DR->getDecl()] = R;
  }

  /// The elements of `void *args[] = {&a, (void *)&b, ...}`: a, b, ...
  bool argsArray(const Expr *E, std::vector<const Expr *> &Out) {
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
  static const ValueDecl *writtenDecl(const Stmt *S) {
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

  static bool isCheckName(StringRef N) {
    return N.contains("CHECK") || N.contains("ASSERT") || N == "assert" ||
           N.contains("ENFORCE");
  }

  std::string macroName(SourceLocation L) {
    for (unsigned I = 0; L.isMacroID() && I < 16; ++I) {
      StringRef N = Lexer::getImmediateMacroName(L, SM, Ctx.getLangOpts());
      if (isCheckName(N))
        return N.str();
      L = SM.getImmediateMacroCallerLoc(L);
    }
    return "";
  }
  bool checkMacro(SourceLocation L) { return !macroName(L).empty(); }

  void call(const std::string &Name, const std::vector<const Expr *> &Args, const Expr *E) {
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
  void ifCheck(const IfStmt *IS) {
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

  static bool returns(const Stmt *S) {
    if (const auto *CS = dyn_cast_or_null<CompoundStmt>(S))
      return !CS->body_empty() && returns(CS->body_back());
    return S && isa<ReturnStmt>(S);
  }

  bool fails(const Stmt *S) {
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

  /// Each `p <= Max` a condition says when it holds (Holds) or fails: `p <
  /// M`, `p <= M`, `M > p`, `M >= p` with M a constant, under && (or under ||
  /// when it fails), through `!`, casts and __builtin_expect.
  template <typename Fn>
  void upperBounds(const Expr *C, bool Holds, const Fn &Each, unsigned Depth = 0) {
    if (!C || Depth > 16)
      return;
    C = C->IgnoreParenImpCasts();
    if (const auto *CE = dyn_cast<CallExpr>(C)) // __builtin_expect(c, 0), C10_UNLIKELY
      if (CE->getNumArgs() >= 1 && calleeOf(CE->getCallee()).find("expect") != std::string::npos)
        return upperBounds(CE->getArg(0), Holds, Each, Depth + 1);
    if (const auto *CE = dyn_cast<CastExpr>(C))
      return upperBounds(CE->getSubExpr(), Holds, Each, Depth + 1);
    if (const auto *UO = dyn_cast<UnaryOperator>(C)) {
      if (UO->getOpcode() == UO_LNot)
        upperBounds(UO->getSubExpr(), !Holds, Each, Depth + 1);
      return;
    }
    const auto *BO = dyn_cast<BinaryOperator>(C);
    if (!BO)
      return;
    BinaryOperatorKind Op = BO->getOpcode();
    if ((Op == BO_LAnd && Holds) || (Op == BO_LOr && !Holds)) {
      upperBounds(BO->getLHS(), Holds, Each, Depth + 1);
      upperBounds(BO->getRHS(), Holds, Each, Depth + 1);
      return;
    }
    if (!BO->isRelationalOp())
      return;
    if (!Holds) // !(a > b) is a <= b
      Op = Op == BO_GT ? BO_LE : Op == BO_GE ? BO_LT : Op == BO_LT ? BO_GE : BO_GT;
    const Expr *P, *M;
    bool Strict = Op == BO_LT || Op == BO_GT;
    if (Op == BO_LT || Op == BO_LE)
      P = BO->getLHS(), M = BO->getRHS();
    else
      P = BO->getRHS(), M = BO->getLHS();
    auto V = foldInt(strip(M), Ctx);
    if (!V || foldInt(strip(P), Ctx))
      return;
    Each(P, Strict ? *V - 1 : *V);
  }

  /// Bounds from a host check: each `p <= M` it says is a checked product.
  void addBounds(const Expr *C, bool Holds, const std::string &What, SourceLocation Loc) {
    upperBounds(C, Holds, [&](const Expr *P, int64_t Max) { addProduct(P, Max, What, Loc); });
  }

  /// p <= Max where p is a product: its factors, constants folded into Max.
  void addProduct(const Expr *P, int64_t Max, const std::string &What, SourceLocation Loc) {
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

  void addCheck(const std::vector<const Expr *> &Factors, int64_t Max, const std::string &What,
                SourceLocation Loc) {
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

  // ---- launches -----------------------------------------------------------
  const FunctionDecl *kernelOf(const Expr *E, unsigned Depth = 0) {
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
  static std::vector<const Expr *> returnValues(const Stmt *Body) {
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
  std::vector<const FunctionDecl *> pickedKernels(const Expr *Callee) {
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

  void addLaunch(const Expr *Callee, const Expr *Grid, std::vector<const Expr *> Args,
                 SourceLocation Loc, bool HasArgs = true) {
    if (const FunctionDecl *K = kernelOf(Callee)) {
      addLaunchOf(K, Grid, std::move(Args), Loc, HasArgs);
      return;
    }
    for (const FunctionDecl *K : pickedKernels(Callee))
      addLaunchOf(K, Grid, Args, Loc, HasArgs);
  }

  void addLaunchOf(const FunctionDecl *Kernel, const Expr *Grid, std::vector<const Expr *> Args,
                   SourceLocation Loc, bool HasArgs) {
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

  std::string where(SourceLocation L) {
    L = SM.getExpansionLoc(L);
    return llvm::sys::path::filename(SM.getFilename(L)).str() + ":" +
           std::to_string(SM.getExpansionLineNumber(L));
  }

  /// A local's initializer, when the local is never written after it.
  const Expr *initOf(const Expr *E) {
    const auto *DR = dyn_cast<DeclRefExpr>(E);
    if (!DR)
      return nullptr;
    const auto *VD = dyn_cast<VarDecl>(DR->getDecl());
    if (!VD || !VD->hasLocalStorage() || isa<ParmVarDecl>(VD) || Assigned.count(VD) ||
        VD->getType()->isReferenceType())
      return nullptr;
    return VD->getInit();
  }

  static std::string nameOf(const Expr *E) {
    if (const auto *DR = dyn_cast<DeclRefExpr>(E))
      return DR->getDecl()->getNameAsString();
    if (const auto *ME = dyn_cast<MemberExpr>(E))
      return ME->getMemberDecl()->getNameAsString();
    if (const auto *DM = dyn_cast<CXXDependentScopeMemberExpr>(E))
      return DM->getMember().getAsString();
    return "";
  }

  static bool ceilDivName(StringRef N) {
    std::string L = N.lower();
    return L == "ceil_div" || L == "cdiv" || L == "div_ceil" || L == "divup" || L == "div_up" ||
           L == "ceildiv" || L == "div_round_up" || L == "ceil_div_int" || L == "ceildivup" ||
           L == "round_up_div" || L == "iceil_div" || L == "ceil_divide" || L == "ceil";
  }

  /// The range of what a helper of this translation unit returns, when every
  /// return in its body is a constant or a call to such a helper
  /// (`compute_k_split(size_k)` returning 4, 2 or 1).
  bool constantReturns(const FunctionDecl *FD, int64_t &Lo, int64_t &Hi, unsigned Depth = 0) {
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
  SiteFact axis(const Expr *E, unsigned Depth = 0) {
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
  SiteFact ceilDiv(const Expr *Num, const Expr *Den, unsigned Depth, bool Exact = false) {
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
    // floor((n + K) / B) <= ceil(n / B) needs K <= B - 1; a call to a
    // ceil-div helper is ceil(n / B) whatever its spelling.
    if (!Exact) {
      if (B && DenTerms == 0 && K > *B - 1)
        return F;
      if (!B && !(DenTerms == 0 && K <= 0) && !(DenTerms == 1 && K <= -1))
        return F;
    }
    return divided(axis(Main, Depth + 1), B, DenText);
  }

  std::string textOf(const Expr *E) {
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
  void grid(const Expr *E, SiteFact (&Axes)[3], unsigned Depth = 0) {
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

  static SiteFact axis1() {
    SiteFact F;
    F.Known = F.HasRange = true;
    return F;
  }

  /// The function a call or reference names: the callee, or the one
  /// template a dependent call (`launch<T>(...)` in a template) can reach.
  static const FunctionDecl *calleeKey(const Expr *E) {
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

  void indexStmt(const Stmt *S, const FunctionDecl *Caller,
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
  static bool writtenIn(const ValueDecl *D, const Stmt *S, unsigned Depth = 0) {
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
  std::optional<int64_t> callerMax(const FunctionDecl *F, unsigned P, unsigned Depth = 0) {
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
  bool holdsEveryCaller(const FunctionDecl *F) {
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
  std::optional<int64_t> callerMaxOf(const ParmVarDecl *PV) {
    if (!PV || !Current || factsKey(dyn_cast_or_null<FunctionDecl>(PV->getDeclContext())) != Current)
      return std::nullopt;
    if (Assigned.count(PV))
      return std::nullopt; // the parameter is written before the launch
    return callerMax(Current, PV->getFunctionScopeIndex());
  }
  std::optional<int64_t> callerMaxOf(const Expr *E) {
    const auto *DR = dyn_cast_or_null<DeclRefExpr>(E ? strip(E) : nullptr);
    return callerMaxOf(DR ? dyn_cast<ParmVarDecl>(DR->getDecl()) : nullptr);
  }

  /// The largest value X takes where the launch's branch conditions (true =
  /// negated) hold: the smallest `X <= M` they say (upperBounds).
  std::optional<int64_t> branchMax(const Expr *X, const std::vector<std::pair<const Expr *, bool>> &Cs) {
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

  SiteFact argFact(const Expr *E, unsigned Depth = 0,
                   const std::vector<std::pair<const Expr *, bool>> *Conds = nullptr) {
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

  void record(const Launch &L) {
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

  // ---- checks ---------------------------------------------------------------
  /// The kernel's name for a factor the launcher checks: the parameter the
  /// same value (same variable, same text, or a local initialised by it) is
  /// passed as, `numel(p)` for x.numel() when x.data_ptr() is passed as p,
  /// or, when the launch's arguments are unknown, a parameter of the same name.
  std::string mapFactor(const Expr *F, const Launch &L, const FunctionDecl *Def) {
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
  const Expr *gridAxisExpr(const Expr *Grid, unsigned A) const {
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
  static bool passesData(StringRef AT, StringRef X) {
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

  void recordCheck(const Check &C, const Launch &L) {
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
};

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
