//===- LaunchScanner.h - The launch-facts scanner's parts -------*- C++ -*-===//
//
// Private to the launch-facts pre-pass (LaunchFacts.h says what it reads):
// the LaunchScanner class and the helpers its parts share. Its definitions
// are split along the scanner's seams:
//
//   LaunchLex.cpp    launches clang dropped, read from tokens;
//   LaunchWalk.cpp   the walk of a host function's body (its launches, the
//                    locals it writes, the checks it makes) and the mapping
//                    of a check onto the launched kernel's parameters;
//   LaunchGrids.cpp  what a launch says: its kernel, the grid per axis, the
//                    arguments, bounds from every caller of the launcher;
//   LaunchFacts.cpp  the shared helpers, the scan of one function, the merge
//                    of the sites, and the entry point (scanLaunches).
//
//===----------------------------------------------------------------------===//
#ifndef KVLINT_CLANG_LAUNCHSCANNER_H
#define KVLINT_CLANG_LAUNCHSCANNER_H

#include "LaunchFacts.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Basic/TokenKinds.h"
#include "llvm/Support/Regex.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kvlint {
namespace launchfacts {

// The scanner reads clang's AST throughout; the directive is for the parts'
// own namespace only.
using namespace clang;

// ---- shared helpers (LaunchFacts.cpp) ------------------------------------
const Expr *strip(const Expr *E);
std::string squeeze(const std::string &T);
SiteFact divided(const SiteFact &N, std::optional<int64_t> B, const std::string &DenText);
bool roundsUpWithin(std::optional<int64_t> B, int DenTerms, int64_t K, bool Exact);
std::optional<int64_t> foldInt(const Expr *E, ASTContext &Ctx);
std::string calleeOf(const Expr *C);
bool callParts(const Expr *E, std::string &Name, std::vector<const Expr *> &Args);

class LaunchScanner {
public:
  LaunchScanner(ASTContext &Ctx, FactsMap &Out, const llvm::Regex &Helpers)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Out(Out), Helpers(Helpers) {}

  void scanFunction(const FunctionDecl *FD);

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

  // ---- launches clang dropped (LaunchLex.cpp) -----------------------------
  struct Tok {
    tok::TokenKind K;
    std::string S;
    unsigned Offset;
  };

  void lexLaunches(const FunctionDecl *FD);

public:
  void scanFileTokens(FileID FID);

private:
  /// A function-like macro whose body launches a kernel.
  struct LaunchMacro {
    bool Read = false; ///< an invocation was read (here or by the AST)
    std::vector<std::string> Params;
    std::vector<Tok> Body;
  };

  std::map<std::string, LaunchMacro> launchMacros(FileID FID);

  std::set<std::pair<FileID, unsigned>> SeenLaunches; // launches already read
  const std::vector<Tok> *LexToks = nullptr;          // for lexDecl
  size_t LexBegin = 0, LexAt = 0;

  bool lexRange(FileID FID, unsigned BO, unsigned EO, std::vector<Tok> &Ts);

  /// A local declared by tokens before the launch, in the same body, and
  /// not written again before it: `dim3 grid(a, b)`, `int n = ...;`.
  struct LexLocal {
    bool Dim3 = false;
    bool Ctor = false; ///< NAME(args) / NAME{args}: Parts; NAME = init: Init
    std::vector<std::vector<Tok>> Parts;
    std::vector<Tok> Init;
  };

  std::optional<LexLocal> lexDecl(const std::string &N);
  static size_t split(const std::vector<Tok> &Ts, size_t From, tok::TokenKind Close,
                      std::vector<std::vector<Tok>> &Groups);
  void lexLaunch(const std::vector<Tok> &Ts, size_t Begin, size_t At, FileID FID);
  void parseLaunch(const std::vector<Tok> &Ts, size_t At, FileID FID,
                   std::optional<unsigned> Invocation);
  static std::string join(const std::vector<Tok> &Ts);
  const FunctionDecl *kernelNamed(const std::string &Name, size_t NArgs);
  static std::optional<int64_t> literal(const std::vector<Tok> &Ts);
  static std::string lexName(const std::vector<Tok> &Ts);
  static std::vector<Tok> unwrap(std::vector<Tok> Ts);

  /// A local (or parameter) of the function being scanned, by name.
  const VarDecl *local(const std::string &Name) {
    auto It = Locals.find(Name);
    return It == Locals.end() ? nullptr : It->second;
  }

