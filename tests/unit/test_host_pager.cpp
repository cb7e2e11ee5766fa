// The unified-shared-memory pager: its address-layout check (which of rank 0's mappings a
// serving rank could not mirror because it maps those addresses itself), and paging with
// fault-around against a child process that plays rank 0. (Paging between real ranks runs in
// the offload.usm.* integration tests.)
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <functional>
#include <vector>

#include "platform/config.h"
#include "service/host_pager.h"

namespace ferry::service::hostpager {
namespace {

const char* kHost =
    "55d0c0000000-55d0c0001000 r--p 00000000 08:01 1234 /usr/bin/app\n"
    "55d0c2000000-55d0c2100000 rw-p 00000000 00:00 0 [heap]\n"
    "7f0000000000-7f0000200000 ---p 00000000 00:00 0 \n"
    "7f0000200000-7f0000400000 rw-p 00000000 00:00 0 \n"
    "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]\n"
    "7ffd00100000-7ffd00104000 r--p 00000000 00:00 0 [vvar]\n"
    "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0 [vsyscall]\n";

TEST(HostPager, ParsesProcMaps) {
  auto maps = parseMaps(kHost);
  ASSERT_EQ(maps.size(), 7u);
  EXPECT_EQ(maps[0].start, 0x55d0c0000000u);
  EXPECT_EQ(maps[0].end, 0x55d0c0001000u);
  EXPECT_EQ(maps[0].perms, "r--p");
  EXPECT_EQ(maps[0].path, "/usr/bin/app");
  EXPECT_EQ(maps[1].path, "[heap]");
  EXPECT_EQ(maps[3].path, "");  // anonymous
  EXPECT_EQ(maps[6].start, 0xffffffffff600000u);
}

// Rank 0's layout may come over MPI (PageLink::maps), so it is not trusted to be well formed:
// a line whose range is no pair of 64-bit hex numbers is skipped. It threw out of the pager
// (std::stoull), which ended the serving rank; fuzz.host_maps found it.
TEST(HostPager, SkipsLinesWhoseRangeIsNoPairOfHexNumbers) {
  auto maps = parseMaps(
      "zz-1000 rw-p 00000000 00:00 0\n"
      "10000000000000000-10000000000001000 rw-p 00000000 00:00 0\n"
      "1000-2000x rw-p 00000000 00:00 0\n"
      "-1000 rw-p 00000000 00:00 0\n"
      "55d0c0000000-55d0c0001000 r--p 00000000 08:01 1234 /usr/bin/app\n");
  ASSERT_EQ(maps.size(), 1u);
  EXPECT_EQ(maps[0].start, 0x55d0c0000000u);
  EXPECT_EQ(maps[0].end, 0x55d0c0001000u);
}

TEST(HostPager, SeparateLayoutsDoNotCollide) {
  auto self = parseMaps(
      "5600aa000000-5600aa001000 r--p 00000000 08:01 1234 /usr/bin/app\n"
      "7f1000000000-7f1000100000 rw-p 00000000 00:00 0 \n"
      "7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0 [stack]\n"
      "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0 [vsyscall]\n");
  EXPECT_EQ(firstCollision(parseMaps(kHost), self), nullptr);
}

TEST(HostPager, AServingRankMappingOverTheHostsDataCollides) {
  auto host = parseMaps(kHost);
  // Inside the host's heap, with other contents.
  auto self = parseMaps("55d0c2080000-55d0c2081000 rw-p 00000000 00:00 0 \n");
  const MapRange* c = firstCollision(host, self);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->path, "[heap]");
  // Reaching into the host's anonymous data from below.
  self = parseMaps("7f00001ff000-7f0000201000 rw-p 00000000 00:00 0 \n");
  c = firstCollision(host, self);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->start, 0x7f0000200000u);
}

TEST(HostPager, TheSameReadOnlyFileMappingIsNoCollision) {
  auto host = parseMaps(kHost);
  auto self = parseMaps("55d0c0000000-55d0c0001000 r--p 00000000 08:01 1234 /usr/bin/app\n");
  EXPECT_EQ(firstCollision(host, self), nullptr);
  // The same file at the same address but another offset holds other bytes.
  self = parseMaps("55d0c0000000-55d0c0001000 r--p 00001000 08:01 1234 /usr/bin/app\n");
  EXPECT_NE(firstCollision(host, self), nullptr);
}

