#include "coll/comm_context.h"

#include <unistd.h>

#include <atomic>
#include <cstring>
#include <mutex>

#include "coll/copy_probe.h"
#include "coll/keyval.h"
#include "coll/stats.h"
#include "comm/cma.h"
#include "comm/mpi_check.h"
#include "platform/copy.h"
#include "platform/log.h"
#include "platform/parse.h"
#include "platform/topology.h"

namespace ferry::coll {
namespace {

// A word every rank exposes so that its node peers can test process_vm_readv on it.
volatile uint64_t gProbeWord = 0;
constexpr uint64_t kProbeSalt = 0xc011ec7ed0000000ull;

int deleteContext(MPI_Comm, int, void* attr, void*) {
  delete static_cast<CommContext*>(attr);
  return MPI_SUCCESS;
}

// The attribute key under which contexts hang on communicators. MPI_COMM_NULL_COPY_FN: a
// duplicate gets its own context on first use (its calls must not share flags with the
// original's).
int contextKey() {
  static std::once_flag once;
  static int key = MPI_KEYVAL_INVALID;
  std::call_once(once, [] {
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, deleteContext, &key, nullptr) == MPI_SUCCESS)
      freeKeyvalAtFinalize(key);
  });
  return key;
}

// Numbers for unnamed communicators, so that log lines can tell them apart. The ranks of a
// communicator agree on its number at set-up (agree()), so that one communicator has one
// name in every rank's log.
std::atomic<int64_t> gNextCommNumber{0};
std::atomic<int64_t> gAnnouncedVersion{kCollProtocolVersion};

// The first step of set-up: every later step depends on the build and on the settings
// (which steps run, what they exchange), so ranks that differ in either meet in nothing
// else. One allreduce of both, whose form never changes (each value's lowest and highest).
Status agreeFirst(MPI_Comm comm, const Settings& s, const std::string& label) {
  int64_t version = gAnnouncedVersion.load();
  int64_t fp = static_cast<int64_t>(s.fingerprint() >> 2);
  int64_t mine[4] = {version, -version, fp, -fp}, low[4] = {};
  if (Status st = comm::mpiStatus(PMPI_Allreduce(mine, low, 4, MPI_INT64_T, MPI_MIN, comm), "PMPI_Allreduce(set-up)");
      !st)
    return st;
  if (low[0] != -low[1])
    return Status(Errc::VersionMismatch,
                  "the ranks of " + label + " run different builds of Ferry (collectives protocol versions " +
                      std::to_string(low[0]) + " to " + std::to_string(-low[1]) + ", this rank " +
                      std::to_string(version) +
                      "); load the same libferry-pmpi or libferry-coll on every node (LD_PRELOAD, the library path)");
  if (low[2] != -low[3])
    return Status(Errc::InvalidArgument, "the FERRY_COLL* or FERRY_VIRTUAL_NODES settings differ between the ranks of " +
                                             label + "; give every rank the same values");
  return {};
}

// Local: MPI_COMM_WORLD's rank of every rank of `comm`.
std::vector<int> worldRanksOf(MPI_Comm comm, int size) {
  std::vector<int> ranks(static_cast<size_t>(size)), world(static_cast<size_t>(size), -1);
  for (int r = 0; r < size; ++r) ranks[r] = r;
  MPI_Group group, worldGroup;
  if (MPI_Comm_group(comm, &group) != MPI_SUCCESS) return world;
  if (MPI_Comm_group(MPI_COMM_WORLD, &worldGroup) == MPI_SUCCESS) {
    MPI_Group_translate_ranks(group, size, ranks.data(), worldGroup, world.data());
    MPI_Group_free(&worldGroup);
  }
  MPI_Group_free(&group);
  return world;
}

std::string commName(MPI_Comm comm) {
  char name[MPI_MAX_OBJECT_NAME] = {};
  int len = 0;
  MPI_Comm_get_name(comm, name, &len);
  return std::string(name, static_cast<size_t>(len));
}

}  // namespace

const char* intraPathName(IntraPath p) {
  switch (p) {
    case IntraPath::Single: return "single-copy";
    case IntraPath::CopyIn: return "single-copy with copy-in";
    case IntraPath::Staged: return "staged (two copies)";
  }
  return "?";
}

