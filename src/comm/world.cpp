#include "comm/world.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>

#include "comm/cma.h"
#include "comm/liveness.h"
#include "comm/mpi_check.h"
#include "comm/protocol.h"
#include "comm/watchdog.h"
#include "platform/config.h"
#include "platform/log.h"
#include "platform/omp_registry.h"
#include "platform/topology.h"
#include "platform/parse.h"
#include "platform/process.h"

namespace ferry::comm {
namespace {

// A machine with fewer ranks than FERRY_VIRTUAL_NODES becomes one virtual node per rank
// (node_split.h); say so once, so that a layout is never other than the one asked for
// without a word.
void warnFewerVirtualNodes(const NodeSplit& split, int asked, int rank) {
  if (asked <= 1 || rank != 0) return;
  std::map<int, int> ranksOfMachine;
  for (int p : split.physNodeOfRank) ++ranksOfMachine[p];
  int fewest = asked;
  for (const auto& [machine, ranks] : ranksOfMachine) fewest = std::min(fewest, ranks);
  if (fewest < asked)
    log::warn(log::Comm, "FERRY_VIRTUAL_NODES=%d, but a machine has only %d rank(s): it is split into one virtual node "
                         "per rank (%d node(s) in all)",
              asked, fewest, split.numNodes);
}

World* gWorld = nullptr;  // never destroyed: used during process teardown
// A word every rank exposes so that same-node peers can test process_vm_readv on it.
volatile uint64_t gCmaProbeWord = 0;
constexpr uint64_t kProbeSalt = 0x5a17c0ffee000000ull;
constexpr size_t kHostLen = 64;

struct RankRecord {
  int32_t pid;
  int32_t pad;
  uint64_t probeAddr;
  char host[kHostLen];
};

}  // namespace

const char* pathName(Path p) {
  switch (p) {
    case Path::Self: return "self";
    case Path::Cma: return "shm-cma";
    case Path::Mpi: return "mpi";
  }
  return "?";
}

World* World::instance() { return gWorld; }

Status agreeOnProtocolVersion(MPI_Comm comm, int mine) {
  int sent[2] = {mine, -mine}, range[2] = {0, 0};
  if (Status st = mpiStatus(PMPI_Allreduce(sent, range, 2, MPI_INT, MPI_MAX, comm),
                            "PMPI_Allreduce of the ranks' Ferry protocol versions");
      !st)
    return st;
  int highest = range[0], lowest = -range[1];
  if (lowest == highest) return {};
  return Status(Errc::VersionMismatch, "the ranks run different Ferry builds (protocol versions " +
                                           std::to_string(lowest) + " to " + std::to_string(highest) +
                                           "), this rank version " + std::to_string(mine) +
                                           ": install the same Ferry build on every node");
}

Result<World*> World::create() {
  if (gWorld) return gWorld;
  auto* w = new World();
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &w->threadLevel_);
    if (rc != MPI_SUCCESS) return Status(Errc::Unavailable, "MPI_Init_thread failed (error " + std::to_string(rc) + ")");
    w->ownsMpi_ = true;
  } else {
    MPI_Query_thread(&w->threadLevel_);
  }
  if (Status st = mpiStatus(MPI_Comm_dup(MPI_COMM_WORLD, &w->comm_), "MPI_Comm_dup(MPI_COMM_WORLD)"); !st) return st;
  // Errors come back as codes so that Ferry can say what failed, instead of MPI aborting.
  MPI_Comm_set_errhandler(w->comm_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(w->comm_, &w->rank_);
  MPI_Comm_size(w->comm_, &w->size_);
  log::setRank(w->rank_);
  // Each step below waits for every rank: a stopped one would hold the job for ever.
  Watchdog watchdog("Ferry's start-up (the job's layout)", startUpSeconds(), w->rank_);
  if (Status st = agreeOnProtocolVersion(w->comm_, kProtocolVersion); !st) return st;

  int* ub = nullptr;
  int flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
  if (flag && ub) w->tagUb_ = *ub;

  int virtualNodes = static_cast<int>(config().integer(Knob::VirtualNodes));
  auto split = splitNodes(w->comm_, virtualNodes);
  if (!split) return split.takeStatus();
  w->nodes_ = std::move(split.value());
  warnFewerVirtualNodes(w->nodes_, virtualNodes, w->rank_);
  if (Status st = w->gatherPeers(); !st) return st;
  if (Status st = w->decideCma(); !st) return st;
  log::info(log::Comm, "world: %d ranks on %d node(s)%s; node %d; MPI thread level %d; same-node path %s%s%s",
            w->size_, w->nodes_.numNodes,
            config().integer(Knob::VirtualNodes) > 1 ? " (virtual)" : "", w->nodes_.node, w->threadLevel_,
            w->cma_ ? "shm-cma" : "mpi", w->cma_ ? "" : ": ", w->cmaReason_.c_str());
  gWorld = w;
  return w;
}

