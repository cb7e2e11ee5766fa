/* PE 1 dies (SIGKILL) while PE 0 waits in shmem_long_wait_until for a flag only PE 1 would
 * set: the job must end, non-zero, within the bound, never hang in the wait. The launchers
 * end a job whose rank dies (Open MPI, Hydra; srun with --kill-on-bad-exit). */
#include <shmem.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static long flag; /* symmetric */

int main(void) {
  shmem_init();
  shmem_barrier_all();
  if (shmem_my_pe() == 1) {
    fflush(stdout);
    kill(getpid(), SIGKILL);
  }
  shmem_long_wait_until(&flag, SHMEM_CMP_NE, 0);
  printf("err_pe_dies: PE %d's wait returned although no PE set the flag\n", shmem_my_pe());
  shmem_finalize();
  return 0;
}
