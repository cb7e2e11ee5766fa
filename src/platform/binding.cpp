#include "platform/binding.h"

#include <hwloc.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <set>

#include "platform/parse.h"

namespace ferry {
namespace {

// Cores of each NUMA domain, in the layout's order.
std::vector<std::vector<int>> coresByDomain(const NodeLayout& node) {
  int domains = 0;
  for (const CoreSlot& c : node.cores) domains = std::max(domains, c.numa + 1);
  std::vector<std::vector<int>> by(static_cast<size_t>(std::max(domains, 1)));
  for (size_t i = 0; i < node.cores.size(); ++i) by[static_cast<size_t>(node.cores[i].numa)].push_back(static_cast<int>(i));
  std::erase_if(by, [](const std::vector<int>& d) { return d.empty(); });
  return by;
}

// How many ranks each domain takes: in proportion to its cores (largest remainder), never
// more than it holds at `perRank` cores each. Empty when the ranks do not fit that way.
std::vector<int> ranksPerDomain(const std::vector<std::vector<int>>& domains, int ranks, int perRank) {
  size_t cores = 0;
  for (const auto& d : domains) cores += d.size();
  std::vector<int> share(domains.size()), room(domains.size());
  std::vector<std::pair<double, size_t>> remainders;
  int given = 0;
  for (size_t d = 0; d < domains.size(); ++d) {
    room[d] = static_cast<int>(domains[d].size()) / perRank;
    double exact = static_cast<double>(ranks) * static_cast<double>(domains[d].size()) / static_cast<double>(cores);
    share[d] = std::min(room[d], static_cast<int>(exact));
    given += share[d];
    remainders.push_back({exact - share[d], d});
  }
  std::stable_sort(remainders.begin(), remainders.end(), [](auto& a, auto& b) { return a.first > b.first; });
  for (bool placed = true; given < ranks && placed;) {
    placed = false;
    for (auto& [rem, d] : remainders)
      if (given < ranks && share[d] < room[d]) {
        ++share[d], ++given, placed = true;
      }
  }
  return given == ranks ? share : std::vector<int>();
}

// Contiguous blocks of `perRank` cores: domain by domain where the ranks fit that way,
// else along the whole node (a rank may then span domains, which a note says).
std::vector<std::vector<int>> coreBlocks(const NodeLayout& node, int ranks, int perRank) {
  std::vector<std::vector<int>> blocks;
  auto domains = coresByDomain(node);
  if (auto share = ranksPerDomain(domains, ranks, perRank); !share.empty()) {
    for (size_t d = 0; d < domains.size(); ++d)
      for (int r = 0; r < share[d]; ++r)
        blocks.emplace_back(domains[d].begin() + r * perRank, domains[d].begin() + (r + 1) * perRank);
    return blocks;
  }
  int cores = static_cast<int>(node.cores.size());
  for (int r = 0; r < ranks; ++r) {
    std::vector<int> block;
    for (int k = 0; k < perRank; ++k) block.push_back((r * perRank + k) % cores);  // shared when oversubscribed
    blocks.push_back(std::move(block));
  }
  return blocks;
}

// OMP_PLACES for a rank: one place per core, or, with threads on hardware threads, one per
// hardware thread, first the first of every core, then the second (so that threads use
// every core before they share one).
std::string placesFor(const NodeLayout& node, const RankCores& r) {
  std::string out;
  auto add = [&out](const std::vector<int>& pus) { out += (out.empty() ? "{" : ",{") + cpuList(pus) + "}"; };
  if (!r.hardwareThreads) {
    for (int c : r.cores) add(node.cores[static_cast<size_t>(c)].pus);
    return out;
  }
  size_t smt = 0;
  for (int c : r.cores) smt = std::max(smt, node.cores[static_cast<size_t>(c)].pus.size());
  for (size_t t = 0; t < smt; ++t)
    for (int c : r.cores)
      if (t < node.cores[static_cast<size_t>(c)].pus.size()) add({node.cores[static_cast<size_t>(c)].pus[t]});
  return out;
}

void noteSpansAndIdle(const NodeLayout& node, NodePlan& plan) {
  std::set<int> used;
  for (size_t r = 0; r < plan.ranks.size(); ++r) {
    std::set<int> domains;
    for (int c : plan.ranks[r].cores) {
      used.insert(c);
      domains.insert(node.cores[static_cast<size_t>(c)].numa);
    }
    if (domains.size() > 1)
      plan.notes.push_back("node-local rank " + std::to_string(r) + " spans " + std::to_string(domains.size()) +
                           " NUMA domains: its threads reach part of its memory remotely (fewer threads per rank, or "
                           "ranks per node that divide the domains' cores, keep each rank in one)");
  }
  int idle = static_cast<int>(node.cores.size()) - static_cast<int>(used.size());
  if (idle > 0)
    plan.notes.push_back(std::to_string(idle) + " of the node's " + std::to_string(node.cores.size()) +
                         " cores are left idle: more ranks, or more threads per rank (OMP_NUM_THREADS), would use them");
}

}  // namespace

NodePlan planNode(const NodeLayout& node, int ranks, int threads) {
  NodePlan plan;
  const int cores = static_cast<int>(node.cores.size()), pus = node.pus();
  ranks = std::max(1, ranks);
  threads = threads > 0 ? threads : std::max(1, cores / ranks);
  const int smt = std::max(1, pus / std::max(1, cores));
  int perRank = threads;  // cores per rank
  bool hardwareThreads = false;
  if (ranks * threads > cores && ranks * threads <= pus && smt > 1) {
    perRank = (threads + smt - 1) / smt;  // the threads fit on the hardware threads of fewer cores
    hardwareThreads = true;
  } else if (ranks * threads > cores) {
    plan.oversubscribed = true;
    perRank = std::max(1, cores / ranks);
    plan.notes.push_back(std::to_string(ranks) + " ranks x " + std::to_string(threads) + " threads on " +
                         std::to_string(cores) + " cores (" + std::to_string(pus) + " hardware threads): " +
                         (ranks > cores ? "ranks share cores" : "each rank's threads share its " +
                                                                    std::to_string(perRank) + " core(s)") +
                         "; fewer ranks or OMP_NUM_THREADS=" + std::to_string(std::max(1, cores / ranks)) +
                         " give each thread a core of its own");
  }
  for (auto& block : coreBlocks(node, ranks, perRank)) {
    RankCores r;
    r.cores = std::move(block);
    for (int c : r.cores)
      for (int pu : node.cores[static_cast<size_t>(c)].pus) r.pus.push_back(pu);
    std::sort(r.pus.begin(), r.pus.end());
    r.pus.erase(std::unique(r.pus.begin(), r.pus.end()), r.pus.end());
    r.threads = threads;
    r.hardwareThreads = hardwareThreads;
    r.places = placesFor(node, r);
    plan.ranks.push_back(std::move(r));
  }
  noteSpansAndIdle(node, plan);
  return plan;
}

namespace {

int envInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  auto n = v ? parse::integer(v) : std::nullopt;
  return n ? static_cast<int>(*n) : fallback;
}

// Slurm's "2(x3),1": tasks on each node of the step, in node order.
int slurmTasksOnNode(const char* perNode, int node) {
  int seen = 0;
  for (const char* p = perNode; p && *p;) {
    int tasks = std::atoi(p), times = 1;
    const char* rep = std::strchr(p, '(');
    const char* comma = std::strchr(p, ',');
    if (rep && (!comma || rep < comma)) times = std::atoi(rep + 2);
    if (node < seen + times) return tasks;
    seen += times;
    p = comma ? comma + 1 : nullptr;
  }
  return 0;
}

}  // namespace

