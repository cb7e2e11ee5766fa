// Rank 0's side of remote offloading: one object per process that turns plugin calls into
// control messages to the ranks that serve each device, and waits where libomptarget needs
// an answer. The __tgt_rtl_* entry points (plugin_api.cpp) are thin wrappers over it.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "comm/mpi_baseline.h"
#include "comm/tag_pool.h"
#include "comm/transport.h"
#include "comm/world.h"
#include "offload/async_queue.h"
#include "offload/device_allocator.h"
#include "offload/device_output.h"
#include "offload/device_table.h"
#include "offload/image_router.h"
#include "offload/node_copies.h"
#include "service/image.h"
#include "service/omptarget_abi.h"

namespace ferry::offload {

// Rank 0 posts every chunk of its own transfers at once: MPI then progresses them from any
// thread's MPI calls, so a transfer never waits for the thread that started it.
inline constexpr int kAllChunks = 1 << 30;

// The table address libomptarget hands back to launch_kernel for a kernel entry.
struct KernelRef {
  int device;
  uint64_t handle;  // the serving rank's handle
  std::string name;
};

struct OffloadCounters {
  std::atomic<uint64_t> hostToDeviceBytes{0};
  std::atomic<uint64_t> deviceToHostBytes{0};
  std::atomic<uint64_t> deviceToDeviceBytes{0};  // moved between serving ranks, not by rank 0
  std::atomic<uint64_t> networkBytes{0};   // moved between nodes, by rank 0 or between serving ranks
  std::atomic<uint64_t> nodeCopyBytes{0};  // host data copied within its node instead (node_copies.h)
  std::atomic<uint64_t> controlMessages{0};
  std::atomic<uint64_t> kernelsLaunched{0};
};

class Client {
 public:
  // Requests and data travel over `transport`; `world` is the job, which a lost rank ends
  // and whose ranks may page this rank's memory (unified shared memory).
  Client(comm::World& world, std::unique_ptr<comm::Transport> transport, DeviceTable table);
  static Client* instance();
  static void setInstance(Client* c);

  int numDevices() const { return static_cast<int>(devices_.size()); }
  const DeviceEntry& entry(int id) const { return devices_[id]->entry; }
  const DeviceTable& table() const { return table_; }
  OffloadCounters& counters() { return counters_; }
  ImageRouter& images() { return router_; }
  // The ELF machines the table's devices run (their images' machines: image_router.h).
  const std::set<uint16_t>& machines() const { return machines_; }
  void setRequires(int64_t flags) { requires_ = flags; }

  // client.cpp
  Status initDevice(int id);
  Result<__tgt_target_table*> loadBinary(int id, const __tgt_device_image* image);
  Status launch(int id, void* entry, void** args, ptrdiff_t* offsets, const KernelArgsTy* ka, AsyncQueue& q);
  Status shutdown();
  // __tgt_set_info_flag: every serving rank passes it to its stock plugins.
  Status setInfoFlag(uint32_t flags);
  // After shutdown (at exit) no MPI call may be made; late calls are refused.
  bool isShutDown() const { return shutDown_.load(); }

  // client_data.cpp
  // `hostPtr`: the host data the block will hold (or NULL), whose page offset it takes.
  Result<void*> allocate(int id, int64_t size, int32_t kind, const void* hostPtr = nullptr);
  Status free(int id, void* ptr, int32_t kind);
  Status submit(int id, void* dst, const void* src, int64_t size, AsyncQueue& q);
  Status retrieve(int id, void* dst, const void* src, int64_t size, AsyncQueue& q);
  Status exchange(int srcId, const void* src, int dstId, void* dst, int64_t size, AsyncQueue& q);
  // Under unified_shared_memory, memory allocated for a device is rank 0's own (kernels on
  // other ranks page it in, service/host_pager.h): whether [addr, addr+len) is such.
  bool inRank0Block(uint64_t addr, uint64_t len) const;

  // Sends what the queue holds back: its deferred launch and its batch. With `confirm`,
  // every device the queue used is asked for an answer that confirms all it was sent
  // (the launch's reply, or a Sync), in the same message.
  Status flushQueue(AsyncQueue& q, bool confirm);
  // Moves the deferred launch, if any, into the batch (it then precedes the next op).
  Status releaseDeferred(AsyncQueue& q, bool confirm = false);