CommContext::~CommContext() {
  inter_.reset();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  if (split_.leaderComm != MPI_COMM_NULL) MPI_Comm_free(&split_.leaderComm);
  if (shareComm_ != MPI_COMM_NULL) MPI_Comm_free(&shareComm_);
  if (split_.nodeComm != MPI_COMM_NULL) MPI_Comm_free(&split_.nodeComm);
}

std::unique_ptr<CommContext> CommContext::create(MPI_Comm comm, const Settings& s) {
  std::unique_ptr<CommContext> ctx(new CommContext());
  ctx->label_ = commName(comm);
  bool unnamed = ctx->label_.empty();
  if (unnamed) ctx->label_ = "an unnamed communicator";  // until the ranks agree on its number
  ctx->timeoutSeconds_ = s.timeoutSeconds;
  if (Status st = agreeFirst(comm, s, ctx->label_); !st) {
    ctx->disable(st.message());
    return ctx;
  }
  Status local;
  auto split = comm::splitNodes(comm, s.virtualNodes);
  if (split) {
    ctx->split_ = std::move(split.value());
    // Ferry's own communicators report errors as codes, so that Ferry can say what failed.
    MPI_Comm_set_errhandler(ctx->split_.nodeComm, MPI_ERRORS_RETURN);
    if (ctx->split_.leaderComm != MPI_COMM_NULL) MPI_Comm_set_errhandler(ctx->split_.leaderComm, MPI_ERRORS_RETURN);
    ctx->shape_.numNodes = ctx->split_.numNodes;
    local = ctx->splitShares(comm, s);
    if (local) local = ctx->setupNode(s);
  } else {
    local = split.takeStatus();
  }
  MPI_Comm_size(comm, &ctx->shape_.size);
  ctx->worldRanks_ = worldRanksOf(comm, ctx->shape_.size);
  if (Status st = ctx->agree(comm, local, unnamed); !st) {
    ctx->disable(st.message());
    return ctx;
  }
  ctx->decideSpin(s);
  ctx->usable_ = true;
  stats().setups.fetch_add(1, std::memory_order_relaxed);
  log::info(log::Coll, "%s", ctx->describe().c_str());
  return ctx;
}

// Learns the node's pids and whether process_vm_readv works between every two of its ranks,
// then chooses the node's path. Where the choice of inputs is left to a measurement, every
// rank also lends its peers a buffer to time process_vm_readv on (chooseInputs()).
Status CommContext::probeSameNode(const Settings& s) {
  bool measure = s.intra == IntraChoice::Auto && split_.localSize > 1;
  PageBytes lent;
  if (measure) {
    lent = allocatePages(kCopyProbeBytes + kCopyPage);
    std::memset(lent.get(), 1, kCopyProbeBytes + kCopyPage);
  }
  gProbeWord = kProbeSalt ^ static_cast<uint64_t>(getpid());
  int64_t mine[3] = {getpid(), static_cast<int64_t>(reinterpret_cast<uintptr_t>(&gProbeWord)),
                     static_cast<int64_t>(reinterpret_cast<uintptr_t>(lent.get()))};
  std::vector<int64_t> all(3 * static_cast<size_t>(split_.localSize));
  if (Status st = comm::mpiStatus(MPI_Allgather(mine, 3, MPI_INT64_T, all.data(), 3, MPI_INT64_T, split_.nodeComm),
                                  "MPI_Allgather(node pids)");
      !st)
    return st;
  pids_.resize(static_cast<size_t>(split_.localSize));
  std::string failure;
  for (int r = 0; r < split_.localSize; ++r) {
    pids_[r] = static_cast<pid_t>(all[3 * r]);
    if (r == split_.localRank || !failure.empty()) continue;
    uint64_t expected = kProbeSalt ^ static_cast<uint64_t>(pids_[r]);
    failure = comm::cmaProbe(pids_[r], static_cast<uint64_t>(all[3 * r + 1]), &expected, sizeof expected);
  }
  int works = failure.empty() ? 1 : 0, allWork = 0;
  if (Status st = comm::mpiStatus(PMPI_Allreduce(&works, &allWork, 1, MPI_INT, MPI_MIN, split_.nodeComm),
                                  "PMPI_Allreduce(cma probe)");
      !st)
    return st;
  if (!failure.empty()) {
    int scope = comm::yamaPtraceScope();
    if (scope > 0) failure += " (kernel.yama.ptrace_scope=" + std::to_string(scope) + ")";
  } else if (!allWork) {
    failure = "process_vm_readv fails on another rank of this node";
  }
  if (Status st = choosePath(s, allWork != 0, failure); !st) return st;
  if (measure && path_ == IntraPath::Single) {
    // The same on every rank of the node: every one of them measures (allWork is theirs too).
    size_t next = static_cast<size_t>((split_.localRank + 1) % split_.localSize);
    if (Status st = chooseInputs(lent.get(), pids_[next], static_cast<uint64_t>(all[3 * next + 2])); !st) return st;
  }
  return {};
}