LocalRank localRankFromLauncher() {
  if (std::getenv("OMPI_COMM_WORLD_LOCAL_RANK"))
    return {envInt("OMPI_COMM_WORLD_LOCAL_RANK", 0), envInt("OMPI_COMM_WORLD_LOCAL_SIZE", 1), "Open MPI"};
  if (std::getenv("MPI_LOCALRANKID"))
    return {envInt("MPI_LOCALRANKID", 0), envInt("MPI_LOCALNRANKS", 1), "MPICH's Hydra"};
  if (std::getenv("SLURM_LOCALID")) {
    const char* perNode = std::getenv("SLURM_STEP_TASKS_PER_NODE");
    int size = slurmTasksOnNode(perNode ? perNode : std::getenv("SLURM_TASKS_PER_NODE"), envInt("SLURM_NODEID", 0));
    return {envInt("SLURM_LOCALID", 0), std::max(1, size), "Slurm"};
  }
  return {};
}

Status bindProcess(const std::vector<int>& pus) {
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0)
    return Status(Errc::Unavailable, std::string("hwloc cannot load this machine's topology: ") + std::strerror(errno));
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  for (int pu : pus) hwloc_bitmap_set(set, static_cast<unsigned>(pu));
  int rc = hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_PROCESS);
  int err = errno;
  hwloc_bitmap_free(set);
  hwloc_topology_destroy(topo);
  if (rc != 0)
    return Status(Errc::Unavailable, "binding this process to CPUs " + cpuList(pus) + " failed: " + std::strerror(err) +
                                         " (a container's cpuset may not hold them: see /proc/self/status, "
                                         "Cpus_allowed_list)");
  return {};
}

std::string cpuList(const std::vector<int>& pus) {
  std::vector<int> s(pus);
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  std::string out;
  for (size_t i = 0; i < s.size();) {
    size_t j = i;
    while (j + 1 < s.size() && s[j + 1] == s[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(s[i]) + (j > i ? "-" + std::to_string(s[j]) : "");
    i = j + 1;
  }
  return out;
}

Result<std::vector<int>> parseCpuList(const std::string& text) {
  std::vector<int> out;
  size_t at = 0;
  while (at < text.size()) {
    size_t comma = text.find(',', at);
    std::string item = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    size_t dash = item.find('-');
    auto lo = parse::integer(item.substr(0, dash));
    auto hi = dash == std::string::npos ? lo : parse::integer(item.substr(dash + 1));
    if (!lo || !hi || *lo < 0 || *hi < *lo || *hi > 1 << 20)
      return Status(Errc::InvalidArgument, "'" + text + "' is no CPU list (like 0-3,8): '" + item + "'");
    for (int64_t c = *lo; c <= *hi; ++c) out.push_back(static_cast<int>(c));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return out;
}

}  // namespace ferry
