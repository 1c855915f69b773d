//===- LauncherImpl.h - the launcher analysis, shared by its parts -*- C++ -*-===//
//
// Private to checker/triton: the Launcher class (Launcher.cpp says what it
// reads) and the structs its parts share. Its definitions are split along
// the analysis's seams:
//
//   LauncherScopes.cpp  a function body's bindings, asserts and branches;
//   LauncherEval.cpp    evaluation of host code: constants, names, dtypes,
//                       the sizes and strides of tensors the launcher shows;
//   LauncherGrids.cpp   what a launch's grid says about tl.program_id;
//   LauncherChecks.cpp  overflow checks that pick the kernel's index width;
//   Launcher.cpp        the sites, the facts per parameter, and the entry
//                       points (collectLaunchFacts, foreign launches).
//
//===----------------------------------------------------------------------===//
#ifndef KVLINT_TRITON_LAUNCHERIMPL_H
#define KVLINT_TRITON_LAUNCHERIMPL_H

#include "Lowering.h"
#include "project/Project.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <deque>
#include <functional>

namespace kvlint {
namespace triton {
namespace launch {

constexpr unsigned MaxEvalDepth = 12;     // nested names/expressions evaluated
constexpr unsigned MaxScopeDepth = 8;     // nested function definitions
constexpr unsigned MaxEvalWork = 4000;    // evaluation steps per launch site
constexpr size_t MaxScopeNodes = 200000;  // syntax nodes indexed per scope

struct Rng {
  int64_t Lo = 0, Hi = 0;
};

/// The upper end of a range known only from below (next_power_of_2 of an
/// unknown). Intermediate results may carry it; facts never do.
constexpr int64_t Unbounded = int64_t(1) << 62;

inline bool fits(__int128 V) { return V >= INT64_MIN && V <= INT64_MAX; }

inline std::string stringValue(const Module &M, TSNode S) {
  if (!is(S, "string")) return "";
  std::string T = M.text(S);
  size_t B = T.find_first_of("'\""), E = T.find_last_of("'\"");
  if (B == std::string::npos || E <= B) return "";
  return T.substr(B + 1, E - B - 1);
}

/// A function body's bindings: what each local name is assigned, with a
/// null node for bindings that are not a plain `name = expr` (loops,
/// augmented assignments, unpacking of anything but a tuple or a shape).
struct Scope {
  const Scope *Parent = nullptr;
  TSNode Def{}; ///< the function definition it is the body of
  std::set<std::string> Params;
  std::map<std::string, std::vector<TSNode>> Binds;
  std::map<std::string, std::vector<TSNode>> Defs; // nested def name -> defs
  /// ("k", 1) -> "T" for `B, T, H, K = k.shape` or `T = k.shape[1]`; also
  /// ("k", -3) for the same dimension counted from the end.
  std::map<std::pair<std::string, int64_t>, std::string> ShapeNames;
  /// `assert NK == 1`, `assert D <= 512`, `assert Lk in {16, 32, 64}`: the
  /// range a launcher asserts for a local or a parameter.
  std::map<std::string, std::pair<Rng, uint32_t>> Asserted; ///< range, where
  std::set<std::string> Contiguous; ///< `assert x.is_contiguous()`
  /// `assert x.stride(-1) == 1`: (tensor, dimension as written) -> where
  std::map<std::pair<std::string, int64_t>, uint32_t> UnitStride;
  /// `if T <= 4096: k[grid](...)`: what a branch's condition says of a name,
  /// for the launches in [Begin, End) (the branch; after an `if` whose body
  /// returns or raises, the rest of the block, under the negation).
  struct BranchFact {
    std::string Name;
    Rng R;
    uint32_t Begin = 0, End = 0;
    /// Where the condition was evaluated, when before the branch: a flag
    /// bound above (`short = T <= 4096` ... `if short:`). The name must not
    /// be bound again from there on.
    uint32_t From = UINT32_MAX;
  };
  std::vector<BranchFact> Branch;
  std::map<std::string, std::vector<uint32_t>> BindAt; ///< where each name is bound
  /// `assert n_rows * x.stride(0) < 2**31`: the factors' expressions, the
  /// largest value of their product, where the assert is.
  struct ProductAssert {
    std::vector<TSNode> Factors;
    int64_t Max = 0;
    uint32_t At = 0;
  };
  std::vector<ProductAssert> Products;
  std::vector<TSNode> Launches; // kernel[grid](...) calls in this body
  std::vector<TSNode> Nested;   // nested function definitions
};

/// One `kernel[grid](...)` call.
struct Site {
  TSNode Call{};
  TSNode Grid{};
  const Scope *S = nullptr;
  std::vector<TSNode> Pos;
  std::map<std::string, TSNode> Kw;
  /// Per Pos entry: -1, or which element of a splatted `*x.stride()` or
  /// `*x.shape` (the Pos entry) the position receives.
  std::vector<int> Splat;
  bool StarPos = false, StarKw = false;
  unsigned Line = 0;
};

/// A kernel parameter as the launcher sees it.
struct KParam {
  std::string Name;
  TSNode Default{};
};

/// What one site passes for one parameter.
struct ArgFact {
  enum { None, Const, Name } K = None;
  Rng R;
  std::string Nm;
  bool Shape = false; ///< Nm is a product of a tensor's sizes (strideOf)
  IntTy Elem;
  /// A contiguous tensor the launcher shows the sizes of: their product
  /// ("M*N/128"), the most elements an in-bounds offset into it reaches.
  std::string Extent;
  /// Where the project's callers show the fact (ProjectModel::callerTensor
  /// Where: "pkg/layer.py:410 allocates it (2-D, contiguous)").
  std::string From;
  /// The value is an overflow check of these tensors (`should_upcast_indices(x,
  /// w, y)`, overflowCheck): false only when every offset into each fits 32
  /// bits.
  std::vector<std::string> Checks;
  bool FitsWhenTrue = false; ///< the check is true where every offset fits
  bool CheckIsCall = false;  ///< a helper's call, not a comparison
  std::string CheckText;     ///< the call or comparison, for messages
};

class Launcher {
public:
  explicit Launcher(Module &M) : M(M), Into(&M.Launches) {}
  /// Foreign mode: the launches in M of kernels of another module, called
  /// by the texts Targets names; their facts go to Out, by the kernels' keys.
  Launcher(Module &M, const std::map<std::string, ForeignKernel> &Targets,
           std::map<uint32_t, LaunchFacts> &Out)
      : M(M), Foreign(&Targets), Into(&Out) {}
  void run();

private:
  Module &M;
  const std::map<std::string, ForeignKernel> *Foreign = nullptr;
  std::map<uint32_t, LaunchFacts> *Into;
  std::deque<Scope> Scopes;
  unsigned Work = 0;