TEST(HostPager, InaccessibleAndKernelPagesOfTheHostAreNeverRead) {
  auto host = parseMaps(kHost);
  // Over the host's PROT_NONE reservation and its [vvar] page only.
  auto self = parseMaps(
      "7f0000000000-7f0000100000 rw-p 00000000 00:00 0 \n"
      "7ffd00100000-7ffd00101000 rw-p 00000000 00:00 0 \n");
  EXPECT_EQ(firstCollision(host, self), nullptr);
}

TEST(HostPager, RefusesToMirrorItsOwnProcess) {
  Status st = enable(getpid(), Mode::Unified);
  EXPECT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("pid"), std::string::npos) << st.message();
}


// A child process with a region of `pages` pages at a fixed, out-of-the-way address (this
// process maps nothing there, so its accesses fault), filled with pattern(). It writes a byte
// of its region when asked, and exits when told to.
class HostProcess {
 public:
  static constexpr uint64_t kPage = 4096;
  static constexpr uint64_t kBase = 0x3a5000000000ull;
  static uint8_t pattern(uint64_t offset) { return static_cast<uint8_t>(offset * 7 + offset / kPage); }

  explicit HostProcess(uint64_t pages) : pages_(pages) {
    int toChild[2], fromChild[2];
    if (pipe(toChild) != 0 || pipe(fromChild) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      close(toChild[1]);
      close(fromChild[0]);
      serve(toChild[0], fromChild[1]);
    }
    close(toChild[0]);
    close(fromChild[1]);
    commands_ = toChild[1];
    acks_ = fromChild[0];
    char ready = 0;
    if (read(acks_, &ready, 1) != 1 || ready != 'r') pid_ = -1;
  }
  ~HostProcess() {
    if (pid_ <= 0) return;
    Command quit{~0ull, 0};
    (void)!::write(commands_, &quit, sizeof quit);
    int status = 0;
    waitpid(pid_, &status, 0);
    close(commands_);
    close(acks_);
  }
  pid_t pid() const { return pid_; }
  uint8_t* at(uint64_t offset) const { return reinterpret_cast<uint8_t*>(kBase + offset); }
  // The host writes `value` at `offset` of its region (while a kernel of ours runs, say).
  bool write(uint64_t offset, uint8_t value) {
    Command c{offset, value};
    char ack = 0;
    return ::write(commands_, &c, sizeof c) == sizeof c && read(acks_, &ack, 1) == 1;
  }
  // The host's region as it is now.
  std::vector<uint8_t> contents() const {
    std::vector<uint8_t> out(pages_ * kPage);
    iovec local{out.data(), out.size()}, remote{at(0), out.size()};
    if (process_vm_readv(pid_, &local, 1, &remote, 1, 0) != static_cast<ssize_t>(out.size())) out.clear();
    return out;
  }

 private:
  struct Command {
    uint64_t offset;
    uint8_t value;
  };
  [[noreturn]] void serve(int commands, int acks) {
    void* p = mmap(at(0), pages_ * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                   -1, 0);
    if (p != at(0)) _exit(3);
    for (uint64_t i = 0; i < pages_ * kPage; ++i) at(0)[i] = pattern(i);
    if (::write(acks, "r", 1) != 1) _exit(4);
    Command c{};
    while (read(commands, &c, sizeof c) == sizeof c && c.offset != ~0ull) {
      at(0)[c.offset] = c.value;
      if (::write(acks, "a", 1) != 1) _exit(5);
    }
    _exit(0);
  }
  uint64_t pages_;
  pid_t pid_ = -1;
  int commands_ = -1, acks_ = -1;
};