Status World::gatherPeers() {
  gCmaProbeWord = kProbeSalt ^ static_cast<uint64_t>(rank_);
  RankRecord mine{};
  mine.pid = static_cast<int32_t>(getpid());
  mine.probeAddr = reinterpret_cast<uint64_t>(&gCmaProbeWord);
  gethostname(mine.host, kHostLen - 1);
  std::vector<RankRecord> all(static_cast<size_t>(size_));
  if (Status st = mpiStatus(MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, comm_),
                            "MPI_Allgather(rank records)");
      !st)
    return st;
  peers_.resize(size_);
  probeAddrs_.resize(size_);
  for (int r = 0; r < size_; ++r) {
    all[r].host[kHostLen - 1] = 0;
    peers_[r] = PeerInfo{r, nodes_.nodeOfRank[r], nodes_.physNodeOfRank[r], all[r].pid, all[r].host};
    probeAddrs_[r] = all[r].probeAddr;
  }
  // A rank that a signal ends removes libomp's entries of the node's ranks that are gone.
  std::vector<pid_t> nodePids;
  for (const PeerInfo& p : peers_)
    if (p.physNode == peers_[rank_].physNode) nodePids.push_back(p.pid);
  noteNodePeers(nodePids);
  return {};
}

Status World::decideCma() {
  const std::string& mode = config().text(Knob::Shm);
  // Probe the next rank on my physical node, if any (virtual nodes do not matter here).
  std::string reason;
  int probed = -1;
  for (int step = 1; step < size_; ++step) {
    int r = (rank_ + step) % size_;
    if (peers_[r].physNode != self().physNode) continue;
    probed = r;
    uint64_t expected = kProbeSalt ^ static_cast<uint64_t>(r);
    reason = cmaProbe(peers_[r].pid, probeAddrs_[r], &expected, sizeof expected);
    break;
  }
  int works = reason.empty() ? 1 : 0, all = 0;
  if (Status st = mpiStatus(PMPI_Allreduce(&works, &all, 1, MPI_INT, MPI_MIN, comm_), "PMPI_Allreduce(cma probe)"); !st)
    return st;
  if (mode == "off") {
    cmaReason_ = "disabled by FERRY_SHM=off";
  } else if (!all) {
    int scope = yamaPtraceScope();
    cmaReason_ = (reason.empty() ? std::string("process_vm_readv failed on another rank") : reason) +
                 (scope > 0 ? " (kernel.yama.ptrace_scope=" + std::to_string(scope) + ")" : std::string());
    if (mode == "cma")
      return Status(Errc::Unavailable, "FERRY_SHM=cma but cross-memory attach does not work on rank " +
                                           std::to_string(rank_) + " (probing rank " + std::to_string(probed) +
                                           "): " + cmaReason_ + "; set FERRY_SHM=auto to fall back to MPI");
  }
  cma_ = mode != "off" && all;
  return {};
}

Path World::pathTo(int peer) const { return pathBetween(rank_, peer); }

Path World::pathBetween(int a, int b) const {
  if (a == b) return Path::Self;
  if (cma_ && peers_[a].node == peers_[b].node) return Path::Cma;
  return Path::Mpi;
}

void World::abortForLostRank(int rank) {
  const PeerInfo& lost = peer(rank);
  // SIGKILL where it shares the machine and still exists (a pid once gone may be reused).
  if (lost.physNode == self().physNode && !processGone(lost.pid)) kill(lost.pid, SIGKILL);
  abortJob();
}

void World::abortJob(int code) {
  removeOpenMpRegistrations(true);  // the launcher's SIGKILL gives the node's ranks no chance to
  std::fflush(nullptr);
  usleep(200 * 1000);
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);  // MPI_Abort does not return; should it, this process still ends
}

Status World::finalize(LivenessResponder* responder) {
  if (finalized_) return {};
  finalized_ = true;
  double timeout = config().seconds(Knob::Timeout);
  // A stopped rank never answers nor reaches the barrier.
  Watchdog watchdog("MPI_Finalize", endOfJobSeconds(rank_), rank_);
  if (!responder) {
    // No responders (ferry info, a failed start-up): 0.2 s bounds the wait for an answer
    // whose probe was never read.
    (void)settleUnansweredProbes(0.2);
  } else {
    // This rank's last probes are answered while every responder still runs: each comes,
    // unless its peer is stopped, whose silence is named before the barrier leaves the rest
    // to the watchdog.
    double settle = timeout / 2;
    for (int silent : settleUnansweredProbes(settle))
      log::warn(log::Comm, "rank %d on host %s has not answered a liveness probe for %s at the end of the job",
                silent, peer(silent).host.c_str(), parse::formatSeconds(settle).c_str());
    // No responder stops before every rank has settled its probes: a probe that reached a
    // stopped one stayed unmatched, which MPI_Finalize reported (UCX: "unexpected
    // tag-receive descriptor").
    if (Status st = mpiStatus(PMPI_Barrier(comm_), "PMPI_Barrier before the liveness responders stop"); !st)
      log::warn(log::Comm, "%s; a late liveness probe may be reported unmatched at MPI_Finalize", st.message().c_str());
    responder->stop();
  }
  if (nodes_.nodeComm != MPI_COMM_NULL) MPI_Comm_free(&nodes_.nodeComm);
  if (nodes_.leaderComm != MPI_COMM_NULL) MPI_Comm_free(&nodes_.leaderComm);
  MPI_Comm_free(&comm_);
  if (!ownsMpi_) return {};
  return mpiStatus(MPI_Finalize(), "MPI_Finalize");
}

bool World::machineOversubscribed() const {
  int onMachine = 0;
  for (const PeerInfo& p : peers_) onMachine += p.physNode == self().physNode ? 1 : 0;
  return onMachine > nodeTopology().pus;
}

}  // namespace ferry::comm
