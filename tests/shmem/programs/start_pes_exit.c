/* An OpenSHMEM 1.2-era program: start_pes, shmalloc, a put, and a return from main with no
 * shmem_finalize, which start_pes does not require (the library finalizes at exit). The
 * launcher must see every PE end cleanly: exit status 0 and no "exited without calling
 * finalize" from it. */
#define FERRY_SHMEM_NO_DEPRECATION_WARNINGS
#include <shmem.h>
#include <stdio.h>

int main(void) {
  start_pes(0);
  const int me = _my_pe(), n = _num_pes();
  int* slot = shmalloc(sizeof(int));
  shmem_int_p(slot, 100 + me, (me + 1) % n);
  shmem_barrier_all();
  const int left = (me + n - 1) % n;
  if (*slot != 100 + left) {
    fprintf(stderr, "start_pes_exit: PE %d holds %d, expected %d\n", me, *slot, 100 + left);
    return 1;
  }
  printf("start_pes_exit: PE %d ok\n", me);
  return 0; /* no shmem_finalize */
}