Status CommContext::choosePath(const Settings& s, bool cmaWorks, const std::string& failure) {
  if (s.intra == IntraChoice::Staged) {
    path_ = IntraPath::Staged;
    pathReason_ = "FERRY_COLL_INTRA=staged";
  } else if (s.intra == IntraChoice::CopyIn) {
    // Needs no process_vm_readv: inputs outside the heap are read from the segment, and
    // results go through the result slots unless every receive buffer is in the heap.
    // Alone on its node, a rank's input is read by no one.
    path_ = split_.localSize > 1 ? IntraPath::CopyIn : IntraPath::Single;
    pathReason_ = "FERRY_COLL_INTRA=copy-in";
  } else if (cmaWorks) {
    path_ = IntraPath::Single;
    pathReason_ = "process_vm_readv works between the ranks of this node";
  } else if (s.intra == IntraChoice::Single) {
    return Status(Errc::Unavailable, "FERRY_COLL_INTRA=single, but " + failure +
                                         "; set FERRY_COLL_INTRA=auto to use the two-copy path instead");
  } else {
    path_ = IntraPath::Staged;
    pathReason_ = "single copy is not possible here: " + failure;
  }
  return {};
}

// Collective over the node. `lent` must stay valid until it returns: peers read it until they
// reach nodeAverage(), which returns on no rank before every rank has entered it.
Status CommContext::chooseInputs(const uint8_t* lent, pid_t peer, uint64_t peerLent) {
  auto node = nodeAverage(split_.nodeComm, timeCopies(lent, peer, peerLent));
  if (!node) return node.takeStatus();
  bool copyIn = copyInCheaper(*node, split_.localSize);
  inputsReason_ = describeSpeeds(*node) + ", node average, " + std::to_string(split_.localSize) + " ranks: " +
                  (copyIn ? "copying in is cheaper (FERRY_COLL_INTRA=single reads in place)"
                          : "reading in place is as cheap (FERRY_COLL_INTRA=copy-in copies in)");
  if (copyIn) path_ = IntraPath::CopyIn;
  return {};
}

// FERRY_COLL_LEADERS: where every rank runs the inter-node stage on its share of each
// chunk, with the ranks of the same node-local index on the other nodes, the stage's
// reductions and messages are spread over all the node's cores (and links) instead of the
// leader's. The facts chooseLeaders() weighs are reduced first, so that every rank of
// `comm` takes the same decision. Collective over `comm`.
Status CommContext::splitShares(MPI_Comm comm, const Settings& s) {
  if (s.leaders == Leaders::One || split_.numNodes == 1) return {};
  int mine[3] = {split_.localSize, -split_.localSize, machineOversubscribed() ? -1 : 0}, low[3] = {};
  if (Status st =
          comm::mpiStatus(PMPI_Allreduce(mine, low, 3, MPI_INT, MPI_MIN, comm), "PMPI_Allreduce(ranks per node)");
      !st)
    return st;
  LeadersChoice choice = chooseLeaders(s, low[0], -low[1], low[2] < 0);
  leadersReason_ = choice.reason;
  if (!choice.all) return {};
  if (Status st = comm::mpiStatus(MPI_Comm_split(comm, split_.localRank, split_.node, &shareComm_),
                                  "MPI_Comm_split(share leaders)");
      !st)
    return st;
  MPI_Comm_set_errhandler(shareComm_, MPI_ERRORS_RETURN);
  return {};
}

