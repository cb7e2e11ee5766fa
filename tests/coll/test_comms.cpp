// Split and duplicated communicators, each with its own set-up; set-up released by
// MPI_Comm_free.
#include <dirent.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "coll/allreduce.h"
#include "coll/comm_context.h"
#include "coll_test_util.h"

namespace ferry::coll::testing {
namespace {

TypedOp intSum() {
  for (const TypedOp& t : allTypedOps())
    if (t.type == MPI_INT && t.op == MPI_SUM) return t;
  return {};
}

int worldRank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

TEST(AllreduceComms, SplitCommunicators) {
  int rank = worldRank(), ranks = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  // Even/odd ranks, and an uneven split: rank 0 alone, the rest together.
  for (int scheme = 0; scheme < 2; ++scheme) {
    MPI_Comm sub;
    int color = scheme == 0 ? rank % 2 : (rank == 0 ? 0 : 1);
    ASSERT_EQ(MPI_Comm_split(MPI_COMM_WORLD, color, ranks - rank, &sub), MPI_SUCCESS);  // reversed order
    for (size_t count : {5, 3000, 70001})
      for (bool inPlace : {false, true})
        EXPECT_EQ(checkAgainstLibrary(forcedSettings(), intSum(), count, inPlace, sub, count + scheme), "");
    MPI_Comm_free(&sub);
  }
}

TEST(AllreduceComms, AnUnnamedCommunicatorHasOneNameOnEveryRank) {
  // With 3 ranks or more, ranks 0 and 1 set up one more communicator between them than the
  // others do, so that counting on each rank alone would give the next one different numbers.
  int rank = worldRank();
  MPI_Comm part;
  ASSERT_EQ(MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : 1, rank, &part), MPI_SUCCESS);
  std::vector<int> in(70001, 1), out(in.size());
  for (int i = 0; i < (rank < 2 ? 2 : 1); ++i) {
    MPI_Comm d;
    MPI_Comm_dup(part, &d);
    ASSERT_EQ(allreduceWith(forcedSettings(), in.data(), out.data(), 70001, MPI_INT, MPI_SUM, d), MPI_SUCCESS);
    MPI_Comm_free(&d);
  }
  MPI_Comm all, named;
  MPI_Comm_dup(MPI_COMM_WORLD, &all);
  MPI_Comm_dup(MPI_COMM_WORLD, &named);
  MPI_Comm_set_name(named, "my solver's comm");
  for (MPI_Comm c : {all, named})
    ASSERT_EQ(allreduceWith(forcedSettings(), in.data(), out.data(), 70001, MPI_INT, MPI_SUM, c), MPI_SUCCESS);
  ASSERT_NE(existingContext(all), nullptr);
  std::string label = existingContext(all)->label();
  EXPECT_EQ(label.rfind("comm #", 0), 0u) << label;
  std::vector<char> mine(64, 0), first(64, 0);
  label.copy(mine.data(), mine.size() - 1);
  if (rank == 0) first = mine;
  PMPI_Bcast(first.data(), 64, MPI_CHAR, 0, MPI_COMM_WORLD);
  EXPECT_STREQ(mine.data(), first.data()) << "rank " << rank << " calls it otherwise than rank 0";
  EXPECT_EQ(existingContext(named)->label(), "my solver's comm");
  MPI_Comm_free(&named);
  MPI_Comm_free(&all);
  MPI_Comm_free(&part);
}

TEST(AllreduceComms, DuplicatesGetTheirOwnSetUpAndInterleave) {
  MPI_Comm a, b;
  MPI_Comm_dup(MPI_COMM_WORLD, &a);
  MPI_Comm_dup(a, &b);
  uint64_t setupsBefore = statsNow().setups;
  for (int round = 0; round < 5; ++round)
    for (MPI_Comm c : {a, b, static_cast<MPI_Comm>(MPI_COMM_WORLD), a})
      EXPECT_EQ(checkAgainstLibrary(forcedSettings(), intSum(), 20000 + 100 * static_cast<size_t>(round), round % 2, c,
                                    static_cast<uint64_t>(round)),
                "");
  EXPECT_NE(existingContext(a), existingContext(b));
  EXPECT_NE(existingContext(a), nullptr);
  EXPECT_GE(statsNow().setups - setupsBefore, 2u) << "a and b are set up (WORLD may have been before)";
  MPI_Comm_free(&b);
  MPI_Comm_free(&a);
}

int countLines(const char* path, const std::string& needle) {
  std::ifstream in(path);
  int n = 0;
  for (std::string line; std::getline(in, line);) n += line.find(needle) != std::string::npos ? 1 : 0;
  return n;
}

int openDescriptors() {
  int n = 0;
  DIR* d = opendir("/proc/self/fd");
  while (d && readdir(d)) ++n;
  if (d) closedir(d);
  return n;
}

TEST(AllreduceComms, FreeReleasesTheSetUp) {
  // Warm up first so that lazily created process-wide state does not count.
  MPI_Comm warm;
  MPI_Comm_dup(MPI_COMM_WORLD, &warm);
  ASSERT_EQ(checkAgainstLibrary(forcedSettings(), intSum(), 1000, false, warm, 1), "");
  MPI_Comm_free(&warm);
  int maps = countLines("/proc/self/maps", "/ferry-coll-"), fds = openDescriptors();
  uint64_t setupsBefore = statsNow().setups;
  for (int i = 0; i < 20; ++i) {
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    ASSERT_EQ(checkAgainstLibrary(forcedSettings(), intSum(), 1000, i % 2, c, 2), "");
    EXPECT_NE(existingContext(c), nullptr);
    MPI_Comm_free(&c);
  }
  EXPECT_EQ(statsNow().setups - setupsBefore, 20u);
  EXPECT_EQ(countLines("/proc/self/maps", "/ferry-coll-"), maps) << "node segments must be unmapped";
  EXPECT_EQ(openDescriptors(), fds) << "no descriptor may leak";
}

TEST(AllreduceComms, NothingIsLeftInDevShm) {
  // Node segments lose their name as soon as every rank has mapped them.
  DIR* d = opendir("/dev/shm");
  ASSERT_NE(d, nullptr);
  std::string mine = "-" + std::to_string(getpid()) + "-";
  int left = 0;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name.rfind("ferry-coll-", 0) == 0 && name.find(mine) != std::string::npos) ++left;
  }
  closedir(d);
  EXPECT_EQ(left, 0);
}

}  // namespace
}  // namespace ferry::coll::testing