  std::optional<int64_t> lexConst(const std::vector<Tok> &A, unsigned Depth = 0);
  SiteFact lexAxis(std::vector<Tok> Ts, unsigned Depth = 0);
  SiteFact lexCeilDiv(const std::vector<Tok> &NumT, const std::vector<Tok> &DenT, bool Exact,
                      unsigned Depth);
  void lexGrid(const std::vector<Tok> &G, SiteFact (&Axes)[3], unsigned Depth = 0);
  bool scalarParam(const std::string &N);
  SiteFact lexArg(const std::vector<Tok> &A);

  // ---- walking (LaunchWalk.cpp) ---------------------------------------------
  void walk(const Stmt *S, unsigned Depth);
  void dim3Member(const Expr *L, const Expr *R);
  void configGrid(const Expr *L, const Expr *R);
  bool argsArray(const Expr *E, std::vector<const Expr *> &Out);
  static const ValueDecl *writtenDecl(const Stmt *S);
  static bool isCheckName(StringRef N);
  std::string macroName(SourceLocation L);
  bool checkMacro(SourceLocation L) { return !macroName(L).empty(); }
  void call(const std::string &Name, const std::vector<const Expr *> &Args, const Expr *E);
  void ifCheck(const IfStmt *IS);
  static bool returns(const Stmt *S);
  bool fails(const Stmt *S);

  // (A template, defined here: the walk's checks and the launches' branch
  // conditions both read it.)
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

  void addBounds(const Expr *C, bool Holds, const std::string &What, SourceLocation Loc);
  void addProduct(const Expr *P, int64_t Max, const std::string &What, SourceLocation Loc);
  void addCheck(const std::vector<const Expr *> &Factors, int64_t Max, const std::string &What,
                SourceLocation Loc);

  // ---- launches (LaunchGrids.cpp) -------------------------------------------
  const FunctionDecl *kernelOf(const Expr *E, unsigned Depth = 0);
  static std::vector<const Expr *> returnValues(const Stmt *Body);
  std::vector<const FunctionDecl *> pickedKernels(const Expr *Callee);
  void addLaunch(const Expr *Callee, const Expr *Grid, std::vector<const Expr *> Args,
                 SourceLocation Loc, bool HasArgs = true);
  void addLaunchOf(const FunctionDecl *Kernel, const Expr *Grid, std::vector<const Expr *> Args,
                   SourceLocation Loc, bool HasArgs);
  std::string where(SourceLocation L);
  const Expr *initOf(const Expr *E);
  static std::string nameOf(const Expr *E);
  static bool ceilDivName(StringRef N);
  bool constantReturns(const FunctionDecl *FD, int64_t &Lo, int64_t &Hi, unsigned Depth = 0);
  SiteFact axis(const Expr *E, unsigned Depth = 0);
  SiteFact ceilDiv(const Expr *Num, const Expr *Den, unsigned Depth, bool Exact = false);
  std::string textOf(const Expr *E);
  void grid(const Expr *E, SiteFact (&Axes)[3], unsigned Depth = 0);
  static SiteFact axis1();
  static const FunctionDecl *calleeKey(const Expr *E);
  void indexStmt(const Stmt *S, const FunctionDecl *Caller,
                 std::vector<std::pair<const Expr *, bool>> &Br, unsigned Depth);
  static bool writtenIn(const ValueDecl *D, const Stmt *S, unsigned Depth = 0);
  std::optional<int64_t> callerMax(const FunctionDecl *F, unsigned P, unsigned Depth = 0);
  bool holdsEveryCaller(const FunctionDecl *F);
  std::optional<int64_t> callerMaxOf(const ParmVarDecl *PV);
  std::optional<int64_t> callerMaxOf(const Expr *E);
  std::optional<int64_t> branchMax(const Expr *X,
                                   const std::vector<std::pair<const Expr *, bool>> &Cs);
  SiteFact argFact(const Expr *E, unsigned Depth = 0,
                   const std::vector<std::pair<const Expr *, bool>> *Conds = nullptr);
  void record(const Launch &L);

  // ---- checks (LaunchWalk.cpp) ----------------------------------------------
  std::string mapFactor(const Expr *F, const Launch &L, const FunctionDecl *Def);
  const Expr *gridAxisExpr(const Expr *Grid, unsigned A) const;
  static bool passesData(StringRef AT, StringRef X);
  void recordCheck(const Check &C, const Launch &L);
};

} // namespace launchfacts
} // namespace kvlint

#endif // KVLINT_CLANG_LAUNCHSCANNER_H