  // client_wait.cpp
  Status synchronize(AsyncQueue& q);
  // Non-blocking: true once everything on the queue is complete (or has failed).
  Result<bool> query(AsyncQueue& q);
  Status syncDevice(int id);

  // "device 3 (rank 2, host node17)"
  std::string where(int id) const;

  // Raw MPI between two ranks of the job (0 = this rank), for benchmark baselines:
  // seconds of the initiator's timed loop. The devices of both ranks should be idle.
  Result<double> mpiBaseline(int rankA, int rankB, const comm::BaselineSpec& spec);

 private:
  struct RemoteDevice {
    DeviceEntry entry;
    std::unique_ptr<DeviceAllocator> heap;  // client-managed heaps only
    std::mutex mutex;                       // guards the members below
    bool initialized = false;
    std::map<uint64_t, std::vector<__tgt_offload_entry>> tables;  // image id -> table
    std::map<uint64_t, __tgt_target_table> tableHeads;  // image id -> what load_binary returned
    std::vector<std::unique_ptr<KernelRef>> kernels;
    std::map<uint64_t, uint64_t> globals;   // address -> size
    std::map<uint64_t, uint64_t> allocations;  // plugin-managed devices: address -> size
    std::set<void*> hostAllocs;             // TARGET_ALLOC_HOST blocks
  };

  std::vector<uint8_t> encodeFor(int id, comm::MsgType type, const comm::Body& body, const void* inlineBytes,
                                 size_t inlineLen);
  Status send(int id, comm::MsgType type, const comm::Body& body, const void* inlineBytes = nullptr,
              size_t inlineLen = 0);
  // Two messages with no other control message between them (client.cpp says why).
  Status sendPair(int idA, comm::MsgType typeA, const comm::Body& bodyA, int idB, comm::MsgType typeB,
                  const comm::Body& bodyB);
  // Adds an op to the queue's batch; the batch goes out when the queue moves to another
  // device, fills up, or reaches a synchronisation point.
  Status queueSend(AsyncQueue& q, int id, comm::MsgType type, const comm::Body& body,
                   const void* inlineBytes = nullptr, size_t inlineLen = 0);
  Status flushBatch(AsyncQueue& q);
  int firstDeviceOf(int rank) const;
  // Posts the receive for a reply that may carry `numValues` values and `inlineCapacity`
  // bytes of data (and, on error, a message of up to comm::kMaxReplyText).
  PendingReply& expectReply(AsyncQueue& q, int id, int tag, size_t numValues, size_t inlineCapacity, std::string what);
  // Whether [addr, addr+len) is memory of device `id` (an allocation or a global).
  bool holds(int id, uint64_t addr, uint64_t len) const;
  Status checkRange(int id, uint64_t addr, uint64_t len, const char* op) const;
  bool usm() const { return requires_ & abi::kReqUnifiedSharedMemory; }
  bool servesPages() const { return pagesOverMpi_ && usm(); }
  // Answers the page requests of devices that page this rank's memory over MPI.
  Status servePages();
  // A copy both of whose sides are rank 0's memory: a memcpy once the queue's earlier work,
  // whose kernels may write either side, has finished.
  Status copyInRank0(void* dst, const void* src, uint64_t n, AsyncQueue& q);
  // A device-to-device copy through a buffer of rank 0's: retrieve, then submit. For ranges
  // that overlap on one device, and for copies to or from a daemon's device, which has no
  // path to any other serving process.
  Status copyThroughRank0(int srcId, const void* src, int dstId, void* dst, uint64_t n, AsyncQueue& q);
  // The bytes of a submit, on the path describeData picks.
  Status submitBytes(int id, void* dst, const void* src, uint64_t n, AsyncQueue& q);
  // One transfer per node (node_copies.h): whether a submit of `n` bytes to device `id` may
  // be served from, and recorded for, the other devices of its node.
  bool sharesNodeCopies(int id, uint64_t n) const;
  Status submitShared(int id, void* dst, const void* src, uint64_t n, AsyncQueue& q);
  // Device `id`'s memory in [addr, addr+n) is about to change (n = 0: any of it may).
  void noteDeviceWrite(int id, uint64_t addr, uint64_t n);
  void countNetwork(int nodeA, int nodeB, uint64_t n);
  // Whether transport peer `rank` is a device daemon, not a rank of the MPI job.
  bool isDaemon(int rank) const { return rank >= world_.size(); }
  // A daemon that stopped answering fails what the queue waits for from it; the job goes on.
  void failDaemonWaits(AsyncQueue& q, int rank, const Status& st);
  Status lostPeer(int device, const std::string& awaited, Status st) const;
  Result<void*> allocateOnServer(int id, int64_t size, int32_t kind);
  // The device whose memory holds [addr, addr+len) when that range is no memory of this
  // process (see submit), or -1. Device `near` (the operation's own) is asked first; a range
  // that several other devices hold (GPUs of different ranks can share addresses) is an error.
  Result<int> remoteDeviceHolding(uint64_t addr, uint64_t len, int near, const char* op) const;
  Status shipImage(int id, const service::ImageRecord& image, comm::DataDesc& data, std::vector<uint8_t>& packed);
  // How `bytes` of rank 0's memory at `addr` travel to device `id`: inline in the message up
  // to FERRY_EAGER_LIMIT, read by the serving rank itself on the same node (CMA), else
  // pipelined over MPI on a tag of their own (queuePipeSend then sends them).
  comm::DataDesc describeData(int id, uint64_t bytes, const void* addr);
  Status queuePipeSend(AsyncQueue& q, int id, std::string what, const comm::DataDesc& data, const void* addr);
  Status progress(AsyncQueue& q);
  Status requestSyncs(AsyncQueue& q);
  // The Sync that confirms device `id`'s ops so far, with its reply expected under what it
  // confirms (AsyncQueue::syncWhat). The caller sends it, then notes the device confirmed.
  comm::SyncMsg syncRequest(AsyncQueue& q, int id);
  Status wait(AsyncQueue& q, const char* what);
  int frontDevice(const AsyncQueue& q) const;
  void watchPeers(AsyncQueue& q, const char* what);
  [[noreturn]] void endJobForLostPeer(int rank, const Status& st);
  // The error for a message that would go out after shutdown(), or OK.
  Status refusedAfterShutdown(comm::MsgType type) const;

