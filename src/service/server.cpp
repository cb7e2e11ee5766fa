#include "service/server.h"

#include <sys/prctl.h>

#include <algorithm>
#include <cstring>

#include "comm/protocol.h"
#include "comm/tag_pool.h"
#include "platform/backoff.h"
#include "platform/config.h"
#include "platform/log.h"
#include "platform/trace.h"

namespace ferry::service {
namespace {
constexpr int kMaxMessagesPerPoll = 16;
}  // namespace

Server::Server(std::unique_ptr<comm::Transport> transport, std::vector<std::unique_ptr<LocalDevice>> devices)
    : transport_(std::move(transport)) {
  uint64_t retain = config().size(Knob::StagingRetain);
  for (auto& d : devices) {
    DeviceState s;
    s.dev = std::move(d);
    if (!s.dev->hostAccessible()) {
      LocalDevice* dev = s.dev.get();
      s.staging = std::make_unique<StagingPool>([dev](uint64_t n) { return dev->allocHostBuffer(n); },
                                                [dev](void* p) { dev->freeHostBuffer(p); }, retain);
      s.copier = std::make_unique<Worker>();
    }
    devices_.push_back(std::move(s));
  }
  // With one device the server thread runs kernels itself (lowest latency); with several,
  // each device gets a worker so that their kernels overlap.
  if (devices_.size() > 1)
    for (auto& d : devices_) d.worker = std::make_unique<Worker>();
}

Server::~Server() { transport_->stopReceiving(); }

Status Server::run() {
  trace::nameThread("server");
  // Sleeps of the backoff end when asked, not up to 50 us later (the default timer slack).
  prctl(PR_SET_TIMERSLACK, 1000UL);
  Backoff backoff = Backoff::afterSpinTime(sleepWhenIdle_);
  // A serving rank also watches rank 0: if rank 0 vanishes without the launcher ending the
  // job (MPICH with -disable-auto-cleanup, srun without --kill-on-bad-exit), the server
  // must not wait for it forever.
  std::unique_ptr<comm::PeerLiveness> issuer;
  comm::TagPool watchTags;
  if (transport_->self() != 0) {
    watchTags.setUpperBound(transport_->tagUpperBound(), comm::TagPool::Half::Server);
    issuer = transport_->watch(0, watchTags);
  }
  while (true) {
    bool progressed = false;
    for (int i = 0; i < kMaxMessagesPerPoll; ++i) {
      auto in = transport_->poll();
      if (!in) return in.takeStatus();
      if (!in->has_value()) break;
      progressed = true;
      if (issuer && (*in)->source == 0) issuer->heardFrom();
      Status st = dispatch(**in);
      if (!st) return st;
      // Start what just arrived before anything else (re-posting the receive included):
      // this is the latency of every remote operation.
      for (uint32_t d = 0; d < devices_.size(); ++d) advance(d);
      if (Status rel = transport_->release(**in); !rel) return rel;
    }
    bool busy = false;
    for (uint32_t d = 0; d < devices_.size(); ++d) {
      progressed |= advance(d);
      busy |= !devices_[d].ops.empty();
    }
    if (Status st = transport_->reap(); !st) return st;
    if (linkBroken()) return linkError_;
    if (shutdown_ && !busy && transport_->pendingSends() == 0) {
      transport_->stopReceiving();  // no receive may stay posted into MPI_Finalize
      return {};
    }
    if (issuer && backoff.pastSpin())
      if (Status st = issuer->poll("commands from rank 0"); !st) {
        lostRank0_ = st.code() == Errc::Timeout;  // silent; not an MPI error of this rank's
        return st;
      }
    if (progressed) backoff.reset();
    else if (busy && pipeInFlight()) backoff.idleWithoutSleep();  // its next chunk waits for this poll
    else backoff.idle();
  }
}

Status Server::dispatch(const comm::Incoming& in) {
  auto msg = comm::decode(in.data, in.len);
  if (!msg) {
    // A message we cannot parse cannot be answered either; say so and carry on serving.
    log::error(log::Service, "dropping a message from rank %d: %s", in.source, msg.status().message().c_str());
    return {};
  }
  const MessageKind& kind = kindOf(msg->header.type);
  switch (kind.route) {
    case MessageKind::Route::Control: return kind.arrive(*this, in.source, *msg);
    case MessageKind::Route::DeviceOp: return enqueue(std::move(msg.value()), in.source);
    case MessageKind::Route::Refused: break;
  }
  log::error(log::Service, "unexpected %s message from rank %d on the control tag", comm::msgTypeName(msg->header.type),
             in.source);
  return {};
}

Status Server::onShutdown(int source) {
  log::debug(log::Service, "shutdown requested by rank %d", source);
  shutdown_ = true;
  return {};
}

// The items of a batch are device ops of one issuer, queued in order. Anything else in a
// batch (a nested batch, a shutdown, a rendezvous message) is malformed: dropped with an
// error, like any other.
Status Server::dispatchBatch(int source, const comm::BatchMsg& batch) {
  for (const auto& [bytes, len] : batch.items) {
    auto item = comm::decode(bytes, len);
    if (!item) {
      log::error(log::Service, "dropping a batched message from rank %d: %s", source, item.status().message().c_str());
      continue;
    }
    comm::MsgType t = item->header.type;
    if (kindOf(t).route != MessageKind::Route::DeviceOp) {
      log::error(log::Service, "dropping a %s message that arrived batched from rank %d", comm::msgTypeName(t), source);
      continue;
    }
    if (Status st = enqueue(std::move(item.value()), source); !st) return st;
  }
  return {};
}

Status Server::enqueue(comm::Message msg, int source) {
  uint32_t dev = msg.header.device;
  if (dev >= devices_.size()) {
    Status st(Errc::NotFound, transport_->where() +
                                  " serves " + std::to_string(devices_.size()) + " device(s) and has no local device " +
                                  std::to_string(dev) + " (" + comm::msgTypeName(msg.header.type) + ")");
    log::error(log::Service, "%s", st.message().c_str());
    // Answer where the issuer waits for an answer, so that it fails instead of hanging.
    if (int tag = replyTagOf(msg.body)) reply(source, tag, msg.header.seq, st);
    return {};
  }
  auto op = std::make_unique<Op>();
  op->type = msg.header.type;
  op->client = source;
  op->seq = msg.header.seq;
  op->body = std::move(msg.body);
  // Inline bytes point into the receive slot, which is re-posted after dispatch: copy them.
  auto keepInline = [&](const uint8_t*& p, uint64_t len) {
    if (!p) return;
    op->payload.assign(p, p + len);
    p = op->payload.data();
  };
  if (auto* m = std::get_if<comm::SubmitMsg>(&op->body)) keepInline(m->inlineBytes, m->data.size);
  if (auto* m = std::get_if<comm::LoadImageMsg>(&op->body)) keepInline(m->inlineBytes, m->data.size);
  classifyHazards(*op);
  devices_[dev].ops.push_back(std::move(op));
  return {};
}

// Whether an MPI pipeline of this rank's is moving bytes. Asked only when a poll found
// nothing to do, so the scan stays off the path of every message.
bool Server::pipeInFlight() const {
  for (const auto& d : devices_)
    for (const auto& op : d.ops)
      if (op->pipe) return true;
  return false;
}

// A raw MPI baseline for a benchmark, run at once and to the end: the benchmark asks for it
// only while the devices are idle, and the figure must not include Ferry's own work.
Status Server::runBaseline(int client, const comm::BaselineMsg& m, uint64_t seq) {
  comm::BaselineSpec spec{static_cast<comm::BaselineKind>(m.kind), m.bytes, m.warmup, m.iters, m.window};
  auto seconds = transport_->baseline(m.peer, m.initiator != 0, spec);
  if (!m.initiator) return seconds.takeStatus();
  uint64_t ns = seconds ? static_cast<uint64_t>(*seconds * 1e9) : 0;
  reply(client, m.replyTag, seq, seconds.status(), {ns});
  return {};
}

void Server::reply(int client, int tag, uint64_t seq, const Status& st, std::vector<uint64_t> values,
                   const void* data, size_t len) {
  uint64_t mark = 0;
  if (capture_) {
    // A reply is where the issuer may print: everything written so far goes first, including
    // what bypassed stdio (write(1), the CUDA printf buffer), at the cost of one lseek when
    // a kernel has run since the last look.
    if (outputUnchecked_) {
      sendOutput(client, true);
      outputUnchecked_ = false;
    }
    mark = outputSent_[static_cast<size_t>(client)];
  }
  const char* what = "the reply to operation";
  if (st.isOk() && values.empty() && len == 0)
    return post(client, tag, comm::encodeOkReply(seq, mark), what, seq);  // the common case, prebuilt
  comm::ReplyMsg r;
  r.code = st.code();
  r.outputMark = mark;
  r.message = st.message();
  if (r.message.size() > comm::kMaxReplyText) {  // the issuer's receive is sized for this much
    r.message.resize(comm::kMaxReplyText - 16);
    r.message += " [... cut]";
  }
  r.values = std::move(values);
  r.inlineSize = len;
  post(client, tag, comm::encode(comm::MsgType::Reply, comm::kNoDevice, seq, r, data, len), what, seq);
}

void Server::post(int peer, int tag, std::vector<uint8_t> bytes, const char* what, uint64_t number) {
  Status st = transport_->send(peer, tag, std::move(bytes));
  if (st || linkBroken()) return;
  linkError_ = Status(st.code(), transport_->where() + " cannot send " + what + " " + std::to_string(number) +
                                     " to rank " + std::to_string(peer) + ", which waits for it (" +
                                     st.message() + "); it stops serving rather than leave rank " +
                                     std::to_string(peer) + " waiting");
}

void Server::sendOutput(int client, bool thorough) {
  if (!capture_) return;
  capture_->take(outputPending_, thorough);
  uint64_t& sent = outputSent_[static_cast<size_t>(client)];
  for (size_t at = 0; at < outputPending_.size(); at += comm::kMaxOutputChunk) {
    size_t len = std::min(comm::kMaxOutputChunk, outputPending_.size() - at);
    sent += len;
    comm::OutputMsg m{sent, reinterpret_cast<const uint8_t*>(outputPending_.data() + at), len};
    Status st = transport_->send(client, comm::kOutputTag, comm::encode(comm::MsgType::Output, comm::kNoDevice, 0, m));
    if (!st) log::error(log::Service, "device output for rank %d is lost: %s", client, st.message().c_str());
  }
  outputPending_.clear();
}

void Server::sendRtr(int srcRank, int32_t xfer, uint64_t dst, uint64_t size) {
  comm::RtrMsg m{xfer, dst, size};
  if (srcRank == transport_->self()) return deliverRtr(srcRank, m);
  post(srcRank, comm::kControlTag, comm::encode(comm::MsgType::Rtr, comm::kNoDevice, 0, m),
       "ready-to-receive of transfer", static_cast<uint64_t>(xfer));
}

void Server::sendFin(int dstRank, int32_t xfer, const Status& st) {
  comm::FinMsg m{xfer, st.code(), st.message()};
  if (dstRank == transport_->self()) return deliverFin(dstRank, m);
  post(dstRank, comm::kControlTag, comm::encode(comm::MsgType::Fin, comm::kNoDevice, 0, m),
       "the end of transfer", static_cast<uint64_t>(xfer));
}

void Server::sendRts(int dstRank, const comm::RtsMsg& m) {
  post(dstRank, comm::kControlTag, comm::encode(comm::MsgType::Rts, comm::kNoDevice, 0, m),
       "ready-to-send of transfer", static_cast<uint64_t>(m.xfer));
}

// The destination is ready: if the matching send has started, push the bytes now;
// otherwise keep the Rtr until it starts.
void Server::deliverRtr(int fromRank, const comm::RtrMsg& rtr) {
  XferKey key{fromRank, rtr.xfer};
  if (abandonedSends_.erase(key)) return;  // the send failed and already sent its Fin
  auto it = sendsAwaitingRtr_.find(key);
  if (it == sendsAwaitingRtr_.end()) {
    earlyRtrs_[key] = rtr;
    return;
  }
  auto [dev, op] = it->second;
  sendsAwaitingRtr_.erase(it);
  pushToRendezvousPeer(dev, *op, rtr);
}

void Server::deliverFin(int fromRank, const comm::FinMsg& fin) {
  XferKey key{fromRank, fin.xfer};
  if (auto s = sendsAwaitingFin_.find(key); s != sendsAwaitingFin_.end()) {
    // A split copy's receiver has read its half: the source may go, and the receiver may
    // finish once it hears how this side's half went.
    auto [dev, op] = s->second;
    sendsAwaitingFin_.erase(s);
    op->awaitingRendezvous = false;
    Status own = std::move(op->half);
    sendFin(fromRank, fin.xfer, own);
    return complete(dev, *op, std::move(own));
  }
  auto it = recvsAwaitingFin_.find(key);
  if (it == recvsAwaitingFin_.end()) {
    // Only a failed sender can send its Fin before the receive has started.
    earlyFins_[key] = fin;
    return;
  }
  auto [dev, op] = it->second;
  recvsAwaitingFin_.erase(it);
  op->awaitingRendezvous = false;
  op->pipe.reset();  // an MPI receive whose sender failed: its chunks will never come
  Status st = fin.code == Errc::Ok ? Status()
                                   : Status(fin.code, "the sending rank " + std::to_string(fromRank) +
                                                          " failed: " + fin.message);
  if (st && !op->half) st = std::move(op->half);  // a split copy whose half here failed
  // Same node, staged device: the bytes are in the staging buffer; now to the device.
  if (st && op->stage && devices_[dev].error.isOk()) {
    const auto& m = std::get<comm::ExchangeMsg>(op->body);
    st = flushStaged(dev, *op, m.addr, m.data.size);
  }
  complete(dev, *op, std::move(st));
}

// A split copy's sender says where its bytes are: read the second part, then tell it.
void Server::deliverRts(int fromRank, const comm::RtsMsg& rts) {
  auto it = recvsAwaitingFin_.find({fromRank, rts.xfer});
  if (it == recvsAwaitingFin_.end()) {
    // The receive ended meanwhile (its device failed); release the sender all the same.
    Status st(Errc::Protocol, "rts from rank " + std::to_string(fromRank) + " for transfer " +
                                  std::to_string(rts.xfer) + ", which rank " + std::to_string(transport_->self()) +
                                  " no longer receives");
    log::error(log::Service, "%s", st.message().c_str());
    sendFin(fromRank, rts.xfer, st);
    return;
  }
  Op& op = *it->second.second;
  const auto& m = std::get<comm::ExchangeMsg>(op.body);
  if (rts.size != m.data.size)
    op.half = Status(Errc::Protocol, "sender offers " + std::to_string(rts.size) + " bytes, receiver expects " +
                                         std::to_string(m.data.size));
  else
    op.half = copyFromPeer(fromRank, rts.srcAddr + rts.split, op.sink + rts.split, rts.size - rts.split);
  sendFin(fromRank, rts.xfer, op.half);
}

}  // namespace ferry::service