class HostPagerRun : public ::testing::Test {
 protected:
  static constexpr uint64_t kPage = HostProcess::kPage;
  void useFaultAround(const char* size, const char* writeBack = "words") {
    std::vector<std::string> env{std::string("FERRY_USM_FAULT_AROUND=") + size,
                                 std::string("FERRY_USM_WRITE_BACK=") + writeBack};
    auto cfg = Config::fromEntries(env);
    ASSERT_TRUE(cfg.isOk()) << cfg.status().message();
    setGlobalConfigForTesting(*cfg);
  }
  void TearDown() override { setGlobalConfigForTesting(Config::defaults()); }
  // Runs `body` as a kernel over the host's region, in Mode::Lenient (the child's layout is
  // this process's, which Mode::Unified's layout check refuses), and returns its statistics.
  RunStats runKernel(HostProcess& host, const std::function<void(volatile uint8_t*)>& body) {
    RunStats stats;
    Status st = enable(host.pid(), Mode::Lenient);
    if (st) st = run(host.pid(), Mode::Lenient, [&] { body(host.at(0)); return Status(); }, &stats);
    EXPECT_TRUE(st.isOk()) << st.message();
    return stats;
  }
};

// A sweep of 64 pages with 64 KiB fault-around: the first fault mirrors one page (nothing
// says it is a sweep yet), each later one twice the run before it, up to 16 pages, the last
// the 7 left before the end of the host's region. Only the 8-byte words in which the kernel
// changed a byte go back (FERRY_USM_WRITE_BACK=words), with the bytes around the change as
// they were.
TEST_F(HostPagerRun, ASweepFaultsOncePerWindowAndWritesBackOnlyWhatChanged) {
  useFaultAround("64K");
  HostProcess host(64);
  ASSERT_GT(host.pid(), 0);
  uint64_t mismatches = 0;
  RunStats stats = runKernel(host, [&](volatile uint8_t* mem) {
    for (uint64_t i = 0; i < 64 * kPage; i += 64) mismatches += mem[i] != HostProcess::pattern(i);
    mem[3 * kPage + 100] = 0xEE;
    mem[40 * kPage + 7] = 0xDD;
  });
  EXPECT_EQ(mismatches, 0u);
  EXPECT_EQ(stats.pagesIn, 64u);
  EXPECT_EQ(stats.faults, 7u);  // pages 0, 1-2, 3-8, 9-24, 25-40, 41-56, 57-63
  EXPECT_EQ(stats.bytesWritten, 16u);  // two words
  EXPECT_EQ(stats.runsWritten, 2u);
  auto now = host.contents();
  ASSERT_EQ(now.size(), 64 * kPage);
  for (uint64_t i = 0; i < now.size(); ++i) {
    uint8_t want = i == 3 * kPage + 100 ? 0xEE : i == 40 * kPage + 7 ? 0xDD : HostProcess::pattern(i);
    ASSERT_EQ(now[i], want) << "offset " << i;
  }
}

// Doubles rewritten in place, each keeping its exponent byte: with words the changes of a
// page go back as one run; with bytes, as one run per element, and in both cases only the
// elements the kernel changed are touched (the last one of each page is left alone).
TEST_F(HostPagerRun, PartialElementUpdatesGoBackAsWholeWordsOrExactBytes) {
  for (const char* mode : {"words", "bytes"}) {
    useFaultAround("64K", mode);
    HostProcess host(4);
    ASSERT_GT(host.pid(), 0);
    constexpr uint64_t kElems = kPage / 8 - 1;  // per page: all but the last word
    RunStats stats = runKernel(host, [&](volatile uint8_t* mem) {
      for (uint64_t p = 0; p < 4; ++p)
        for (uint64_t e = 0; e < kElems; ++e)
          for (uint64_t b = 0; b < 7; ++b) mem[p * kPage + e * 8 + b] ^= 0x5A;  // byte 7 kept
    });
    bool words = std::string(mode) == "words";
    EXPECT_EQ(stats.runsWritten, words ? 4u : 4u * kElems) << mode;
    EXPECT_EQ(stats.bytesWritten, words ? 4u * kElems * 8 : 4u * kElems * 7) << mode;
    auto now = host.contents();
    ASSERT_EQ(now.size(), 4 * kPage);
    for (uint64_t i = 0; i < now.size(); ++i) {
      bool changed = i % kPage < kElems * 8 && i % 8 < 7;
      ASSERT_EQ(now[i], changed ? HostProcess::pattern(i) ^ 0x5A : HostProcess::pattern(i)) << mode << " offset " << i;
    }
  }
}

