/* has_device_addr inside use_device_addr: clang 16 turns it into a copy whose "host" source
 * is the device address itself. With the stock plugin that works only because host and
 * device share one address space; Ferry makes it a device-to-device copy. */
#include "check.h"

int main(void) {
  int n = omp_get_num_devices();
  for (int d = 0; d < n; ++d) {
    short a[10] = {0}, b[10] = {0};
    a[1] = 111;
    b[1] = 111;
    short seenA = 0, seenB = 0;
#pragma omp target data device(d) map(to : a[0 : 2], b[0 : 2]) use_device_addr(a, b)
    {
#pragma omp target device(d) has_device_addr(a) map(from : seenA)
      {
        a[1] = 222;
        seenA = a[1];
      }
#pragma omp target device(d) has_device_addr(b[0]) map(from : seenB)
      {
        b[1] = 333;
        seenB = b[1];
      }
    }
    CHECK(seenA == 222 && seenB == 333, "device %d: regions saw %d and %d", d, seenA, seenB);
    CHECK(a[1] == 111 && b[1] == 111, "device %d: map(to:) data came back: %d %d", d, a[1], b[1]);
  }
  return finish("device_addr");
}
