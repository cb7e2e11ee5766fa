#include "coll/p2p_schedule.h"

namespace ferry::coll {
namespace {

struct Span {
  size_t begin, end;  // elements
};

// The pairwise steps among the pof2 leaders, `me` being this leader's index among them and
// `real` mapping an index back to a rank.
template <typename Real>
void pairwiseSteps(int me, int pof2, size_t count, size_t elem, P2pAlgorithm algorithm, Real real,
                   std::vector<P2pStep>& steps) {
  if (algorithm == P2pAlgorithm::Doubling) {
    for (int mask = 1; mask < pof2; mask <<= 1)
      steps.push_back({real(me ^ mask), 0, count * elem, 0, count * elem, true});
    return;
  }
  // Reduce-scatter: at each step both partners hold the same span (their indices agree in
  // the bits handled so far); the lower index keeps the lower half.
  std::vector<Span> kept, given;
  Span span{0, count};
  for (int mask = 1; mask < pof2; mask <<= 1) {
    size_t mid = span.begin + (span.end - span.begin) / 2;
    bool low = (me & mask) == 0;
    Span keep = low ? Span{span.begin, mid} : Span{mid, span.end};
    Span give = low ? Span{mid, span.end} : Span{span.begin, mid};
    steps.push_back({real(me ^ mask), give.begin * elem, (give.end - give.begin) * elem, keep.begin * elem,
                     (keep.end - keep.begin) * elem, true});
    kept.push_back(keep);
    given.push_back(give);
    span = keep;
  }
  // Allgather, the same partners in reverse: send what I hold of the span, take the rest.
  int level = static_cast<int>(kept.size());
  for (int mask = pof2 >> 1; mask >= 1; mask >>= 1) {
    const Span& k = kept[static_cast<size_t>(--level)];
    const Span& g = given[static_cast<size_t>(level)];
    steps.push_back({real(me ^ mask), k.begin * elem, (k.end - k.begin) * elem, g.begin * elem,
                     (g.end - g.begin) * elem, false});
  }
}

}  // namespace

std::vector<P2pStep> planP2pSteps(int rank, int size, size_t count, size_t elemSize, P2pAlgorithm algorithm) {
  int pof2 = 1;
  while (pof2 * 2 <= size) pof2 *= 2;
  int rem = size - pof2;
  size_t bytes = count * elemSize;
  if (count < static_cast<size_t>(pof2)) algorithm = P2pAlgorithm::Doubling;
  std::vector<P2pStep> steps;
  if (rank < 2 * rem && rank % 2 == 0)  // hand my contribution to my odd partner, take the result
    return {{rank + 1, 0, bytes, 0, 0, false}, {rank + 1, 0, 0, 0, bytes, false}};
  int me = rank - rem;
  if (rank < 2 * rem) {
    steps.push_back({rank - 1, 0, 0, 0, bytes, true});  // my even partner's contribution
    me = rank / 2;
  }
  auto real = [rem](int index) { return index < rem ? index * 2 + 1 : index + rem; };
  pairwiseSteps(me, pof2, count, elemSize, algorithm, real, steps);
  if (rank < 2 * rem) steps.push_back({rank - 1, 0, bytes, 0, 0, false});  // the result back
  return steps;
}

}  // namespace ferry::coll
