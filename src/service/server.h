// The device server: what a serving rank runs instead of `main`. It receives control
// messages, keeps one in-order stream of operations per local device, starts each operation
// as soon as no earlier unfinished one conflicts with it (range hazards; kernels are
// barriers), moves bytes over the path chosen for each peer, and replies where the issuer
// waits. Errors are sticky per device and travel back in the next reply.
#pragma once

#include <deque>
#include <map>
#include <set>
#include <memory>
#include <vector>

#include "comm/transport.h"
#include "platform/status.h"
#include "service/image.h"
#include "service/local_device.h"
#include "service/op.h"
#include "service/output_capture.h"
#include "service/staging_pool.h"
#include "service/worker.h"

namespace ferry::service {

class Server {
 public:
  // The server reaches its issuers through `transport` (MPI, or a daemon's channel).
  Server(std::unique_ptr<comm::Transport> transport, std::vector<std::unique_ptr<LocalDevice>> devices);
  ~Server();

  // Serves until rank 0 sends Shutdown, then returns. An error return means this rank can
  // no longer serve (the caller ends the job).
  Status run();
  // Whether run() failed because rank 0 stopped answering (its liveness probes).
  bool lostRank0() const { return lostRank0_; }
  size_t numDevices() const { return devices_.size(); }
  // The job-wide number of each local device, for what kernels ask (image_hooks.h).
  void setGlobalIds(std::vector<int> ids) { globalIds_ = std::move(ids); }
  // Whether an idle server, past its spin time, sleeps (with backoff, up to 1 ms) or only
  // yields its core. Sleeping leaves the cores to ranks that compute where ranks outnumber
  // them, but a request that comes while the server sleeps waits for the sleep to end: a
  // region after 2 ms of host work took 820 us instead of 6. Where the serving rank has its
  // cores (as ferry run binds them), it only yields, as MPI libraries poll.
  void setSleepWhenIdle(bool sleep) { sleepWhenIdle_ = sleep; }
  // The largest image or transfer an op may carry (0: no limit), and the setting that sets it,
  // for the error: a daemon's FERRY_SERVE_MAX_IMAGE. One over it fails its device.
  void setTransferLimit(uint64_t bytes, std::string setting) {
    transferLimit_ = bytes;
    transferLimitSetting_ = std::move(setting);
  }
  LocalDevice& device(size_t i) { return *devices_[i].dev; }

  // What the server does with one message type (op_table.cpp has one row per type).
  struct MessageKind {
    using ArrivalFn = Status (*)(Server&, int source, comm::Message& msg);
    using StartFn = void (*)(Server&, uint32_t dev, Op& op);
    enum class Route : uint8_t {
      Refused,   // never sent to a server (replies, probes) or unknown
      Control,   // handled on arrival: `arrive`
      DeviceOp,  // queued on its device's stream; `hazards` orders it, `start` starts it
    };
    Route route = Route::Refused;
    ArrivalFn arrive = nullptr;
    void (*hazards)(Op&) = nullptr;
    StartFn start = nullptr;
  };
  static const MessageKind& kindOf(comm::MsgType type);
  // Sends what kernels print to the issuer, in order with its replies (output_capture.h).
  void forwardOutput(std::unique_ptr<OutputCapture> capture) {
    capture_ = std::move(capture);
    outputSent_.assign(static_cast<size_t>(transport_->size()), 0);
  }

 private:
  bool lostRank0_ = false;
  // The first message a peer waits for that could not be sent; run() returns it.
  Status linkError_;
  struct DeviceState {
    std::unique_ptr<LocalDevice> dev;
    std::unique_ptr<Worker> worker;  // nullptr: heavy work runs inline on the server thread
    std::unique_ptr<StagingPool> staging;  // staged devices only; before `ops`, which return to it
    std::deque<std::unique_ptr<Op>> ops;
    // Staged devices only: runs their staged copies, so that the device copy of one chunk
    // overlaps the MPI transfer of the next. After `ops`: it finishes its jobs, which use
    // their staging buffers, before those go.
    std::unique_ptr<Worker> copier;
    Status error;                    // first failure; later replies carry it
  };
  using XferKey = std::pair<int, int32_t>;  // (peer rank, transfer id)

  // server.cpp: the loop, message dispatch, replies, rendezvous.
  Status dispatch(const comm::Incoming& in);
  Status enqueue(comm::Message msg, int source);
  Status dispatchBatch(int source, const comm::BatchMsg& batch);
  Status onShutdown(int source);
  void deliverRtr(int fromRank, const comm::RtrMsg& rtr);
  void deliverFin(int fromRank, const comm::FinMsg& fin);
  void deliverRts(int fromRank, const comm::RtsMsg& rts);
  // Every reply, Rtr, Fin and Rts is awaited by its peer. One that cannot be sent would
  // leave the peer waiting while this rank still answers its liveness probes: a hang, not a
  // failure. So a send failure is never dropped: post() records the first one, and run()
  // returns it, which ends the job with the message (see linkError_).
  void reply(int client, int tag, uint64_t seq, const Status& st, std::vector<uint64_t> values = {},
             const void* data = nullptr, size_t len = 0);
  Status runBaseline(int client, const comm::BaselineMsg& m, uint64_t seq);
  void sendRtr(int srcRank, int32_t xfer, uint64_t dst, uint64_t size);
  void sendFin(int dstRank, int32_t xfer, const Status& st);
  void sendRts(int dstRank, const comm::RtsMsg& m);
  // `what` and `number` name the message ("the reply to operation", its sequence number) in
  // the error, formatted only if the send fails: every reply passes through here.
  void post(int peer, int tag, std::vector<uint8_t> bytes, const char* what, uint64_t number);
  bool linkBroken() const { return !linkError_.isOk(); }
  // Sends the output kernels wrote since the last call to `client`, ahead of its next reply.
  void sendOutput(int client, bool thorough);
  bool pipeInFlight() const;

