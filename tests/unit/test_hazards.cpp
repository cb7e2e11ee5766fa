// The server's ordering rules: which ops may run concurrently on one device stream.
#include <gtest/gtest.h>

#include "service/op.h"

namespace ferry::service {
namespace {

Op make(comm::MsgType type, comm::Body body) {
  Op op;
  op.type = type;
  op.body = std::move(body);
  classifyHazards(op);
  return op;
}

Op submit(uint64_t dst, uint64_t n) {
  return make(comm::MsgType::Submit, comm::SubmitMsg{dst, comm::DataDesc{comm::DataMode::Mpi, n}, nullptr});
}
Op retrieve(uint64_t src, uint64_t n) {
  return make(comm::MsgType::Retrieve, comm::RetrieveMsg{src, 1, comm::DataDesc{comm::DataMode::Mpi, n}});
}

TEST(Hazards, DisjointTransfersOverlap) {
  EXPECT_FALSE(submit(0x1000, 0x100).conflictsWith(submit(0x2000, 0x100)));
  EXPECT_FALSE(retrieve(0x1000, 0x100).conflictsWith(retrieve(0x1000, 0x100))) << "two reads never conflict";
  EXPECT_FALSE(submit(0x1000, 0x100).conflictsWith(submit(0x1100, 0x100))) << "adjacent is not overlapping";
}

TEST(Hazards, OverlappingWritesAndReadsOrder) {
  EXPECT_TRUE(submit(0x1000, 0x100).conflictsWith(retrieve(0x10ff, 1))) << "read after write";
  EXPECT_TRUE(retrieve(0x1000, 0x100).conflictsWith(submit(0x1080, 0x10))) << "write after read";
  EXPECT_TRUE(submit(0x1000, 0x100).conflictsWith(submit(0x1000, 0x1))) << "write after write";
}

TEST(Hazards, KernelsAndSyncsAreBarriers) {
  Op launch = make(comm::MsgType::Launch, comm::LaunchMsg{});
  Op sync = make(comm::MsgType::Sync, comm::SyncMsg{1});
  EXPECT_TRUE(launch.barrier);
  EXPECT_TRUE(sync.barrier);
  EXPECT_TRUE(launch.conflictsWith(retrieve(0x9000, 1)));
  EXPECT_TRUE(retrieve(0x9000, 1).conflictsWith(sync));
}

TEST(Hazards, ExchangeSidesAndFree) {
  Op send = make(comm::MsgType::ExchangeSend, comm::ExchangeMsg{0x1000, comm::DataDesc{comm::DataMode::Cma, 0x100}});
  Op recv = make(comm::MsgType::ExchangeRecv, comm::ExchangeMsg{0x2000, comm::DataDesc{comm::DataMode::Cma, 0x100}});
  // The deadlock-free case: a send and an unrelated receive on one device may both wait on
  // their peers at the same time.
  EXPECT_FALSE(send.conflictsWith(recv));
  Op freeOp = make(comm::MsgType::Free, comm::FreeMsg{0x1000, 0x100, 0});
  EXPECT_TRUE(send.conflictsWith(freeOp)) << "a block is not released while it is being sent";
  Op alloc = make(comm::MsgType::Alloc, comm::AllocMsg{0x1000, 0x100, 0, 0});
  EXPECT_FALSE(alloc.conflictsWith(submit(0x1000, 0x100)));
}

}  // namespace
}  // namespace ferry::service
