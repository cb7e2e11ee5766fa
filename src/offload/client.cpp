#include "offload/client.h"
#include "offload/host_image.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "comm/mpi_check.h"
#include "platform/config.h"
#include "platform/log.h"
#include "platform/parse.h"

namespace ferry::offload {

using comm::MsgType;

namespace {
Client* gClient = nullptr;  // never destroyed: libomptarget calls in after static destructors
}  // namespace

Client* Client::instance() { return gClient; }
void Client::setInstance(Client* c) { gClient = c; }

Client::Client(comm::World& world, std::unique_ptr<comm::Transport> transport, DeviceTable table)
    : world_(world), transport_(std::move(transport)), table_(std::move(table)), output_(*transport_) {
  waitsRest_ = world.machineOversubscribed();
  if (config().flag(Knob::NodeShare)) nodeShareMin_ = config().size(Knob::NodeShareMin);
  tags_.setUpperBound(transport_->tagUpperBound());
  for (const auto& e : table_.entries()) {
    machines_.insert(machineOf(e));
    if (e.rank < world.size())  // a daemon's devices (issue 28) page nothing of this rank's
      pagesOverMpi_ |= e.rank != world.rank() && (world.peer(e.rank).node != world.self().node || !world.cmaEnabled());
    if (e.node >= 0) ++devicesOnNode_[e.node];
    auto d = std::make_unique<RemoteDevice>();
    d->entry = e;
    if (e.clientHeap) d->heap = std::make_unique<DeviceAllocator>(e.heapBase, e.memoryBytes);
    devices_.push_back(std::move(d));
  }
}

std::string Client::where(int id) const {
  const DeviceEntry& e = devices_[id]->entry;
  if (isDaemon(e.rank)) return "device " + std::to_string(id) + " (daemon " + e.host + ")";
  return "device " + std::to_string(id) + " (rank " + std::to_string(e.rank) + ", host " + e.host + ")";
}

std::vector<uint8_t> Client::encodeFor(int id, MsgType type, const comm::Body& body, const void* inlineBytes,
                                       size_t inlineLen) {
  uint64_t seq = seq_.fetch_add(1);
  if (log::enabled(log::Level::Trace, log::Offload))
    log::trace(log::Offload, "send %s seq %llu to %s", comm::msgTypeName(type), static_cast<unsigned long long>(seq),
               where(id).c_str());
  return comm::encode(type, static_cast<uint32_t>(devices_[id]->entry.localIndex), seq, body, inlineBytes, inlineLen);
}

Status Client::refusedAfterShutdown(MsgType type) const {
  if (!shutDown_) return {};
  return Status(Errc::Unavailable,
                std::string(comm::msgTypeName(type)) + " after Ferry shut down at exit was skipped (MPI has ended)");
}

Status Client::send(int id, MsgType type, const comm::Body& body, const void* inlineBytes, size_t inlineLen) {
  if (Status st = refusedAfterShutdown(type); !st) return st;
  counters_.controlMessages.fetch_add(1, std::memory_order_relaxed);
  return transport_->send(devices_[id]->entry.rank, comm::kControlTag, encodeFor(id, type, body, inlineBytes, inlineLen));
}

// The two halves of a device-to-device copy, with no other control message between them in
// the order every serving rank receives: otherwise a kernel of another host thread could
// land between them on both devices, each stream's receive would then wait behind a kernel
// for the other stream's send, which waits behind that stream's kernel, and so round. With
// the halves adjacent, the earliest unfinished operation of all can always run.
Status Client::sendPair(int idA, MsgType typeA, const comm::Body& bodyA, int idB, MsgType typeB,
                        const comm::Body& bodyB) {
  if (Status st = refusedAfterShutdown(typeA); !st) return st;
  counters_.controlMessages.fetch_add(2, std::memory_order_relaxed);
  return transport_->sendPair(devices_[idA]->entry.rank, encodeFor(idA, typeA, bodyA, nullptr, 0),
                          devices_[idB]->entry.rank, encodeFor(idB, typeB, bodyB, nullptr, 0), comm::kControlTag);
}

Status Client::queueSend(AsyncQueue& q, int id, MsgType type, const comm::Body& body, const void* inlineBytes,
                         size_t inlineLen) {
  if (Status st = refusedAfterShutdown(type); !st) return st;
  auto bytes = encodeFor(id, type, body, inlineBytes, inlineLen);
  // The batch, its header and the item lengths must fit one control message.
  constexpr size_t kRoom = comm::kMaxControlMessage - comm::kHeaderSize - sizeof(uint32_t);
  size_t need = bytes.size() + comm::kBatchItemOverhead;
  if (!q.batch.empty() && (q.batchDevice != id || q.batchBytes + need > kRoom))
    if (Status st = flushBatch(q); !st) return st;
  q.batchDevice = id;
  q.batchBytes += need;
  q.batch.push_back(std::move(bytes));
  return {};
}

Status Client::flushBatch(AsyncQueue& q) {
  if (q.batch.empty()) return {};
  int rank = devices_[q.batchDevice]->entry.rank;
  std::vector<uint8_t> bytes;
  if (q.batch.size() == 1) {
    bytes = std::move(q.batch.front());
  } else {
    comm::BatchMsg b;
    for (const auto& item : q.batch) b.items.emplace_back(item.data(), item.size());
    bytes = comm::encode(MsgType::Batch, comm::kNoDevice, seq_.fetch_add(1), b);
  }
  q.batch.clear();
  q.batchBytes = 0;
  counters_.controlMessages.fetch_add(1, std::memory_order_relaxed);
  return transport_->send(rank, comm::kControlTag, std::move(bytes));
}

PendingReply& Client::expectReply(AsyncQueue& q, int id, int tag, size_t numValues, size_t inlineCapacity,
                                  std::string what) {
  auto r = std::make_unique<PendingReply>();
  r->peer = devices_[id]->entry.rank;
  r->tag = tag;
  r->device = id;
  r->what = std::move(what);
  // Posted before the request goes out, so the reply never waits in an unexpected queue.
  auto recv = transport_->expect(r->peer, tag, comm::replyCapacity(numValues, inlineCapacity));
  if (recv) {
    r->recv = std::move(*recv);
  } else {
    r->replied = true;
    r->status = recv.takeStatus();
  }
  q.replies.push_back(std::move(r));
  return *q.replies.back();
}

Status Client::initDevice(int id) {
  RemoteDevice& d = *devices_[id];
  {
    std::lock_guard lock(d.mutex);
    if (d.initialized) return {};
  }
  AsyncQueue q;
  int tag = tags_.next();
  expectReply(q, id, tag, 0, 0, "init_device");
  if (Status st = send(id, MsgType::InitDevice, comm::InitDeviceMsg{requires_, tag, id, numDevices()}); !st) return st;
  if (Status st = wait(q, "init_device"); !st) return st;
  std::lock_guard lock(d.mutex);
  d.initialized = true;
  return {};
}

// Sends the image bytes to the serving rank unless it already has them (one copy per rank,
// however many devices it serves).
Status Client::shipImage(int id, const service::ImageRecord& image, comm::DataDesc& data,
                         std::vector<uint8_t>& packed) {
  const DeviceEntry& e = devices_[id]->entry;
  {
    std::lock_guard lock(imagesMutex_);
    if (imagesOnRank_.count({e.rank, image.id})) return {};  // data.size stays 0: "you have it"
  }
  packed = service::packImage(image);
  data = describeData(id, packed.size(), packed.data());
  return {};
}

comm::DataDesc Client::describeData(int id, uint64_t bytes, const void* addr) {
  comm::DataDesc data;
  data.size = bytes;
  data.peer = transport_->self();
  if (bytes <= config().size(Knob::EagerLimit)) {
    data.mode = comm::DataMode::Inline;
  } else if (transport_->pathTo(devices_[id]->entry.rank) != comm::Path::Mpi) {
    data.mode = comm::DataMode::Cma;
    data.remoteAddr = reinterpret_cast<uint64_t>(addr);
  } else {
    data.mode = comm::DataMode::Mpi;
    data.tag = tags_.next();
    data.chunk = static_cast<uint32_t>(config().size(Knob::ChunkSize));
  }
  return data;
}

Status Client::queuePipeSend(AsyncQueue& q, int id, std::string what, const comm::DataDesc& data, const void* addr) {
  // Over MPI the chunks may overtake the op that takes them (matching is by tag). On a
  // daemon's channel they would arrive first and be kept and copied: the op goes out first.
  if (isDaemon(devices_[id]->entry.rank))
    if (Status st = flushBatch(q); !st) return st;
  q.sends.push_back(std::make_unique<PendingSend>(
      PendingSend{id, std::move(what),
                  transport_->openStream(comm::Stream::Dir::Send, devices_[id]->entry.rank, data.tag,
                                         const_cast<void*>(addr), data.size, data.chunk, kAllChunks)}));
  return q.sends.back()->pipe->progress().takeStatus();
}

Result<__tgt_target_table*> Client::loadBinary(int id, const __tgt_device_image* offered) {
  auto routed = router_.select(offered, machineOf(devices_[id]->entry));
  if (!routed) return routed.takeStatus();
  const __tgt_device_image* image = *routed;
  auto rec = recordFromImage(image);
  if (!rec) return rec.takeStatus();
  if (Status st = initDevice(id); !st) return st;
  noteDeviceWrite(id, 0, 0);  // the image's globals and constructors write the device
  RemoteDevice& d = *devices_[id];

  comm::LoadImageMsg msg;
  msg.imageId = rec->id;
  msg.numEntries = static_cast<uint32_t>(rec->entries.size());
  msg.replyTag = tags_.next();
  std::vector<uint8_t> packed;
  if (Status st = shipImage(id, *rec, msg.data, packed); !st) return st;

  AsyncQueue q;
  std::vector<uint64_t> addrs;
  PendingReply& r = expectReply(q, id, msg.replyTag, rec->entries.size(), 0, "load_binary");
  r.valuesOut = &addrs;
  bool inlineBytes = msg.data.mode == comm::DataMode::Inline && msg.data.size > 0;
  if (Status st = send(id, MsgType::LoadImage, msg, inlineBytes ? packed.data() : nullptr,
                       inlineBytes ? packed.size() : 0);
      !st)
    return st;
  if (msg.data.mode == comm::DataMode::Mpi && msg.data.size > 0)
    if (Status st = queuePipeSend(q, id, "image transfer", msg.data, packed.data()); !st) return st;
  if (Status st = wait(q, "load_binary"); !st) return st;
  if (addrs.size() != rec->entries.size())
    return Status(Errc::Protocol, "the serving rank returned " + std::to_string(addrs.size()) + " table entries for " +
                                      std::to_string(rec->entries.size()));
  {
    std::lock_guard lock(imagesMutex_);
    imagesOnRank_.insert({d.entry.rank, rec->id});
  }

  std::lock_guard lock(d.mutex);
  auto& table = d.tables[rec->id];
  table.assign(image->EntriesBegin, image->EntriesEnd);
  for (size_t i = 0; i < table.size(); ++i) {
    if (rec->entries[i].size == 0) {
      d.kernels.push_back(std::make_unique<KernelRef>(KernelRef{id, addrs[i], rec->entries[i].name}));
      table[i].addr = d.kernels.back().get();
    } else {
      table[i].addr = reinterpret_cast<void*>(addrs[i]);
      d.globals[addrs[i]] = rec->entries[i].size;
    }
  }
  // libomptarget keeps this pointer and never frees it: the device record owns it, beside
  // the table it points into (allocated with new, it leaked: LeakSanitizer, at rank 0's exit).
  __tgt_target_table& out = d.tableHeads[rec->id];
  out = {table.data(), table.data() + table.size()};
  log::debug(log::Offload, "loaded image %s (%zu entries) on %s", hex(rec->id).c_str(), table.size(), where(id).c_str());
  return &out;
}

// A region that uses a C stream receives the host's FILE*, which means nothing in another
// process; see comm::kStdoutToken.
static uint64_t streamToken(void* arg) {
  if (arg == static_cast<void*>(stdout)) return comm::kStdoutToken;
  if (arg == static_cast<void*>(stderr)) return comm::kStderrToken;
  if (arg == static_cast<void*>(stdin)) return comm::kStdinToken;
  return reinterpret_cast<uint64_t>(arg);
}

Status Client::launch(int id, void* entry, void** args, ptrdiff_t* offsets, const KernelArgsTy* ka, AsyncQueue& q) {
  auto* k = static_cast<KernelRef*>(entry);
  if (!k || k->device != id)
    return Status(Errc::InvalidArgument, "kernel entry " + hex(reinterpret_cast<uint64_t>(entry)) +
                                             " does not belong to " + where(id));
  if (ka->NumArgs > comm::kMaxKernelArgs)
    return Status(Errc::Unsupported, "kernel " + k->name + " has " + std::to_string(ka->NumArgs) +
                                         " arguments; at most " + std::to_string(comm::kMaxKernelArgs) + " are supported");
  if (Status st = releaseDeferred(q); !st) return st;
  comm::LaunchMsg m;
  m.kernel = k->handle;
  m.numTeams = ka->NumTeams[0];
  m.threadLimit = ka->ThreadLimit[0];
  m.tripCount = ka->Tripcount;
  m.args.resize(ka->NumArgs);
  m.offsets.resize(ka->NumArgs);
  for (uint32_t i = 0; i < ka->NumArgs; ++i) {
    m.args[i] = streamToken(args[i]);
    m.offsets[i] = offsets ? static_cast<int64_t>(offsets[i]) : 0;
  }
  counters_.kernelsLaunched.fetch_add(1, std::memory_order_relaxed);
  noteDeviceWrite(id, 0, 0);  // what the kernel writes is not known
  q.deferred = DeferredLaunch{id, std::move(m)};
  q.noteBarrier(id);
  return {};
}

Status Client::releaseDeferred(AsyncQueue& q, bool confirm) {
  if (!q.deferred) return {};
  DeferredLaunch d = std::move(*q.deferred);
  q.deferred.reset();
  if (confirm) {
    d.msg.replyTag = tags_.next();
    expectReply(q, d.device, d.msg.replyTag, 0, 0, "launch_kernel");
    q.noteConfirmed(d.device);  // the reply confirms the kernel and all before it
  }
  return queueSend(q, d.device, MsgType::Launch, d.msg);
}

Status Client::flushQueue(AsyncQueue& q, bool confirm) {
  if (Status st = releaseDeferred(q, confirm); !st) return st;
  if (confirm) {
    // Devices not yet confirmed get a Sync, in the batch when they are its device.
    for (auto& [id, state] : q.devices) {
      if (state == DeviceSync::Clean) continue;
      if (Status st = queueSend(q, id, MsgType::Sync, syncRequest(q, id)); !st) return st;
      q.noteConfirmed(id);
    }
  }
  return flushBatch(q);
}

int Client::firstDeviceOf(int rank) const {
  for (int id = 0; id < numDevices(); ++id)
    if (devices_[id]->entry.rank == rank) return id;
  return -1;
}

Result<double> Client::mpiBaseline(int rankA, int rankB, const comm::BaselineSpec& spec) {
  if (rankA == rankB || rankA < 0 || rankB < 0 || rankA >= transport_->size() || rankB >= transport_->size())
    return Status(Errc::InvalidArgument, "a baseline needs two different ranks of this job");
  if (rankA != transport_->self() && firstDeviceOf(rankA) < 0)
    return Status(Errc::InvalidArgument, "rank " + std::to_string(rankA) + " serves no device");
  if (rankB != transport_->self() && firstDeviceOf(rankB) < 0)
    return Status(Errc::InvalidArgument, "rank " + std::to_string(rankB) + " serves no device");
  auto toRank = [&](int rank, const comm::BaselineMsg& m) {
    return transport_->send(rank, comm::kControlTag,
                        comm::encode(MsgType::Baseline, comm::kNoDevice, seq_.fetch_add(1), m));
  };
  comm::BaselineMsg responder{rankA, static_cast<uint8_t>(spec.kind), 0, spec.bytes, spec.warmup, spec.iters,
                              spec.window, 0};
  // This rank answers when it is rank_b: no server loop runs here to take the message.
  bool iRespond = rankB == transport_->self();
  if (!iRespond)
    if (Status st = toRank(rankB, responder); !st) return st;
  if (rankA == transport_->self()) {
    auto seconds = transport_->baseline(rankB, true, spec);
    // The message that started rank_b must be gone before its buffer is; a send that fails
    // is the baseline's failure (and would otherwise keep this loop waiting for ever).
    while (transport_->pendingSends() > 0)
      if (Status st = transport_->reap(); !st) return st;
    return seconds;
  }
  // A serving rank times it: rank 0 starts it, answers it if it is the peer, and collects
  // the initiator's time.
  comm::BaselineMsg initiator = responder;
  initiator.peer = rankB;
  initiator.initiator = 1;
  initiator.replyTag = tags_.next();
  AsyncQueue q;
  std::vector<uint64_t> ns;
  PendingReply& r = expectReply(q, firstDeviceOf(rankA), initiator.replyTag, 1, 0, "mpi_baseline");
  r.valuesOut = &ns;
  if (Status st = toRank(rankA, initiator); !st) return st;
  if (iRespond)
    if (Status st = transport_->baseline(rankA, false, spec).takeStatus(); !st)
      return st.withContext("answering rank " + std::to_string(rankA) + "'s MPI baseline");
  if (Status st = wait(q, "mpi_baseline"); !st) return st;
  if (ns.size() != 1) return Status(Errc::Protocol, "the baseline reply carries no time");
  return static_cast<double>(ns[0]) * 1e-9;
}

Status Client::setInfoFlag(uint32_t flags) {
  Status first;
  for (int r = 0; r < transport_->size(); ++r) {
    if (firstDeviceOf(r) < 0) continue;
    auto bytes = comm::encode(MsgType::SetInfo, comm::kNoDevice, seq_.fetch_add(1), comm::SetInfoMsg{flags});
    if (Status st = transport_->send(r, comm::kControlTag, std::move(bytes)); !st && first) first = st;
  }
  return first;
}

Status Client::shutdown() {
  // Flush every device first, so that a late error is still reported, then release the
  // serving ranks. Ranks that serve nothing are released too: all of them wait in
  // their server loop.
  Status first;
  for (int id = 0; id < numDevices(); ++id) {
    bool used;
    {
      std::lock_guard lock(devices_[id]->mutex);
      used = devices_[id]->initialized;
    }
    if (!used) continue;
    if (Status st = syncDevice(id); !st && first) first = st;
  }
  for (int r = 0; r < transport_->size(); ++r) {
    bool serves = r != transport_->self() || std::any_of(devices_.begin(), devices_.end(),
                                                    [&](const auto& d) { return d->entry.rank == r; });
    if (!serves) continue;
    auto bytes = comm::encode(MsgType::Shutdown, comm::kNoDevice, seq_.fetch_add(1), comm::ShutdownMsg{});
    if (Status st = transport_->send(r, comm::kControlTag, std::move(bytes)); !st && first) first = st;
  }
  while (transport_->pendingSends() > 0)
    if (Status st = transport_->reap(); !st) return st;
  shutDown_ = true;
  return first;
}

}  // namespace ferry::offload
