#include "coll/library_comms.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>

#include "coll/keyval.h"

namespace ferry::coll {

uint64_t commKey(MPI_Comm comm) {
  uint64_t key = 0;
  static_assert(sizeof(MPI_Comm) <= sizeof key);
  std::memcpy(&key, &comm, sizeof comm);
  return key;
}

}  // namespace ferry::coll

namespace ferry::coll::libraryComms {
namespace {

// 64 sets of 8 slots, each set one cache line: a communicator takes any free slot of its
// set, so only a ninth live one in the same set is left out.
constexpr int kSetBits = 6;
constexpr size_t kWays = 8;
struct alignas(64) Set {
  std::array<std::atomic<uint64_t>, kWays> keys{};  // 0: free
};
std::array<Set, 1 << kSetBits> gSets;

Set& setOf(uint64_t key) {
  return gSets[(key * 0x9e3779b97f4a7c15ull) >> (64 - kSetBits)];  // Fibonacci hashing
}

int removeOnDelete(MPI_Comm comm, int, void*, void*) {
  uint64_t key = commKey(comm);
  for (auto& slot : setOf(key).keys) {
    uint64_t expected = key;
    if (slot.compare_exchange_strong(expected, 0, std::memory_order_acq_rel)) break;
  }
  return MPI_SUCCESS;
}

// MPI_COMM_NULL_COPY_FN: a duplicate is a new communicator, added on its own merits.
int markerKey() {
  static std::once_flag once;
  static int key = MPI_KEYVAL_INVALID;
  std::call_once(once, [] {
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, removeOnDelete, &key, nullptr) == MPI_SUCCESS)
      freeKeyvalAtFinalize(key);
  });
  return key;
}

}  // namespace

bool contains(MPI_Comm comm) {
  uint64_t key = commKey(comm);
  if (key == 0) return false;
  for (const auto& slot : setOf(key).keys)
    if (slot.load(std::memory_order_acquire) == key) return true;
  return false;
}

void add(MPI_Comm comm) {
  uint64_t key = commKey(comm);
  if (key == 0 || comm == MPI_COMM_NULL || contains(comm)) return;
  // The marker first: once the entry is in, its removal must be certain.
  if (MPI_Comm_set_attr(comm, markerKey(), nullptr) != MPI_SUCCESS) return;
  for (auto& slot : setOf(key).keys) {
    uint64_t free = 0;
    if (slot.compare_exchange_strong(free, key, std::memory_order_acq_rel)) return;
  }
}

}  // namespace ferry::coll::libraryComms
