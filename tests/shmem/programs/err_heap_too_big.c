/* Run with SHMEM_SYMMETRIC_SIZE=1M: shmem_malloc of 4 MiB must return NULL on every PE with
 * a message that names SHMEM_SYMMETRIC_SIZE, and the heap must stay usable. Exits 0 when so. */
#include <shmem.h>
#include <stdio.h>

static int gBad, gAnyBad; /* symmetric */

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  void* big = shmem_malloc((size_t)4 << 20);
  if (big) {
    fprintf(stderr, "err_heap_too_big: PE %d got 4 MiB from a 1 MiB heap\n", me);
    gBad = 1;
  }
  int* small = shmem_malloc(1024);
  if (!small) {
    fprintf(stderr, "err_heap_too_big: PE %d: a 1 KiB block failed after the refusal\n", me);
    gBad = 1;
  } else {
    shmem_int_p(&small[me % 256], 7 + me, (me + 1) % n);
    shmem_barrier_all();
    const int left = (me + n - 1) % n;
    if (small[left % 256] != 7 + left) {
      fprintf(stderr, "err_heap_too_big: PE %d: the block does not work\n", me);
      gBad = 1;
    }
    shmem_free(small);
  }
  shmem_int_max_reduce(SHMEM_TEAM_WORLD, &gAnyBad, &gBad, 1);
  if (me == 0 && !gAnyBad) printf("err_heap_too_big: NULL as expected, the heap still works\n");
  fflush(stdout);
  shmem_finalize();
  return gAnyBad;
}
