#include "service/host_pager.h"

#include <signal.h>
#include <sched.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <sstream>

#include "comm/cma.h"
#include "comm/page_source.h"
#include "platform/config.h"
#include "platform/files.h"
#include "platform/log.h"
#include "platform/parse.h"
#include "service/page_courier.h"

namespace ferry::service::hostpager {
namespace {

constexpr uint64_t kPage = 4096;
// Pages one kernel may page in: 1 GiB of rank 0's memory. Twins are allocated 1 MiB at a
// time, as the kernel touches pages; the tables cost 5 MiB of reserved address space.
constexpr int kSlotBits = 18;
constexpr uint32_t kSlots = 1u << kSlotBits;
constexpr uint32_t kChunkPages = 256;
static_assert(kChunkPages <= comm::kCmaMaxPages && kChunkPages <= comm::kMaxLinkPages,
              "a run of pages is read with one cmaReadPages or one PageLink::read");

enum SlotState : uint32_t { kFree = 0, kFilling = 1, kReady = 2, kFailed = 3 };

// Everything the fault handler touches is here, set up before it can run: a handler may only
// use async-signal-safe calls (mmap, pwrite, process_vm_readv, atomics).
//
// Mirror pages are mappings of one memfd, page i of the run at offset i: the bytes are
// written into the file first and the page then appears, filled, in one mmap, so no thread
// ever reads it half-filled. Pages touched in address order land at consecutive offsets and
// merge into few mappings.
struct Mirror {
  std::atomic<uint64_t>* keys = nullptr;     // page address per slot (open addressing), 0 = free
  std::atomic<uint32_t>* states = nullptr;   // SlotState per slot
  std::atomic<uint32_t>* order = nullptr;    // per slot: its claim index, the page's file offset
  std::atomic<uint32_t>* claimed = nullptr;  // slots in the order they were claimed
  std::atomic<uint32_t> numClaimed{0};
  std::atomic<uint8_t*>* twins = nullptr;    // chunks of kChunkPages twins: the host's bytes as fetched
  int fd = -1;
  std::atomic<pid_t> host{0};                // non-zero while a kernel runs
  std::atomic<uint64_t> firstPage{0};        // the first page paged in since the last drop
  std::atomic<uint64_t> faults{0};           // faults served since the last drop
};
Mirror gMirror;
struct sigaction gPrevious;
std::once_flag gInstalled;
std::mutex gRunMutex;  // Unified: held while a kernel runs; Lenient: guards gActive
int gActive = 0;       // Lenient kernels running

template <class T>
T* reserve(uint64_t count) {
  void* p = mmap(nullptr, count * sizeof(T), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? nullptr : static_cast<T*>(p);
}

// Fibonacci hashing: the top kSlotBits bits of the page number times 2^64 / golden ratio
// spread neighbouring pages over the table.
uint32_t slotOf(uint64_t page) {
  return static_cast<uint32_t>((page / kPage) * 0x9E3779B97F4A7C15ull >> (64 - kSlotBits));
}

// The log prefix of the handler's one message (log::linePrefix), formatted before the
// handler can need it.
char gPrefix[256] = "[ferry] ERROR service: ";

void say(const char* text) {
  log::writeRaw(gPrefix, std::strlen(gPrefix));
  log::writeRaw(text, std::strlen(text));
}

// Finds or claims the slot of `page`. Returns false when the table is full. The claimer
// fills the page (fillRun) while other threads wait for its state.
bool claimSlot(uint64_t page, uint32_t& slot, bool& mine) {
  for (uint32_t probe = 0, s = slotOf(page); probe < kSlots; ++probe, s = (s + 1) & (kSlots - 1)) {
    uint64_t key = gMirror.keys[s].load(std::memory_order_acquire);
    if (key == 0 && gMirror.keys[s].compare_exchange_strong(key, page, std::memory_order_acq_rel)) {
      uint64_t none = 0;
      gMirror.firstPage.compare_exchange_strong(none, page, std::memory_order_relaxed);
      slot = s;
      mine = true;
      return true;
    }
    if (key == page) {
      slot = s;
      mine = false;
      return true;
    }
  }
  return false;
}

// Whether some thread has claimed `page` since the last drop (a lookup; claims nothing).
bool isClaimed(uint64_t page) {
  for (uint32_t probe = 0, s = slotOf(page); probe < kSlots; ++probe, s = (s + 1) & (kSlots - 1)) {
    uint64_t key = gMirror.keys[s].load(std::memory_order_acquire);
    if (key == page) return true;
    if (key == 0) return false;
  }
  return false;
}

// Reserves `count` consecutive claim indices inside one chunk of twins, so that a run of
// pages has contiguous twins and contiguous file offsets (one read, one write, one mmap).
// Indices skipped to reach the next chunk stay holes (claimed[] 0). Returns false when the
// 1 GiB budget is spent.
bool reserveIndices(uint32_t count, uint32_t& base) {
  uint32_t cur = gMirror.numClaimed.load(std::memory_order_relaxed);
  for (;;) {
    uint32_t start = cur;
    if (start % kChunkPages + count > kChunkPages) start = (start / kChunkPages + 1) * kChunkPages;
    if (start + count >= kSlots) return false;
    if (gMirror.numClaimed.compare_exchange_weak(cur, start + count, std::memory_order_relaxed)) {
      base = start;
      return true;
    }
  }
}

uint8_t* twinOf(uint32_t index) {
  std::atomic<uint8_t*>& chunk = gMirror.twins[index / kChunkPages];
  uint8_t* base = chunk.load(std::memory_order_acquire);
  if (!base) {
    void* p = mmap(nullptr, kChunkPages * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    if (!chunk.compare_exchange_strong(base, static_cast<uint8_t*>(p), std::memory_order_acq_rel))
      munmap(p, kChunkPages * kPage);  // another thread's chunk won; `base` now holds it
    else
      base = static_cast<uint8_t*>(p);
  }
  return base + (index % kChunkPages) * kPage;
}

// Pages mirrored per fault (FERRY_USM_FAULT_AROUND), set by enable() before any kernel runs.
std::atomic<uint32_t> gAroundPages{1};

// Reads up to `count` pages of the host from `page` on into `twins`; returns how many it
// read: the pages up to the first one the host does not map.
uint32_t readHost(pid_t host, uint64_t page, uint32_t count, uint8_t* twins) {
  if (host == kRemoteHost) return courier::readFromHandler(page, count, twins);
  return comm::cmaReadPages(host, page, count, twins);
}

// Maps `count` pages from `page` on to the file at `offset`, where this process maps none
// of them; the bytes are already in the file. Returns false if any is mapped already.
bool mapRun(uint64_t page, uint32_t count, off_t offset) {
  size_t len = count * kPage;
  void* at = mmap(reinterpret_cast<void*>(page), len, PROT_READ | PROT_WRITE,
                  MAP_SHARED | MAP_FIXED_NOREPLACE | (count > 1 ? MAP_POPULATE : 0), gMirror.fd, offset);
  if (at == MAP_FAILED) return false;  // this process maps (one of) the pages: faults of its own
  if (at != reinterpret_cast<void*>(page)) {  // kernels before 4.17 ignore NOREPLACE
    munmap(at, len);
    return false;
  }
  return true;
}

// How many pages a fault on `page` mirrors: as readahead guesses a sweep, twice the run of
// mirrored pages right before it, up to FERRY_USM_FAULT_AROUND; one page where the page
// before is not mirrored. A sweep's window grows 2, 6, 16... pages; scattered accesses and
// a kernel touching two pages copy (almost) nothing they do not touch.
uint32_t windowAt(uint64_t page) {
  uint32_t most = gAroundPages.load(std::memory_order_relaxed), before = 0;
  while (before < most && page > (before + 1) * kPage && isClaimed(page - (before + 1) * kPage)) ++before;
  return std::clamp(2 * before, 1u, most);
}

// The fault on `page` (whose slot this thread claimed) mirrors it and the pages after it in
// its window (windowAt) that rank 0 maps, nobody has claimed, and this process does not map:
// one read, one write and one mmap for the run. Pages mirrored but never changed are not
// written back (write-back compares with twins). Returns whether `page` itself is mirrored.
bool fillRun(pid_t host, uint64_t page, uint32_t firstSlot) {
  uint32_t want = windowAt(page), base = 0;
  uint8_t* twins = nullptr;
  if (!reserveIndices(want, base)) {
    say("a kernel touched more than 1 GiB of rank 0's memory, "
        "more than a serving rank mirrors; map the data instead (map clauses, omp_target_memcpy)\n");
  } else {
    twins = twinOf(base);
  }
  uint32_t got = twins ? readHost(host, page, want, twins) : 0;
  if (got == 0) {  // not the host's (or no room): the fault goes to the previous handler
    if (twins) gMirror.claimed[base].store(firstSlot + 1, std::memory_order_release);  // drop() frees it
    gMirror.states[firstSlot].store(kFailed, std::memory_order_release);
    return false;
  }
  uint32_t slots[kChunkPages];
  slots[0] = firstSlot;
  uint32_t count = 1;
  for (; count < got; ++count) {  // stop at a page another thread already has
    bool mine = false;
    if (!claimSlot(page + count * kPage, slots[count], mine) || !mine) break;
  }
  for (uint32_t i = 0; i < count; ++i) {
    gMirror.order[slots[i]].store(base + i, std::memory_order_relaxed);
    gMirror.claimed[base + i].store(slots[i] + 1, std::memory_order_release);
  }
  off_t offset = static_cast<off_t>(base) * static_cast<off_t>(kPage);
  bool written = pwrite(gMirror.fd, twins, count * kPage, offset) == static_cast<ssize_t>(count * kPage);
  gMirror.faults.fetch_add(1, std::memory_order_relaxed);
  if (written && mapRun(page, count, offset)) {
    for (uint32_t i = 0; i < count; ++i) gMirror.states[slots[i]].store(kReady, std::memory_order_release);
    return true;
  }
  // Some page of the run is this process's own (or the write failed): page by page, so that
  // only the pages that cannot be mirrored are refused.
  for (uint32_t i = 0; i < count; ++i) {
    bool ok = written && mapRun(page + i * kPage, 1, offset + static_cast<off_t>(i * kPage));
    gMirror.states[slots[i]].store(ok ? kReady : kFailed, std::memory_order_release);
  }
  return gMirror.states[firstSlot].load(std::memory_order_relaxed) == kReady;
}

bool pageIn(pid_t host, uint64_t page, int code) {
  uint32_t slot = 0;
  bool mine = false;
  if (!claimSlot(page, slot, mine)) return false;
  if (!mine) {  // another thread fills it, or found it is not the host's
    for (;;) {
      uint32_t s = gMirror.states[slot].load(std::memory_order_acquire);
      if (s == kReady) return code == SEGV_MAPERR;  // a mirror page refusing an access stays refused
      if (s == kFailed) return false;
      sched_yield();
    }
  }
  return fillRun(host, page, slot);
}

void passOn(int sig, siginfo_t* info, void* context) {
  if (gPrevious.sa_flags & SA_SIGINFO) {
    gPrevious.sa_sigaction(sig, info, context);
  } else if (gPrevious.sa_handler == SIG_DFL || gPrevious.sa_handler == SIG_IGN) {
    signal(sig, SIG_DFL);  // the faulting access runs again and ends the process
  } else {
    gPrevious.sa_handler(sig);
  }
}

// Rank 0 and this process run the same executable and libraries, at other addresses: a
// function of rank 0 is the same function of this process, moved by its file's delta.
struct CodeRange {
  uint64_t start, end;  // rank 0's executable mapping
  int64_t delta;        // this process's address minus rank 0's
};
constexpr int kMaxCode = 512;
CodeRange gCode[kMaxCode];
std::atomic<int> gNumCode{0};

uint64_t translateCode(uint64_t pc) {
  int n = gNumCode.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i)
    if (pc >= gCode[i].start && pc < gCode[i].end) return pc + static_cast<uint64_t>(gCode[i].delta);
  return 0;
}

// The faulting instruction's address in the signal's context, by architecture.
uint64_t programCounter(const ucontext_t* uc) {
#if defined(__x86_64__)
  return static_cast<uint64_t>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return uc->uc_mcontext.pc;
#endif
}

void setProgramCounter(ucontext_t* uc, uint64_t pc) {
#if defined(__x86_64__)
  uc->uc_mcontext.gregs[REG_RIP] = static_cast<greg_t>(pc);
#elif defined(__aarch64__)
  uc->uc_mcontext.pc = pc;
#endif
}

void onFault(int sig, siginfo_t* info, void* context) {
  pid_t host = gMirror.host.load(std::memory_order_acquire);
  auto addr = reinterpret_cast<uint64_t>(info->si_addr);
  auto* uc = static_cast<ucontext_t*>(context);
  int savedErrno = errno;
  bool served = false;
  if (host != 0 && addr == programCounter(uc)) {
    // A call through a function pointer of rank 0 (a kernel argument, or one stored in rank 0's
    // data): continue in this process's copy of that function, as the stock host plugin's
    // shared address space would run it.
    if (uint64_t to = translateCode(addr)) {
      setProgramCounter(uc, to);
      served = true;
    }
  } else if (host != 0 && addr >= kPage) {
    served = pageIn(host, addr & ~(kPage - 1), info->si_code);
  }
  errno = savedErrno;
  if (!served) passOn(sig, info, context);
}

// Both maps as the last check read them: a layout that has not changed needs no new parse
// and comparison, which leaves the check at two reads per kernel (about 0.1 ms each).
std::string gCheckedHost, gCheckedSelf;

// Both processes' /proc/PID/maps, as text.
struct Layouts {
  std::string host, self;
};

Status readLayouts(pid_t host, Layouts& out) {
  if (host == kRemoteHost) {
    auto maps = courier::link()->maps();
    if (!maps) return maps.takeStatus();
    out.host = std::move(*maps);
  } else if (Status st = readTextFile("/proc/" + std::to_string(host) + "/maps", out.host); !st) {
    return st;
  }
  return readTextFile("/proc/self/maps", out.self);
}

Status checkLayout(Layouts layouts) {
  if (layouts.host == gCheckedHost && layouts.self == gCheckedSelf) return {};
  auto hostMaps = parseMaps(layouts.host), selfMaps = parseMaps(layouts.self);
  if (const MapRange* c = firstCollision(hostMaps, selfMaps))
    return Status(Errc::Unavailable,
                  "unified shared memory: rank 0's memory at " + hex(c->start) + "-" + hex(c->end) + " (" +
                      (c->path.empty() ? std::string("anonymous") : c->path) +
                      ") is at addresses this serving rank uses too, so its kernels cannot see it. Address layouts "
                      "are random per process: run again; if it persists, address space randomisation is off "
                      "(kernel.randomize_va_space, setarch -R)");
  gCheckedHost = std::move(layouts.host);
  gCheckedSelf = std::move(layouts.self);
  return {};
}

// Pairs each executable file mapping of the host with this process's mapping of the same
// file and offset. Called before any kernel runs; the table only grows.
void mapCode(const Layouts& layouts) {
  auto selfMaps = parseMaps(layouts.self);
  int n = gNumCode.load();
  for (const MapRange& h : parseMaps(layouts.host)) {
    if (h.perms.find('x') == std::string::npos || h.path.empty() || h.path[0] != '/') continue;
    for (const MapRange& m : selfMaps) {
      if (m.path != h.path || m.offset != h.offset || m.end - m.start != h.end - h.start) continue;
      bool known = false;
      for (int i = 0; i < n; ++i) known = known || gCode[i].start == h.start;
      if (!known && n < kMaxCode) gCode[n++] = {h.start, h.end, static_cast<int64_t>(m.start - h.start)};
      break;
    }
  }
  gNumCode.store(n, std::memory_order_release);
}

// The first offset from `at` on where two pages differ (kPage if none), a word at a time:
// most of a page a kernel changed a little is equal.
uint64_t firstDifference(const uint8_t* a, const uint8_t* b, uint64_t at) {
  for (; at < kPage && at % 8 != 0; ++at)
    if (a[at] != b[at]) return at;
  for (; at < kPage; at += 8) {
    uint64_t x, y;
    std::memcpy(&x, a + at, 8);
    std::memcpy(&y, b + at, 8);
    if (x != y) break;
  }
  while (at < kPage && a[at] == b[at]) ++at;
  return at;
}

// Runs of bytes on their way back into rank 0's memory, sent IOV_MAX runs per system call
// (process_vm_writev on the same node, the page courier from another). A run that continues
// the previous one on both sides joins it: mirror pages sit at rank 0's addresses, so a
// kernel's changes over consecutive pages go back as one run.
class RunWriter {
 public:
  explicit RunWriter(pid_t host) : host_(host) {}
  Status add(const uint8_t* from, uint64_t to, size_t len) {
    if (!local_.empty()) {
      iovec& l = local_.back();
      iovec& r = remote_.back();
      if (static_cast<uint8_t*>(l.iov_base) + l.iov_len == from &&
          reinterpret_cast<uint64_t>(r.iov_base) + r.iov_len == to) {
        l.iov_len += len;
        r.iov_len += len;
        return {};
      }
    }
    local_.push_back({const_cast<uint8_t*>(from), len});
    remote_.push_back({reinterpret_cast<void*>(to), len});
    return local_.size() == IOV_MAX ? flush() : Status();
  }
  Status flush() {
    if (local_.empty()) return {};
    Status st = host_ == kRemoteHost ? courier::link()->write(local_, remote_) : writeHere();
    local_.clear();
    remote_.clear();
    return st;
  }

 private:
  Status writeHere() {
    ssize_t want = 0;
    for (const iovec& v : local_) want += static_cast<ssize_t>(v.iov_len);
    ssize_t n = process_vm_writev(host_, local_.data(), local_.size(), remote_.data(), remote_.size(), 0);
    if (n == want) return {};
    uint64_t at = reinterpret_cast<uint64_t>(remote_.front().iov_base);
    return Status(Errc::Unavailable, "writing " + parse::formatSize(want) + " of kernel results back to rank 0 (pid " +
                                         std::to_string(host_) + ") at " + hex(at) +
                                         " failed: " + (n < 0 ? std::strerror(errno) : "short write"));
  }
  pid_t host_;
  std::vector<iovec> local_, remote_;
};

// Write-back granule in bytes (FERRY_USM_WRITE_BACK: 8 for words, 1 for bytes), set by
// enable() before any kernel runs.
std::atomic<uint32_t> gGranule{8};

// Whether the granule at `at` differs between the two pages.
bool granuleDiffers(const uint8_t* a, const uint8_t* b, uint64_t at, uint64_t granule) {
  if (granule == 1) return a[at] != b[at];
  uint64_t x, y;
  std::memcpy(&x, a + at, 8);
  std::memcpy(&y, b + at, 8);
  return x != y;
}

// Queues the changes of `copy` (a page's bytes now) against `twin` (as it was handed to the
// kernel), for the page at `page` in rank 0, in runs of whole granules: with 8-byte words,
// every aligned word in which a byte changed goes back whole. Byte-exact runs cost one run
// per element where arithmetic on doubles leaves the exponent byte as it was (131,072 runs
// for 1 MiB, written back at 17 MB/s); a word holds one element of the common types, and the
// bytes of a word that kept their value are written with that value. What words give up: a
// host thread's write to another byte of such a word while the kernel runs
// (docs/user-guide.md, "Unified shared memory"; FERRY_USM_WRITE_BACK=bytes keeps it).
Status addChangedRuns(const uint8_t* copy, const uint8_t* twin, uint64_t page, RunWriter& writer, RunStats& stats) {
  const uint64_t granule = gGranule.load(std::memory_order_relaxed);
  for (uint64_t at = firstDifference(copy, twin, 0) / granule * granule; at < kPage;) {
    uint64_t end = at + granule;
    while (end < kPage && granuleDiffers(copy, twin, end, granule)) end += granule;
    if (Status st = writer.add(copy + at, page + at, end - at); !st) return st;
    stats.bytesWritten += end - at;
    ++stats.runsWritten;
    at = firstDifference(copy, twin, end) / granule * granule;
  }
  return {};
}

// Writes back the bytes of each mirrored page that differ from its twin, run by run, so that
// granules no kernel changed are never overwritten. While another kernel may still write
// (`othersRunning`, Mode::Lenient) each page is first copied aside and its twin set to that
// copy, so that the next write-back finds what it writes after the copy; otherwise the pages
// are stable and about to be dropped, and go back as they are.
Status writeBack(pid_t host, RunStats& stats, bool othersRunning) {
  // Pages are copied aside in batches; a batch's twins are refreshed once its runs are
  // written. Called under gRunMutex, so one buffer serves all.
  constexpr uint32_t kBatch = 64;
  static std::vector<uint8_t> snapshots(kBatch * kPage);
  RunWriter writer(host);
  std::vector<std::pair<uint8_t*, const uint8_t*>> twinsToRefresh;  // twin, its page's copy
  auto endBatch = [&]() -> Status {
    if (Status st = writer.flush(); !st) return st;
    for (auto [twin, copy] : twinsToRefresh) std::memcpy(twin, copy, kPage);
    twinsToRefresh.clear();
    return {};
  };
  uint32_t n = gMirror.numClaimed.load();
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t claimed = gMirror.claimed[i].load(std::memory_order_acquire);
    if (claimed == 0) continue;  // a hole (reserveIndices)
    uint32_t slot = claimed - 1;
    if (gMirror.states[slot].load(std::memory_order_acquire) != kReady) continue;
    ++stats.pagesIn;
    uint64_t page = gMirror.keys[slot].load();
    uint8_t* twin = twinOf(gMirror.order[slot].load());
    auto* copy = reinterpret_cast<uint8_t*>(page);
    if (othersRunning) {
      copy = snapshots.data() + twinsToRefresh.size() * kPage;
      std::memcpy(copy, reinterpret_cast<const void*>(page), kPage);
    }
    if (std::memcmp(copy, twin, kPage) == 0) continue;  // only read
    if (othersRunning) twinsToRefresh.push_back({twin, copy});
    if (Status st = addChangedRuns(copy, twin, page, writer, stats); !st) return st;
    if (twinsToRefresh.size() == kBatch)
      if (Status st = endBatch(); !st) return st;
  }
  return endBatch();
}

// Unmaps the mirror pages and empties the tables for the next kernel.
void drop() {
  uint32_t n = gMirror.numClaimed.load();
  std::vector<uint64_t> pages;
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t claimed = gMirror.claimed[i].exchange(0, std::memory_order_relaxed);
    if (claimed == 0) continue;
    uint32_t slot = claimed - 1;
    if (gMirror.states[slot].load() == kReady) pages.push_back(gMirror.keys[slot].load());
    gMirror.states[slot].store(kFree);
    gMirror.keys[slot].store(0);
  }
  // Neighbouring pages go in one munmap (it removes every mapping in the range).
  std::sort(pages.begin(), pages.end());
  for (size_t i = 0; i < pages.size();) {
    size_t j = i + 1;
    while (j < pages.size() && pages[j] == pages[j - 1] + kPage) ++j;
    munmap(reinterpret_cast<void*>(pages[i]), (j - i) * kPage);
    i = j;
  }
  // The file's pages go back to the kernel; twins stay, for the next kernel.
  if (n) (void)fallocate(gMirror.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, static_cast<off_t>(n) * kPage);
  gMirror.numClaimed.store(0);
  gMirror.firstPage.store(0);
  gMirror.faults.store(0);
}

}  // namespace

