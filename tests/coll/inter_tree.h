// The documented order of the p2p inter-node stage (docs/collectives.md, p2p_schedule.h),
// computed the plain way: the reference both the schedule's unit test and the MPI order test
// compare Ferry's bits with.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

namespace ferry::coll::testing {

// The tree over the node results v[0..L): with pof2 the largest power of two <= L and
// rem = L - pof2, nodes 2i and 2i+1 (i < rem) are combined first; then the pof2 partials are
// combined pairwise, partners differing in bit 0, then bit 1, ..., each pair as
// (lower node's partial) + (higher node's partial).
template <typename T>
std::vector<T> interTree(std::vector<std::vector<T>> v) {
  int nodes = static_cast<int>(v.size()), pof2 = 1;
  while (pof2 * 2 <= nodes) pof2 *= 2;
  int rem = nodes - pof2;
  std::vector<std::vector<T>> w;
  for (int j = 0; j < pof2; ++j) {
    if (j >= rem) {
      w.push_back(v[static_cast<size_t>(j + rem)]);
      continue;
    }
    std::vector<T> sum = v[static_cast<size_t>(2 * j)];
    for (size_t i = 0; i < sum.size(); ++i) sum[i] = sum[i] + v[static_cast<size_t>(2 * j + 1)][i];
    w.push_back(std::move(sum));
  }
  for (int mask = 1; mask < pof2; mask <<= 1) {
    std::vector<std::vector<T>> next = w;
    for (int j = 0; j < pof2; ++j) {
      const auto& lo = w[static_cast<size_t>(std::min(j, j ^ mask))];
      const auto& hi = w[static_cast<size_t>(std::max(j, j ^ mask))];
      for (size_t i = 0; i < lo.size(); ++i) next[static_cast<size_t>(j)][i] = lo[i] + hi[i];
    }
    w = std::move(next);
  }
  return w[0];
}

}  // namespace ferry::coll::testing
