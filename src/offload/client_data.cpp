// Rank 0's data operations: allocation in remote device memory, and the three kinds of
// transfer. Each picks its path from where the peer lives: inline in the control message
// when small, CMA when the serving rank shares rank 0's node, pipelined MPI otherwise.
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "comm/cma.h"
#include "offload/client.h"
#include "offload/host_memory.h"
#include "platform/config.h"
#include "platform/copy.h"
#include "platform/log.h"
#include "platform/parse.h"
#include "platform/ranges.h"

namespace ferry::offload {

using comm::DataMode;
using comm::MsgType;

namespace {

uint64_t eagerLimit() { return config().size(Knob::EagerLimit); }
uint32_t chunkSize() { return static_cast<uint32_t>(config().size(Knob::ChunkSize)); }
// Large blocks give their pages back to the serving rank's kernel when freed, beyond
// FERRY_DEVICE_RETAIN bytes per device that stay resident for reuse.
constexpr uint64_t kReleaseThreshold = 1 << 20;
uint64_t retainBudget() { return config().size(Knob::DeviceRetain); }

}  // namespace

bool Client::holds(int id, uint64_t addr, uint64_t len) const {
  RemoteDevice& d = *devices_[id];
  if (len == 0) return true;
  if (d.heap && d.heap->contains(addr, len)) return true;
  std::lock_guard lock(d.mutex);
  return insideBlock(d.globals, addr, len) || insideBlock(d.allocations, addr, len);
}

Status Client::checkRange(int id, uint64_t addr, uint64_t len, const char* op) const {
  if (holds(id, addr, len)) return {};
  return Status(Errc::InvalidArgument, std::string(op) + " of " + parse::formatSize(len) + " at device address " +
                                           hex(addr) + " on " + where(id) +
                                           ": the range is not inside memory allocated on that device");
}

// Whether [addr, addr+len) is mapped in this process (a CMA read of ourselves says so
// without a fault).
static bool mappedHere(uint64_t addr, uint64_t len) {
  uint8_t probe[1];
  return comm::cmaRead(getpid(), addr, probe, 1).isOk() && comm::cmaRead(getpid(), addr + len - 1, probe, 1).isOk();
}

Result<int> Client::remoteDeviceHolding(uint64_t addr, uint64_t len, int near, const char* op) const {
  auto remote = [&](int id) { return devices_[id]->entry.rank != transport_->self() && holds(id, addr, len); };
  int found = remote(near) ? near : -1, other = -1;
  if (found < 0) {
    for (int id = 0; id < numDevices() && other < 0; ++id) {
      if (!remote(id)) continue;
      if (found < 0) found = id;
      else other = id;
    }
  }
  // A host buffer may share the numbers of a remote range.
  if (found < 0 || mappedHere(addr, len)) return -1;
  if (other >= 0)
    return Status(Errc::InvalidArgument, std::string(op) + " on " + where(near) + ": its host-side address " +
                                             hex(addr) + " is no memory of rank 0 but lies in device memory of both " +
                                             where(found) + " and " + where(other) +
                                             ", so which device's bytes are meant is ambiguous; copy between devices "
                                             "with omp_target_memcpy and explicit device numbers");
  return found;
}

Result<void*> Client::allocate(int id, int64_t size, int32_t kind, const void* hostPtr) {
  RemoteDevice& d = *devices_[id];
  // omp_target_alloc takes a size_t, which libomptarget passes on as int64_t: a negative
  // size here asked for 8 EiB or more, most often a negative count converted to size_t.
  if (size < 0)
    return Status(Errc::OutOfMemory, "allocation of " + std::to_string(static_cast<uint64_t>(size)) + " bytes on " +
                                         where(id) + " cannot be met by any device (it is " + std::to_string(size) +
                                         " as a signed number: a negative size converted to size_t?)");
  if (kind == abi::kAllocHost) {
    // Host memory for a remote device is ordinary memory of rank 0, page-aligned.
    void* p = nullptr;
    if (posix_memalign(&p, 4096, size ? static_cast<size_t>(size) : 1) != 0)
      return Status(Errc::OutOfMemory, "cannot allocate " + parse::formatSize(size) + " of host memory on rank 0");
    std::lock_guard lock(d.mutex);
    d.hostAllocs.insert(p);
    return p;
  }
  if (usm()) {
    // Unified shared memory: kernels see rank 0's memory (a device of another rank pages it
    // in), so the memory allocated for a device is rank 0's as well, which the host may use
    // directly. The devices' own heaps go unused (CpuDevice::init gives them back).
    void* p = nullptr;
    if (posix_memalign(&p, 64, size ? static_cast<size_t>(size) : 1) != 0)
      return Status(Errc::OutOfMemory, "cannot allocate " + parse::formatSize(size) + " on rank 0 for " + where(id) +
                                           " (unified shared memory)");
    std::lock_guard lock(rank0BlocksMutex_);
    rank0Blocks_[reinterpret_cast<uint64_t>(p)] = static_cast<uint64_t>(std::max<int64_t>(size, 1));
    return p;
  }
  if (kind == abi::kAllocShared && d.entry.rank != transport_->self())
    return Status(Errc::Unsupported, "shared (host and device) memory cannot span processes: " + where(id) +
                                         " is served by another rank; use device memory and omp_target_memcpy");
  if (!d.heap) return allocateOnServer(id, size, kind);
  auto addr = d.heap->allocate(static_cast<uint64_t>(size), reinterpret_cast<uint64_t>(hostPtr));
  if (!addr)
    return Status(Errc::OutOfMemory,
                  "allocation of " + parse::formatSize(size) + " on " + where(id) + " does not fit: the device has " +
                      parse::formatSize(d.heap->capacity()) + " of memory, " +
                      parse::formatSize(d.heap->capacity() - d.heap->used()) + " free (largest block " +
                      parse::formatSize(d.heap->largestFree()) + "); " +
                      (isDaemon(d.entry.rank) ? "the daemon's FERRY_SERVE_MAX_MEMORY sets what one client may use"
                                              : "set FERRY_DEVICE_MEMORY to give devices more"));
  return reinterpret_cast<void*>(*addr);
}

// Devices whose memory their plugin manages (GPUs): one round trip per allocation.
Result<void*> Client::allocateOnServer(int id, int64_t size, int32_t kind) {
  AsyncQueue q;
  int tag = tags_.next();
  std::vector<uint64_t> addr;
  PendingReply& r = expectReply(q, id, tag, 1, 0, "data_alloc");
  r.valuesOut = &addr;
  if (Status st = send(id, MsgType::Alloc, comm::AllocMsg{0, static_cast<uint64_t>(size), kind, tag}); !st) return st;
  if (Status st = wait(q, "data_alloc"); !st) return st;
  if (addr.size() != 1 || addr[0] == 0) return Status(Errc::Protocol, "the allocation reply carries no address");
  RemoteDevice& d = *devices_[id];
  std::lock_guard lock(d.mutex);
  // The serving rank allocates whole 64-byte granules (PluginDevice::kGranule).
  d.allocations[addr[0]] = (static_cast<uint64_t>(std::max<int64_t>(size, 1)) + 63) / 64 * 64;
  return reinterpret_cast<void*>(addr[0]);
}

bool Client::inRank0Block(uint64_t addr, uint64_t len) const {
  if (!usm()) return false;
  std::lock_guard lock(rank0BlocksMutex_);
  return insideBlock(rank0Blocks_, addr, std::max<uint64_t>(len, 1));
}

Status Client::copyInRank0(void* dst, const void* src, uint64_t n, AsyncQueue& q) {
  if (Status st = synchronize(q); !st) return st;
  copyBytes(dst, src, n);
  return {};
}

Status Client::free(int id, void* ptr, int32_t kind) {
  RemoteDevice& d = *devices_[id];
  if (usm()) {
    std::lock_guard lock(rank0BlocksMutex_);
    if (rank0Blocks_.erase(reinterpret_cast<uint64_t>(ptr))) {
      std::free(ptr);
      return {};
    }
  }
  {
    std::lock_guard lock(d.mutex);
    if (d.hostAllocs.erase(ptr)) {
      std::free(ptr);
      return {};
    }
  }
  uint64_t addr = reinterpret_cast<uint64_t>(ptr);
  if (!d.heap) {
    // Plugin-managed memory: the serving rank frees it, in stream order.
    uint64_t size = 0;
    {
      std::lock_guard lock(d.mutex);
      auto it = d.allocations.find(addr);
      if (it == d.allocations.end())
        return Status(Errc::InvalidArgument, "free of " + hex(addr) + " on " + where(id) + ": not an allocated block");
      size = it->second;
      d.allocations.erase(it);
    }
    noteDeviceWrite(id, addr, size);
    return send(id, MsgType::Free, comm::FreeMsg{addr, size, kind});
  }
  uint64_t size = d.heap->free(addr);
  if (size == 0)
    return Status(Errc::InvalidArgument, "free of " + hex(addr) + " on " + where(id) + ": not an allocated block");
  noteDeviceWrite(id, addr, size);
  // Kept resident, a block allocated in its place costs no page faults: giving 1 MiB back
  // made the next map(to) of 1 MiB of fresh data fault in 256 pages and cost 2.7x the MPI
  // transfer (docs/performance.md, finding 1).
  if (size < kReleaseThreshold || d.heap->retain(size, retainBudget())) return {};
  // Queued behind earlier users of the block; the pages go back to the kernel.
  return send(id, MsgType::Free, comm::FreeMsg{addr, size, kind});
}

Status Client::submit(int id, void* dst, const void* src, int64_t size, AsyncQueue& q) {
  if (Status st = releaseDeferred(q); !st) return st;
  if (size <= 0) return {};
  uint64_t n = static_cast<uint64_t>(size);
  // libomptarget can name device memory as the "host" side (clang 16 lowers has_device_addr
  // inside use_device_addr to a copy from the device address): that is a device-to-device
  // copy, which the stock plugin gets right only because it shares one address space.
  auto from = remoteDeviceHolding(reinterpret_cast<uint64_t>(src), n, id, "data_submit");
  if (!from) return from.takeStatus();
  if (inRank0Block(reinterpret_cast<uint64_t>(dst), n))
    return *from >= 0 ? retrieve(*from, dst, src, size, q) : copyInRank0(dst, src, n, q);
  if (Status st = checkRange(id, reinterpret_cast<uint64_t>(dst), n, "data_submit"); !st) return st;
  if (*from >= 0) return exchange(*from, src, id, dst, size, q);
  if (sharesNodeCopies(id, n)) return submitShared(id, dst, src, n, q);
  noteDeviceWrite(id, reinterpret_cast<uint64_t>(dst), n);
  return submitBytes(id, dst, src, n, q);
}

Status Client::submitBytes(int id, void* dst, const void* src, uint64_t n, AsyncQueue& q) {
  comm::SubmitMsg m;
  m.dst = reinterpret_cast<uint64_t>(dst);
  m.data = describeData(id, n, src);
  counters_.hostToDeviceBytes.fetch_add(n, std::memory_order_relaxed);
  countNetwork(world_.self().node, devices_[id]->entry.node, n);
  q.noteNoReplyCopy(id, {"data_submit", n, -1, id});
  if (m.data.mode == DataMode::Inline) return queueSend(q, id, MsgType::Submit, m, src, n);
  // CMA: the serving rank reads the bytes out of rank 0's memory; the queue's synchronize
  // waits for that, as libomptarget keeps the buffer alive until then.
  if (Status st = queueSend(q, id, MsgType::Submit, m); !st) return st;
  if (m.data.mode == DataMode::Cma) return {};
  return queuePipeSend(q, id, "data_submit of " + parse::formatSize(n) + " to " + where(id), m.data, src);
}

Status Client::retrieve(int id, void* dst, const void* src, int64_t size, AsyncQueue& q) {
  if (Status st = releaseDeferred(q); !st) return st;
  if (size <= 0) return {};
  uint64_t n = static_cast<uint64_t>(size);
  auto to = remoteDeviceHolding(reinterpret_cast<uint64_t>(dst), n, id, "data_retrieve");
  if (!to) return to.takeStatus();
  if (inRank0Block(reinterpret_cast<uint64_t>(src), n))
    return *to >= 0 ? submit(*to, dst, src, size, q) : copyInRank0(dst, src, n, q);
  if (Status st = checkRange(id, reinterpret_cast<uint64_t>(src), n, "data_retrieve"); !st) return st;
  if (*to >= 0) return exchange(id, src, *to, dst, size, q);  // the "host" side is device memory (see submit)
  if (const std::string* object = readOnlyObjectAt(reinterpret_cast<uint64_t>(dst), n))
    return Status(Errc::InvalidArgument,
                  "data_retrieve of " + parse::formatSize(n) + " from " + where(id) + " into host address " +
                      hex(reinterpret_cast<uint64_t>(dst)) + ": that is read-only memory of " + *object +
                      " (a const global mapped 'from' or 'tofrom', or used in a region without 'declare target'? "
                      "map it 'to', or declare it with '#pragma omp declare target'); nothing was copied");
  const DeviceEntry& e = devices_[id]->entry;
  comm::RetrieveMsg m;
  m.src = reinterpret_cast<uint64_t>(src);
  m.replyTag = tags_.next();
  m.data.size = n;
  m.data.peer = transport_->self();
  counters_.deviceToHostBytes.fetch_add(n, std::memory_order_relaxed);
  countNetwork(world_.self().node, e.node, n);
  bool small = n <= eagerLimit();
  PendingReply& r = expectReply(q, id, m.replyTag, 0, small ? n : 0, "data_retrieve");
  r.bytes = n;
  if (small) {
    r.copyTo = dst;
    r.copyLen = n;
  } else if (transport_->pathTo(e.rank) != comm::Path::Mpi) {
    m.data.mode = DataMode::Cma;
    m.data.remoteAddr = reinterpret_cast<uint64_t>(dst);
  } else {
    m.data.mode = DataMode::Mpi;
    m.data.chunk = chunkSize();
    // The chunks follow the reply on the same tag; these receives are posted after the
    // reply's, so MPI's ordering matches each to its place.
    r.pipe = transport_->openStream(comm::Stream::Dir::Recv, e.rank, m.replyTag, dst, n, m.data.chunk, kAllChunks);
    if (Status st = r.pipe->progress().takeStatus(); !st) return st;
  }
  if (Status st = queueSend(q, id, MsgType::Retrieve, m); !st) return st;
  if (q.devices[id] == DeviceSync::Fenced) q.noteConfirmed(id);  // this reply confirms the fence
  return {};
}

Status Client::exchange(int srcId, const void* src, int dstId, void* dst, int64_t size, AsyncQueue& q) {
  if (Status st = flushQueue(q, false); !st) return st;
  if (size <= 0) return {};
  uint64_t n = static_cast<uint64_t>(size);
  bool srcHere = inRank0Block(reinterpret_cast<uint64_t>(src), n), dstHere = inRank0Block(reinterpret_cast<uint64_t>(dst), n);
  if (srcHere && dstHere) return copyInRank0(dst, src, n, q);
  if (srcHere) return submit(dstId, dst, src, size, q);
  if (dstHere) return retrieve(srcId, dst, src, size, q);
  if (Status st = checkRange(srcId, reinterpret_cast<uint64_t>(src), n, "data_exchange source"); !st) return st;
  if (Status st = checkRange(dstId, reinterpret_cast<uint64_t>(dst), n, "data_exchange destination"); !st) return st;
  noteDeviceWrite(dstId, reinterpret_cast<uint64_t>(dst), n);
  uint64_t from = reinterpret_cast<uint64_t>(src), to = reinterpret_cast<uint64_t>(dst);
  const DeviceEntry& s = devices_[srcId]->entry;
  const DeviceEntry& d = devices_[dstId]->entry;
  if ((srcId == dstId && from < to + n && to < from + n) || isDaemon(s.rank) || isDaemon(d.rank))
    return copyThroughRank0(srcId, src, dstId, dst, n, q);
  // Rank 0 sends two commands and no bytes: the serving ranks move the data between them.
  comm::Path path = transport_->pathBetween(s.rank, d.rank);
  comm::DataDesc data;
  data.size = n;
  data.tag = tags_.next();
  data.mode = path == comm::Path::Mpi ? DataMode::Mpi : DataMode::Cma;
  data.chunk = chunkSize();
  comm::ExchangeMsg toSrc{reinterpret_cast<uint64_t>(src), data};
  toSrc.data.peer = d.rank;
  comm::ExchangeMsg toDst{reinterpret_cast<uint64_t>(dst), data};
  toDst.data.peer = s.rank;
  if (Status st = sendPair(dstId, MsgType::ExchangeRecv, toDst, srcId, MsgType::ExchangeSend, toSrc); !st) return st;
  counters_.deviceToDeviceBytes.fetch_add(n, std::memory_order_relaxed);
  countNetwork(s.node, d.node, n);
  if (log::enabled(log::Level::Trace, log::Offload))
    log::trace(log::Offload, "exchange %s from %s to %s over %s", parse::formatSize(n).c_str(), where(srcId).c_str(),
               where(dstId).c_str(), comm::pathName(path));
  q.noteNoReplyCopy(srcId, {"data_exchange", n, srcId, dstId});
  q.noteNoReplyCopy(dstId, {"data_exchange", n, srcId, dstId});
  return {};
}

// Overlapping ranges on one device: the exchange's two operations would wait for each other
// on that device's stream (the receive writes what the send reads). A round trip through
// rank 0 gives memmove's result, as libomptarget's own fallback for such copies does. A
// daemon's device has no path to another serving process, so its copies take the same way.
Status Client::copyThroughRank0(int srcId, const void* src, int dstId, void* dst, uint64_t n, AsyncQueue& q) {
  std::vector<uint8_t> bounce(n);
  if (Status st = retrieve(srcId, bounce.data(), src, static_cast<int64_t>(n), q); !st) return st;
  if (Status st = synchronize(q); !st) return st;
  if (Status st = submit(dstId, dst, bounce.data(), static_cast<int64_t>(n), q); !st) return st;
  return synchronize(q);  // the bounce buffer goes when this returns
}

// ---- one transfer per node (node_copies.h) ----------------------------------------------

bool Client::sharesNodeCopies(int id, uint64_t n) const {
  const DeviceEntry& e = devices_[id]->entry;
  if (nodeShareMin_ == 0 || n < nodeShareMin_ || isDaemon(e.rank) || e.node == world_.self().node) return false;
  auto it = devicesOnNode_.find(e.node);
  return it != devicesOnNode_.end() && it->second > 1;
}

// The first device of a node to get these bytes gets them over the network; rank 0 records
// where they are (digesting them after they are posted, while the network moves them, unless
// a record of that size already asked for the digest first). A later device of that node gets
// them from there, if the digest of its host bytes says they are the same.
Status Client::submitShared(int id, void* dst, const void* src, uint64_t n, AsyncQueue& q) {
  const DeviceEntry& e = devices_[id]->entry;
  NodeCopy mine{e.node, id, reinterpret_cast<uint64_t>(dst), n, {}};
  bool digested = false;
  {
    std::lock_guard lock(nodeCopiesMutex_);
    digested = nodeCopies_.holdsSize(e.node, n, id);
  }
  // Digested without the lock: other threads' launches and transfers take it.
  if (digested) mine.digest = digestOf(src, n);
  {
    std::lock_guard lock(nodeCopiesMutex_);
    if (auto held = digested ? nodeCopies_.find(e.node, n, mine.digest, id) : std::nullopt) {
      // Both halves of the copy go out under the lock: a kernel launched meanwhile on the
      // source device is sent after them, so the copy reads what the record says is there.
      if (Status st = exchange(held->device, reinterpret_cast<void*>(held->address), id, dst, static_cast<int64_t>(n), q);
          !st)
        return st;
      counters_.nodeCopyBytes.fetch_add(n, std::memory_order_relaxed);
      log::debug(log::Offload, "data_submit of %s to %s: copied from %s on its node, not sent again",
                 parse::formatSize(n).c_str(), where(id).c_str(), where(held->device).c_str());
      nodeCopies_.add(mine);
      return {};
    }
    nodeCopies_.forget(id, mine.address, n);
  }
  if (Status st = submitBytes(id, dst, src, n, q); !st) return st;
  // Sent before it is recorded: a copy another thread then starts from it reaches the serving
  // rank after the submit, and its stream orders the two.
  if (Status st = flushBatch(q); !st) return st;
  if (!digested) mine.digest = digestOf(src, n);
  std::lock_guard lock(nodeCopiesMutex_);
  nodeCopies_.add(mine);
  return {};
}

void Client::noteDeviceWrite(int id, uint64_t addr, uint64_t n) {
  if (nodeShareMin_ == 0) return;
  std::lock_guard lock(nodeCopiesMutex_);
  if (n == 0) nodeCopies_.forgetDevice(id);
  else nodeCopies_.forget(id, addr, n);
}

void Client::countNetwork(int nodeA, int nodeB, uint64_t n) {
  if (nodeA != nodeB || nodeA < 0) counters_.networkBytes.fetch_add(n, std::memory_order_relaxed);
}

}  // namespace ferry::offload