Status enable(pid_t hostPid, Mode mode) {
  bool remote = hostPid == kRemoteHost && courier::link();
  if (!remote && (hostPid <= 0 || hostPid == getpid()))
    return Status(Errc::Internal, "host pager asked to mirror pid " + std::to_string(hostPid));
  Status result;
  std::call_once(gInstalled, [&] {
    std::snprintf(gPrefix, sizeof gPrefix, "%s", log::linePrefix(log::Level::Error, log::Service).c_str());
    gMirror.keys = reserve<std::atomic<uint64_t>>(kSlots);
    gMirror.states = reserve<std::atomic<uint32_t>>(kSlots);
    gMirror.order = reserve<std::atomic<uint32_t>>(kSlots);
    gMirror.claimed = reserve<std::atomic<uint32_t>>(kSlots);
    gMirror.twins = reserve<std::atomic<uint8_t*>>(kSlots / kChunkPages);
    gMirror.fd = memfd_create("ferry-usm-mirror", MFD_CLOEXEC);
    if (gMirror.fd < 0 || ftruncate(gMirror.fd, static_cast<off_t>(kSlots) * kPage) != 0) {
      result = Status(Errc::Unavailable, std::string("host pager: cannot create its memfd: ") +
                                             std::strerror(errno));
      return;
    }
    if (!gMirror.keys || !gMirror.states || !gMirror.order || !gMirror.claimed || !gMirror.twins) {
      result = Status(Errc::OutOfMemory, "host pager: cannot reserve its tables");
      return;
    }
    struct sigaction sa {};
    sa.sa_sigaction = onFault;
    // SA_NODEFER: a fault inside the handler must reach the crash report. SA_ONSTACK: so must a
    // kernel that overflowed its stack (CrashStack gives the thread another one).
    sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, &gPrevious) != 0)
      result = Status(Errc::Internal, std::string("host pager: sigaction failed: ") + std::strerror(errno));
  });
  if (!result) return result;
  if (!gMirror.twins) return Status(Errc::OutOfMemory, "host pager: its tables are missing");
  uint64_t around = std::clamp<uint64_t>(config().size(Knob::UsmFaultAround) / kPage, 1, kChunkPages);
  gAroundPages.store(static_cast<uint32_t>(around), std::memory_order_relaxed);
  gGranule.store(config().text(Knob::UsmWriteBack) == "bytes" ? 1 : 8, std::memory_order_relaxed);
  std::lock_guard lock(gRunMutex);
  Layouts layouts;
  if (Status st = readLayouts(hostPid, layouts); !st) return st;
  mapCode(layouts);
  return mode == Mode::Lenient ? Status() : checkLayout(std::move(layouts));
}