TEST_F(HostPagerRun, OnePagePerFaultWhenFaultAroundIsOnePage) {
  useFaultAround("4K");
  HostProcess host(8);
  ASSERT_GT(host.pid(), 0);
  uint64_t sum = 0;
  RunStats stats = runKernel(host, [&](volatile uint8_t* mem) {
    for (uint64_t p = 0; p < 8; ++p) sum += mem[p * kPage + 1];
  });
  uint64_t want = 0;
  for (uint64_t p = 0; p < 8; ++p) want += HostProcess::pattern(p * kPage + 1);
  EXPECT_EQ(sum, want);
  EXPECT_EQ(stats.faults, 8u);
  EXPECT_EQ(stats.pagesIn, 8u);
}

// Scattered accesses (the page before is not mirrored) copy only the pages they touch.
TEST_F(HostPagerRun, ScatteredAccessesMirrorOnlyTheirPages) {
  useFaultAround("64K");
  HostProcess host(64);
  ASSERT_GT(host.pid(), 0);
  uint64_t mismatches = 0;
  RunStats stats = runKernel(host, [&](volatile uint8_t* mem) {
    for (uint64_t p = 0; p < 64; p += 16) mismatches += mem[p * kPage] != HostProcess::pattern(p * kPage);
  });
  EXPECT_EQ(mismatches, 0u);
  EXPECT_EQ(stats.faults, 4u);
  EXPECT_EQ(stats.pagesIn, 4u);
}

// A page mirrored ahead of the kernel but never written must not overwrite what the host
// wrote there meanwhile.
TEST_F(HostPagerRun, APageMirroredAheadKeepsTheHostsLaterWrite) {
  useFaultAround("64K");
  HostProcess host(32);
  ASSERT_GT(host.pid(), 0);
  bool hostWrote = false;
  RunStats stats = runKernel(host, [&](volatile uint8_t* mem) {
    for (uint64_t p = 0; p < 10; ++p) (void)mem[p * kPage];  // faults 0, 1-2, 3-8, 9-24
    hostWrote = host.write(10 * kPage + 5, 0xAB);
    mem[kPage + 9] = 0x11;
  });
  ASSERT_TRUE(hostWrote);
  EXPECT_EQ(stats.pagesIn, 25u);
  auto now = host.contents();
  ASSERT_EQ(now.size(), 32 * kPage);
  EXPECT_EQ(now[10 * kPage + 5], 0xAB);
  EXPECT_EQ(now[kPage + 9], 0x11);
  EXPECT_EQ(now[10 * kPage + 4], HostProcess::pattern(10 * kPage + 4));
}

// A window over a page this process maps itself mirrors the other pages, and leaves that
// one this process's own.
TEST_F(HostPagerRun, AWindowSkipsAPageThisProcessMaps) {
  useFaultAround("64K");
  HostProcess host(16);
  ASSERT_GT(host.pid(), 0);
  void* own = mmap(host.at(8 * kPage), kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                   -1, 0);
  ASSERT_EQ(own, host.at(8 * kPage));
  std::memset(own, 0x5A, kPage);
  uint8_t seenOwn = 0, seenNine = 0;
  RunStats stats = runKernel(host, [&](volatile uint8_t* mem) {
    for (uint64_t p = 0; p < 4; ++p) (void)mem[p * kPage];  // faults 0, 1-2, 3-8: that window meets page 8
    seenOwn = mem[8 * kPage + 3];
    seenNine = mem[9 * kPage + 3];
    mem[9 * kPage + 3] = 0x77;
  });
  EXPECT_EQ(seenOwn, 0x5A);
  EXPECT_EQ(seenNine, HostProcess::pattern(9 * kPage + 3));
  EXPECT_EQ(stats.pagesIn, 15u);  // 0-7, then 9-15 from the fault on 9
  auto now = host.contents();
  ASSERT_EQ(now.size(), 16 * kPage);
  EXPECT_EQ(now[9 * kPage + 3], 0x77);
  EXPECT_EQ(now[8 * kPage + 3], HostProcess::pattern(8 * kPage + 3));
  munmap(own, kPage);
}

}  // namespace
}  // namespace ferry::service::hostpager