  // --- scopes ---------------------------------------------------------------
  void indexScope(TSNode Def, const Scope *Parent, unsigned Depth);
  void bindTarget(Scope &S, TSNode T, TSNode Value);
  void bindNull(Scope &S, TSNode T);
  void assertFacts(Scope &S, TSNode C, unsigned D);
  void condFacts(const Scope &S, TSNode C, bool Neg, std::vector<std::pair<std::string, Rng>> &Out,
                 unsigned D);
  std::string comparisonOp(TSNode C);
  bool comparisonFact(TSNode C, bool Neg, std::string &Name, Rng &R);
  void branchFacts(Scope &S, TSNode If);
  static const std::vector<TSNode> *lookup(const Scope *S, const std::string &N, bool &IsParam);
  std::vector<CheckedProduct> siteChecks(const Site &St, const std::vector<KParam> &Ps,
                                         const std::string &File);
  TSNode reboundParam(const Scope *S, const std::string &N, std::vector<TSNode> &Above);

  // --- evaluation -----------------------------------------------------------
  bool budget() { return ++Work <= MaxEvalWork; }
  /// Where condFacts last followed a flag to the condition it was bound to.
  uint32_t CondFrom = UINT32_MAX;
  /// Where the launch being evaluated is: asserts count above it only.
  uint32_t SiteAt = UINT32_MAX;
  bool constRange(TSNode E, const Scope *S, Rng &R, unsigned D);
  /// Whether N is bound in [From, SiteAt) in S or a scope up to Upto.
  bool reboundBetween(const Scope *S, const Scope *Upto, const std::string &N, uint32_t From) const {
    for (const Scope *Y = S; Y; Y = Y->Parent) {
      auto B = Y->BindAt.find(N);
      if (B != Y->BindAt.end())
        for (uint32_t At : B->second)
          if (At >= From && At < SiteAt) return true;
      if (Y == Upto) break;
    }
    return false;
  }
  bool constRangeImpl(TSNode E, const Scope *S, Rng &R, unsigned D);
  std::string valueName(TSNode E, const Scope *S, unsigned D);
  std::string productNames(TSNode E, const Scope *S);
  std::string strideOf(TSNode A, const Scope *S, std::string *From = nullptr);
  const project::ProjectModel::CallerTensor *callerTensor(const std::string &X, const Scope *S);
  std::vector<std::string> knownSizes(const std::string &X, const Scope *S, std::string *From);
  std::map<std::pair<std::string, std::string>, project::ProjectModel::CallerTensor> Callers;
  bool strideCall(TSNode A, std::string &Obj, int64_t &Dim, TSNode *ObjN = nullptr);
  std::vector<std::string> contiguousSizes(const std::string &X, const Scope *S, unsigned D);
  bool shapeIndex(TSNode E, std::string &Obj, int64_t &Idx);
  IntTy torchDtype(TSNode E);
  IntTy dtypeOf(TSNode E, const Scope *S, unsigned D);

