// Runs a device server on every rank but 0 for the whole test binary, and gives rank 0 a
// raw protocol client to drive it: the server is tested without libomptarget.
#pragma once

#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "comm/mailbox.h"
#include "comm/protocol.h"
#include "comm/world.h"

namespace ferry::testing {

struct ServerInfo {
  int rank;
  int numDevices;
  std::vector<uint64_t> heapBase;  // per local device
};

class RawClient {
 public:
  explicit RawClient(comm::World& w);
  comm::World& world() { return w_; }
  const std::vector<ServerInfo>& servers() const { return servers_; }
  int tag() { return tags_.next(); }

  // Sends a message to (rank, device); with `inlineBytes` for Submit/LoadImage.
  void send(int rank, uint32_t device, comm::MsgType type, const comm::Body& body, const void* inlineBytes = nullptr,
            size_t inlineLen = 0);
  void sendRaw(int rank, std::vector<uint8_t> bytes);
  // Waits (10 s at most) for the reply on `tag` from `rank`.
  comm::ReplyMsg awaitReply(int rank, int tag, std::vector<uint8_t>& storage);
  // Sends Sync and returns the reply's status.
  Status sync(int rank, uint32_t device);
  void shutdownAll();
  void addServer(ServerInfo s) { servers_.push_back(std::move(s)); }

 private:
  comm::World& w_;
  comm::Outbox out_;
  comm::TagPool tags_;
  uint64_t seq_ = 1;
  std::vector<ServerInfo> servers_;
};

// Rank 0's client (nullptr on other ranks).
RawClient* client();

}  // namespace ferry::testing
