// Declare-target globals of class type: clang-16 builds a constructor and a destructor
// kernel for each, which the device image runs when it is loaded and unloaded. Each device
// must hold its own object, built by its own constructor on its serving rank. Built with
// -DFERRY_TEST_USM, the program requires unified shared memory: then there is no device copy,
// and kernels use the host's object itself (built on rank 0) through rank 0's memory.
#ifdef FERRY_TEST_USM
#pragma omp requires unified_shared_memory  // before check.h, whose helpers hold target regions
#endif

#include <cstdio>
#include <string>

#include "check.h"

#pragma omp declare target
struct Named {
  std::string name;
  int value = 42;
  int builtOnRank;  // where the constructor ran: the serving rank for a device's copy
  Named() : name("a name longer than the short-string buffer"), builtOnRank(current_rank()) {}
  ~Named() {
    // Seen in the device's output (forwarded to rank 0's stdout) when the image unloads.
    if (current_rank() != 0) std::printf("class_globals: destructor ran on rank %d\n", current_rank());
  }
};
Named named;
#pragma omp end declare target

int main() {
  int n = omp_get_num_devices();
  CHECK(n > 0, "no devices");
  for (int d = 0; d < n; ++d) {
    int builtOn = -1, value = -1, length = -1;
#pragma omp target device(d) map(from : builtOn, value, length)
    {
      named.value += d + 1;
      named.name[d % 40] = '#';  // in place: a kernel's allocation would live in the device's heap
      builtOn = named.builtOnRank;
      value = named.value;
      length = static_cast<int>(named.name.size());
    }
#ifdef FERRY_TEST_USM
    // One object for all: the host's, changed in place by each kernel in turn.
    int expectValue = 42 + (d + 1) * (d + 2) / 2;
    CHECK(builtOn == 0, "device %d sees an object built on rank %d, not the host's", d, builtOn);
    CHECK(value == expectValue && named.value == expectValue, "device %d value %d, host %d, expected %d", d, value,
          named.value, expectValue);
    CHECK(length == 42 && named.name[d % 40] == '#', "device %d name length %d, host sees '%c'", d, length,
          named.name[d % 40]);
#else
    CHECK(builtOn == expected_rank(d), "device %d's object was built on rank %d, expected rank %d", d, builtOn,
          expected_rank(d));
    CHECK(value == 42 + d + 1, "device %d value %d (each device has its own object)", d, value);
    CHECK(length == 42, "device %d name length %d", d, length);
    CHECK(named.name[d % 40] != '#', "device %d wrote into the host's object", d);
#endif
  }
#ifdef FERRY_TEST_USM
  CHECK(named.name.size() == 42u, "host name length %zu after %d kernels", named.name.size(), n);
#else
  CHECK(named.value == 42 && named.builtOnRank == 0, "the host's object changed: value %d", named.value);
#endif
  return finish("class_globals");
}
