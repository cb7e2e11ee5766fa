/* A hybrid program that starts MPI first: MPI_Init, shmem_init, both in use, then
 * shmem_finalize and MPI_Finalize; MPI still works between the two finalizations. Exits 0
 * only if every check passed on every process; PE 0 then prints "hybrid ok". */
#include "hybrid_checks.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  shmem_init();
  int bad = hybridChecks("MPI first");
  const int me = shmem_my_pe();
  shmem_finalize();
  /* SHMEM is done; MPI is still up. */
  int size = 0, one = 1, count = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(&one, &count, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (count != size) {
    fprintf(stderr, "MPI after shmem_finalize: MPI_Allreduce gave %d\n", count);
    bad = 1;
  }
  int anyBad = 0;
  MPI_Allreduce(&bad, &anyBad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  if (me == 0) printf(anyBad ? "hybrid FAILED (MPI first)\n" : "hybrid ok (MPI first)\n");
  return anyBad ? 1 : 0;
}
