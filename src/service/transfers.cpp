// Server ops that move bytes: image loads, submits, retrieves and device-to-device
// exchanges, over the path the issuer chose (inline, MPI pipe, or same-node CMA/memcpy).
#include <cstring>

#include "comm/cma.h"
#include "platform/config.h"
#include "platform/parse.h"
#include "platform/log.h"
#include "service/server.h"

namespace ferry::service {

using comm::DataMode;
using comm::MpiPipe;
using comm::MsgType;

namespace {
int pipelineDepth() { return static_cast<int>(config().integer(Knob::PipelineDepth)); }
}  // namespace

// Same-node copies: CMA with another process, memcpy within this one (rank 0's in-process
// server, or two devices of one rank).
Status Server::copyFromPeer(int peer, uint64_t remote, void* local, uint64_t len) {
  if (peer == world_.rank()) {
    std::memcpy(local, reinterpret_cast<const void*>(remote), len);
    return {};
  }
  return comm::cmaRead(world_.peer(peer).pid, remote, local, len);
}

Status Server::copyToPeer(int peer, uint64_t remote, const void* local, uint64_t len) {
  if (peer == world_.rank()) {
    std::memcpy(reinterpret_cast<void*>(remote), local, len);
    return {};
  }
  return comm::cmaWrite(world_.peer(peer).pid, remote, local, len);
}

void classifyHazards(Op& op) {
  auto range = [](uint64_t addr, uint64_t len) { return Range{addr, addr + len}; };
  switch (op.type) {
    case MsgType::Submit: {
      auto& m = std::get<comm::SubmitMsg>(op.body);
      op.writes = range(m.dst, m.data.size);
      break;
    }
    case MsgType::Retrieve: {
      auto& m = std::get<comm::RetrieveMsg>(op.body);
      op.reads = range(m.src, m.data.size);
      break;
    }
    case MsgType::ExchangeSend: {
      auto& m = std::get<comm::ExchangeMsg>(op.body);
      op.reads = range(m.addr, m.data.size);
      break;
    }
    case MsgType::ExchangeRecv: {
      auto& m = std::get<comm::ExchangeMsg>(op.body);
      op.writes = range(m.addr, m.data.size);
      break;
    }
    case MsgType::Free: {
      auto& m = std::get<comm::FreeMsg>(op.body);
      op.writes = range(m.addr, m.size);  // its contents are gone afterwards
      break;
    }
    case MsgType::Alloc:
      break;  // touches nothing that an earlier op uses
    default:
      op.barrier = true;  // kernels, image loads, init and sync order everything
  }
}

// ---- images -------------------------------------------------------------------------

void Server::startLoadImage(uint32_t dev, Op& op) {
  auto& m = std::get<comm::LoadImageMsg>(op.body);
  if (images_.count(m.imageId)) return finishLoadImage(dev, op);
  if (m.data.size == 0)
    return finishHeavy(dev, op, Status(Errc::Protocol, "image " + hex(m.imageId) + " is not on this rank"));
  switch (m.data.mode) {
    case DataMode::Inline:
      op.staging = std::move(op.payload);
      return finishLoadImage(dev, op);
    case DataMode::Cma: {
      op.staging.resize(m.data.size);
      Status st = copyFromPeer(m.data.peer, m.data.remoteAddr, op.staging.data(), m.data.size);
      if (!st) return finishHeavy(dev, op, std::move(st));
      return finishLoadImage(dev, op);
    }
    case DataMode::Mpi:
      op.staging.resize(m.data.size);
      op.pipe.emplace(MpiPipe::Dir::Recv, world_.comm(), m.data.peer, m.data.tag, op.staging.data(), m.data.size,
                      m.data.chunk, pipelineDepth());
      return poll(dev, op);
  }
}

// The image bytes are here (or cached): unpack them once per rank, then load on the device.
void Server::finishLoadImage(uint32_t dev, Op& op) {
  auto& m = std::get<comm::LoadImageMsg>(op.body);
  auto it = images_.find(m.imageId);
  if (it == images_.end()) {
    auto img = unpackImage(m.imageId, op.staging.data(), op.staging.size());
    op.staging.clear();
    if (!img) return finishHeavy(dev, op, img.takeStatus());
    it = images_.emplace(m.imageId, std::make_shared<ImageRecord>(std::move(img.value()))).first;
  }
  std::shared_ptr<ImageRecord> image = it->second;
  if (image->entries.size() != m.numEntries)
    return finishHeavy(dev, op, Status(Errc::Protocol, "image " + hex(m.imageId) + " has " +
                                                           std::to_string(image->entries.size()) +
                                                           " entries, the host announced " + std::to_string(m.numEntries)));
  LocalDevice* device = devices_[dev].dev.get();
  Op* o = &op;
  runHeavy(dev, op, [device, image, o] {
    auto table = device->loadImage(*image);
    if (!table) return table.takeStatus();
    o->values = std::move(table.value());
    return Status();
  });
}

// ---- host <-> device ------------------------------------------------------------------

void Server::startSubmit(uint32_t dev, Op& op) {
  auto& m = std::get<comm::SubmitMsg>(op.body);
  LocalDevice& d = *devices_[dev].dev;
  if (Status st = checkRange(dev, m.dst, m.data.size, "submit"); !st) {
    complete(dev, op, std::move(st));
    return drainIncoming(dev, op);
  }
  if (!d.hostAccessible()) {
    complete(dev, op, Status(Errc::Unsupported, "staged submit is not implemented"));
    return drainIncoming(dev, op);
  }
  switch (m.data.mode) {
    case DataMode::Inline:
      return complete(dev, op, d.write(m.dst, m.inlineBytes, m.data.size));
    case DataMode::Cma:
      return complete(dev, op, copyFromPeer(m.data.peer, m.data.remoteAddr, reinterpret_cast<void*>(m.dst), m.data.size));
    case DataMode::Mpi:
      op.pipe.emplace(MpiPipe::Dir::Recv, world_.comm(), m.data.peer, m.data.tag, reinterpret_cast<void*>(m.dst),
                      m.data.size, m.data.chunk, pipelineDepth());
      return poll(dev, op);
  }
}

void Server::startRetrieve(uint32_t dev, Op& op) {
  auto& m = std::get<comm::RetrieveMsg>(op.body);
  LocalDevice& d = *devices_[dev].dev;
  Status st = checkRange(dev, m.src, m.data.size, "retrieve");
  if (st && !d.hostAccessible()) st = Status(Errc::Unsupported, "staged retrieve is not implemented");
  if (!st) {
    (void)reply(op.client, m.replyTag, op.seq, withWhere(dev, op, st));
    return complete(dev, op, std::move(st));
  }
  switch (m.data.mode) {
    case DataMode::Inline: {
      // Device memory of a CPU device is ordinary memory: reply straight from it.
      (void)reply(op.client, m.replyTag, op.seq, {}, {}, reinterpret_cast<const void*>(m.src), m.data.size);
      return complete(dev, op, {});
    }
    case DataMode::Cma: {
      st = copyToPeer(m.data.peer, m.data.remoteAddr, reinterpret_cast<const void*>(m.src), m.data.size);
      (void)reply(op.client, m.replyTag, op.seq, withWhere(dev, op, st));
      return complete(dev, op, std::move(st));
    }
    case DataMode::Mpi:
      // The reply goes first on the same tag; the issuer posted its receive first.
      if (Status r = reply(op.client, m.replyTag, op.seq, {}); !r) return complete(dev, op, std::move(r));
      op.pipe.emplace(MpiPipe::Dir::Send, world_.comm(), m.data.peer, m.replyTag,
                      reinterpret_cast<void*>(m.src), m.data.size, m.data.chunk, pipelineDepth());
      return poll(dev, op);
  }
}

// ---- device <-> device ----------------------------------------------------------------

void Server::startExchangeSend(uint32_t dev, Op& op) {
  auto& m = std::get<comm::ExchangeMsg>(op.body);
  if (Status st = checkRange(dev, m.addr, m.data.size, "exchange source"); !st) {
    (void)sendFin(m.data.peer, m.data.tag, st);
    abandonedSends_.insert({m.data.peer, m.data.tag});
    return complete(dev, op, std::move(st));
  }
  if (m.data.mode == DataMode::Mpi) {
    op.pipe.emplace(MpiPipe::Dir::Send, world_.comm(), m.data.peer, m.data.tag, reinterpret_cast<void*>(m.addr),
                    m.data.size, m.data.chunk, pipelineDepth());
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

// Same node: the receiver said where the bytes go; write them there in one copy.
void Server::pushToRendezvousPeer(uint32_t dev, Op& op, const comm::RtrMsg& rtr) {
  auto& m = std::get<comm::ExchangeMsg>(op.body);
  op.awaitingRendezvous = false;
  if (rtr.size == 0 && m.data.size != 0) return complete(dev, op, {});  // the receiver failed and wants nothing
  Status st;
  if (rtr.size != m.data.size) {
    st = Status(Errc::Protocol, "receiver expects " + std::to_string(rtr.size) + " bytes, sender has " +
                                    std::to_string(m.data.size));
  } else {
    st = copyToPeer(m.data.peer, rtr.dstAddr, reinterpret_cast<const void*>(m.addr), m.data.size);
  }
  (void)sendFin(m.data.peer, m.data.tag, st);
  complete(dev, op, std::move(st));
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
  if (m.data.mode == DataMode::Mpi) {
    op.pipe.emplace(MpiPipe::Dir::Recv, world_.comm(), m.data.peer, m.data.tag, reinterpret_cast<void*>(m.addr),
                    m.data.size, m.data.chunk, pipelineDepth());
    // A failed sender sends a Fin instead of its chunks.
    awaitFin(dev, op, m.data.peer, m.data.tag);
    if (op.state == Op::State::Running) poll(dev, op);
    return;
  }
  awaitFin(dev, op, m.data.peer, m.data.tag);  // registered before the Rtr: a local Fin finds it
  if (op.state == Op::State::Running && op.awaitingRendezvous) {
    if (Status st = sendRtr(m.data.peer, m.data.tag, m.addr, m.data.size); !st) {
      recvsAwaitingFin_.erase({m.data.peer, m.data.tag});
      complete(dev, op, std::move(st));
    }
  }
}

// The op failed before its bytes arrived; still take them off the wire, so that the peer
// that sends them can finish, but throw them away.
void Server::drainIncoming(uint32_t dev, Op& op) {
  const comm::DataDesc* data = nullptr;
  if (auto* m = std::get_if<comm::SubmitMsg>(&op.body)) data = &m->data;
  if (auto* m = std::get_if<comm::LoadImageMsg>(&op.body)) data = &m->data;
  if (op.type == MsgType::ExchangeRecv) data = &std::get<comm::ExchangeMsg>(op.body).data;
  if (op.type == MsgType::ExchangeRecv && data && data->mode != DataMode::Mpi) {
    (void)sendRtr(data->peer, data->tag, 0, 0);  // "go ahead, I want nothing"
    return;
  }
  if (!data || data->mode != DataMode::Mpi || data->size == 0) return;
  // The drain completes through poll(); the op's error is already recorded on the device.
  op.state = Op::State::Running;
  op.pipe.emplace(MpiPipe::Dir::Recv, world_.comm(), data->peer, data->tag, nullptr, data->size, data->chunk, 1);
  // A sender that failed too sends a Fin instead of its chunks; that ends the drain.
  if (op.type == MsgType::ExchangeRecv) awaitFin(dev, op, data->peer, data->tag);
}

}  // namespace ferry::service
