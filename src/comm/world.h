// Ferry's view of the job: its own duplicate of MPI_COMM_WORLD (so its traffic never
// matches the application's), where every rank lives, and which data path reaches it.
#pragma once

#include <mpi.h>
#include <sys/types.h>

#include <string>
#include <vector>

#include "comm/node_split.h"
#include "comm/transport.h"
#include "platform/status.h"

namespace ferry::comm {

class LivenessResponder;  // comm/liveness.h

// The job's first exchange, in a form no Ferry version changes: a rank of another build
// would meet the later exchanges with records of other sizes (an MPI error, or a hang)
// instead of a message. Fails on every rank where the ranks' versions differ, each saying
// its own (the log line carries its rank and host). World::create runs it with
// kProtocolVersion.
Status agreeOnProtocolVersion(MPI_Comm comm, int mine);

struct PeerInfo {
  int rank = 0;
  int node = 0;      // virtual node id
  int physNode = 0;  // physical node id
  pid_t pid = 0;
  std::string host;
};

class World {
 public:
  // Initialises MPI with MPI_THREAD_MULTIPLE unless the application already did, and
  // learns the job's layout. Collective over MPI_COMM_WORLD.
  static Result<World*> create();
  // The world created by create(), or nullptr.
  static World* instance();

  MPI_Comm comm() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  const PeerInfo& peer(int r) const { return peers_[r]; }
  const PeerInfo& self() const { return peers_[rank_]; }
  const NodeSplit& nodes() const { return nodes_; }
  int tagUpperBound() const { return tagUb_; }
  bool ownsMpi() const { return ownsMpi_; }
  int threadLevel() const { return threadLevel_; }

  bool cmaEnabled() const { return cma_; }
  // Why CMA is off (empty when it is on), for logs and `ferry doctor`.
  const std::string& cmaReason() const { return cmaReason_; }
  Path pathTo(int peer) const;
  // The path bytes take between two other ranks (a device-to-device copy rank 0 arranges).
  Path pathBetween(int a, int b) const;
  // Whether this job runs more ranks on this physical machine than it has hardware threads:
  // then waiting threads sleep between polls instead of only yielding.
  bool machineOversubscribed() const;

  // Ends the job because `rank` stopped answering: MPI_Abort, after SIGKILL to that rank's
  // process where it runs on this machine. A stopped process ignores the SIGTERM a launcher
  // ends a job with, and MPICH's Hydra then waits for it for ever.
  [[noreturn]] void abortForLostRank(int rank);

  // Ends the whole job: MPI_Abort on MPI_COMM_WORLD, never on comm() (its duplicate). MPICH
  // aborts any other communicator by sending each of its processes a message and waiting for
  // the sends, which never complete to a dead rank; only MPI_COMM_WORLD's abort goes to the
  // process manager (PMI_Abort), which ends the job. Hydra hid this by ending the job as soon
  // as a rank died; under srun, which lets the other tasks run on, rank 0 named the dead rank
  // and then hung in MPI_Abort.
  // The error line that explains the abort was just written to a pipe the launcher forwards
  // asynchronously: told to abort at once, MPICH's Hydra dropped that line about one time in
  // thirty under load (a CI failure of offload.fail.reply_send_fails). So stdio is flushed
  // and the launcher gets a moment first; this is the error path, and 200 ms is nothing there.
  [[noreturn]] static void abortJob(int code = 1);

  // Ends MPI if Ferry started it. Safe to call more than once. With `responder`, every rank
  // of the job calls it: the responders stop together, once no probe is on its way to one.
  Status finalize(LivenessResponder* responder = nullptr);

 private:
  Status gatherPeers();
  Status decideCma();

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1, tagUb_ = 32767, threadLevel_ = 0;
  bool ownsMpi_ = false, finalized_ = false;
  bool cma_ = false;
  std::string cmaReason_;
  std::vector<PeerInfo> peers_;
  std::vector<uint64_t> probeAddrs_;
  NodeSplit nodes_;
};

}  // namespace ferry::comm
