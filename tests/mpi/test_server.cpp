// The device server driven by raw protocol messages from rank 0: transfers on every path,
// exchanges between servers, malformed input, and sticky errors. Tests run on rank 0; the
// other ranks serve (server_fixture.cpp). Error tests come last: errors are sticky.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "comm/mpi_pipe.h"
#include "platform/config.h"
#include "server_fixture.h"

namespace ferry::testing {
namespace {

using comm::DataDesc;
using comm::DataMode;
using comm::MsgType;

std::vector<uint8_t> pattern(size_t n, int salt) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i * 31 + salt + (i >> 11));
  return v;
}

void finish(comm::MpiPipe& p) {
  for (int i = 0; i < 10000000; ++i) {
    auto done = p.progress();
    ASSERT_TRUE(done.isOk()) << done.status().message();
    if (*done) return;
  }
  FAIL() << "pipe did not finish";
}

// Path rank 0 uses for large host<->device transfers with `rank`.
DataMode bulkMode(RawClient& c, int rank) {
  return c.world().pathTo(rank) == comm::Path::Mpi ? DataMode::Mpi : DataMode::Cma;
}

void put(RawClient& c, int rank, uint64_t dst, const std::vector<uint8_t>& data, DataMode mode) {
  DataDesc d{mode, data.size(), c.world().rank(), 0, 0, 0};
  if (mode == DataMode::Inline) {
    c.send(rank, 0, MsgType::Submit, comm::SubmitMsg{dst, d, nullptr}, data.data(), data.size());
    return;
  }
  if (mode == DataMode::Cma) {
    d.remoteAddr = reinterpret_cast<uint64_t>(data.data());
    c.send(rank, 0, MsgType::Submit, comm::SubmitMsg{dst, d, nullptr});
    ASSERT_TRUE(c.sync(rank, 0).isOk()) << "the server reads our buffer before Sync answers";
    return;
  }
  d.tag = c.tag();
  d.chunk = 256 * 1024;
  c.send(rank, 0, MsgType::Submit, comm::SubmitMsg{dst, d, nullptr});
  comm::MpiPipe p(comm::MpiPipe::Dir::Send, c.world().comm(), rank, d.tag, const_cast<uint8_t*>(data.data()),
                  data.size(), d.chunk, 4);
  finish(p);
}

std::vector<uint8_t> get(RawClient& c, int rank, uint64_t src, size_t n, DataMode mode, Status* err = nullptr) {
  std::vector<uint8_t> out(n, 0), storage;
  int tag = c.tag();
  DataDesc d{mode, n, c.world().rank(), 0, 256 * 1024, 0};
  if (mode == DataMode::Cma) d.remoteAddr = reinterpret_cast<uint64_t>(out.data());
  std::optional<comm::MpiPipe> pipe;
  c.send(rank, 0, MsgType::Retrieve, comm::RetrieveMsg{src, tag, d});
  auto r = c.awaitReply(rank, tag, storage);
  if (err) *err = r.code == Errc::Ok ? Status() : Status(r.code, r.message);
  if (r.code != Errc::Ok) return {};
  if (mode == DataMode::Inline) {
    EXPECT_EQ(r.inlineSize, n);
    std::memcpy(out.data(), r.inlineBytes, n);
  } else if (mode == DataMode::Mpi) {
    comm::MpiPipe p(comm::MpiPipe::Dir::Recv, c.world().comm(), rank, tag, out.data(), n, d.chunk, 4);
    finish(p);
  }
  return out;
}

TEST(Server, InitAnswers) {
  RawClient* c = client();
  if (!c) return;
  for (const auto& s : c->servers()) {
    int tag = c->tag();
    c->send(s.rank, 0, MsgType::InitDevice, comm::InitDeviceMsg{1, tag});
    std::vector<uint8_t> st;
    EXPECT_EQ(c->awaitReply(s.rank, tag, st).code, Errc::Ok);
  }
}

