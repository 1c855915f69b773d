// bench_common.h - what kernels/bench's programs share (host side only).
#ifndef KVREF_BENCH_COMMON_H
#define KVREF_BENCH_COMMON_H

#include <stdint.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

/// A slot mapping for `tokens` tokens written page after page, in pages
/// drawn in a random order from `pages` pages of `page` slots: how an
/// engine's allocator hands out a sequence's blocks.  With `window` > 0 the
/// free list is shuffled only inside consecutive windows of that many pages
/// (kvref_bench --plateau's diagnostic); 0 shuffles it whole.
inline std::vector<int64_t> paged_slots(std::mt19937_64& rng, int64_t tokens, int64_t page,
                                        int64_t pages, int64_t window = 0) {
  std::vector<int64_t> order(static_cast<size_t>(pages));
  std::iota(order.begin(), order.end(), 0);
  const int64_t w = window > 0 ? window : pages;
  for (int64_t first = 0; first < pages; first += w) {
    std::shuffle(order.begin() + first, order.begin() + std::min(pages, first + w), rng);
  }
  std::vector<int64_t> s(static_cast<size_t>(tokens));
  for (int64_t t = 0; t < tokens; ++t) s[t] = order[t / page] * page + t % page;
  return s;
}

#endif
