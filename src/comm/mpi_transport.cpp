#include "comm/mpi_transport.h"

#include "comm/liveness.h"
#include "comm/mpi_baseline.h"
#include "comm/mpi_check.h"
#include "comm/mpi_pipe.h"

namespace ferry::comm {
namespace {
// Control messages in flight to one server at once: rank 0 batches a queue's ops into one
// message, so a few slots keep the server busy without holding much memory.
constexpr int kInboxSlots = 8;

// A reply's receive, posted before its request goes out so that the reply never waits in
// MPI's unexpected queue.
class MpiReceive final : public PostedReceive {
 public:
  MpiReceive(size_t capacity, int peer) : buf_(new uint8_t[capacity]), capacity_(capacity), peer_(peer) {}
  ~MpiReceive() override {
    if (req_ == MPI_REQUEST_NULL) return;  // arrived, or never posted
    MPI_Cancel(&req_);  // abandoned after an error: take the receive back
    MPI_Request_free(&req_);
  }
  Status post(MPI_Comm comm, int tag) {
    return mpiStatus(MPI_Irecv(buf_.get(), static_cast<int>(capacity_), MPI_BYTE, peer_, tag, comm, &req_),
                     "MPI_Irecv(reply)", peer_);
  }
  Result<std::optional<size_t>> test() override {
    int done = 0, count = 0;
    MPI_Status status;
    if (Status st = mpiStatus(MPI_Test(&req_, &done, &status), "MPI_Test(reply)", peer_); !st) return st;
    if (!done) return std::optional<size_t>{};
    MPI_Get_count(&status, MPI_BYTE, &count);
    return std::optional<size_t>{static_cast<size_t>(count)};
  }
  const uint8_t* data() const override { return buf_.get(); }

 private:
  std::unique_ptr<uint8_t[]> buf_;  // uninitialised: MPI fills what arrives
  size_t capacity_;
  int peer_;
  MPI_Request req_ = MPI_REQUEST_NULL;
};
}  // namespace

MpiTransport::MpiTransport(World& world, Role role) : world_(world), outbox_(world.comm()) {
  if (role == Role::Server) inbox_ = std::make_unique<Inbox>(world.comm(), kInboxSlots, kMaxControlMessage, kControlTag);
}

MpiTransport::~MpiTransport() { stopReceiving(); }

std::string MpiTransport::where() const {
  return "rank " + std::to_string(world_.rank()) + " on host " + world_.self().host;
}

Result<std::optional<Incoming>> MpiTransport::poll() {
  if (!inbox_) return std::optional<Incoming>{};
  return inbox_->poll();
}

Status MpiTransport::release(const Incoming& msg) { return inbox_ ? inbox_->release(msg) : Status{}; }

void MpiTransport::stopReceiving() {
  if (inbox_) inbox_->close();
}

Result<std::unique_ptr<PostedReceive>> MpiTransport::expect(int peer, int tag, size_t capacity) {
  auto r = std::make_unique<MpiReceive>(capacity, peer);
  if (Status st = r->post(world_.comm(), tag); !st) return st;
  return std::unique_ptr<PostedReceive>(std::move(r));
}

Result<std::optional<std::vector<uint8_t>>> MpiTransport::take(int peer, int tag) {
  int flag = 0;
  MPI_Message handle;
  MPI_Status status;
  if (Status st = mpiStatus(MPI_Improbe(peer, tag, world_.comm(), &flag, &handle, &status), "MPI_Improbe", peer); !st)
    return st;
  if (!flag) return std::optional<std::vector<uint8_t>>{};
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  std::vector<uint8_t> buf(static_cast<size_t>(count));
  if (Status st = mpiStatus(MPI_Mrecv(buf.data(), count, MPI_BYTE, &handle, MPI_STATUS_IGNORE), "MPI_Mrecv", peer); !st)
    return st;
  return std::optional<std::vector<uint8_t>>{std::move(buf)};
}

std::unique_ptr<Stream> MpiTransport::openStream(Stream::Dir dir, int peer, int tag, void* buf, size_t len,
                                                 size_t chunk, int depth) {
  return std::make_unique<MpiPipe>(dir, world_.comm(), peer, tag, buf, len, chunk, depth);
}

std::unique_ptr<PeerLiveness> MpiTransport::watch(int peer, TagPool& tags) {
  return std::make_unique<PeerWatch>(world_.comm(), peer, tags);
}

Result<double> MpiTransport::baseline(int peer, bool initiator, const BaselineSpec& spec) {
  return runBaseline(world_.comm(), peer, initiator, spec);
}

}  // namespace ferry::comm
