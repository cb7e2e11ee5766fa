#include "server_fixture.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <thread>

#include "comm/liveness.h"
#include "comm/mpi_transport.h"
#include "platform/init.h"
#include "service/client_memory.h"
#include "service/discovery.h"
#include "service/server.h"

namespace ferry::testing {
namespace {

RawClient* gClient = nullptr;

class ServerEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    ASSERT_TRUE(initPlatform().isOk());
    auto w = comm::World::create();
    ASSERT_TRUE(w.isOk()) << w.status().message();
    world_ = *w;
    responder_ = std::make_unique<comm::LivenessResponder>(world_->comm());
    std::vector<uint64_t> bases;
    if (world_->rank() != 0) {
      service::setClientMemory(&service::mpiClientMemory());
      auto devices = service::discoverLocalDevices(world_->size() - 1);
      ASSERT_TRUE(devices.isOk()) << devices.status().message();
      for (auto& d : *devices) bases.push_back(d->heapBase());
      server_ = std::make_unique<service::Server>(
          std::make_unique<comm::MpiTransport>(*world_, comm::MpiTransport::Role::Server), std::move(devices.value()));
      thread_ = std::thread([this] { status_ = server_->run(); });
    }
    // Tell rank 0 what each server has: count, then heap bases.
    int n = static_cast<int>(bases.size());
    std::vector<int> counts(world_->size());
    MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, world_->comm());
    std::vector<uint64_t> all(static_cast<size_t>(world_->size()) * 8, 0);
    bases.resize(8, 0);
    MPI_Gather(bases.data(), 8, MPI_UINT64_T, all.data(), 8, MPI_UINT64_T, 0, world_->comm());
    if (world_->rank() == 0) {
      gClient = new RawClient(*world_);
      for (int r = 1; r < world_->size(); ++r)
        gClient->addServer(
            {r, counts[r], std::vector<uint64_t>(all.begin() + r * 8, all.begin() + r * 8 + counts[r])});
    }
  }

  void TearDown() override {
    if (world_->rank() == 0) gClient->shutdownAll();
    if (thread_.joinable()) thread_.join();
    EXPECT_TRUE(status_.isOk()) << status_.message();
    server_.reset();  // its receives are cancelled before MPI_Finalize
    // As a job's end: open probes answered, the responders stopped, and the World's
    // communicators freed before main's MPI_Finalize (left to it, they leaked: LeakSanitizer).
    EXPECT_TRUE(world_->finalize(responder_.get()).isOk());
  }

 private:
  comm::World* world_ = nullptr;
  std::unique_ptr<comm::LivenessResponder> responder_;
  std::unique_ptr<service::Server> server_;
  std::thread thread_;
  Status status_;
};

[[maybe_unused]] auto* gEnv = ::testing::AddGlobalTestEnvironment(new ServerEnvironment);

}  // namespace

RawClient* client() { return gClient; }

RawClient::RawClient(comm::World& w) : w_(w), out_(w.comm()) { tags_.setUpperBound(w.tagUpperBound()); }

void RawClient::send(int rank, uint32_t device, comm::MsgType type, const comm::Body& body, const void* inlineBytes,
                     size_t inlineLen) {
  sendRaw(rank, comm::encode(type, device, seq_++, body, inlineBytes, inlineLen));
}

void RawClient::sendRaw(int rank, std::vector<uint8_t> bytes) {
  ASSERT_TRUE(out_.send(rank, comm::kControlTag, std::move(bytes)).isOk());
}

comm::ReplyMsg RawClient::awaitReply(int rank, int tag, std::vector<uint8_t>& storage) {
  storage.assign(comm::kMaxControlMessage, 0);
  MPI_Request req;
  MPI_Irecv(storage.data(), static_cast<int>(storage.size()), MPI_BYTE, rank, tag, w_.comm(), &req);
  double start = MPI_Wtime();
  int done = 0;
  MPI_Status status;
  while (!done && MPI_Wtime() - start < 10) {
    MPI_Test(&req, &done, &status);
    (void)out_.reap();
    if (!done) usleep(100);
  }
  if (!done) {
    MPI_Cancel(&req);
    MPI_Request_free(&req);
    ADD_FAILURE() << "no reply from rank " << rank << " on tag " << tag << " within 10 s";
    comm::ReplyMsg timedOut;
    timedOut.code = Errc::Timeout;
    timedOut.message = "no reply";
    return timedOut;
  }
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  auto msg = comm::decode(storage.data(), static_cast<size_t>(count));
  EXPECT_TRUE(msg.isOk()) << msg.status().message();
  if (!msg.isOk()) {
    comm::ReplyMsg bad;
    bad.code = Errc::Protocol;
    bad.message = msg.status().message();
    return bad;
  }
  return std::get<comm::ReplyMsg>(msg->body);
}

Status RawClient::sync(int rank, uint32_t device) {
  int t = tag();
  send(rank, device, comm::MsgType::Sync, comm::SyncMsg{t});
  std::vector<uint8_t> storage;
  auto r = awaitReply(rank, t, storage);
  return r.code == Errc::Ok ? Status() : Status(r.code, r.message);
}

void RawClient::shutdownAll() {
  for (const auto& s : servers_) send(s.rank, comm::kNoDevice, comm::MsgType::Shutdown, comm::ShutdownMsg{});
  while (out_.pending() > 0) (void)out_.reap();
}

}  // namespace ferry::testing
