#include "comm/page_link.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <deque>
#include <mutex>

#include "comm/cma.h"
#include "comm/mpi_check.h"
#include "comm/wire.h"
#include "platform/clock.h"
#include "platform/copy.h"
#include "platform/files.h"
#include "platform/log.h"
#include "platform/parse.h"

namespace ferry::comm {
namespace {

static_assert(kMaxLinkPages <= kCmaMaxPages && kLinkPage == 4096);
constexpr uint32_t kMagic = 0x31475046;  // "FPG1"
enum class Op : uint16_t { Read = 1, Write = 2, Maps = 3 };

// Every message starts with the magic and the sequence number of the request it belongs to.
std::vector<uint8_t> header(Op op, uint64_t seq) {
  std::vector<uint8_t> out;
  WireWriter(out).put(kMagic).put(static_cast<uint16_t>(op)).put(seq);
  return out;
}

// The host reads its own memory with CMA as well: an address it does not map (a kernel's
// wild pointer) then ends the read instead of crashing the host.
std::vector<uint8_t> answerRead(WireReader& r, std::vector<uint8_t> reply) {
  uint64_t page = 0;
  uint32_t count = 0;
  if (!r.get(page) || !r.get(count) || count > kMaxLinkPages) count = 0;
  size_t at = reply.size();
  reply.resize(at + sizeof(uint32_t) + count * kLinkPage);
  uint32_t pages = cmaReadPages(getpid(), page, count, reply.data() + at + sizeof(uint32_t));
  std::memcpy(reply.data() + at, &pages, sizeof pages);
  reply.resize(at + sizeof(uint32_t) + pages * kLinkPage);
  return reply;
}

std::vector<uint8_t> answerWrite(WireReader& r, std::vector<uint8_t> reply) {
  uint32_t runs = 0;
  int32_t err = 0;
  uint64_t written = 0;
  std::vector<iovec> local, remote;
  bool ok = r.get(runs) && runs <= IOV_MAX;
  for (uint32_t i = 0; ok && i < runs; ++i) {
    uint64_t addr = 0;
    uint32_t len = 0;
    ok = r.get(addr) && r.get(len);
    remote.push_back({reinterpret_cast<void*>(addr), len});
  }
  for (uint32_t i = 0; ok && i < runs; ++i) {
    const uint8_t* bytes = nullptr;
    ok = r.view(bytes, remote[i].iov_len);
    local.push_back({const_cast<uint8_t*>(bytes), remote[i].iov_len});
  }
  if (!ok) {
    err = EPROTO;
  } else if (runs) {
    ssize_t n = process_vm_writev(getpid(), local.data(), local.size(), remote.data(), remote.size(), 0);
    if (n < 0) err = errno;
    else written = static_cast<uint64_t>(n);
  }
  WireWriter(reply).put(err).put(written);
  return reply;
}

// Replies in flight: a large one completes only once the serving rank receives it, which it
// no longer does if its request timed out, so the host never blocks on one.
class PendingReplies {
 public:
  Status send(MPI_Comm comm, int peer, std::vector<uint8_t> bytes) {
    sends_.push_back({MPI_REQUEST_NULL, std::move(bytes)});
    auto& s = sends_.back();
    return mpiStatus(MPI_Isend(s.bytes.data(), static_cast<int>(s.bytes.size()), MPI_BYTE, peer, kPageReplyTag, comm,
                               &s.req),
                     "MPI_Isend(page reply)", peer);
  }
  // A send MPI_Test fails on is kept (MPI may still read its buffer) and the failure is
  // returned: the peer waits for that reply, so the caller must fail, not carry on.
  Status reap() {
    Status failed;
    std::erase_if(sends_, [&failed](Send& s) {
      int done = 0;
      Status st = mpiStatus(MPI_Test(&s.req, &done, MPI_STATUS_IGNORE), "MPI_Test(page reply)");
      if (!st && failed) failed = std::move(st);
      return st && done != 0;
    });
    return failed;
  }

