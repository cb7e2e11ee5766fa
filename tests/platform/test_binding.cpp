// planNode(): each rank of a node gets cores of its own for its OpenMP threads, on the
// layouts of machines this is not (hwloc XML files in topologies/, made with
// `lstopo-no-graphics -i "<synthetic description>" --of xml`, and this 2-core machine's).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <set>
#include <string>

#include "platform/binding.h"
#include "topology_files.h"

namespace ferry {
namespace {

std::set<int> domainsOf(const NodeLayout& node, const RankCores& r) {
  std::set<int> d;
  for (int c : r.cores) d.insert(node.cores[static_cast<size_t>(c)].numa);
  return d;
}

bool mentions(const NodePlan& plan, const std::string& text) {
  for (const auto& n : plan.notes)
    if (n.find(text) != std::string::npos) return true;
  return false;
}

TEST(NodeLayout, ReadsCoresThreadsAndDomains) {
  NodeLayout two = layout("two-socket-numa-smt.xml");
  ASSERT_EQ(two.cores.size(), 16u);
  EXPECT_EQ(two.pus(), 32);
  EXPECT_EQ(two.numaDomains, 2);
  EXPECT_EQ(two.cores[7].numa, 0);
  EXPECT_EQ(two.cores[8].numa, 1);
  EXPECT_EQ(two.cores[8].package, 1);
  EXPECT_EQ(two.cores[0].pus.size(), 2u);
  NodeLayout many = layout("manycore-64-4numa.xml");
  EXPECT_EQ(many.cores.size(), 64u);
  EXPECT_EQ(many.numaDomains, 4);
  EXPECT_FALSE(loadNodeLayout("/nonexistent/topology.xml").isOk());
}

// The property everything else rests on: no two ranks share a hardware thread, and each has
// as many cores as threads, on every layout and for every rank count that fits.
TEST(PlanNode, RanksNeverShareCoresWhenTheyFit) {
  for (const char* file : {"this-machine-2core.xml", "one-socket-8core.xml", "two-socket-numa-smt.xml",
                           "smt-4core.xml", "manycore-64-4numa.xml"}) {
    NodeLayout node = layout(file);
    int cores = static_cast<int>(node.cores.size());
    for (int ranks = 1; ranks <= cores; ++ranks) {
      NodePlan plan = planNode(node, ranks, 0);
      ASSERT_EQ(plan.ranks.size(), static_cast<size_t>(ranks)) << file;
      EXPECT_FALSE(plan.oversubscribed) << file << " " << ranks;
      std::set<int> seen;
      for (const RankCores& r : plan.ranks) {
        EXPECT_EQ(r.threads, cores / ranks) << file << " " << ranks;
        EXPECT_EQ(r.cores.size(), static_cast<size_t>(cores / ranks)) << file << " " << ranks;
        for (int pu : r.pus) EXPECT_TRUE(seen.insert(pu).second) << file << ": PU " << pu << " given twice";
      }
    }
  }
}

TEST(PlanNode, OneRankGetsTheWholeMachine) {
  NodePlan plan = planNode(layout("this-machine-2core.xml"), 1, 0);
  ASSERT_EQ(plan.ranks.size(), 1u);
  EXPECT_EQ(plan.ranks[0].threads, 2);
  EXPECT_EQ(plan.ranks[0].places, "{0},{1}");
  EXPECT_TRUE(plan.notes.empty());
}

TEST(PlanNode, RanksStayInOneNumaDomainAndDomainsShareTheRanks) {
  NodeLayout node = layout("two-socket-numa-smt.xml");
  NodePlan four = planNode(node, 4, 4);
  for (const RankCores& r : four.ranks) EXPECT_EQ(domainsOf(node, r).size(), 1u);
  EXPECT_EQ(*domainsOf(node, four.ranks[1]).begin(), 0);
  EXPECT_EQ(*domainsOf(node, four.ranks[2]).begin(), 1) << "two ranks per domain, not four in the first";
  NodePlan three = planNode(node, 3, 4);
  for (const RankCores& r : three.ranks) EXPECT_EQ(domainsOf(node, r).size(), 1u);
  EXPECT_TRUE(mentions(three, "4 of the node's 16 cores are left idle"));
  NodeLayout many = layout("manycore-64-4numa.xml");
  NodePlan sixteen = planNode(many, 16, 4);
  for (size_t r = 0; r < 16; ++r) EXPECT_EQ(*domainsOf(many, sixteen.ranks[r]).begin(), static_cast<int>(r / 4));
}

// 5 ranks of 3 threads cannot each sit in one 8-core domain (2 fit in each): the plan says
// which rank spans two, instead of placing them silently.
TEST(PlanNode, SaysWhenARankMustSpanDomains) {
  NodePlan plan = planNode(layout("two-socket-numa-smt.xml"), 5, 3);
  EXPECT_FALSE(plan.oversubscribed);
  EXPECT_TRUE(mentions(plan, "node-local rank 2 spans 2 NUMA domains")) << plan.notes.size();
}

TEST(PlanNode, ThreadsBeyondCoresGoToHardwareThreadsCoreFirst) {
  NodePlan plan = planNode(layout("two-socket-numa-smt.xml"), 2, 16);
  ASSERT_EQ(plan.ranks.size(), 2u);
  EXPECT_FALSE(plan.oversubscribed);
  EXPECT_TRUE(plan.ranks[0].hardwareThreads);
  EXPECT_EQ(plan.ranks[0].cores.size(), 8u);
  // The synthetic layout numbers a core's threads 2c and 2c+1: every core's first thread first.
  EXPECT_EQ(plan.ranks[0].places.rfind("{0},{2},{4}", 0), 0u) << plan.ranks[0].places;
}

TEST(PlanNode, OversubscriptionIsSaidNeverSilentlyPiled) {
  NodePlan threads = planNode(layout("one-socket-8core.xml"), 4, 4);
  EXPECT_TRUE(threads.oversubscribed);
  EXPECT_TRUE(mentions(threads, "4 ranks x 4 threads on 8 cores"));
  EXPECT_TRUE(mentions(threads, "OMP_NUM_THREADS=2"));
  for (const RankCores& r : threads.ranks) EXPECT_EQ(r.cores.size(), 2u) << "cores of its own, shared by its threads";
  NodePlan ranks = planNode(layout("this-machine-2core.xml"), 3, 1);
  EXPECT_TRUE(ranks.oversubscribed);
  EXPECT_TRUE(mentions(ranks, "ranks share cores"));
  EXPECT_EQ(ranks.ranks[2].pus, ranks.ranks[0].pus);
}

TEST(CpuList, WritesAndReadsRanges) {
  EXPECT_EQ(cpuList({3, 0, 1, 2, 8, 10, 11}), "0-3,8,10-11");
  auto back = parseCpuList("0-3,8,10-11");
  ASSERT_TRUE(back.isOk());
  EXPECT_EQ(cpuList(back.value()), "0-3,8,10-11");
  EXPECT_FALSE(parseCpuList("3-1").isOk());
  EXPECT_FALSE(parseCpuList("a,b").isOk());
}

TEST(LocalRank, ReadsEachLaunchersVariables) {
  setenv("SLURM_LOCALID", "0", 1);
  setenv("SLURM_NODEID", "3", 1);
  setenv("SLURM_STEP_TASKS_PER_NODE", "2(x3),1", 1);
  LocalRank slurm = localRankFromLauncher();
  EXPECT_EQ(slurm.size, 1) << "the fourth node of 2(x3),1 has one task";
  EXPECT_STREQ(slurm.source, "Slurm");
  setenv("MPI_LOCALRANKID", "1", 1);
  setenv("MPI_LOCALNRANKS", "3", 1);
  LocalRank hydra = localRankFromLauncher();
  EXPECT_EQ(hydra.rank, 1);
  EXPECT_EQ(hydra.size, 3);
  for (const char* v : {"SLURM_LOCALID", "SLURM_NODEID", "SLURM_STEP_TASKS_PER_NODE", "MPI_LOCALRANKID",
                        "MPI_LOCALNRANKS"})
    unsetenv(v);
}

}  // namespace
}  // namespace ferry
