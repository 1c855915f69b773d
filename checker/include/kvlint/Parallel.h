//===- Parallel.h - one index at a time, on a few threads ------*- C++ -*-===//
#ifndef KVLINT_PARALLEL_H
#define KVLINT_PARALLEL_H

#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace kvlint {

/// Calls Body(I) once for every I below N, on Jobs threads (this one among
/// them); each thread takes the next index not yet taken. Returns when all
/// are done. Body must not throw.
template <typename F> void forEachIndex(size_t N, unsigned Jobs, F &&Body) {
  std::atomic<size_t> Next{0};
  auto Work = [&] {
    for (size_t I; (I = Next++) < N;)
      Body(I);
  };
  std::vector<std::thread> Pool;
  for (unsigned J = 1; J < Jobs; ++J)
    Pool.emplace_back(Work);
  Work();
  for (std::thread &T : Pool)
    T.join();
}

} // namespace kvlint

#endif
