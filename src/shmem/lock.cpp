// shmem_set_lock and friends: a ticket lock in PE 0's copy of the symmetric long. The high
// 32 bits hand out tickets, the low 32 bits name the ticket served; PEs acquire in the order
// they asked, so none starves.
#include <sched.h>

#include <cstdint>

#include "shmem/api.h"

namespace ferry::shmem {
namespace {

constexpr uint64_t kTicket = uint64_t{1} << 32;
constexpr uint64_t kServing = kTicket - 1;
constexpr AmoType kWord{Kind::Unsigned, 8};

uint64_t fetch(long* lock, const char* call) {
  uint64_t v = 0;
  amo(nullptr, AmoOp::Fetch, kWord, lock, nullptr, nullptr, &v, 0, false, call);
  return v;
}

bool compareSwap(long* lock, uint64_t expected, uint64_t desired, const char* call) {
  uint64_t old = 0;
  amo(nullptr, AmoOp::CompareSwap, kWord, lock, &desired, &expected, &old, 0, false, call);
  return old == expected;
}

}  // namespace

void setLock(long* lock) {
  const char* call = "shmem_set_lock";
  uint64_t mine = 0;
  amo(nullptr, AmoOp::FetchAdd, kWord, lock, &kTicket, nullptr, &mine, 0, false, call);
  uint64_t ticket = (mine >> 32) & kServing;
  while ((fetch(lock, call) & kServing) != ticket) waitStep(lock, call);
  waitDone();
}

void clearLock(long* lock) {
  const char* call = "shmem_clear_lock";
  quietAll();  // what the holder wrote arrives before the next holder enters
  // Only the holder changes the low half, but tickets change the high half meanwhile.
  for (uint64_t v = fetch(lock, call);; v = fetch(lock, call))
    if (compareSwap(lock, v, (v & ~kServing) | ((v + 1) & kServing), call)) return;
}

int testLock(long* lock) {
  const char* call = "shmem_test_lock";
  uint64_t v = fetch(lock, call);
  // A failed attempt yields: programs spin on shmem_test_lock, and with more threads than
  // cores the spinners starved the holder (SOS's mt_locking, 16 threads per PE on 2 cores).
  if (((v >> 32) & kServing) != (v & kServing) || !compareSwap(lock, v, v + kTicket, call)) {
    sched_yield();
    return 1;
  }
  waitDone();
  return 0;
}

}  // namespace ferry::shmem
