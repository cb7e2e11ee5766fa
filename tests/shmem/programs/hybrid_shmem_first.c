/* A hybrid program that starts OpenSHMEM first: shmem_init, MPI_Init (which must succeed
 * though MPI is already running under SHMEM), both in use, then MPI_Finalize and
 * shmem_finalize; SHMEM still works between the two finalizations. Exits 0 only if every
 * check passed on every PE; PE 0 then prints "hybrid ok". */
#include "hybrid_checks.h"

static int gBad, gAnyBad; /* symmetric, for the verdict after MPI_Finalize */

int main(int argc, char** argv) {
  shmem_init();
  int rc = MPI_Init(&argc, &argv);
  int initialized = 0;
  MPI_Initialized(&initialized);
  gBad = rc != MPI_SUCCESS || !initialized;
  if (gBad) fprintf(stderr, "MPI_Init after shmem_init returned %d (initialized %d)\n", rc, initialized);
  gBad |= hybridChecks("SHMEM first");
  MPI_Finalize();
  /* MPI is finalized for the program; SHMEM is still up. */
  const int me = shmem_my_pe(), n = shmem_n_pes();
  shmem_long_p(&hybridSlots[me % 64], 2000 + me, (me + 1) % n);
  shmem_barrier_all();
  const int left = (me + n - 1) % n;
  if (hybridSlots[left % 64] != 2000 + left) {
    fprintf(stderr, "SHMEM after MPI_Finalize: PE %d's put is missing\n", left);
    gBad = 1;
  }
  shmem_int_max_reduce(SHMEM_TEAM_WORLD, &gAnyBad, &gBad, 1);
  if (me == 0) printf(gAnyBad ? "hybrid FAILED (SHMEM first)\n" : "hybrid ok (SHMEM first)\n");
  fflush(stdout);
  shmem_finalize();
  return gAnyBad ? 1 : 0;
}
