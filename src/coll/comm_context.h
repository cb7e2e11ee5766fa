// What Ferry keeps per communicator: the node split, the node's shared segment, the
// same-node data path chosen for it, and (on leaders) the inter-node stage. It is built
// collectively on the first call that needs it, cached on the communicator as an MPI
// attribute, and released by the attribute's delete callback when the program frees the
// communicator (MPI_Comm_free), so it works the same through the C API and the interposer.
#pragma once

#include <mpi.h>
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "comm/node_split.h"
#include "comm/shm_segment.h"
#include "coll/inter_stage.h"
#include "coll/node_area.h"
#include "coll/select.h"
#include "coll/copy_probe.h"
#include "coll/settings.h"
#include "platform/status.h"

namespace ferry::coll {

// How the ranks of one node reach each other's data.
enum class IntraPath : uint8_t {
  Single,  // one copy: peers' buffers read in place (mapped, or process_vm_readv/writev)
  CopyIn,  // single copy, but inputs outside the shared heap are first copied into the
           // node's segment, where peers read them by pointer (single_copy.cpp)
  Staged,  // two copies: through staging slots in the node's segment
};
const char* intraPathName(IntraPath p);
// Both run on SingleCopy: heap buffers are read in place.
inline bool singleCopy(IntraPath p) { return p != IntraPath::Staged; }

// The layout of what the ranks of a communicator share: the node area, the failure notices,
// the p2p stage's tags and messages. Ranks that loaded different builds of Ferry must not
// meet in a call (a wrong result or a hang): set-up compares it, and where it differs the
// library runs every call on that communicator. Raise it with any change to that layout.
constexpr int64_t kCollProtocolVersion = 1;
// The version this process announces: kCollProtocolVersion, unless a test announces another
// (another build on one rank).
int64_t announcedProtocolVersion();
void announceProtocolVersionForTesting(int64_t version);

class CommContext {
 public:
  ~CommContext();
  CommContext(const CommContext&) = delete;
  CommContext& operator=(const CommContext&) = delete;

  // Collective over `comm`. Never fails half-way on some ranks only: if set-up fails
  // anywhere, every rank gets a context that is !usable() with the reason.
  static std::unique_ptr<CommContext> create(MPI_Comm comm, const Settings& s);

  bool usable() const { return usable_; }
  const std::string& disabledReason() const { return disabledReason_; }
  // After a call failed on this rank. Every rank of a failed call fails it (a node peer's
  // failure or another leader's notice fails the call on those waiting for it:
  // Pipeline::run()), so every rank counts the calls the inter-node backend can still
  // serve (callsAfterFailure()) alike, and turns Ferry off for this communicator alike when
  // they run out: at once with the mpi backend, once the p2p tags would repeat the failed
  // call's with p2p. The library runs the later calls.
  void callFailed();
  // Before a call would run Ferry's algorithm: usable(), after retiring the context if the
  // call is one a failed call's messages could be taken by (callFailed()).
  bool acceptsNextCall();
  // Tests: how many calls after a failed one the backend serves (callsAfterFailure()).
  void setCallsAfterFailure(uint64_t calls) { callsAfterFailure_ = calls; }
  // Its name (MPI_Comm_set_name), or "comm #3": the same on every rank of it.
  const std::string& label() const { return label_; }
  const CommShape& shape() const { return shape_; }
  std::string describe() const;

