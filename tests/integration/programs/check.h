/* Shared by the offload test programs: result checks, and the rank a device should run on.
 *
 * Device order (docs/user-guide.md): devices are numbered by serving rank, then by the
 * rank's local index. Rank 0 serves none unless FERRY_RANK0_DEVICES=1. Each serving rank
 * has FERRY_DEVICES_PER_RANK devices (default 1). */
#ifndef FERRY_TEST_CHECK_H
#define FERRY_TEST_CHECK_H

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond, ...)                                            \
  do {                                                              \
    if (!(cond)) {                                                  \
      fprintf(stderr, "FAIL %s:%d: (%s) ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                 \
      fputc('\n', stderr);                                          \
      ++failures;                                                   \
    }                                                               \
  } while (0)

static inline int env_int(const char* name, int fallback) {
  const char* v = getenv(name);
  return v && *v ? atoi(v) : fallback;
}

static inline int devices_per_rank(void) { return env_int("FERRY_DEVICES_PER_RANK", 1); }

static inline int expected_rank(int device) {
  int first = env_int("FERRY_RANK0_DEVICES", 0) ? 0 : 1;
  return first + device / devices_per_rank();
}

#pragma omp declare target
/* The MPI rank of the process running this code (Open MPI or MPICH launchers; srun
 * --mpi=pmix sets PMIX_RANK only); 0 in a program started without a launcher (a singleton). */
static int current_rank(void) {
  const char* v = getenv("OMPI_COMM_WORLD_RANK");
  if (!v) v = getenv("PMI_RANK");
  if (!v) v = getenv("PMIX_RANK");
  return v ? atoi(v) : 0;
}
/* The machine the code runs on: 64 for aarch64 (an emulated DPU's daemon), 86 for x86_64. */
static int current_machine(void) {
#if defined(__aarch64__)
  return 64;
#elif defined(__x86_64__)
  return 86;
#else
  return 0;
#endif
}
#pragma omp end declare target

/* Checks, inside a region, that device `d` runs on its documented rank. */
static inline void check_region_rank(int d) {
  int r = -2;
#pragma omp target device(d) map(from : r)
  r = current_rank();
  CHECK(r == expected_rank(d), "device %d ran on rank %d, expected rank %d", d, r, expected_rank(d));
  if (!env_int("FERRY_RANK0_DEVICES", 0)) CHECK(r != 0, "device %d ran on rank 0, which runs main", d);
}

/* The job's size, as the launchers say it (Open MPI, MPICH's Hydra); 1 for a program started
 * without a launcher (a singleton). */
static inline int world_size(void) {
  int n = env_int("OMPI_COMM_WORLD_SIZE", 0);
  if (!n) n = env_int("PMI_SIZE", 0);
  /* srun --mpi=pmix sets no size variable; its step's task count is the job's size. */
  return n ? n : env_int("SLURM_STEP_NUM_TASKS", 1);
}

/* Devices that ranks of the job serve: FERRY_DEVICES_PER_RANK on every serving rank. */
static inline int rank_devices(void) {
  int size = world_size();
  int serving = env_int("FERRY_RANK0_DEVICES", 0) ? size : size - 1;
  return serving > 0 ? serving * devices_per_rank() : 0;
}

/* The devices this job must have: the ranks', then those of OFFLOAD_TEST_DAEMONS device daemons
 * (ferry serve, started by the test with the same FERRY_DEVICES_PER_RANK). -1 where it cannot
 * be known: a job that may also have GPUs (FERRY_GPUS_PER_RANK not 0; "all" is valid too). */
static inline int expected_devices(void) {
  const char* gpus = getenv("FERRY_GPUS_PER_RANK");
  if (!gpus || strcmp(gpus, "0") != 0) return -1;
  return rank_devices() + env_int("OFFLOAD_TEST_DAEMONS", 0) * devices_per_rank();
}

/* Checks that the daemons' devices (after the ranks') run the machine OFFLOAD_TEST_DAEMON_ARCH
 * names (aarch64 or x86_64, the default), and the ranks' x86_64: each device got the image
 * built for its machine from the program's fat binary. */
static inline void check_device_machines(int n) {
  const char* arch = getenv("OFFLOAD_TEST_DAEMON_ARCH");
  int daemon_machine = arch && strcmp(arch, "aarch64") == 0 ? 64 : 86;
  for (int d = 0; d < n; ++d) {
    int m = -1;
#pragma omp target device(d) map(from : m)
    m = current_machine();
    int want = d < rank_devices() ? 86 : daemon_machine;
    CHECK(m == want, "device %d ran %s code, expected %s", d, m == 64 ? "aarch64" : m == 86 ? "x86_64" : "other",
          want == 64 ? "aarch64" : "x86_64");
  }
}

/* A program whose regions ran on the host (no Ferry, offloading disabled, a stock plugin)
 * would pass its own checks, so this checks the device table: as many devices as the job's
 * layout gives, each running on its documented rank. */
static inline void check_device_table(void) {
#ifndef FERRY_TEST_GPU_IMAGE /* their jobs may have GPUs, whose device code has no getenv */
  int want = expected_devices();
  if (want < 0) return;
  int n = omp_get_num_devices();
  CHECK(n == want && n > 0, "%d device(s), expected %d from the MPI launcher's job size, FERRY_RANK0_DEVICES and "
        "FERRY_DEVICES_PER_RANK (is Ferry's plugin loaded, and was the program started by mpiexec?)", n, want);
  for (int d = 0; d < rank_devices() && n == want; ++d) check_region_rank(d);  /* a daemon's have no rank */
  if (n == want && env_int("OFFLOAD_TEST_DAEMONS", 0)) check_device_machines(n);
#endif
}

/* Every program that runs to its end ends here, with the device table checked. */
static inline int finish(const char* name) {
  check_device_table();
  if (failures) {
    fprintf(stderr, "%s: %d check(s) FAILED\n", name, failures);
    return 1;
  }
  printf("%s: all checks passed on %d device(s)\n", name, omp_get_num_devices());
  return 0;
}

#endif