// Mode::Unified: one kernel at a time, each on a fresh mirror of a checked layout.
static Status runUnified(pid_t hostPid, const std::function<Status()>& kernel, RunStats& stats) {
  std::lock_guard lock(gRunMutex);
  Layouts layouts;
  if (Status st = readLayouts(hostPid, layouts); !st) return st;
  if (Status st = checkLayout(std::move(layouts)); !st) return st;
  gMirror.host.store(hostPid, std::memory_order_release);
  Status st = kernel();
  gMirror.host.store(0, std::memory_order_release);
  stats.firstPage = gMirror.firstPage.load();
  stats.faults = gMirror.faults.load();
  Status wb = writeBack(hostPid, stats, false);
  drop();
  return st ? wb : st;
}

// Mode::Lenient: kernels run concurrently and share the mirror; each one's end writes back
// what has changed so far, and the last one drops the pages.
static Status runLenient(pid_t hostPid, const std::function<Status()>& kernel, RunStats& stats) {
  {
    std::lock_guard lock(gRunMutex);
    if (gActive++ == 0) gMirror.host.store(hostPid, std::memory_order_release);
  }
  Status st = kernel();
  std::lock_guard lock(gRunMutex);
  stats.firstPage = gMirror.firstPage.load();
  stats.faults = gMirror.faults.load();
  Status wb = writeBack(hostPid, stats, gActive > 1);
  if (--gActive == 0) {
    gMirror.host.store(0, std::memory_order_release);
    drop();
  }
  return st ? wb : st;
}

