// The per-device stream of the server: ordering, hazards, and starting each kind of op.
// Transfers and image loads are in transfers.cpp.
#include "comm/cma.h"
#include "platform/clock.h"
#include "platform/log.h"
#include "platform/trace.h"
#include "platform/parse.h"
#include "service/image_hooks.h"
#include "service/server.h"

namespace ferry::service {

using comm::DataMode;
using comm::MsgType;

std::string Server::describe(uint32_t dev, const Op& op) const {
  std::string s = std::string(comm::msgTypeName(op.type)) + " on device " + std::to_string(dev) + " of " + transport_->where();
  if (const auto* m = std::get_if<comm::SubmitMsg>(&op.body))
    s += ", " + parse::formatSize(m->data.size) + " to " + hex(m->dst);
  if (const auto* m = std::get_if<comm::RetrieveMsg>(&op.body))
    s += ", " + parse::formatSize(m->data.size) + " from " + hex(m->src);
  if (const auto* m = std::get_if<comm::ExchangeMsg>(&op.body))
    s += ", " + parse::formatSize(m->data.size) + " at " + hex(m->addr) + " with rank " + std::to_string(m->data.peer);
  return s;
}

Status Server::checkRange(uint32_t dev, uint64_t addr, uint64_t len, const char* what) {
  if (len == 0 || devices_[dev].dev->validRange(addr, len)) return {};
  return Status(Errc::InvalidArgument, std::string(what) + " range [" + hex(addr) + ", +" + std::to_string(len) +
                                           ") is not memory of this device");
}

// Polls running ops, starts pending ones in order, and drops finished ones. Returns
// whether anything changed.
bool Server::advance(uint32_t dev) {
  auto& ops = devices_[dev].ops;
  bool progressed = false;
  for (auto& op : ops)
    if (op->state == Op::State::Running) poll(dev, *op);
  for (size_t i = 0; i < ops.size(); ++i) {
    Op& op = *ops[i];
    if (op.state != Op::State::Pending) continue;
    bool blocked = false;
    for (size_t j = 0; j < i && !blocked; ++j)
      blocked = ops[j]->state != Op::State::Done && ops[j]->conflictsWith(op);
    if (blocked) break;  // ops start in order: nothing overtakes a blocked op
    start(dev, op);
    progressed = true;
  }
  for (auto it = ops.begin(); it != ops.end();) {
    if ((*it)->state == Op::State::Done) {
      it = ops.erase(it);
      progressed = true;
    } else {
      ++it;
    }
  }
  return progressed;
}

// One timeline event per op, from its start to its completion (FERRY_TRACE).
void Server::traceOp(uint32_t dev, const Op& op) const {
  uint64_t bytes = 0;
  std::string name = comm::msgTypeName(op.type);
  if (const auto* m = std::get_if<comm::SubmitMsg>(&op.body)) bytes = m->data.size;
  if (const auto* m = std::get_if<comm::RetrieveMsg>(&op.body)) bytes = m->data.size;
  if (const auto* m = std::get_if<comm::ExchangeMsg>(&op.body)) bytes = m->data.size;
  if (const auto* m = std::get_if<comm::LoadImageMsg>(&op.body)) bytes = m->data.size;
  if (const auto* m = std::get_if<comm::FreeMsg>(&op.body)) bytes = m->size;
  if (const auto* m = std::get_if<comm::AllocMsg>(&op.body)) bytes = m->size;
  if (const auto* m = std::get_if<comm::LaunchMsg>(&op.body)) name = devices_[dev].dev->kernelName(m->kernel);
  trace::record(op.type == MsgType::Launch ? "kernel" : "device-op", std::move(name), op.startNs, nowNs(),
                {{"device", static_cast<int64_t>(dev)}, {"bytes", static_cast<int64_t>(bytes)},
                 {"seq", static_cast<int64_t>(op.seq)}});
}

void Server::complete(uint32_t dev, Op& op, Status st) {
  if (Status copy = settleCopy(op); !copy && st.isOk()) st = std::move(copy);  // its buffer goes with the op
  op.state = Op::State::Done;
  if (trace::enabled() && op.startNs) traceOp(dev, op);
  if (log::enabled(log::Level::Trace, log::Service))
    log::trace(log::Service, "done    %s seq %llu from rank %d: %s", describe(dev, op).c_str(),
               static_cast<unsigned long long>(op.seq), op.client, st.isOk() ? "ok" : st.message().c_str());
  // Forget rendezvous registrations that point at this op.
  if (const auto* m = std::get_if<comm::ExchangeMsg>(&op.body)) {
    XferKey key{m->data.peer, m->data.tag};
    for (auto* waiting : {&recvsAwaitingFin_, &sendsAwaitingRtr_, &sendsAwaitingFin_})
      if (auto it = waiting->find(key); it != waiting->end() && it->second.second == &op) waiting->erase(it);
  }
  auto& d = devices_[dev];
  if (st.isOk() || !d.error.isOk()) return;
  // A refused allocation changed nothing and its issuer has the answer: the device goes on.
  if (op.type == MsgType::Alloc) return;
  d.error = withWhere(dev, op, std::move(st));
  log::error(log::Service, "%s", d.error.message().c_str());
}

Status Server::withWhere(uint32_t dev, const Op& op, Status st) const {
  st.withContext(describe(dev, op));
  return st;
}

void Server::finishHeavy(uint32_t dev, Op& op, Status st) {
  // What the kernel printed through stdio goes out now, ahead of whichever reply confirms
  // the kernel (reply() then takes the rest; see output_capture.h).
  outputUnchecked_ = true;
  sendOutput(op.client, false);
  if (auto* m = std::get_if<comm::LaunchMsg>(&op.body); m && m->replyTag) {
    // Everything before a kernel finished before it started, so this reply confirms all of it.
    reply(op.client, m->replyTag, op.seq, st.isOk() ? devices_[dev].error : withWhere(dev, op, st));
  }
  if (auto* m = std::get_if<comm::LoadImageMsg>(&op.body)) {
    reply(op.client, m->replyTag, op.seq, withWhere(dev, op, st), st.isOk() ? op.values : std::vector<uint64_t>());
  }
  complete(dev, op, std::move(st));
}

void Server::poll(uint32_t dev, Op& op) {
  if (op.pipe) {
    // A staged transfer's device copies run on the copier thread (streamStaged). If one
    // fails, a send still sends the rest, unread, so that the receiver is not left waiting;
    // the op fails when it ends, and the error reaches the issuer with its next reply.
    bool staged = op.stage && op.type != MsgType::LoadImage && devices_[dev].error.isOk();
    if (staged && op.deferred.isOk()) {
      if (Status st = streamStaged(dev, op); !st) {
        op.deferred = std::move(st);
        op.pipe->setReady(~size_t{0});
      }
    }
    auto done = op.pipe->progress();
    if (!done) {
      op.pipe.reset();
      return complete(dev, op, done.takeStatus());
    }
    if (!*done) return;
    // A receive has all its bytes; the last ones may still be on their way to the device.
    if (staged && op.deferred.isOk() && op.pipe->direction() == comm::Stream::Dir::Recv &&
        (op.copy || op.staged < op.stage.size()))
      return;
    op.pipe.reset();
    if (op.type == MsgType::LoadImage) return finishLoadImage(dev, op);
    return complete(dev, op, std::move(op.deferred));
  }
  if (op.job && op.job->done.load(std::memory_order_acquire)) {
    Status st = op.job->status;
    op.job.reset();
    finishHeavy(dev, op, std::move(st));
  }
}

// After a failure the device executes nothing more; it only answers, and every answer
// carries the first error, so the issuer learns of it at its next wait. Transfers with a
// peer are wound down so that the peer does not wait forever.
void Server::failStarted(uint32_t dev, Op& op) {
  const Status& err = devices_[dev].error;
  if (int tag = replyTagOf(op.body)) reply(op.client, tag, op.seq, err);
  op.state = Op::State::Done;
  if (op.type == MsgType::ExchangeSend) {
    auto& m = std::get<comm::ExchangeMsg>(op.body);
    sendFin(m.data.peer, m.data.tag, err);
    if (m.data.mode != DataMode::Mpi) abandonedSends_.insert({m.data.peer, m.data.tag});
    return;
  }
  drainIncoming(dev, op);
}

void Server::start(uint32_t dev, Op& op) {
  op.state = Op::State::Running;
  if (trace::enabled()) op.startNs = nowNs();
  if (log::enabled(log::Level::Trace, log::Service))
    log::trace(log::Service, "start   %s seq %llu from rank %d", describe(dev, op).c_str(),
               static_cast<unsigned long long>(op.seq), op.client);
  if (!devices_[dev].error.isOk() || overLimit(dev, op)) return failStarted(dev, op);
  kindOf(op.type).start(*this, dev, op);
}

bool Server::overLimit(uint32_t dev, const Op& op) {
  if (!transferLimit_) return false;  // MPI ranks: no limit, and nothing to look at
  const comm::DataDesc* data = dataOf(op);
  if (!data || data->size <= transferLimit_) return false;
  devices_[dev].error = withWhere(dev, op, Status(Errc::InvalidArgument,
      parse::formatSize(data->size) + " is more than this server takes at once (" + transferLimitSetting_ + "=" +
      parse::formatSize(transferLimit_) + ")"));
  log::error(log::Service, "%s", devices_[dev].error.message().c_str());
  return true;
}

void Server::startInit(uint32_t dev, Op& op) {
  auto& m = std::get<comm::InitDeviceMsg>(op.body);
  // The client's numbering, which a daemon learns only here (the ranks of a job know it from
  // the device table already, and it is the same): its kernels' device queries answer it.
  if (m.globalDevice >= 0 && m.jobDevices > m.globalDevice) {
    if (globalIds_.size() <= dev) globalIds_.resize(dev + 1, -1);
    globalIds_[dev] = m.globalDevice;
    setJobView(m.jobDevices);
  }
  Status st = devices_[dev].dev->init(m.requiresFlags, op.client);
  reply(op.client, m.replyTag, op.seq, withWhere(dev, op, st));
  complete(dev, op, std::move(st));
}

void Server::startAlloc(uint32_t dev, Op& op) {
  auto& m = std::get<comm::AllocMsg>(op.body);
  LocalDevice& device = *devices_[dev].dev;
  if (device.clientManagedHeap()) {
    // Pages commit on first touch; only server-managed devices pick an address.
    if (m.replyTag) reply(op.client, m.replyTag, op.seq, {}, {m.addr});
    return complete(dev, op, {});
  }
  auto addr = device.allocate(m.size, m.kind);
  reply(op.client, m.replyTag, op.seq, withWhere(dev, op, addr.status()), {addr ? *addr : 0});
  complete(dev, op, addr.takeStatus());
}

void Server::startFree(uint32_t dev, Op& op) {
  auto& m = std::get<comm::FreeMsg>(op.body);
  complete(dev, op, devices_[dev].dev->release(m.addr, m.size, m.kind));
}

void Server::startLaunch(uint32_t dev, Op& op) {
  LocalDevice* device = devices_[dev].dev.get();
  const comm::LaunchMsg* m = &std::get<comm::LaunchMsg>(op.body);
  int global = dev < globalIds_.size() ? globalIds_[dev] : static_cast<int>(dev);
  runHeavy(dev, op, [device, m, global] {
    setExecutingDevice(global);
    return device->launch(*m);
  });
}

void Server::startSync(uint32_t dev, Op& op) {
  reply(op.client, std::get<comm::SyncMsg>(op.body).replyTag, op.seq, devices_[dev].error);
  complete(dev, op, {});
}

}  // namespace ferry::service
