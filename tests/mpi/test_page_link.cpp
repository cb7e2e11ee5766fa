// Unified shared memory over MPI (comm/page_link.h): serving ranks read, write and list the
// memory of rank 0, which answers from a loop as its waits do.
#include <gtest/gtest.h>
#include <mpi.h>
#include <sys/mman.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "comm/page_link.h"
#include "platform/parse.h"
#include "world_fixture.h"

namespace ferry::comm {
namespace {

constexpr uint64_t kPage = kLinkPage;

uint8_t pattern(uint64_t offset) { return static_cast<uint8_t>(offset * 13 + offset / kPage); }

// Rank 0 answers page requests until every other rank has reached the barrier.
void serveUntilAllDone(MPI_Comm comm) {
  MPI_Request barrier;
  MPI_Ibarrier(comm, &barrier);
  int done = 0;
  while (!done) {
    auto served = servePageRequests(comm);
    ASSERT_TRUE(served.isOk()) << served.status().message();
    MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
  }
}

void reachBarrier(MPI_Comm comm) {
  MPI_Request barrier;
  MPI_Ibarrier(comm, &barrier);
  MPI_Wait(&barrier, MPI_STATUS_IGNORE);
}

// Whether one line of a /proc/PID/maps text covers `addr` (neighbouring anonymous mappings
// merge, so the region need not start a line).
bool mapsCover(const std::string& maps, uint64_t addr) {
  size_t at = 0;
  while (at < maps.size()) {
    unsigned long long lo = 0, hi = 0;
    if (std::sscanf(maps.c_str() + at, "%llx-%llx", &lo, &hi) == 2 && addr >= lo && addr < hi) return true;
    at = maps.find('\n', at);
    if (at == std::string::npos) break;
    ++at;
  }
  return false;
}

// What each serving rank does against rank 0's region: reads first (every rank, before any
// writes, which a barrier separates), then its own three bytes and the layout.
void readPhase(PageLink& link, uint64_t base) {
  std::vector<uint8_t> pages(8 * kPage);
  auto got = link.read(base, 8, pages.data());
  ASSERT_TRUE(got.isOk()) << got.status().message();
  EXPECT_EQ(*got, 8u);
  for (uint64_t i = 0; i < 8 * kPage; ++i) ASSERT_EQ(pages[i], pattern(i)) << "offset " << i;
  got = link.read(base + 6 * kPage, 4, pages.data());
  ASSERT_TRUE(got.isOk()) << got.status().message();
  EXPECT_EQ(*got, 2u) << "the read ends at the page rank 0 does not map";
  EXPECT_EQ(pages[0], pattern(6 * kPage));
}

void writePhase(PageLink& link, uint64_t base, int rank) {
  uint8_t bytes[3];
  iovec local[3], remote[3];
  for (int k = 0; k < 3; ++k) {
    bytes[k] = static_cast<uint8_t>(0xA0 + rank + k);
    local[k] = {&bytes[k], 1};
    remote[k] = {reinterpret_cast<void*>(base + static_cast<uint64_t>(rank) * kPage / 2 + k * 1000), 1};
  }
  Status st = link.write(local, remote);
  EXPECT_TRUE(st.isOk()) << st.message();
  iovec outside{reinterpret_cast<void*>(base + 8 * kPage), 1};
  st = link.write(std::span<const iovec>(local, 1), std::span<const iovec>(&outside, 1));
  EXPECT_FALSE(st.isOk()) << "a write where rank 0 maps nothing fails";
  auto maps = link.maps();
  ASSERT_TRUE(maps.isOk()) << maps.status().message();
  EXPECT_TRUE(mapsCover(*maps, base)) << "rank 0's layout lists the region";
}

// Eight pages of rank 0 followed by one it does not map; each serving rank reads them, writes
// three bytes of its own, and finds the region in rank 0's address layout.
TEST(PageLink, ReadsWritesAndListsTheHostsMemory) {
  World& w = testWorld();
  uint64_t base = 0;
  uint8_t* region = nullptr;
  if (w.rank() == 0) {
    void* p = mmap(nullptr, 9 * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(p, MAP_FAILED);
    munmap(static_cast<uint8_t*>(p) + 8 * kPage, kPage);
    region = static_cast<uint8_t*>(p);
    for (uint64_t i = 0; i < 8 * kPage; ++i) region[i] = pattern(i);
    base = reinterpret_cast<uint64_t>(p);
  }
  MPI_Bcast(&base, 1, MPI_UINT64_T, 0, w.comm());
  if (w.rank() == 0) {
    serveUntilAllDone(w.comm());  // the reads
    serveUntilAllDone(w.comm());  // the writes
    for (int r = 1; r < w.size(); ++r)
      for (int k = 0; k < 3; ++k) {
        uint64_t at = static_cast<uint64_t>(r) * kPage / 2 + static_cast<uint64_t>(k) * 1000;
        EXPECT_EQ(region[at], static_cast<uint8_t>(0xA0 + r + k)) << "rank " << r << " byte " << k;
      }
    EXPECT_EQ(region[7], pattern(7)) << "bytes no rank wrote are unchanged";
    munmap(region, 8 * kPage);
    return;
  }
  // Each phase ends at the barrier even when a check fails, so that no rank waits forever.
  PageLink link(w.comm(), 0, 10.0);
  readPhase(link, base);
  reachBarrier(w.comm());
  writePhase(link, base, w.rank());
  reachBarrier(w.comm());
}

// A rank 0 that answers nothing: the request fails after the link's timeout and says which
// setting to change; the late answer is dropped, not taken for the next request's.
TEST(PageLink, AHostThatDoesNotAnswerTimesOut) {
  World& w = testWorld();
  static uint64_t word = 0x1122334455667788ull;
  uint64_t wordAt = reinterpret_cast<uint64_t>(&word);  // rank 0's: this rank's layout differs
  MPI_Bcast(&wordAt, 1, MPI_UINT64_T, 0, w.comm());
  uint64_t base = wordAt & ~(kPage - 1);
  if (w.rank() == 0) {
    reachBarrier(w.comm());   // the others time out first
    serveUntilAllDone(w.comm());  // then answers the stale requests and the new ones
    return;
  }
  PageLink link(w.comm(), 0, 0.2);
  std::vector<uint8_t> page(kPage);
  auto got = link.read(base, 1, page.data());
  EXPECT_FALSE(got.isOk());
  EXPECT_EQ(got.status().code(), Errc::Timeout);
  EXPECT_NE(got.status().message().find("FERRY_TIMEOUT"), std::string::npos) << got.status().message();
  reachBarrier(w.comm());
  PageLink patient(w.comm(), 0, 10.0);
  got = patient.read(base, 1, page.data());
  EXPECT_TRUE(got.isOk()) << got.status().message();
  if (got.isOk()) {
    EXPECT_EQ(*got, 1u);
  }
  uint64_t seen = 0;
  std::memcpy(&seen, page.data() + (wordAt - base), sizeof seen);
  EXPECT_EQ(seen, word) << "the answer to this request, not the late one to the last";
  reachBarrier(w.comm());
}

}  // namespace
}  // namespace ferry::comm
