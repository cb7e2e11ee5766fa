#include "coll/select.h"

#include <algorithm>

#include "platform/parse.h"

namespace ferry::coll {
namespace {

constexpr uint64_t kMinChunk = 64 * 1024;
// Two chunks already let the leaders' exchange of one overlap the node's reduction of the
// other. More, smaller chunks cost more than they overlap: each one is two exchanges between
// the leaders (reduce-scatter, allgather), and on a core shared by two ranks of a node an
// exchange of a 64 KiB half took 18 us, of which the copy is 3 us (traced; with 4 ranks on 2
// virtual nodes, two chunks instead of four took 256 KiB-1 MiB from 0.97-1.26x of the
// library to 1.07-1.41x; docs/collectives.md, "Chunks across nodes").
constexpr uint64_t kChunksForOverlap = 2;

std::string shapeText(const CommShape& c) {
  std::string per = c.minLocal == c.maxLocal ? std::to_string(c.maxLocal)
                                             : std::to_string(c.minLocal) + " to " + std::to_string(c.maxLocal);
  return std::to_string(c.size) + " ranks on " + std::to_string(c.numNodes) + " node(s), " + per + " per node";
}

}  // namespace

const char* ruleName(Rule r) {
  switch (r) {
    case Rule::Off: return "off";
    case Rule::Unsupported: return "unsupported";
    case Rule::BelowCrossover: return "below-crossover";
    case Rule::OneRankPerNode: return "one-rank-per-node";
    case Rule::Disabled: return "disabled";
    case Rule::Forced: return "forced";
    case Rule::Chosen: return "chosen";
  }
  return "?";
}

Decision preselect(const Settings& s, const CallShape& call) {
  if (s.mode == Mode::Off) return {false, Rule::Off};
  if (!call.unsupported.empty()) return {false, Rule::Unsupported};
  if (belowCrossover(s, call.bytes)) return {false, Rule::BelowCrossover};
  return {true, s.mode == Mode::On ? Rule::Forced : Rule::Chosen};
}

Decision select(const Settings& s, const CallShape& call, const CommShape& comm) {
  Decision pre = preselect(s, call);
  if (!pre.ferry || s.mode == Mode::On) return pre;
  // One rank per node: no node-local stage to save; the leaders' stage would be the MPI
  // library's own allreduce, cut into chunks.
  if (comm.maxLocal == 1) return {false, Rule::OneRankPerNode};
  return {true, Rule::Chosen};
}

std::string explain(const Decision& d, const Settings& s, const CallShape& call, const CommShape* comm) {
  std::string size = parse::formatSize(call.bytes);
  std::string where = comm ? "; " + shapeText(*comm) : std::string();
  switch (d.rule) {
    case Rule::Off: return "FERRY_COLL=off";
    case Rule::Unsupported: return call.unsupported;
    case Rule::BelowCrossover:
      return size + " is below FERRY_COLL_MIN_SIZE=" + parse::formatSize(s.minSize) +
             ", where the MPI library's allreduce is as fast or faster";
    case Rule::OneRankPerNode:
      return size + where + ": with one rank per node there is no node-local stage to save, and the leaders' "
                            "stage would be the MPI library's own allreduce";
    case Rule::Disabled: return "Ferry is off for this communicator (see the warning above)";
    case Rule::Forced: return size + ": FERRY_COLL=on" + where;
    case Rule::Chosen:
      return size + " >= FERRY_COLL_MIN_SIZE=" + parse::formatSize(s.minSize) + where +
             (comm && comm->numNodes > 1 ? "; node stage through shared memory overlapped with the leaders' stage"
                                         : "; reduce-scatter and allgather through shared memory");
  }
  return "?";
}

uint64_t stagedBelow(const Settings& s, int localSize) {
  return std::min<uint64_t>(s.chunkSize, s.stagedPerRank * static_cast<uint64_t>(std::max(localSize, 1)));
}

uint64_t chunkBytes(const Settings& s, uint64_t bytes, const CommShape& comm, bool direct) {
  if (direct) return std::min<uint64_t>(s.directChunkSize, std::max<uint64_t>(bytes, 1));
  if (comm.numNodes == 1) return std::min<uint64_t>(s.chunkSize, std::max<uint64_t>(bytes, 1));
  // Across nodes the stages overlap only if there are several chunks.
  uint64_t overlap = std::max(kMinChunk, bytes / kChunksForOverlap);
  return std::min<uint64_t>(s.chunkSize, std::min(overlap, std::max<uint64_t>(bytes, 1)));
}

LeadersChoice chooseLeaders(const Settings& s, int minLocal, int maxLocal, bool oversubscribed) {
  if (s.leaders == Leaders::One) return {false, {}};
  std::string setting = std::string("FERRY_COLL_LEADERS=") + leadersName(s.leaders);
  if (minLocal != maxLocal)
    return {false, "one leader per node (" + setting + ", but the nodes have " + std::to_string(minLocal) + " to " +
                       std::to_string(maxLocal) + " ranks, so their shares do not line up)"};
  if (s.leaders == Leaders::All) return {true, "every rank on its share (" + setting + ")"};
  if (maxLocal == 1) return {false, "one rank per node, which leads it (" + setting + ")"};
  if (oversubscribed)
    return {false, "one leader per node (" + setting +
                       ": a machine has more ranks than hardware threads, and ranks that share a core gain "
                       "nothing from sharing the stage; FERRY_COLL_LEADERS=all overrides)"};
  return {true, "every rank on its share (" + setting + ": every node has " + std::to_string(maxLocal) +
                    " ranks, each with a hardware thread of its own)"};
}

}  // namespace ferry::coll