 private:
  struct Send {
    MPI_Request req;
    std::vector<uint8_t> bytes;
  };
  std::deque<Send> sends_;  // MPI holds each vector's buffer, which moving a Send keeps in place
};
PendingReplies gReplies;  // guarded by gServing
std::mutex gServing;
// Request numbers, unique in the process: a late reply never matches a later link's request.
std::atomic<uint64_t> gSeq{0};

Status answerOne(MPI_Comm comm, MPI_Message msg, const MPI_Status& status) {
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  std::vector<uint8_t> request(static_cast<size_t>(count));
  MPI_Status st;
  if (Status s = mpiStatus(MPI_Mrecv(request.data(), count, MPI_BYTE, &msg, &st), "MPI_Mrecv(page request)",
                           status.MPI_SOURCE);
      !s)
    return s;
  WireReader r(request.data(), request.size());
  uint32_t magic = 0;
  uint16_t op = 0;
  uint64_t seq = 0;
  if (!r.get(magic) || magic != kMagic || !r.get(op) || !r.get(seq)) {
    log::warn(log::Comm, "ignoring a malformed page request from rank %d", status.MPI_SOURCE);
    return {};
  }
  std::vector<uint8_t> reply = header(static_cast<Op>(op), seq);
  switch (static_cast<Op>(op)) {
    case Op::Read: reply = answerRead(r, std::move(reply)); break;
    case Op::Write: reply = answerWrite(r, std::move(reply)); break;
    case Op::Maps: {
      // Left empty if unreadable: the serving rank takes an empty layout for a failure.
      std::string maps;
      if (Status st = readTextFile("/proc/self/maps", maps); !st)
        log::warn(log::Comm, "answering rank %d's page request: %s", status.MPI_SOURCE, st.message().c_str());
      WireWriter(reply).bytes(maps.data(), maps.size());
      break;
    }
    default: log::warn(log::Comm, "ignoring a page request of unknown kind %u from rank %d", op, status.MPI_SOURCE);
  }
  return gReplies.send(comm, status.MPI_SOURCE, std::move(reply));
}

}  // namespace

Result<bool> servePageRequests(MPI_Comm comm) {
  std::unique_lock lock(gServing, std::try_to_lock);
  if (!lock) return false;  // another thread of this rank is answering
  if (Status st = gReplies.reap(); !st) return st;
  bool any = false;
  while (true) {
    int flag = 0;
    MPI_Message msg;
    MPI_Status status;
    if (Status st = mpiStatus(MPI_Improbe(MPI_ANY_SOURCE, kPageRequestTag, comm, &flag, &msg, &status),
                              "MPI_Improbe(page request)");
        !st)
      return st;
    if (!flag) return any;
    if (Status st = answerOne(comm, msg, status); !st) return st;
    any = true;
  }
}

// Sends `request` and waits for the reply to it, probing for it so that the buffer fits;
// replies to earlier requests that timed out are dropped. Returns the reply's payload.
Result<std::vector<uint8_t>> PageLink::call(std::vector<uint8_t> request, const char* what) {
  std::lock_guard lock(mutex_);
  uint64_t seq = gSeq.fetch_add(1) + 1;
  std::memcpy(request.data() + sizeof(kMagic) + sizeof(uint16_t), &seq, sizeof seq);
  if (Status st = mpiStatus(MPI_Send(request.data(), static_cast<int>(request.size()), MPI_BYTE, host_,
                                     kPageRequestTag, comm_),
                            "MPI_Send(page request)", host_);
      !st)
    return st.withContext(what);
  double deadline = nowSeconds() + timeout_;
  while (true) {
    int flag = 0;
    MPI_Message msg;
    MPI_Status status;
    if (Status st = mpiStatus(MPI_Improbe(host_, kPageReplyTag, comm_, &flag, &msg, &status), "MPI_Improbe(page reply)",
                              host_);
        !st)
      return st.withContext(what);
    if (!flag) {
      if (nowSeconds() > deadline)
        return Status(Errc::Timeout, std::string(what) + ": rank " + std::to_string(host_) +
                                         " answered no page request for " + parse::formatSeconds(timeout_) +
                                         " (FERRY_TIMEOUT); it answers while it waits for its devices");
      sched_yield();
      continue;
    }
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    std::vector<uint8_t> reply(static_cast<size_t>(count));
    if (Status st = mpiStatus(MPI_Mrecv(reply.data(), count, MPI_BYTE, &msg, &status), "MPI_Mrecv(page reply)", host_);
        !st)
      return st.withContext(what);
    WireReader r(reply.data(), reply.size());
    uint32_t magic = 0;
    uint16_t op = 0;
    uint64_t got = 0;
    if (!r.get(magic) || magic != kMagic || !r.get(op) || !r.get(got))
      return Status(Errc::Protocol, std::string(what) + ": a malformed page reply from rank " + std::to_string(host_));
    if (got != seq) continue;  // the late reply to a request that timed out
    reply.erase(reply.begin(), reply.end() - static_cast<long>(r.remaining()));
    return reply;
  }
}

Result<uint32_t> PageLink::read(uint64_t page, uint32_t count, uint8_t* out) {
  count = std::min(count, kMaxLinkPages);
  std::vector<uint8_t> request = header(Op::Read, 0);
  WireWriter(request).put(page).put(count);
  auto reply = call(std::move(request), "reading rank 0's memory");
  if (!reply) return reply.takeStatus();
  WireReader r(reply->data(), reply->size());
  uint32_t pages = 0;
  const uint8_t* bytes = nullptr;
  if (!r.get(pages) || pages > count || !r.view(bytes, pages * kLinkPage))
    return Status(Errc::Protocol, "a malformed page read reply from rank " + std::to_string(host_));
  copyBytes(out, bytes, pages * kLinkPage);
  return pages;
}

Status PageLink::write(std::span<const iovec> local, std::span<const iovec> remote) {
  std::vector<uint8_t> request = header(Op::Write, 0);
  WireWriter w(request);
  w.put(static_cast<uint32_t>(remote.size()));
  uint64_t want = 0;
  for (const iovec& v : remote) {
    w.put(reinterpret_cast<uint64_t>(v.iov_base)).put(static_cast<uint32_t>(v.iov_len));
    want += v.iov_len;
  }
  for (const iovec& v : local) w.bytes(v.iov_base, v.iov_len);
  auto reply = call(std::move(request), "writing kernel results back to rank 0");
  if (!reply) return reply.takeStatus();
  WireReader r(reply->data(), reply->size());
  int32_t err = 0;
  uint64_t written = 0;
  if (!r.get(err) || !r.get(written))
    return Status(Errc::Protocol, "a malformed page write reply from rank " + std::to_string(host_));
  if (err != 0 || written != want)
    return Status(Errc::Unavailable, "writing " + parse::formatSize(want) + " of kernel results back to rank " +
                                         std::to_string(host_) + " failed: " +
                                         (err ? std::strerror(err) : "short write"));
  return {};
}

Result<std::string> PageLink::maps() {
  auto reply = call(header(Op::Maps, 0), "reading rank 0's address layout");
  if (!reply) return reply.takeStatus();
  // Every process maps something: an empty layout is one the host could not read.
  if (reply->empty())
    return Status(Errc::Unavailable, "rank " + std::to_string(host_) + " could not read its /proc/self/maps");
  return std::string(reply->begin(), reply->end());
}

}  // namespace ferry::comm
