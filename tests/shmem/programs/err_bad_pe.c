/* PE 0 passes a PE number outside the job to shmem_int_p while the others wait in a
 * barrier: the library must say which call, which PE and the valid range, and end the whole
 * job (no PE may hang in the barrier). */
#include <shmem.h>
#include <stdio.h>

static int target; /* symmetric */

int main(void) {
  shmem_init();
  if (shmem_my_pe() == 0) shmem_int_p(&target, 42, 12345);
  shmem_barrier_all();
  printf("err_bad_pe: still running after the bad call on PE %d\n", shmem_my_pe());
  shmem_finalize();
  return 0;
}
