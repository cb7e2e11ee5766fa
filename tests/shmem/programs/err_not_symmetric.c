/* PE 0 gives shmem_putmem a destination on its stack, which no other PE can address: the
 * library must name the call and say the address is not symmetric, and end the job. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
  shmem_init();
  long onStack[4] = {0, 0, 0, 0};
  const long src[4] = {1, 2, 3, 4};
  if (shmem_my_pe() == 0) shmem_putmem(onStack, src, sizeof src, (shmem_my_pe() + 1) % shmem_n_pes());
  shmem_barrier_all();
  printf("err_not_symmetric: still running after the bad call on PE %d (%ld)\n", shmem_my_pe(), onStack[0]);
  shmem_finalize();
  return 0;
}