  comm::World& world_;
  std::unique_ptr<comm::Transport> transport_;
  DeviceTable table_;
  std::vector<std::unique_ptr<RemoteDevice>> devices_;
  comm::TagPool tags_;
  std::atomic<uint64_t> seq_{1};
  int64_t requires_ = 0;
  mutable std::mutex rank0BlocksMutex_;
  std::map<uint64_t, uint64_t> rank0Blocks_;  // unified_shared_memory: address -> size
  std::mutex imagesMutex_;
  std::set<std::pair<int, uint64_t>> imagesOnRank_;  // (rank, image id) already shipped
  OffloadCounters counters_;
  std::atomic<bool> shutDown_{false};
  // Whether a wait past its spin time may sleep between polls (Backoff::afterSpinTime): only
  // where this machine runs more ranks than it has hardware threads. With sleeps of up to
  // 1 ms everywhere, a region whose kernel ran 2 ms took 2.78 ms.
  bool waitsRest_ = false;
  // One transfer per node. Recursive: exchange() notes its write while submitShared holds it
  // across the copy's two sends (node_copies.h says why it must).
  std::recursive_mutex nodeCopiesMutex_;
  NodeCopies nodeCopies_;
  std::map<int, int> devicesOnNode_;  // serving ranks' devices per node
  uint64_t nodeShareMin_ = 0;         // FERRY_NODE_SHARE_MIN, or 0 where FERRY_NODE_SHARE is off
  ImageRouter router_;
  DeviceOutput output_;
  std::set<uint16_t> machines_;
  // A device whose serving rank pages this rank's memory over MPI under unified shared memory
  // (comm/page_link.h): its kernels wait for this rank to answer, so waits answer them.
  bool pagesOverMpi_ = false;
};

}  // namespace ferry::offload
