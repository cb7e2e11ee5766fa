// The cost model: Ferry's allreduce or the MPI library's, for one call. It sees only what is
// equal on every rank of the communicator (message size, datatype and op, the
// communicator's shape, the settings), so every rank takes the same decision without
// talking to the others. Each decision carries a sentence that FERRY_LOG=coll prints.
#pragma once

#include <cstdint>
#include <string>

#include "coll/settings.h"

namespace ferry::coll {

struct CallShape {
  uint64_t bytes = 0;
  std::string unsupported;  // why Ferry cannot run this call at all; empty if it can
};

struct CommShape {
  int size = 1;
  int numNodes = 1;
  int minLocal = 1;  // fewest ranks on a node
  int maxLocal = 1;  // most ranks on a node
};

enum class Rule : uint8_t { Off, Unsupported, BelowCrossover, OneRankPerNode, Disabled, Forced, Chosen };
const char* ruleName(Rule r);

struct Decision {
  bool ferry = false;
  Rule rule = Rule::Off;
};

// Before the communicator is set up: is the call a candidate at all? A "ferry" answer means
// only that; select() decides once the communicator's shape is known. Set-up is collective,
// so it must hinge on nothing but rank-invariant inputs, as this does. Both are cheap and
// allocate nothing: they run on every call, small ones included.
Decision preselect(const Settings& s, const CallShape& call);
// The rule that decides most calls, inline for the fast path of allreduce.cpp.
inline bool belowCrossover(const Settings& s, uint64_t bytes) { return s.mode == Mode::Auto && bytes < s.minSize; }
Decision select(const Settings& s, const CallShape& call, const CommShape& comm);

// The sentence that explains a decision (FERRY_LOG=coll); `comm` is null before set-up.
std::string explain(const Decision& d, const Settings& s, const CallShape& call, const CommShape* comm);

// Where single copy works, messages below this size still take the two-copy path: each
// peer read by process_vm_readv costs a system call per block, and with k ranks a rank makes
// 2(k-1) of them per chunk, so the size below which they cost more than a second copy
// grows with the ranks on the node.
uint64_t stagedBelow(const Settings& s, int localSize);

// Pipeline chunk for a message of `bytes`: small enough that several chunks overlap the node
// and inter-node stages, large enough that per-chunk costs stay small.
uint64_t chunkBytes(const Settings& s, uint64_t bytes, const CommShape& comm, bool direct = false);

// Who runs the inter-node stage of a communicator across nodes: every rank on its share of
// each chunk (`all`), or each node's leader on whole chunks. Shares line up only where every
// node has as many ranks. Auto takes all unless some machine has more ranks than hardware
// threads: ranks that share a core take turns, so spreading the stage over them gains
// nothing and costs each chunk more messages (docs/collectives.md, "One leader or all").
// The inputs must be equal on every rank (set-up reduces them over the communicator).
struct LeadersChoice {
  bool all = false;
  std::string reason;  // for FERRY_LOG=coll; empty where FERRY_COLL_LEADERS=one was asked for
};
LeadersChoice chooseLeaders(const Settings& s, int minLocal, int maxLocal, bool oversubscribed);

}  // namespace ferry::coll
