/* omp_target_memcpy with addresses that are not device memory fails with a message and
 * a non-zero return code; nothing else breaks. */
#include "check.h"

int main(void) {
  int host = omp_get_initial_device();
  char buf[64] = {0};
  char* dev = omp_target_alloc(64, 0);
  CHECK(dev != NULL, "alloc");
  CHECK(omp_target_memcpy(dev + 4096, buf, 64, 0, 0, 0, host) != 0, "copy to past the end succeeded");
  CHECK(omp_target_memcpy(buf, (char*)0x1000, 64, 0, 0, host, 0) != 0, "copy from a wild address succeeded");
  CHECK(omp_target_memcpy(dev, buf, 64, 0, 0, 0, host) == 0, "a valid copy afterwards");
  omp_target_free(dev, 0);
  return finish("bad_pointer");
}
