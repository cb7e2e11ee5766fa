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
/* The MPI rank of the process running this code (Open MPI or MPICH launchers). */
static int current_rank(void) {
  const char* v = getenv("OMPI_COMM_WORLD_RANK");
  if (!v) v = getenv("PMI_RANK");
  return v ? atoi(v) : -1;
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

static inline int finish(const char* name) {
  if (failures) {
    fprintf(stderr, "%s: %d check(s) FAILED\n", name, failures);
    return 1;
  }
  printf("%s: all checks passed on %d device(s)\n", name, omp_get_num_devices());
  return 0;
}

#endif
