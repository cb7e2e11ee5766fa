/* shmem_int_p before shmem_init: the library must say so, naming the call, and end the
 * process rather than touch memory it has not set up. */
#include <shmem.h>
#include <stdio.h>

static int target; /* symmetric once shmem_init has run */

int main(void) {
  shmem_int_p(&target, 1, 0);
  printf("err_before_init: still running after the call\n");
  shmem_init();
  shmem_finalize();
  return 0;
}
