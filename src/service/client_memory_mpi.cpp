// The serving ranks' way to their client's memory: cross-memory attach to a rank of the same
// node, and comm::PageLink (MPI) to one on another node or where CMA is refused.
#include <memory>

#include "comm/page_link.h"
#include "comm/world.h"
#include "platform/config.h"
#include "platform/log.h"
#include "service/client_memory.h"
#include "service/host_pager.h"
#include "service/page_courier.h"

namespace ferry::service {
namespace {

class MpiClientMemory final : public ClientMemory {
 public:
  Result<pid_t> unifiedHost(int clientRank) override {
    comm::World* world = comm::World::instance();
    if (!world)
      return Status(Errc::Unsupported,
                    "'#pragma omp requires unified_shared_memory' needs the MPI job the device serves");
    if (clientRank == world->rank()) return pid_t{0};
    const comm::PeerInfo& client = world->peer(clientRank);
    if (client.node == world->self().node && world->cmaEnabled()) return client.pid;
    log::info(log::Service, "unified shared memory: rank %d's pages come over MPI (%s)", clientRank,
              client.node != world->self().node ? "it is on another node" : world->cmaReason().c_str());
    auto link = std::make_unique<comm::PageLink>(world->comm(), clientRank, config().seconds(Knob::Timeout));
    if (Status st = courier::start(std::move(link)); !st) return st;
    if (courier::link()->host() != clientRank)
      return Status(Errc::Unsupported, "unified shared memory: this rank already pages the memory of rank " +
                                           std::to_string(courier::link()->host()) + ", and one rank pages one client");
    return hostpager::kRemoteHost;
  }

  // Only a client CMA reaches: over MPI it would have to answer page requests in every wait
  // of every program. Where none qualifies, kernels simply fault, so no error is kept.
  pid_t lenientHost(int clientRank) override {
    if (config().text(Knob::UnmappedAccess) != "serve") return 0;
    comm::World* world = comm::World::instance();
    if (!world || clientRank == world->rank()) return 0;
    const comm::PeerInfo& client = world->peer(clientRank);
    return client.node == world->self().node && world->cmaEnabled() ? client.pid : 0;
  }
};

}  // namespace

ClientMemory& mpiClientMemory() {
  static MpiClientMemory memory;
  return memory;
}

}  // namespace ferry::service