TEST(Server, SubmitRetrieveOnEveryPath) {
  RawClient* c = client();
  if (!c) return;
  for (const auto& s : c->servers()) {
    uint64_t heap = s.heapBase[0];
    auto small = pattern(100, s.rank);
    put(*c, s.rank, heap + 64, small, DataMode::Inline);
    EXPECT_EQ(get(*c, s.rank, heap + 64, small.size(), DataMode::Inline), small);

    auto big = pattern((3 << 20) + 11, s.rank + 7);
    DataMode mode = bulkMode(*c, s.rank);
    put(*c, s.rank, heap + 4096, big, mode);
    EXPECT_EQ(get(*c, s.rank, heap + 4096, big.size(), mode), big) << "mode " << static_cast<int>(mode);
    // The other bulk path works too (MPI always does; CMA when the kernel allows it).
    auto other = pattern(1 << 20, 3);
    put(*c, s.rank, heap + (8 << 20), other, DataMode::Mpi);
    EXPECT_EQ(get(*c, s.rank, heap + (8 << 20), other.size(), DataMode::Mpi), other);
    EXPECT_TRUE(c->sync(s.rank, 0).isOk());
  }
}

TEST(Server, LaterOpsWaitForEarlierOnes) {
  // A large submit followed at once by a small retrieve of its last bytes: the retrieve must
  // see the new bytes (read-after-write hazard across a running MPI transfer).
  RawClient* c = client();
  if (!c) return;
  const auto& s = c->servers().front();
  uint64_t dst = s.heapBase[0] + (16 << 20);
  auto big = pattern(4 << 20, 9);
  DataDesc d{DataMode::Mpi, big.size(), 0, c->tag(), 65536, 0};
  c->send(s.rank, 0, MsgType::Submit, comm::SubmitMsg{dst, d, nullptr});
  int tag = c->tag();
  c->send(s.rank, 0, MsgType::Retrieve, comm::RetrieveMsg{dst + big.size() - 16, tag, DataDesc{DataMode::Inline, 16, 0}});
  comm::MpiPipe p(comm::MpiPipe::Dir::Send, c->world().comm(), s.rank, d.tag, big.data(), big.size(), d.chunk, 64);
  finish(p);
  std::vector<uint8_t> st;
  auto r = c->awaitReply(s.rank, tag, st);
  ASSERT_EQ(r.code, Errc::Ok);
  EXPECT_EQ(std::vector<uint8_t>(r.inlineBytes, r.inlineBytes + 16), std::vector<uint8_t>(big.end() - 16, big.end()));
}

TEST(Server, ExchangeBetweenServersNeverTouchesRankZero) {
  RawClient* c = client();
  if (!c || c->servers().size() < 2) GTEST_SKIP() << "needs two serving ranks";
  const auto& a = c->servers()[0];
  const auto& b = c->servers()[1];
  for (size_t n : {size_t{5}, size_t{2} << 20}) {
    auto data = pattern(n, static_cast<int>(n));
    put(*c, a.rank, a.heapBase[0] + (32 << 20), data, DataMode::Inline == DataMode::Inline && n < 8192 ? DataMode::Inline
                                                                                                       : DataMode::Mpi);
    bool sameNode = c->world().peer(a.rank).node == c->world().peer(b.rank).node && c->world().cmaEnabled();
    DataDesc d{sameNode ? DataMode::Cma : DataMode::Mpi, n, 0, c->tag(), 65536, 0};
    comm::ExchangeMsg toSrc{a.heapBase[0] + (32 << 20), d}, toDst{b.heapBase[0] + (32 << 20), d};
    toSrc.data.peer = b.rank;
    toDst.data.peer = a.rank;
    c->send(b.rank, 0, MsgType::ExchangeRecv, toDst);
    c->send(a.rank, 0, MsgType::ExchangeSend, toSrc);
    ASSERT_TRUE(c->sync(a.rank, 0).isOk());
    ASSERT_TRUE(c->sync(b.rank, 0).isOk());
    EXPECT_EQ(get(*c, b.rank, b.heapBase[0] + (32 << 20), n, n < 8192 ? DataMode::Inline : DataMode::Mpi), data);
  }
}

TEST(Server, BatchedOpsRunInOrder) {
  RawClient* c = client();
  if (!c) return;
  const auto& s = c->servers().front();
  uint64_t dst = s.heapBase[0] + (40 << 20);
  auto data = pattern(300, 5);
  int tag = c->tag();
  auto submit = comm::encode(MsgType::Submit, 0, 900, comm::SubmitMsg{dst, DataDesc{DataMode::Inline, data.size()}, nullptr},
                             data.data(), data.size());
  auto retrieve = comm::encode(MsgType::Retrieve, 0, 901, comm::RetrieveMsg{dst, tag, DataDesc{DataMode::Inline, data.size()}});
  comm::BatchMsg batch;
  batch.items = {{submit.data(), submit.size()}, {retrieve.data(), retrieve.size()}};
  c->sendRaw(s.rank, comm::encode(MsgType::Batch, comm::kNoDevice, 902, batch));
  std::vector<uint8_t> st;
  auto r = c->awaitReply(s.rank, tag, st);
  ASSERT_EQ(r.code, Errc::Ok) << r.message;
  EXPECT_EQ(std::vector<uint8_t>(r.inlineBytes, r.inlineBytes + r.inlineSize), data);
}

