//===- Worker.h - each file's analysis in a process of its own --*- C++ -*-===//
//
// The scanned tree is hostile (DESIGN.md §8): a file may crash clang
// (`#pragma clang __debug crash`), overflow a stack, expand a macro 2^30
// times or hang. One such file must cost that file only. The pool forks
// worker processes from the (single-threaded) driver; each analyses one file
// at a time on a large stack, under a memory cap, and sends its FileResult
// back through a pipe (Wire.h). A worker that dies, passes the memory cap or
// runs past the time cap is replaced, and its file gets a failure note
// saying why. Nothing is executed: the workers are forks of kvlint itself.
//
//===----------------------------------------------------------------------===//
#ifndef KVLINT_TOOLS_WORKER_H
#define KVLINT_TOOLS_WORKER_H

#include "Analyse.h"

#include <functional>
#include <string>
#include <vector>

namespace kvlint {

struct PoolLimits {
  unsigned Jobs = 1;
  /// Wall-clock seconds one file may take.
  unsigned TimeoutSeconds = 120;
  /// Memory one file's analysis may use, in MiB (resident; also the address
  /// space a worker may add, where no sanitizer reserves its own).
  unsigned MemoryMiB = 4096;
  /// False: analyse on threads of this process (debugging, fuzzing): no
  /// crash, time or memory isolation.
  bool Isolate = true;
};

/// Fills Results[I] = Analyse(I) for every I < Results.size(). Name(I) names
/// file I in failure notes.
void runPool(std::vector<FileResult> &Results,
             const std::function<FileResult(size_t)> &Analyse,
             const std::function<std::string(size_t)> &Name, const PoolLimits &Limits);

/// The exit status a worker uses when an allocation fails (its memory cap).
constexpr int WorkerOutOfMemory = 86;

/// Why a worker process ended without a result, from its wait status.
std::string describeWorkerEnd(int WaitStatus, const PoolLimits &Limits);

} // namespace kvlint

#endif
