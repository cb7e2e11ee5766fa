// Server ops that move bytes: image loads, submits, retrieves and device-to-device
// exchanges, over the path the issuer chose (inline, MPI pipe, or same-node CMA/memcpy).
#include <cstring>
#include <thread>

#include "comm/cma.h"
#include "platform/config.h"
#include "platform/copy.h"
#include "platform/parse.h"
#include "platform/log.h"
#include "service/server.h"

namespace ferry::service {

using comm::DataMode;
using comm::Stream;
using comm::MsgType;

namespace {
int pipelineDepth() { return static_cast<int>(config().integer(Knob::PipelineDepth)); }

// From this size a same-node copy between two processes is split between them: each
// process's core copies half, at the cost of two more control messages (a few us).
// process_vm_readv/writev runs on one core at 8-10 GB/s here, well below what the memory
// can take, so that doubles the rate where the copy takes longer than the messages.
constexpr uint64_t kSplitCopyMin = 256 * 1024;
}  // namespace

// Same-node copies: CMA with another process, memcpy within this one (rank 0's in-process
// server, or two devices of one rank).
Status Server::copyFromPeer(int peer, uint64_t remote, void* local, uint64_t len) {
  if (peer == transport_->self()) {
    copyBytes(local, reinterpret_cast<const void*>(remote), len);
    return {};
  }
  return comm::cmaRead(transport_->pidOf(peer), remote, local, len);
}

Status Server::copyToPeer(int peer, uint64_t remote, const void* local, uint64_t len) {
  if (peer == transport_->self()) {
    copyBytes(reinterpret_cast<void*>(remote), local, len);
    return {};
  }
  return comm::cmaWrite(transport_->pidOf(peer), remote, local, len);
}

// ---- images -------------------------------------------------------------------------

void Server::startLoadImage(uint32_t dev, Op& op) {
  auto& m = std::get<comm::LoadImageMsg>(op.body);
  if (images_.count(m.imageId)) return finishLoadImage(dev, op);
  if (m.data.size == 0)
    return finishHeavy(dev, op, Status(Errc::Protocol, "image " + hex(m.imageId) + " is not on this rank"));
  switch (m.data.mode) {
    case DataMode::Inline:
      op.imageBytes = std::move(op.payload);
      return finishLoadImage(dev, op);
    case DataMode::Cma: {
      op.imageBytes.resize(m.data.size);
      Status st = copyFromPeer(m.data.peer, m.data.remoteAddr, op.imageBytes.data(), m.data.size);
      if (!st) return finishHeavy(dev, op, std::move(st));
      return finishLoadImage(dev, op);
    }
    case DataMode::Mpi:
      op.imageBytes.resize(m.data.size);
      op.pipe = transport_->openStream(Stream::Dir::Recv, m.data.peer, m.data.tag, op.imageBytes.data(), m.data.size,
                      m.data.chunk, pipelineDepth());
      return poll(dev, op);
  }
}

// The image bytes are here (or cached): unpack them once per rank, then load on the device.
void Server::finishLoadImage(uint32_t dev, Op& op) {
  auto& m = std::get<comm::LoadImageMsg>(op.body);
  auto it = images_.find(m.imageId);
  if (it == images_.end()) {
    auto img = unpackImage(m.imageId, op.imageBytes.data(), op.imageBytes.size());
    op.imageBytes.clear();
    if (!img) return finishHeavy(dev, op, img.takeStatus());
    it = images_.emplace(m.imageId, std::make_shared<ImageRecord>(std::move(img.value()))).first;
  }
  std::shared_ptr<ImageRecord> image = it->second;
  if (image->entries.size() != m.numEntries)
    return finishHeavy(dev, op, Status(Errc::Protocol, "image " + hex(m.imageId) + " has " +
                                                           std::to_string(image->entries.size()) +
                                                           " entries, the host announced " + std::to_string(m.numEntries)));
  LocalDevice* device = devices_[dev].dev.get();
  int global = dev < globalIds_.size() ? globalIds_[dev] : static_cast<int>(dev);
  Op* o = &op;
  runHeavy(dev, op, [device, image, o, global] {
    auto table = device->loadImage(*image, global);
    if (!table) return table.takeStatus();
    o->values = std::move(table.value());
    return Status();
  });
}

// ---- where the bytes of a transfer live ------------------------------------------------
// A host-accessible device (CPU) is ordinary memory: MPI, CMA and memcpy use it in place.
// Any other device (GPU) is staged through a pinned buffer of its pool (staging_pool.h):
// outgoing bytes are read into op.stage and incoming ones land there. Over MPI the device
// copies go a chunk at a time on the device's copier thread (streamStaged), so that the
// network and the device copy overlap; same-node transfers copy all at once.

// The source of an outgoing transfer; a staged device's first `first` bytes are read now.
namespace {
Status takeStage(StagingPool& pool, Op& op, uint64_t len) {
  op.stage = pool.take(len);
  op.staged = 0;
  if (!op.stage) return Status(Errc::OutOfMemory, "no host memory for a staging buffer of " + parse::formatSize(len));
  return {};
}
}  // namespace

Result<const uint8_t*> Server::sourceBytes(uint32_t dev, Op& op, uint64_t addr, uint64_t len, uint64_t first) {
  if (devices_[dev].dev->hostAccessible()) return reinterpret_cast<const uint8_t*>(addr);
  if (Status st = takeStage(*devices_[dev].staging, op, len); !st) return st;
  if (Status st = fillStaged(dev, op, addr, first); !st) return st;
  return static_cast<const uint8_t*>(op.stage.data());
}

Result<uint8_t*> Server::sinkBytes(uint32_t dev, Op& op, uint64_t addr, uint64_t len) {
  if (devices_[dev].dev->hostAccessible()) return reinterpret_cast<uint8_t*>(addr);
  if (Status st = takeStage(*devices_[dev].staging, op, len); !st) return st;
  return op.stage.data();
}

// Reads the device's bytes [op.staged, upto) at `addr` into the staging buffer.
Status Server::fillStaged(uint32_t dev, Op& op, uint64_t addr, uint64_t upto) {
  if (!op.stage || upto <= op.staged) return {};
  Status st = devices_[dev].dev->read(op.stage.data() + op.staged, addr + op.staged, upto - op.staged);
  op.staged = upto;
  return st;
}

// A staged transfer over MPI moves its device bytes on the device's copier thread, one
// range at a time, while this thread keeps the network busy. A send reads the next chunk
// (staying a window of chunks ahead of what has arrived; the pipe posts only chunks already
// read); a receive writes what has arrived since the last write.
Status Server::streamStaged(uint32_t dev, Op& op) {
  if (op.copy && !op.copy->done.load(std::memory_order_acquire)) return {};
  if (Status st = settleCopy(op); !st) return st;
  const comm::DataDesc* data = dataOf(op);
  if (!op.stage || !data) return {};
  bool send = op.pipe->direction() == comm::Stream::Dir::Send;
  uint64_t upto = op.pipe->bytesDone();
  if (send) {
    op.pipe->setReady(op.staged);
    uint64_t window = static_cast<uint64_t>(pipelineDepth()) * data->chunk;
    upto = std::min({data->size, upto + window, op.staged + data->chunk});
  }
  if (upto <= op.staged) return {};
  LocalDevice* device = devices_[dev].dev.get();
  uint8_t* host = op.stage.data() + op.staged;
  uint64_t at = (send ? sourceAddressOf(op) : sinkAddressOf(op)) + op.staged, len = upto - op.staged;
  op.copyUpto = upto;
  op.copy = devices_[dev].copier->submit([device, host, at, len, send] {
    return send ? device->read(host, at, len) : device->write(at, host, len);
  });
  return {};
}

// Waits for an op's device copy in flight, if any, and takes its result. An op settles its
// copy before it completes: the copy uses the op's staging buffer.
Status Server::settleCopy(Op& op) {
  if (!op.copy) return {};
  while (!op.copy->done.load(std::memory_order_acquire)) std::this_thread::yield();
  Status st = std::move(op.copy->status);
  op.copy.reset();
  op.staged = op.copyUpto;
  return st;
}

// Writes the staged bytes [op.staged, upto) to the device at `addr` (no-op in place).
Status Server::flushStaged(uint32_t dev, Op& op, uint64_t addr, uint64_t upto) {
  if (!op.stage || upto <= op.staged) return {};
  Status st = devices_[dev].dev->write(addr + op.staged, op.stage.data() + op.staged, upto - op.staged);
  op.staged = upto;
  return st;
}

uint64_t sinkAddressOf(const Op& op) {
  if (const auto* m = std::get_if<comm::SubmitMsg>(&op.body)) return m->dst;
  if (const auto* m = std::get_if<comm::ExchangeMsg>(&op.body); m && op.type == MsgType::ExchangeRecv) return m->addr;
  return 0;
}

uint64_t sourceAddressOf(const Op& op) {
  if (const auto* m = std::get_if<comm::RetrieveMsg>(&op.body)) return m->src;
  if (const auto* m = std::get_if<comm::ExchangeMsg>(&op.body); m && op.type == MsgType::ExchangeSend) return m->addr;
  return 0;
}

// ---- host <-> device ------------------------------------------------------------------

void Server::startSubmit(uint32_t dev, Op& op) {
  auto& m = std::get<comm::SubmitMsg>(op.body);
  LocalDevice& d = *devices_[dev].dev;
  if (Status st = checkRange(dev, m.dst, m.data.size, "submit"); !st) {
    complete(dev, op, std::move(st));
    return drainIncoming(dev, op);
  }
  switch (m.data.mode) {
    case DataMode::Inline:
      return complete(dev, op, d.write(m.dst, m.inlineBytes, m.data.size));
    case DataMode::Cma: {
      auto sink = sinkBytes(dev, op, m.dst, m.data.size);
      if (!sink) return complete(dev, op, sink.takeStatus());
      Status st = copyFromPeer(m.data.peer, m.data.remoteAddr, *sink, m.data.size);
      if (st) st = flushStaged(dev, op, m.dst, m.data.size);
      return complete(dev, op, std::move(st));
    }
    case DataMode::Mpi: {
      auto sink = sinkBytes(dev, op, m.dst, m.data.size);
      if (!sink) {
        complete(dev, op, sink.takeStatus());
        return drainIncoming(dev, op);
      }
      op.pipe = transport_->openStream(Stream::Dir::Recv, m.data.peer, m.data.tag, *sink, m.data.size, m.data.chunk,
                      pipelineDepth());
      return poll(dev, op);
    }
  }
}

void Server::startRetrieve(uint32_t dev, Op& op) {
  auto& m = std::get<comm::RetrieveMsg>(op.body);
  Status st = checkRange(dev, m.src, m.data.size, "retrieve");
  const uint8_t* src = nullptr;
  if (st) {
    uint64_t first = m.data.mode == DataMode::Mpi ? std::min<uint64_t>(m.data.size, m.data.chunk) : m.data.size;
    auto bytes = sourceBytes(dev, op, m.src, m.data.size, first);
    if (bytes) src = *bytes;
    else st = bytes.takeStatus();
  }
  if (!st) {
    reply(op.client, m.replyTag, op.seq, withWhere(dev, op, st));
    return complete(dev, op, std::move(st));
  }
  switch (m.data.mode) {
    case DataMode::Inline:
      reply(op.client, m.replyTag, op.seq, {}, {}, src, m.data.size);
      return complete(dev, op, {});
    case DataMode::Cma:
      st = copyToPeer(m.data.peer, m.data.remoteAddr, src, m.data.size);
      reply(op.client, m.replyTag, op.seq, withWhere(dev, op, st));
      return complete(dev, op, std::move(st));
    case DataMode::Mpi:
      // The reply goes first on the same tag; the issuer posted its receive first.
      reply(op.client, m.replyTag, op.seq, {});
      if (linkBroken()) return complete(dev, op, Status(linkError_));
      op.pipe = transport_->openStream(Stream::Dir::Send, m.data.peer, m.replyTag, const_cast<uint8_t*>(src),
                      m.data.size, m.data.chunk, pipelineDepth());
      if (op.stage) op.pipe->setReady(op.staged);
      return poll(dev, op);
  }
}

// ---- device <-> device ----------------------------------------------------------------

void Server::startExchangeSend(uint32_t dev, Op& op) {
  auto& m = std::get<comm::ExchangeMsg>(op.body);
  Status st = checkRange(dev, m.addr, m.data.size, "exchange source");
  if (st) {
    uint64_t first = m.data.mode == DataMode::Mpi ? std::min<uint64_t>(m.data.size, m.data.chunk) : m.data.size;
    auto bytes = sourceBytes(dev, op, m.addr, m.data.size, first);
    if (bytes) op.source = *bytes;
    else st = bytes.takeStatus();
  }
  if (!st) {
    sendFin(m.data.peer, m.data.tag, st);
    abandonedSends_.insert({m.data.peer, m.data.tag});
    return complete(dev, op, std::move(st));
  }
  if (m.data.mode == DataMode::Mpi) {
    op.pipe = transport_->openStream(Stream::Dir::Send, m.data.peer, m.data.tag, const_cast<uint8_t*>(op.source),
                    m.data.size, m.data.chunk, pipelineDepth());
    if (op.stage) op.pipe->setReady(op.staged);
    return poll(dev, op);
  }
  XferKey key{m.data.peer, m.data.tag};
  if (auto it = earlyRtrs_.find(key); it != earlyRtrs_.end()) {
    comm::RtrMsg rtr = it->second;
    earlyRtrs_.erase(it);
    return pushToRendezvousPeer(dev, op, rtr);
  }
  op.awaitingRendezvous = true;
  sendsAwaitingRtr_[key] = {dev, &op};
}

// Same node: the receiver said where the bytes go; write them there in one copy, or, for a
// large copy to another process, half of them while the receiver reads the other half.
void Server::pushToRendezvousPeer(uint32_t dev, Op& op, const comm::RtrMsg& rtr) {
  auto& m = std::get<comm::ExchangeMsg>(op.body);
  op.awaitingRendezvous = false;
  if (rtr.size == 0 && m.data.size != 0) return complete(dev, op, {});  // the receiver failed and wants nothing
  Status st;
  if (rtr.size != m.data.size) {
    st = Status(Errc::Protocol, "receiver expects " + std::to_string(rtr.size) + " bytes, sender has " +
                                    std::to_string(m.data.size));
  } else if (m.data.peer != transport_->self() && m.data.size >= kSplitCopyMin) {
    return splitWithPeer(dev, op, rtr);
  } else {
    st = copyToPeer(m.data.peer, rtr.dstAddr, op.source, m.data.size);
  }
  sendFin(m.data.peer, m.data.tag, st);
  complete(dev, op, std::move(st));
}

// This rank writes [0, split); the receiver reads [split, size) from op.source once the Rts
// reaches it, and answers with a Fin (deliverFin), after which the source may go.
void Server::splitWithPeer(uint32_t dev, Op& op, const comm::RtrMsg& rtr) {
  auto& m = std::get<comm::ExchangeMsg>(op.body);
  uint64_t split = m.data.size / 2 / 4096 * 4096;
  comm::RtsMsg rts{m.data.tag, reinterpret_cast<uint64_t>(op.source), split, m.data.size};
  sendRts(m.data.peer, rts);
  if (linkBroken()) return complete(dev, op, Status(linkError_));
  sendsAwaitingFin_[{m.data.peer, m.data.tag}] = {dev, &op};
  op.awaitingRendezvous = true;
  log::debug(log::Service, "exchange of %s to rank %d split: this rank writes %s, that rank reads %s",
             parse::formatSize(m.data.size).c_str(), m.data.peer, parse::formatSize(split).c_str(),
             parse::formatSize(m.data.size - split).c_str());
  op.half = copyToPeer(m.data.peer, rtr.dstAddr, op.source, split);
}

void Server::awaitFin(uint32_t dev, Op& op, int peer, int32_t xfer) {
  XferKey key{peer, xfer};
  if (auto it = earlyFins_.find(key); it != earlyFins_.end()) {
    comm::FinMsg fin = it->second;
    earlyFins_.erase(it);
    op.state = Op::State::Running;
    recvsAwaitingFin_[key] = {dev, &op};
    return deliverFin(peer, fin);
  }
  op.awaitingRendezvous = true;
  recvsAwaitingFin_[key] = {dev, &op};
}

void Server::startExchangeRecv(uint32_t dev, Op& op) {
  auto& m = std::get<comm::ExchangeMsg>(op.body);
  if (Status st = checkRange(dev, m.addr, m.data.size, "exchange destination"); !st) {
    complete(dev, op, std::move(st));
    return drainIncoming(dev, op);
  }
  auto staged = sinkBytes(dev, op, m.addr, m.data.size);
  if (!staged) {
    complete(dev, op, staged.takeStatus());
    return drainIncoming(dev, op);
  }
  uint8_t* sink = *staged;
  op.sink = sink;
  if (m.data.mode == DataMode::Mpi) {
    op.pipe = transport_->openStream(Stream::Dir::Recv, m.data.peer, m.data.tag, sink, m.data.size, m.data.chunk,
                    pipelineDepth());
    // A failed sender sends a Fin instead of its chunks.
    awaitFin(dev, op, m.data.peer, m.data.tag);
    if (op.state == Op::State::Running) poll(dev, op);
    return;
  }
  awaitFin(dev, op, m.data.peer, m.data.tag);  // registered before the Rtr: a local Fin finds it
  if (op.state == Op::State::Running && op.awaitingRendezvous) {
    sendRtr(m.data.peer, m.data.tag, reinterpret_cast<uint64_t>(sink), m.data.size);
    if (linkBroken()) {
      recvsAwaitingFin_.erase({m.data.peer, m.data.tag});
      complete(dev, op, Status(linkError_));
    }
  }
}

// The op failed before its bytes arrived; still take them off the wire, so that the peer
// that sends them can finish, but throw them away.
void Server::drainIncoming(uint32_t dev, Op& op) {
  const comm::DataDesc* data = op.type == MsgType::Retrieve || op.type == MsgType::ExchangeSend ? nullptr : dataOf(op);
  if (op.type == MsgType::ExchangeRecv && data && data->mode != DataMode::Mpi) {
    sendRtr(data->peer, data->tag, 0, 0);  // "go ahead, I want nothing"
    return;
  }
  if (!data || data->mode != DataMode::Mpi || data->size == 0) return;
  // The drain completes through poll(); the op's error is already recorded on the device.
  op.state = Op::State::Running;
  op.pipe = transport_->openStream(Stream::Dir::Recv, data->peer, data->tag, nullptr, data->size, data->chunk, 1);
  // A sender that failed too sends a Fin instead of its chunks; that ends the drain.
  if (op.type == MsgType::ExchangeRecv) awaitFin(dev, op, data->peer, data->tag);
}

}  // namespace ferry::service