Status CommContext::setupNode(const Settings& s) {
  if (Status st = probeSameNode(s); !st) return st;
  // Small calls take the two-copy path where single copy works too, unless the settings
  // force one path; its input slots then need to hold only them.
  if (path_ != IntraPath::Staged && s.intra == IntraChoice::Auto) stagedBelow_ = stagedBelow(s, split_.localSize);
  bool wholeChunks = path_ != IntraPath::Single;
  size_t inputSlot = wholeChunks ? s.chunkSize : std::max<uint64_t>(stagedBelow_, 1);
  size_t bytes = NodeArea::bytesFor(split_.localSize, s.depth, inputSlot, s.chunkSize);
  auto seg = comm::mapNodeSegment(split_.nodeComm, bytes, "coll");
  if (!seg) return seg.takeStatus();
  segment_ = std::move(seg.value());
  area_ = NodeArea(segment_.data(), split_.localSize, s.depth, inputSlot, s.chunkSize);
  if (split_.numNodes > 1) callsAfterFailure_ = callsAfterFailure(interBackendName(s, split_.numNodes), s.depth);
  if (shareLeaders() || (isLeader() && split_.numNodes > 1)) {
    auto inter = makeInterStage(s, shareLeaders() ? shareComm_ : split_.leaderComm);
    if (!inter) return inter.takeStatus();
    inter_ = std::move(inter.value());
  }
  return {};
}

void CommContext::callFailed() {
  if (!usable_ || callsAfterFailure_ == UINT64_MAX || retireAt_ != 0) return;
  if (callsAfterFailure_ == 0)
    retire("a call failed while the leaders' MPI_Iallreduce of its chunks may have been unmatched, which MPI "
           "cannot cancel and a later call's would match (FERRY_COLL_INTER=p2p recovers from failed calls)");
  else
    retireAt_ = callSeq_ + callsAfterFailure_;
}

bool CommContext::acceptsNextCall() {
  if (usable_ && retireAt_ != 0 && callSeq_ + 1 >= retireAt_)
    retire("call " + std::to_string(retireAt_) + " would reuse the p2p tags of call " +
           std::to_string(retireAt_ - callsAfterFailure_) +
           ", which failed and may have left messages unreceived that it would take");
  return usable_;
}

void CommContext::disable(const std::string& reason) {
  usable_ = false;
  disabledReason_ = reason;
  log::warn(log::Coll, "%s: Ferry's allreduce is off for this communicator, the MPI library runs it: %s",
            label_.c_str(), reason.c_str());
}

void CommContext::retire(const std::string& reason) {
  usable_ = false;
  disabledReason_ = reason;
  log::warn(log::Coll, "%s: Ferry's allreduce is off for this communicator from now on, the MPI library runs it: %s",
            label_.c_str(), reason.c_str());
}

int64_t announcedProtocolVersion() { return gAnnouncedVersion.load(); }
void announceProtocolVersionForTesting(int64_t version) { gAnnouncedVersion = version; }

// One allreduce tells every rank whether set-up worked everywhere, and the communicator's
// shape. (Build and settings were agreed on first: agreeFirst().)
Status CommContext::agree(MPI_Comm comm, Status local, bool unnamed) {
  int64_t mine[4] = {local ? 1 : 0, split_.localSize, -static_cast<int64_t>(split_.localSize), -gNextCommNumber.load()};
  int64_t low[4] = {};
  if (Status st = comm::mpiStatus(PMPI_Allreduce(mine, low, 4, MPI_INT64_T, MPI_MIN, comm), "PMPI_Allreduce(set-up)");
      !st)
    return st;
  // The highest next number of any rank: new to every rank of this communicator. Raised,
  // never lowered: another thread may set up another communicator meanwhile.
  int64_t number = -low[3];
  int64_t seen = gNextCommNumber.load();
  while (seen <= number && !gNextCommNumber.compare_exchange_weak(seen, number + 1)) {
  }
  if (unnamed) label_ = "comm #" + std::to_string(number);
  if (!local) return local;
  if (low[0] == 0) return Status(Errc::Unavailable, "set-up failed on another rank of " + label_ + "; its log says why");
  shape_.minLocal = static_cast<int>(low[1]);
  shape_.maxLocal = static_cast<int>(-low[2]);
  return {};
}

