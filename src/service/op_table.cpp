// What the server does with each message type, one row per type: a control message is
// handled on arrival; a device op is queued on its device's stream, may start once no
// earlier unfinished op conflicts with its hazards, and is started by its start function.
// A new device operation is its protocol entry (comm/protocol.h), one row here and its
// start function; what has a reply tag or a data descriptor is found from its fields.
#include <array>
#include <concepts>

#include "platform/log.h"
#include "service/server.h"

namespace ferry::service {
namespace {

using comm::MsgType;

Range range(uint64_t addr, uint64_t len) { return Range{addr, addr + len}; }

// Hazards, per kind of op.
void orderEverything(Op& op) { op.barrier = true; }  // kernels, image loads, init, sync
void touchesNothing(Op&) {}                           // an allocation: no earlier op uses it
void writesDestination(Op& op) {
  const auto& m = std::get<comm::SubmitMsg>(op.body);
  op.writes = range(m.dst, m.data.size);
}
void readsSource(Op& op) {
  const auto& m = std::get<comm::RetrieveMsg>(op.body);
  op.reads = range(m.src, m.data.size);
}
void readsExchanged(Op& op) {
  const auto& m = std::get<comm::ExchangeMsg>(op.body);
  op.reads = range(m.addr, m.data.size);
}
void writesExchanged(Op& op) {
  const auto& m = std::get<comm::ExchangeMsg>(op.body);
  op.writes = range(m.addr, m.data.size);
}
void writesFreed(Op& op) {  // its contents are gone afterwards
  const auto& m = std::get<comm::FreeMsg>(op.body);
  op.writes = range(m.addr, m.size);
}

constexpr size_t kSlots = static_cast<size_t>(comm::kLastMsgType) + 1;

}  // namespace

const Server::MessageKind& Server::kindOf(comm::MsgType type) {
  using K = MessageKind;
  static const std::array<K, kSlots> table = [] {
    std::array<K, kSlots> k{};  // unlisted: refused on the control tag and in batches
    auto at = [&k](MsgType t) -> K& { return k[static_cast<size_t>(t)]; };
    auto device = [](void (*hazards)(Op&), K::StartFn start) { return K{K::Route::DeviceOp, nullptr, hazards, start}; };
    auto control = [](K::ArrivalFn arrive) { return K{K::Route::Control, arrive, nullptr, nullptr}; };
    at(MsgType::InitDevice) = device(orderEverything, [](Server& s, uint32_t d, Op& op) { s.startInit(d, op); });
    at(MsgType::LoadImage) = device(orderEverything, [](Server& s, uint32_t d, Op& op) { s.startLoadImage(d, op); });
    at(MsgType::Alloc) = device(touchesNothing, [](Server& s, uint32_t d, Op& op) { s.startAlloc(d, op); });
    at(MsgType::Free) = device(writesFreed, [](Server& s, uint32_t d, Op& op) { s.startFree(d, op); });
    at(MsgType::Submit) = device(writesDestination, [](Server& s, uint32_t d, Op& op) { s.startSubmit(d, op); });
    at(MsgType::Retrieve) = device(readsSource, [](Server& s, uint32_t d, Op& op) { s.startRetrieve(d, op); });
    at(MsgType::ExchangeSend) = device(readsExchanged, [](Server& s, uint32_t d, Op& op) { s.startExchangeSend(d, op); });
    at(MsgType::ExchangeRecv) = device(writesExchanged, [](Server& s, uint32_t d, Op& op) { s.startExchangeRecv(d, op); });
    at(MsgType::Launch) = device(orderEverything, [](Server& s, uint32_t d, Op& op) { s.startLaunch(d, op); });
    at(MsgType::Sync) = device(orderEverything, [](Server& s, uint32_t d, Op& op) { s.startSync(d, op); });
    at(MsgType::Shutdown) = control([](Server& s, int from, comm::Message&) { return s.onShutdown(from); });
    at(MsgType::Rtr) = control([](Server& s, int from, comm::Message& m) {
      s.deliverRtr(from, std::get<comm::RtrMsg>(m.body));
      return Status{};
    });
    at(MsgType::Fin) = control([](Server& s, int from, comm::Message& m) {
      s.deliverFin(from, std::get<comm::FinMsg>(m.body));
      return Status{};
    });
    at(MsgType::Rts) = control([](Server& s, int from, comm::Message& m) {
      s.deliverRts(from, std::get<comm::RtsMsg>(m.body));
      return Status{};
    });
    at(MsgType::Baseline) = control([](Server& s, int from, comm::Message& m) {
      return s.runBaseline(from, std::get<comm::BaselineMsg>(m.body), m.header.seq);
    });
    at(MsgType::Batch) = control([](Server& s, int from, comm::Message& m) {
      return s.dispatchBatch(from, std::get<comm::BatchMsg>(m.body));
    });
    at(MsgType::SetInfo) = control([](Server& s, int, comm::Message& m) {
      for (auto& d : s.devices_) d.dev->setInfoFlag(std::get<comm::SetInfoMsg>(m.body).flags);
      return Status{};
    });
    return k;
  }();
  static const K refused{};
  auto i = static_cast<size_t>(type);
  return i < kSlots ? table[i] : refused;
}

void classifyHazards(Op& op) {
  if (auto hazards = Server::kindOf(op.type).hazards) hazards(op);
  else op.barrier = true;  // not a device op: order it after everything (never queued)
}

int replyTagOf(const comm::Body& body) {
  return std::visit(
      [](const auto& m) -> int {
        if constexpr (requires { m.replyTag; }) return m.replyTag;
        else return 0;
      },
      body);
}

const comm::DataDesc* dataOf(const Op& op) {
  return std::visit(
      [](const auto& m) -> const comm::DataDesc* {
        if constexpr (requires { { m.data } -> std::convertible_to<const comm::DataDesc&>; }) return &m.data;
        else return nullptr;
      },
      op.body);
}

}  // namespace ferry::service