  int localRank() const { return split_.localRank; }
  int localSize() const { return split_.localSize; }
  bool isLeader() const { return split_.localRank == 0; }
  // The rank in the communicator of node-local rank `localRank` of this node.
  int rankOfLocal(int localRank) const;
  // "rank 3", and its rank in MPI_COMM_WORLD where that differs ("rank 3 (world rank 5)"):
  // for messages, which must name a rank as the user and the log prefixes know it.
  std::string rankName(int rank) const;
  // MPI_COMM_WORLD's rank of rank `rank` of the communicator (-1 if unknown).
  int worldRank(int rank) const;
  // The ranks on other nodes that this rank's inter-node stage exchanges with: the leaders,
  // or, where every rank runs the stage on its share, the ranks of its node-local index.
  std::vector<int> interPartners() const;
  // Every rank runs the inter-node stage on its share (FERRY_COLL_LEADERS, chooseLeaders()).
  bool shareLeaders() const { return shareComm_ != MPI_COMM_NULL; }
  int numNodes() const { return shape_.numNodes; }
  // One node of two ranks: the single-copy path reduces each share straight into its
  // receive buffer and copies the peer's share out of the peer's, so no slot holds a chunk.
  // Not with copy-in, whose results go through the result slots unless the receive buffers
  // are in the shared heap.
  bool directResults(IntraPath p) const {
    return p == IntraPath::Single && numNodes() == 1 && localSize() == 2 && !shareLeaders();
  }
  // The node's path for large messages; pathFor() is the one a call of `bytes` takes. No
  // size rule above: the probe times copies that stay in cache, yet copy-in also measured
  // ahead of reading in place at 8-64 MiB, direct results included, since a rank copies in
  // only its peers' shares (docs/collectives.md, "Copy-in, chosen from a measurement").
  IntraPath path() const { return path_; }
  IntraPath pathFor(uint64_t bytes) const { return bytes < stagedBelow_ ? IntraPath::Staged : path_; }
  const std::string& pathReason() const { return pathReason_; }
  const NodeArea& area() const { return area_; }
  InterStage* inter() const { return inter_.get(); }
  const std::vector<pid_t>& pids() const { return pids_; }  // of node-local ranks
  uint64_t spinNs() const { return spinNs_; }
  double timeoutSeconds() const { return timeoutSeconds_; }

  // Numbers the calls that run Ferry's algorithm; equal on every rank because every rank
  // runs the same calls in the same order, also where a call failed (Pipeline::mark()).
  uint64_t beginCall() { return ++callSeq_; }
  uint64_t callsBegun() const { return callSeq_; }

 private:
  // Off from set-up on: the library runs every call; logs why once.
  void disable(const std::string& reason);
  void retire(const std::string& reason);
  CommContext() = default;
  Status splitShares(MPI_Comm comm, const Settings& s);
  Status setupNode(const Settings& s);
  Status probeSameNode(const Settings& s);
  Status choosePath(const Settings& s, bool cmaWorks, const std::string& failure);
  Status chooseInputs(const uint8_t* lent, pid_t peer, uint64_t peerLent);
  // Collective: whether set-up worked everywhere, with the same settings; also numbers an
  // unnamed communicator the same on every rank.
  Status agree(MPI_Comm comm, Status local, bool unnamed);
  // More ranks on this machine (physical node) than it has hardware threads.
  bool machineOversubscribed() const;
  void decideSpin(const Settings& s);

  bool usable_ = false;
  std::string disabledReason_;
  std::string label_;
  std::vector<int> worldRanks_;  // of every rank of the communicator
  CommShape shape_;
  comm::NodeSplit split_;
  std::vector<pid_t> pids_;
  IntraPath path_ = IntraPath::Single;
  std::string pathReason_;
  std::string inputsReason_;  // the measurement behind CopyIn (auto only)
  uint64_t stagedBelow_ = 0;  // smaller calls take the staged path although single copy works
  comm::ShmSegment segment_;
  NodeArea area_;
  std::unique_ptr<InterStage> inter_;
  // Calls after a failed one that the inter-node stage can serve (none across one node);
  // known on every rank, leader or not.
  uint64_t callsAfterFailure_ = UINT64_MAX;
  uint64_t retireAt_ = 0;  // the first call number Ferry must not run (0: none)
  MPI_Comm shareComm_ = MPI_COMM_NULL;  // the ranks of my node-local index on every node
  std::string leadersReason_;
  uint64_t spinNs_ = 0;
  double timeoutSeconds_ = 30;
  uint64_t callSeq_ = 0;
};

// The context of `comm`, created (collectively) if it has none yet. Fails only on MPI errors
// in the attribute calls; a failed set-up is a context that is not usable().
Result<CommContext*> contextFor(MPI_Comm comm, const Settings& s);
// The context of `comm` if it has one already (for describing it).
CommContext* existingContext(MPI_Comm comm);

}  // namespace ferry::coll
