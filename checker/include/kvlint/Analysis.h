//===- Analysis.h - magnitudes, intervals and guards on the IR --*- C++ -*-===//
//
// The magnitude lattice of DESIGN.md section 3:
//
//   Small      a known bound: constants, threadIdx, tl.arange, x % C, x & M,
//              clamps, narrow loads (int8/int16 elements)
//   Launch     bounded by the launch grid: blockIdx, tl.program_id
//   Unbounded  anything the kernel does not bound: loaded indices, narrowed
//              values, parameters
//
// plus an interval where one is known, and the origin of an unbounded value
// (why it is unbounded), which rules use to tell an index from a stride.
//
//===----------------------------------------------------------------------===//
#ifndef KVLINT_ANALYSIS_H
#define KVLINT_ANALYSIS_H

#include "kvlint/IR.h"

#include <optional>
#include <unordered_map>

namespace kvlint {

enum class Mag : uint8_t { Small, Launch, Unbounded };

enum class Origin : uint8_t {
  None,      ///< constant or bounded
  Loaded,    ///< read from memory (an index table entry)
  Narrowed,  ///< a wider value cut to 32 bits
  Param,     ///< a function parameter or a member of one
  Launch,    ///< blockIdx / program_id
  Symbolic,  ///< a compile-time constant of unknown value
  Opaque,    ///< a call or expression the frontend could not see into
};

struct Interval {
  // Closed interval; wide enough for products of two 64-bit bounds to be
  // detected as overflowing through __int128 arithmetic in the .cpp.
  int64_t Lo = 0, Hi = 0;
};

struct Fact {
  Mag M = Mag::Unbounded;
  Origin O = Origin::Opaque;
  std::optional<Interval> I; ///< a proven range, when known
  std::string Name;          ///< the leaf that gave the origin (for messages)
};

const char *originName(Origin O);

/// Memoised magnitude facts for the nodes of one function.
class Magnitudes {
public:
  const Fact &of(const Node *N);

private:
  Fact compute(const Node *N);
  std::unordered_map<const Node *, Fact> Memo;
  /// of() calls on the stack. The frontends cut values deeper than
  /// MaxNodeDepth (Function::capDepth); past MaxDepth (a backstop) a value
  /// is opaque, as an Unknown node is.
  unsigned Depth = 0;
  static constexpr unsigned MaxDepth = 4 * MaxNodeDepth;
};

/// True when N is `x / C * C` (or `C * (x / C)`): a value rounded down to a
/// multiple, never larger than x.
bool isRoundDown(const Node *Mul);

/// The leftmost leaf of a chain of multiplications (the factor a widening
/// cast must be applied to so that a left-to-right chain becomes 64-bit).
const Node *leftmostFactor(const Node *N);

/// True when the two nodes denote the same value: the same node, the same
/// variable, the same parameter/member name, or the same constant.
bool sameValue(const Node *A, const Node *B);

/// The pointer an address starts from, through offsets, variables, pointer
/// casts and inlined calls: `cache` for `(cache + page * k)[off]`.
const Node *addressBase(const Node *Addr);

/// One step of that walk: the pointer below N, or null where N is the base.
const Node *addressStep(const Node *N);

/// A node's name for messages and name patterns: its Name, else its text.
std::string nameOf(const Node *N);

/// The comparisons a condition asserts, each with whether it holds as
/// written: `!(a or b)` gives (a, false) and (b, false). Conjunctions only; a
/// disjunction that holds says nothing of its parts.
void guardAtoms(const Node *C, bool Holds, std::vector<std::pair<const Node *, bool>> &Out,
                unsigned Depth = 0);

/// True when Needle occurs in Hay's expression tree (through Vars).
bool mentions(const Node *Hay, const Node *Needle);

} // namespace kvlint

#endif
