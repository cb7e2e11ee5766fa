/* PE 0 asks shmem_malloc for 1024 B, the others for 2048 B: the call is collective and must
 * be symmetric. The library must name both sizes and say "symmetric", and give no PE a
 * block (NULL on every PE). Exits 0 when no PE got one. */
#include <shmem.h>
#include <stdio.h>

static int gGot, gAnyGot; /* symmetric */

int main(void) {
  shmem_init();
  const int me = shmem_my_pe();
  void* p = shmem_malloc(me == 0 ? 1024 : 2048);
  gGot = p != NULL;
  printf("err_asymmetric_malloc: PE %d got %s\n", me, p ? "a block" : "NULL");
  fflush(stdout);
  shmem_int_max_reduce(SHMEM_TEAM_WORLD, &gAnyGot, &gGot, 1);
  shmem_finalize();
  return gAnyGot;
}