bool CommContext::machineOversubscribed() const {
  int onMyMachine = 0;
  for (int p : split_.physNodeOfRank) onMyMachine += p == split_.physNode ? 1 : 0;
  return onMyMachine > nodeTopology().pus;
}

void CommContext::decideSpin(const Settings& s) {
  // With more ranks than hardware threads, a spinning rank takes the core from the peer it
  // waits for; then yield at once.
  spinNs_ = machineOversubscribed() ? 0 : static_cast<uint64_t>(s.spinSeconds * 1e9);
}

int CommContext::rankOfLocal(int localRank) const {
  // Node-local ranks are numbered in rank order (node_split.h).
  for (size_t r = 0; r < split_.nodeOfRank.size(); ++r)
    if (split_.nodeOfRank[r] == split_.node && localRank-- == 0) return static_cast<int>(r);
  return -1;
}

int CommContext::worldRank(int rank) const {
  return rank >= 0 && static_cast<size_t>(rank) < worldRanks_.size() ? worldRanks_[rank] : -1;
}

std::string CommContext::rankName(int rank) const {
  int world = worldRank(rank);
  return "rank " + std::to_string(rank) + (world != rank ? " (world rank " + std::to_string(world) + ")" : "");
}

std::vector<int> CommContext::interPartners() const {
  int index = shareLeaders() ? split_.localRank : 0;
  std::vector<int> seen(static_cast<size_t>(split_.numNodes), 0), partners;
  for (size_t r = 0; r < split_.nodeOfRank.size(); ++r) {
    int node = split_.nodeOfRank[r];
    if (node != split_.node && seen[node]++ == index) partners.push_back(static_cast<int>(r));
  }
  return partners;
}

std::string CommContext::describe() const {
  if (!usable_) return label_ + ": Ferry's allreduce is off here: " + disabledReason_;
  const std::string& inputs = inputsReason_;
  std::string per = shape_.minLocal == shape_.maxLocal
                        ? std::to_string(shape_.maxLocal)
                        : std::to_string(shape_.minLocal) + " to " + std::to_string(shape_.maxLocal);
  return label_ + ": " + std::to_string(shape_.size) + " ranks on " + std::to_string(shape_.numNodes) + " node(s), " + per +
         " per node; same-node path " + intraPathName(path_) + " (" + pathReason_ + ")" +
         (inputs.empty() ? "" : " (" + inputs + ")") +
         (stagedBelow_ ? ", staged below " + parse::formatSize(stagedBelow_) + " (FERRY_COLL_STAGED_PER_RANK)" : "") +
         (shape_.numNodes > 1 ? std::string("; inter-node stage ") + (inter_ ? inter_->name() : "run by the leader") +
                                    (leadersReason_.empty() ? "" : ", " + leadersReason_)
                              : "") +
         "; spin " + parse::formatSeconds(static_cast<double>(spinNs_) * 1e-9);
}

Result<CommContext*> contextFor(MPI_Comm comm, const Settings& s) {
  int key = contextKey();
  void* attr = nullptr;
  int found = 0;
  if (Status st = comm::mpiStatus(MPI_Comm_get_attr(comm, key, &attr, &found), "MPI_Comm_get_attr"); !st) return st;
  if (found) return static_cast<CommContext*>(attr);
  CommContext* ctx = CommContext::create(comm, s).release();
  if (Status st = comm::mpiStatus(MPI_Comm_set_attr(comm, key, ctx), "MPI_Comm_set_attr"); !st) {
    delete ctx;
    return st;
  }
  return ctx;
}

CommContext* existingContext(MPI_Comm comm) {
  void* attr = nullptr;
  int found = 0;
  if (MPI_Comm_get_attr(comm, contextKey(), &attr, &found) != MPI_SUCCESS || !found) return nullptr;
  return static_cast<CommContext*>(attr);
}

}  // namespace ferry::coll