  // --- grids ----------------------------------------------------------------
  bool gridAxes(TSNode G, const Site &St, const Scope *S, std::vector<ValueHint> &Axes,
                unsigned D);
  bool tupleAxes(TSNode T, const Site &St, const Scope *S, const std::string &Meta,
                 std::vector<ValueHint> &Axes);
  ValueHint axisFact(TSNode E, const Site &St, const Scope *S, const std::string &Meta,
                     unsigned Depth = 0);
  int64_t divisor(TSNode B, const Site &St, const Scope *S, const std::string &Meta);
  std::string divisorParam(TSNode B, const Site &St, const std::string &Meta);
  /// The launched kernel's parameters, while its sites' grids are read.
  const std::vector<KParam> *SiteParams = nullptr;

  // --- sites ----------------------------------------------------------------
  bool mentionsLaunch(TSNode Def, bool OrWalrus = false) const;
  std::string launchedName(TSNode SubscriptValue) const;
  std::vector<KParam> kernelParams(TSNode Def);

public:
  std::vector<KParam> params(TSNode Def) { return kernelParams(Def); }

private:
  Site site(TSNode Call, const Scope *S);
  std::vector<Site> sites(TSNode Call, const Scope *S);
  bool splatDicts(TSNode E, const Scope *S, std::vector<std::map<std::string, TSNode>> &Out);
  bool dictLiteral(TSNode D, std::map<std::string, TSNode> &Out);
  ArgFact argFact(const Site &St, const KParam &P, size_t Index);
  bool overflowCheck(TSNode Call, const Scope *S, std::vector<std::string> &Tensors, unsigned D);
  bool checkedFlag(TSNode A, const Scope *S, ArgFact &F);
  int sizeTest(TSNode E, const Scope *S, std::vector<std::string> &Tensors, unsigned D);
  void measuredTensors(TSNode E, const Scope *S, std::vector<std::string> &Tensors, unsigned D);
  void aliasesInBlock(TSNode V, std::vector<std::string> &Measured);
  bool overflowTest(TSNode E, const Scope *Body, unsigned D);
  bool int32Max(TSNode E, const Scope *S);
  int rankOf(TSNode Obj, const Scope *S);
  int splatWidth(TSNode E, const Scope *S);
  ArgFact splatFact(TSNode Splat, int I, const Scope *S);
};

/// Two sites' facts for one value: ranges join, names must agree.
ValueHint mergeHint(const ValueHint &A, const ValueHint &B);

} // namespace launch
} // namespace triton
} // namespace kvlint

#endif