Status run(pid_t hostPid, Mode mode, const std::function<Status()>& kernel, RunStats* statsOut) {
  RunStats stats;
  Status st = mode == Mode::Unified ? runUnified(hostPid, kernel, stats) : runLenient(hostPid, kernel, stats);
  if (stats.pagesIn && log::enabled(log::Level::Debug, log::Service))
    log::debug(log::Service, "%s: %llu page(s) of rank 0 mirrored, %s written back in %llu run(s)",
               mode == Mode::Unified ? "unified shared memory" : "unmapped host memory",
               static_cast<unsigned long long>(stats.pagesIn), parse::formatSize(stats.bytesWritten).c_str(),
               static_cast<unsigned long long>(stats.runsWritten));
  if (statsOut) *statsOut = stats;
  return st;
}

std::vector<MapRange> parseMaps(const std::string& text) {
  std::vector<MapRange> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream f(line);
    MapRange r;
    std::string range, dev;
    if (!(f >> range >> r.perms >> r.offset >> dev >> r.inode)) continue;
    std::getline(f >> std::ws, r.path);
    size_t dash = range.find('-');
    if (dash == std::string::npos) continue;
    // Rank 0's text may come over MPI (PageLink::maps): a range that is no pair of hex
    // numbers skips its line, where std::stoull threw out of the pager and ended the rank.
    auto hexNumber = [](std::string_view digits, uint64_t& v) {
      auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, 16);
      return ec == std::errc() && end == digits.data() + digits.size();
    };
    std::string_view bounds(range);
    if (!hexNumber(bounds.substr(0, dash), r.start) || !hexNumber(bounds.substr(dash + 1), r.end)) continue;
    r.offset += ":" + dev;  // same file and offset on the same device
    out.push_back(std::move(r));
  }
  return out;
}

// Both lists are in address order, as /proc/PID/maps gives them: one sweep.
const MapRange* firstCollision(const std::vector<MapRange>& host, const std::vector<MapRange>& self) {
  size_t first = 0;
  for (const MapRange& h : host) {
    // No kernel reads these of the host: kernel-provided pages and inaccessible reservations.
    if (h.perms.starts_with("---") || h.path == "[vvar]" || h.path == "[vdso]" || h.path == "[vsyscall]") continue;
    while (first < self.size() && self[first].end <= h.start) ++first;
    for (size_t i = first; i < self.size() && self[i].start < h.end; ++i) {
      const MapRange& s = self[i];
      // One read-only mapping of the same file at the same place holds the same bytes
      // (libraries, where randomisation is off).
      bool same = h.start == s.start && h.end == s.end && h.perms == s.perms && h.offset == s.offset &&
                  h.inode == s.inode && h.path == s.path && h.perms.find('w') == std::string::npos;
      if (!same) return &h;
    }
  }
  return nullptr;
}

}  // namespace ferry::service::hostpager
