/* busy_threads SECONDS: an MPI+OpenMP program whose threads all compute for SECONDS and
 * record every CPU they were found on (sched_getcpu), the measurement the binding tests
 * check beside Ferry's own report. Each thread prints
 *   busy_threads: rank R thread T of N ran on CPUs LIST
 * Compiled by the MPI wrapper with the compiler's own OpenMP (libgomp), as an application is. */
#define _GNU_SOURCE
#include <mpi.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { kMaxCpus = 4096 };

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* "0,1,5": the CPUs set in `seen`. */
static void cpuText(const unsigned char* seen, char* out, size_t cap) {
  size_t len = 0;
  out[0] = '\0';
  for (int c = 0; c < kMaxCpus && len + 8 < cap; ++c)
    if (seen[c]) len += (size_t)snprintf(out + len, cap - len, "%s%d", len ? "," : "", c);
}

int main(int argc, char** argv) {
  int provided = 0, rank = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double seconds = argc > 1 ? atof(argv[1]) : 3.0;
  volatile double sink = 0;
#pragma omp parallel
  {
    unsigned char* seen = calloc(kMaxCpus, 1);
    double end = now() + seconds, x = 1.0;
    while (now() < end) {
      for (int i = 0; i < 100000; ++i) x = x * 1.0000001 + 1e-9;  /* compute, not wait */
      int cpu = sched_getcpu();
      if (cpu >= 0 && cpu < kMaxCpus) seen[cpu] = 1;
    }
    sink += x;
    char text[1024];
    cpuText(seen, text, sizeof text);
#pragma omp critical
    printf("busy_threads: rank %d thread %d of %d ran on CPUs %s\n", rank, omp_get_thread_num(),
           omp_get_num_threads(), text);
    free(seen);
  }
  fflush(stdout);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return sink > 0 ? 0 : 1;
}