  // stream.cpp: the per-device stream.
  bool advance(uint32_t dev);
  void start(uint32_t dev, Op& op);
  void poll(uint32_t dev, Op& op);
  void complete(uint32_t dev, Op& op, Status st);
  Status checkRange(uint32_t dev, uint64_t addr, uint64_t len, const char* what);
  void startInit(uint32_t dev, Op& op);
  void startAlloc(uint32_t dev, Op& op);
  void startFree(uint32_t dev, Op& op);
  void startLaunch(uint32_t dev, Op& op);
  void startSync(uint32_t dev, Op& op);
  void startLoadImage(uint32_t dev, Op& op);
  void finishLoadImage(uint32_t dev, Op& op);
  void startSubmit(uint32_t dev, Op& op);
  void startRetrieve(uint32_t dev, Op& op);
  void startExchangeSend(uint32_t dev, Op& op);
  void startExchangeRecv(uint32_t dev, Op& op);
  // Runs `job` inline (one device per rank) or on the device's worker.
  template <typename Job>
  void runHeavy(uint32_t dev, Op& op, Job&& job) {
    auto& d = devices_[dev];
    if (!d.worker) return finishHeavy(dev, op, job());
    op.job = d.worker->submit(std::forward<Job>(job));
  }
  void finishHeavy(uint32_t dev, Op& op, Status st);
  void failStarted(uint32_t dev, Op& op);
  void pushToRendezvousPeer(uint32_t dev, Op& op, const comm::RtrMsg& rtr);
  void splitWithPeer(uint32_t dev, Op& op, const comm::RtrMsg& rtr);
  void drainIncoming(uint32_t dev, Op& op);
  Result<const uint8_t*> sourceBytes(uint32_t dev, Op& op, uint64_t addr, uint64_t len, uint64_t first);
  Result<uint8_t*> sinkBytes(uint32_t dev, Op& op, uint64_t addr, uint64_t len);
  Status fillStaged(uint32_t dev, Op& op, uint64_t addr, uint64_t upto);
  Status flushStaged(uint32_t dev, Op& op, uint64_t addr, uint64_t upto);
  Status streamStaged(uint32_t dev, Op& op);
  Status settleCopy(Op& op);
  Status copyFromPeer(int peer, uint64_t remote, void* local, uint64_t len);
  Status copyToPeer(int peer, uint64_t remote, const void* local, uint64_t len);
  void awaitFin(uint32_t dev, Op& op, int peer, int32_t xfer);
  std::string describe(uint32_t dev, const Op& op) const;
  void traceOp(uint32_t dev, const Op& op) const;
  // `st` prefixed with the op and where it ran ("load_image on device 0 of rank 2 ...").
  Status withWhere(uint32_t dev, const Op& op, Status st) const;

  std::unique_ptr<comm::Transport> transport_;
  std::vector<DeviceState> devices_;
  std::map<uint64_t, std::shared_ptr<ImageRecord>> images_;
  std::map<XferKey, comm::RtrMsg> earlyRtrs_;
  std::map<XferKey, std::pair<uint32_t, Op*>> sendsAwaitingRtr_;
  std::map<XferKey, comm::FinMsg> earlyFins_;  // a failed sender's Fin, ahead of its receive
  std::map<XferKey, std::pair<uint32_t, Op*>> recvsAwaitingFin_;
  std::map<XferKey, std::pair<uint32_t, Op*>> sendsAwaitingFin_;  // split copies: the receiver still reads
  std::set<XferKey> abandonedSends_;  // failed sends whose late Rtr is to be dropped
  bool shutdown_ = false;
  std::vector<int> globalIds_;
  bool sleepWhenIdle_ = true;
  uint64_t transferLimit_ = 0;
  std::string transferLimitSetting_;
  // Whether `op` carries more than the transfer limit; if so, its device has failed with why.
  bool overLimit(uint32_t dev, const Op& op);
  std::unique_ptr<OutputCapture> capture_;  // serving ranks other than 0 only
  std::vector<uint64_t> outputSent_;        // per issuer rank: bytes of output sent so far
  std::string outputPending_;
  bool outputUnchecked_ = false;  // code ran since the last full look (raw writes possible)
};

}  // namespace ferry::service
