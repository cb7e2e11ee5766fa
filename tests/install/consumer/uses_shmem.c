/* An OpenSHMEM program built against an installed Ferry: every PE puts its number into its
 * right neighbour's symmetric variable; each checks what its left neighbour put. */
#include <shmem.h>
#include <stdio.h>

static int from_left = -1;

int main(void) {
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  shmem_int_p(&from_left, me, (me + 1) % n);
  shmem_barrier_all();
  int ok = from_left == (me + n - 1) % n;
  printf("PE %d of %d: %s\n", me, n, ok ? "shmem ok" : "WRONG");
  shmem_finalize();
  return ok ? 0 : 1;
}
