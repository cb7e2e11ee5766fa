#include "service/page_courier.h"

#include <sched.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <thread>

#include "platform/log.h"
#include "platform/parse.h"

namespace ferry::service::courier {
namespace {

enum SlotState : uint32_t { kFree, kClaimed, kPosted, kDone };

// One read a faulting thread waits for. Kernel threads fault concurrently, so there are
// several; a thread that finds none free yields until one is.
struct Slot {
  std::atomic<uint32_t> state{kFree};
  uint64_t page = 0;
  uint32_t count = 0;
  uint8_t* out = nullptr;
  uint32_t got = 0;
};
constexpr int kSlots = 64;
Slot gSlots[kSlots];
int gWake = -1;  // eventfd the handler writes to
std::unique_ptr<comm::PageSource> gLink;
std::atomic<comm::PageSource*> gLinkPtr{nullptr};
std::once_flag gStarted;

void serveSlots() {
  for (Slot& s : gSlots) {
    if (s.state.load(std::memory_order_acquire) != kPosted) continue;
    auto r = gLinkPtr.load()->read(s.page, s.count, s.out);
    if (!r)
      log::error(log::Service, "unified shared memory: a kernel's fault at %s could not be served: %s",
                 hex(s.page).c_str(), r.status().message().c_str());
    s.got = r ? *r : 0;
    s.state.store(kDone, std::memory_order_release);
  }
}

void loop() {
  while (true) {
    uint64_t n = 0;
    if (::read(gWake, &n, sizeof n) < 0 && errno != EINTR) return;
    serveSlots();
  }
}

}  // namespace

Status start(std::unique_ptr<comm::PageSource> link) {
  Status result;
  std::call_once(gStarted, [&] {
    gWake = eventfd(0, EFD_CLOEXEC);
    if (gWake < 0) {
      result = Status(Errc::Unavailable, std::string("page courier: eventfd failed: ") + std::strerror(errno));
      return;
    }
    gLink = std::move(link);
    gLinkPtr.store(gLink.get(), std::memory_order_release);
    std::thread(loop).detach();  // lives as long as the process; idle in read() between kernels
  });
  if (!result) return result;
  if (!gLinkPtr.load()) return Status(Errc::Unavailable, "page courier: it failed to start earlier");
  return {};
}

comm::PageSource* link() { return gLinkPtr.load(std::memory_order_acquire); }

uint32_t readFromHandler(uint64_t page, uint32_t count, uint8_t* out) {
  if (!gLinkPtr.load(std::memory_order_acquire)) return 0;
  for (;;) {
    for (Slot& s : gSlots) {
      uint32_t free = kFree;
      if (!s.state.compare_exchange_strong(free, kClaimed, std::memory_order_acquire)) continue;
      s.page = page;
      s.count = count;
      s.out = out;
      s.got = 0;
      s.state.store(kPosted, std::memory_order_release);
      uint64_t one = 1;
      (void)!::write(gWake, &one, sizeof one);
      while (s.state.load(std::memory_order_acquire) != kDone) sched_yield();
      uint32_t got = s.got;
      s.state.store(kFree, std::memory_order_release);
      return got;
    }
    sched_yield();
  }
}

}  // namespace ferry::service::courier