TEST(Server, ControlMessagesCannotHideInABatch) {
  RawClient* c = client();
  if (!c) return;
  int rank = c->servers().front().rank;
  auto shutdown = comm::encode(MsgType::Shutdown, comm::kNoDevice, 903, comm::ShutdownMsg{});
  comm::BatchMsg batch;
  batch.items = {{shutdown.data(), shutdown.size()}};
  c->sendRaw(rank, comm::encode(MsgType::Batch, comm::kNoDevice, 904, batch));
  EXPECT_TRUE(c->sync(rank, 0).isOk()) << "the batched shutdown was dropped and the server goes on";
}

TEST(Server, UnknownLocalDeviceIsAnsweredNotIgnored) {
  RawClient* c = client();
  if (!c) return;
  int tag = c->tag();
  c->send(c->servers()[0].rank, 7, MsgType::Sync, comm::SyncMsg{tag});
  std::vector<uint8_t> st;
  auto r = c->awaitReply(c->servers()[0].rank, tag, st);
  EXPECT_EQ(r.code, Errc::NotFound);
  EXPECT_NE(r.message.find("no local device 7"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("rank " + std::to_string(c->servers()[0].rank)), std::string::npos) << r.message;
}

TEST(Server, MalformedMessagesAreDroppedAndServingGoesOn) {
  RawClient* c = client();
  if (!c) return;
  int rank = c->servers()[0].rank;
  c->sendRaw(rank, std::vector<uint8_t>(40, 0x5a));                      // not Ferry at all
  auto truncated = comm::encode(MsgType::Sync, 0, 1, comm::SyncMsg{3});
  truncated.resize(truncated.size() - 2);
  c->sendRaw(rank, truncated);                                           // cut short
  EXPECT_TRUE(c->sync(rank, 0).isOk()) << "the server still answers after dropping both";
}

// Errors are sticky per device, so this runs last.
TEST(ServerZ, RangeErrorsAreReportedAndSticky) {
  RawClient* c = client();
  if (!c) return;
  int rank = c->servers()[0].rank;
  Status err;
  get(*c, rank, 0x10, 64, DataMode::Inline, &err);
  ASSERT_FALSE(err.isOk());
  EXPECT_EQ(err.code(), Errc::InvalidArgument);
  EXPECT_NE(err.message().find("not memory of this device"), std::string::npos) << err.message();
  Status later = c->sync(rank, 0);
  EXPECT_FALSE(later.isOk()) << "a later Sync carries the first error";
  EXPECT_NE(later.message().find("retrieve"), std::string::npos) << later.message();
  // A large MPI submit to the failed device is drained, so the sender does not hang.
  auto big = pattern(2 << 20, 1);
  DataDesc d{DataMode::Mpi, big.size(), 0, c->tag(), 65536, 0};
  c->send(rank, 0, MsgType::Submit, comm::SubmitMsg{c->servers()[0].heapBase[0], d, nullptr});
  comm::MpiPipe p(comm::MpiPipe::Dir::Send, c->world().comm(), rank, d.tag, big.data(), big.size(), d.chunk, 64);
  finish(p);
  EXPECT_FALSE(c->sync(rank, 0).isOk());
}

TEST(ServerZ, CorruptImageIsRefusedWithAReason) {
  RawClient* c = client();
  if (!c) return;
  int rank = c->servers().back().rank;  // after the range-error test: that device is already failed on np2
  std::vector<uint8_t> junk(300, 0x11);
  int tag = c->tag();
  c->send(rank, 0, MsgType::LoadImage,
          comm::LoadImageMsg{0x1234, tag, 0, DataDesc{DataMode::Inline, junk.size()}, nullptr}, junk.data(),
          junk.size());
  std::vector<uint8_t> st;
  auto r = c->awaitReply(rank, tag, st);
  EXPECT_NE(r.code, Errc::Ok);
  EXPECT_FALSE(r.message.empty());
  // On one serving rank this device already failed in the test above: the reply then
  // carries that first error instead.
  if (c->servers().size() >= 2) {
    EXPECT_NE(r.message.find("load_image"), std::string::npos) << r.message;
  }
}

}  // namespace
}  // namespace ferry::testing
