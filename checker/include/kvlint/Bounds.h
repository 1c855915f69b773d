//===- Bounds.h - value bounds under the deployment envelope ----*- C++ -*-===//
//
// An interval for every integer value of a function, from facts first and
// names last:
//
//   1. facts: constants; hardware ranges (threadIdx, lanes, tl.arange);
//      narrow types; / % & >> min max; the hints frontends record (constants
//      every launch site passes, the grid a launcher shows); the guards and
//      masks that hold where an access executes (i < n bounds i by n);
//   2. names: a value, the table it was loaded from, or the quantity its grid
//      spans, named like an envelope dimension (Envelope.h);
//   3. defaults: the envelope's Loaded / Grid / Constexpr / Unknown bounds.
//
// Computed once per function (per guard context) and read by every rule.
// Two levels: the envelope itself, and `Beyond` (every dimension scaled by
// Envelope.LatentScale) for the latent level.
//
//===----------------------------------------------------------------------===//
#ifndef KVLINT_BOUNDS_H
#define KVLINT_BOUNDS_H

#include "kvlint/Envelope.h"
#include "kvlint/IR.h"

#include <deque>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace kvlint {

struct Bound {
  int64_t Lo = 0, Hi = 0; ///< closed; saturated at +-2^62
  bool Exact = true;      ///< no envelope assumption was needed (facts only)
  std::string Why;        ///< for a leaf: where its bound comes from
  const Dimension *Dim = nullptr; ///< the envelope dimension it was bounded by
  /// The value's shape: a product of envelope dimensions (exclusive) times
  /// Scale, when Shaped. Lets couplings (pages x page size is a slot) bound
  /// products the independent maxima overestimate.
  std::vector<const Dimension *> Shape;
  int64_t Scale = 1;
  bool Shaped = false;
  /// An envelope bound that only a name (the value's own, its table's) or a
  /// default gave: no launch fact, guard or type speaks for it.
  bool Named = false;
};

class Bounds {
public:
  Bounds(const Function &F, const Envelope &E, bool Beyond) : F(F), E(E), Beyond(Beyond) {}

  /// The bound of N where the given guards (and Triton mask) hold.
  const Bound &of(const Node *N);

  /// Sets the guard context: the guards and mask of the access being looked
  /// at. Bounds computed under another context are forgotten.
  void at(const Access &A);

  static constexpr int64_t Inf = int64_t(1) << 62;

  /// The most elements the tensor a pointer parameter points to holds, from
  /// its ValueHint::Extent: each size a constant, a name the envelope maps
  /// (two letters or more: a one-letter `K` is a head dim in attention and
  /// the reduction of a matmul), a name divided by a constant; a size whose
  /// name says nothing is Envelope.Dimension when the tensor has two sizes
  /// or more (a one-dimensional buffer may be a flattened product). Hi is
  /// Inf when there is no extent or a size has no bound.
  Bound extentOf(const Node *Ptr);

private:
  Bound compute(const Node *N);
  Bound leafByName(const Node *N, const std::string &Name, const char *Fallback);
  Bound dim(const Dimension &D, const std::string &Name, const char *How);
  Bound named(const Node *N, const std::string &By, const char *Fallback);
  Bound namedImpl(const Node *N, const std::string &By, const char *Fallback);
  static std::vector<std::string> factorsOf(const std::string &By);
  struct Atom {
    const Node *L, *R; ///< L < R (Strict) or L <= R
    bool Strict;
  };
  void refine(const Node *N, Bound &B);
  void refineBy(const std::vector<Atom> &With, const Node *N, Bound &B);
  const Dimension *launchedAs(const Node *N) const;
  const Bound *stagedOnChip(const Node *Addr);
  int64_t checkedBound(const Node *Mul);
  int64_t quotientBound(const Node *Mul);
  int64_t cancelledBound(const Node *Mul);
  int64_t gridTileBound(const Node *Mul, std::string &Why);
  int64_t capOf(std::vector<const Dimension *> Shape, int64_t Scale, std::string &How);
  void collectAtoms(const Node *C, bool Positive, std::vector<Atom> &Out, unsigned Depth = 0);

  const Function &F;
  const Envelope &E;
  bool Beyond;
  std::unordered_map<const Node *, Bound> Memo;
  std::unordered_set<const Node *> Busy; ///< being computed (their Memo is a placeholder)
  std::vector<Atom> Atoms;
  /// Guards chain (i < n, n <= m) this many steps at most.
  static constexpr unsigned MaxRefineDepth = 4;
  unsigned RefineDepth = 0;
  /// Bounds computed at that limit (their guards not applied): recomputed
  /// when asked for again from a shallower point.
  std::unordered_set<const Node *> Shallow;
  unsigned Nesting = 0; ///< a Bounds for a store's context, from stagedOnChip
  /// of() calls on the stack, a nested Bounds's included. The frontends cut
  /// values at MaxNodeDepth (Function::capDepth), so this is only a backstop:
  /// past MaxDepth a value is what nothing bounds.
  unsigned Depth = 0;
  static constexpr unsigned MaxDepth = 4 * MaxNodeDepth;
  std::deque<std::pair<const Node *, Bound>> Staged; ///< on-chip arrays: what they hold
  std::vector<std::pair<const Node *, bool>> Context; ///< guards (negated?) and mask
};

/// The range of an integer type (full width); Inf-saturated.
Bound typeBound(const IntTy &T);

} // namespace kvlint

#endif
