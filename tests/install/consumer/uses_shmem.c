/* An OpenSHMEM program built against an installed Ferry: every PE puts its number into its
 * right neighbour's symmetric variable; each checks what its left neighbour put. Built as
 * C11 or C++ (oshc++), the put goes through the generic name: _Generic in C, an overload
 * from the installed shmem_cxx.h in C++. */
#include <shmem.h>
#include <stdio.h>

static int from_left = -1;

int main(void) {
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
#if defined(__cplusplus) || (defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L)
  shmem_p(&from_left, me, (me + 1) % n);
#else
  shmem_int_p(&from_left, me, (me + 1) % n);
#endif
  shmem_barrier_all();
  int ok = from_left == (me + n - 1) % n;
  printf("PE %d of %d: %s\n", me, n, ok ? "shmem ok" : "WRONG");
  shmem_finalize();
  return ok ? 0 : 1;
}
