// The message schedule of the p2p inter-node backend (inter_p2p.cpp): for one leader and one
// chunk, the exchanges it makes, in order. Kept apart from the MPI calls so that a unit test
// can run every leader's schedule in one process and check the result bit for bit.
//
// Two algorithms, one order of reduction. With pof2 the largest power of two <= L leaders
// and rem = L - pof2, leaders 2i and 2i+1 (i < rem) first combine (the odd one keeps the
// sum), leaving pof2 leaders; those combine pairwise, partners differing in bit 0 of their
// index among the pof2, then bit 1, ..., each pair as (lower leader's partial) OP (higher
// leader's partial); the odd leaders finally hand the result to their even partner.
//   doubling  every pairwise step swaps and reduces the whole chunk: log2(pof2) messages,
//             log2(pof2) whole chunks moved and reduced per leader. Fewest messages.
//   halving   reduce-scatter by recursive halving (each step keeps half of what is left,
//             reduced), then allgather by recursive doubling: 2*log2(pof2) messages, but
//             2*(pof2-1)/pof2 chunks moved and (pof2-1)/pof2 of one reduced per leader.
// Nearest partners first in both, so each element is reduced by the same tree either way,
// and the bits do not depend on which algorithm a chunk took.
#pragma once

#include <cstddef>
#include <vector>

namespace ferry::coll {

struct P2pStep {
  int peer = 0;
  size_t sendOff = 0, sendLen = 0;  // bytes of the chunk sent to `peer`; 0: nothing sent
  size_t recvOff = 0, recvLen = 0;  // bytes of the chunk received from it; 0: nothing received
  bool reduce = false;              // received into scratch, then folded into [recvOff, +recvLen)
};

enum class P2pAlgorithm { Doubling, Halving };

// Leader `rank` of `size`'s steps for a chunk of `count` elements of `elemSize` bytes.
// Halving needs at least one element per leader of the pof2; with fewer it plans doubling.
std::vector<P2pStep> planP2pSteps(int rank, int size, size_t count, size_t elemSize, P2pAlgorithm algorithm);

}  // namespace ferry::coll
