// The device service over the channel transport, with no MPI anywhere: a forked child serves
// its CPU device through service::serve() on one end of a socketpair, as a co-processor's
// daemon will; the test drives it with raw protocol messages on the other end. This is the
// transport seam of issue 28 at work: the same server, another transport.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "comm/channel_transport.h"
#include "comm/protocol.h"
#include "comm/tag_pool.h"
#include "platform/backoff.h"
#include "platform/init.h"
#include "service/discovery.h"
#include "service/serving.h"

namespace ferry::service {
namespace {

using comm::DataDesc;
using comm::DataMode;
using comm::MsgType;

constexpr int kHelloTag = 100;  // the child's heap base, before it serves

// The child: serves one CPU device until Shutdown, then exits 0 (1 on an error).
[[noreturn]] void serveChild(int fd) {
  if (!initPlatform().isOk()) _exit(2);
  auto devices = discoverLocalDevices(1);
  if (!devices || devices->empty()) _exit(3);
  auto transport = std::make_unique<comm::ChannelTransport>(fd, 1, "daemon (test)", "client (test)");
  uint64_t base = (*devices)[0]->heapBase();
  std::vector<uint8_t> hello(sizeof base);
  std::memcpy(hello.data(), &base, sizeof base);
  if (!transport->send(0, kHelloTag, hello).isOk()) _exit(4);
  ServeOutcome out = serve(std::move(transport), std::move(devices.value()), {0});
  _exit(out.status.isOk() ? 0 : 1);
}

class ChannelServer : public ::testing::Test {
 protected:
  void SetUp() override {
    int fds[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    child_ = fork();
    ASSERT_GE(child_, 0);
    if (child_ == 0) {
      ::close(fds[0]);
      serveChild(fds[1]);
    }
    ::close(fds[1]);
    t_ = std::make_unique<comm::ChannelTransport>(fds[0], 0, "client (test)", "daemon (test)");
    tags_.setUpperBound(t_->tagUpperBound());
    auto hello = await([&] { return t_->take(1, kHelloTag); });
    ASSERT_EQ(hello.size(), sizeof heap_);
    std::memcpy(&heap_, hello.data(), sizeof heap_);
  }
  void TearDown() override {
    if (child_ <= 0) return;
    int status = 0;
    if (!shutDown_) ::kill(child_, SIGKILL);
    ASSERT_EQ(::waitpid(child_, &status, 0), child_);
    if (shutDown_) {
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
    }
  }

  // Polls `take` (a transport call returning an optional message) for at most 10 s.
  template <class F>
  std::vector<uint8_t> await(F take) {
    Backoff backoff(0);
    for (int i = 0; i < 200000; ++i) {
      auto got = take();
      EXPECT_TRUE(got.isOk()) << got.status().message();
      if (!got.isOk()) return {};
      if (got->has_value()) return std::move(**got);
      backoff.idle();
    }
    ADD_FAILURE() << "nothing arrived within the time";
    return {};
  }
  void send(MsgType type, const comm::Body& body, const void* bytes = nullptr, size_t len = 0) {
    ASSERT_TRUE(t_->send(1, comm::kControlTag, comm::encode(type, 0, seq_++, body, bytes, len)).isOk());
  }
  // Sends a request that carries `tag` and returns its reply.
  comm::ReplyMsg call(MsgType type, const comm::Body& body, int tag, std::vector<uint8_t>& storage) {
    auto recv = expectReply(tag);
    send(type, body);
    return awaitReply(*recv, storage);
  }
  // As the client does: the reply's receive is posted before the request goes out.
  std::unique_ptr<comm::PostedReceive> expectReply(int tag) {
    auto recv = t_->expect(1, tag, comm::replyCapacity(4, 4 << 20));
    EXPECT_TRUE(recv.isOk());
    return recv.isOk() ? std::move(*recv) : nullptr;
  }
  comm::ReplyMsg awaitReply(comm::PostedReceive& recv, std::vector<uint8_t>& storage) {
    Backoff backoff(0);
    for (int i = 0; i < 200000; ++i) {
      auto n = recv.test();
      EXPECT_TRUE(n.isOk()) << n.status().message();
      if (!n.isOk()) break;
      if (n->has_value()) {
        storage.assign(recv.data(), recv.data() + **n);
        auto msg = comm::decode(storage.data(), storage.size());
        EXPECT_TRUE(msg.isOk()) << msg.status().message();
        if (msg.isOk()) return std::get<comm::ReplyMsg>(msg->body);
        break;
      }
      backoff.idle();
    }
    comm::ReplyMsg none;
    none.code = Errc::Timeout;
    return none;
  }
  void runStream(comm::Stream& s) {
    for (int i = 0; i < 2000000; ++i) {
      auto done = s.progress();
      ASSERT_TRUE(done.isOk()) << done.status().message();
      if (*done) return;
    }
    FAIL() << "the transfer did not finish";
  }
  void shutdown() {
    send(MsgType::Shutdown, comm::ShutdownMsg{});
    while (t_->pendingSends() > 0) ASSERT_TRUE(t_->reap().isOk());
    shutDown_ = true;
  }

  pid_t child_ = -1;
  std::unique_ptr<comm::ChannelTransport> t_;
  comm::TagPool tags_;
  uint64_t heap_ = 0, seq_ = 1;
  bool shutDown_ = false;
};

std::vector<uint8_t> pattern(size_t n, int salt) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>((i * 131 + salt) ^ (i >> 9));
  return v;
}

TEST_F(ChannelServer, InitSubmitRetrieveInlineAndStreamed) {
  std::vector<uint8_t> storage;
  int tag = tags_.next();
  EXPECT_EQ(call(MsgType::InitDevice, comm::InitDeviceMsg{0, tag}, tag, storage).code, Errc::Ok);

  auto small = pattern(100, 1);
  send(MsgType::Submit, comm::SubmitMsg{heap_ + 64, DataDesc{DataMode::Inline, small.size()}, nullptr}, small.data(),
       small.size());
  tag = tags_.next();
  auto r = call(MsgType::Retrieve, comm::RetrieveMsg{heap_ + 64, tag, DataDesc{DataMode::Inline, small.size()}}, tag,
                storage);
  ASSERT_EQ(r.code, Errc::Ok) << r.message;
  ASSERT_EQ(r.inlineSize, small.size());
  EXPECT_EQ(std::vector<uint8_t>(r.inlineBytes, r.inlineBytes + r.inlineSize), small);

  // Large: chunks on a tag of their own, read into place on the other side.
  auto big = pattern((3 << 20) + 11, 2);
  DataDesc d{DataMode::Mpi, big.size(), 0, tags_.next(), 256 << 10, 0};
  send(MsgType::Submit, comm::SubmitMsg{heap_ + 4096, d, nullptr});
  auto out = t_->openStream(comm::Stream::Dir::Send, 1, d.tag, big.data(), big.size(), d.chunk, 4);
  runStream(*out);
  // The reply and then the chunks come on one tag: its receive first, then the stream's.
  std::vector<uint8_t> back(big.size(), 0);
  tag = tags_.next();
  d.tag = 0;
  auto reply = expectReply(tag);
  auto in = t_->openStream(comm::Stream::Dir::Recv, 1, tag, back.data(), back.size(), d.chunk, 4);
  send(MsgType::Retrieve, comm::RetrieveMsg{heap_ + 4096, tag, d});
  r = awaitReply(*reply, storage);
  ASSERT_EQ(r.code, Errc::Ok) << r.message;
  runStream(*in);
  EXPECT_TRUE(back == big) << "the streamed bytes differ";

  tag = tags_.next();
  EXPECT_EQ(call(MsgType::Sync, comm::SyncMsg{tag}, tag, storage).code, Errc::Ok);
  shutdown();
}

// An error says where, with the channel's names: the device and the daemon that serves it.
TEST_F(ChannelServer, ErrorsNameTheDaemon) {
  std::vector<uint8_t> storage;
  auto bytes = pattern(16, 3);
  send(MsgType::Submit, comm::SubmitMsg{8, DataDesc{DataMode::Inline, bytes.size()}, nullptr}, bytes.data(),
       bytes.size());
  int tag = tags_.next();
  auto r = call(MsgType::Sync, comm::SyncMsg{tag}, tag, storage);
  EXPECT_EQ(r.code, Errc::InvalidArgument);
  EXPECT_NE(r.message.find("submit on device 0 of daemon (test)"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("is not memory of this device"), std::string::npos) << r.message;
  shutdown();
}

// A daemon that dies ends the wait with its name, not a hang.
TEST_F(ChannelServer, ADeadDaemonEndsTheWait) {
  comm::TagPool tags;
  auto watch = t_->watch(1, tags);
  ASSERT_TRUE(watch->poll("a reply").isOk());
  ASSERT_EQ(::kill(child_, SIGKILL), 0);
  Status st;
  Backoff backoff(0);
  for (int i = 0; i < 200000 && st.isOk(); ++i) {
    st = watch->poll("the reply to sync");
    backoff.idle();
  }
  EXPECT_EQ(st.code(), Errc::Unavailable);
  // "closed the connection", or "... (Connection reset by peer)" where it died with bytes unread.
  EXPECT_NE(st.message().find("daemon (test) closed the connection"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("while client (test) waited for the reply to sync"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace ferry::service
