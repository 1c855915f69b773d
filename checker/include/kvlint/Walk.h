//===- Walk.h - one walk over an expression's operands -----------*- C++ -*-===//
//
// Rules ask many questions of the same shape about an expression DAG: "does
// a load of a length table feed this position?", "does a launch index?",
// "does a name like a row width occur, not counting what memory reads
// compute?". Each is one visit function over the nodes the expression is
// built from; walkOperands owns the traversal: every node once (the DAG
// shares subexpressions), depth first, at most Limit nodes (a bound on the
// cost, never on correctness: callers treat a cut walk as "not shown").
//
//===----------------------------------------------------------------------===//
#ifndef KVLINT_WALK_H
#define KVLINT_WALK_H

#include "kvlint/IR.h"

#include <unordered_set>
#include <vector>

namespace kvlint {

/// What a visit asks of the walk: go Into the node's operands, step Over
/// them (a memory read whose address is another question), or Stop.
enum class Walk : uint8_t { Into, Over, Stop };

/// Visits each node reachable from Roots through operands once; null roots
/// and operands are skipped. Returns true when a visit returned Stop.
template <class Visit>
bool walkOperands(std::vector<const Node *> Roots, size_t Limit, Visit &&V) {
  std::vector<const Node *> &Stack = Roots;
  std::unordered_set<const Node *> Seen;
  while (!Stack.empty() && Seen.size() < Limit) {
    const Node *N = Stack.back();
    Stack.pop_back();
    if (!N || !Seen.insert(N).second)
      continue;
    Walk W = V(N);
    if (W == Walk::Stop)
      return true;
    if (W == Walk::Into)
      for (const Node *O : N->Ops)
        Stack.push_back(O);
  }
  return false;
}

} // namespace kvlint

#endif
