/* A serving rank dies or stops. Usage: fail_kill inside|between|stop|crash|stop_partner|stop_idle
 *   inside:  the process serving device 0 kills itself during a region;
 *   crash:   a kernel on device 0 dereferences NULL (the serving rank says so as it dies);
 *   between: rank 0 kills it between two regions;
 *   stop:    rank 0 stops it (SIGSTOP): it is alive but unreachable, so only Ferry's
 *            liveness timeout can notice;
 *   stop_partner: rank 0 stops the process serving device 1, then copies device 0 to
 *            device 1: device 0's rank, which rank 0 waits on, is fine, and waits for it;
 *   stop_idle: rank 0 stops the last serving rank, which it never used (found in /proc as
 *            its sibling: same launcher, same program): the program ends normally and
 *            MPI_Finalize waits for the stopped rank;
 *   stop_main: rank 0 stops itself after a region: the serving ranks wait for commands
 *            from a rank that neither answers nor dies.
 * In every case the job must end with an error, never hang. */
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <unistd.h>

#include "check.h"

#pragma omp declare target
static int die_now(void) {
  kill(getpid(), SIGKILL);
  return 0;
}
static int crash_now(void) {
  /* An unmapped address the compiler cannot see through (a literal NULL would be UB that
   * it may fold away). */
  volatile int* nowhere = (volatile int*)(uintptr_t)(8 + (getpid() & 0xff));
  return *nowhere;
}
#pragma omp end declare target

/* The value of `name` in process `pid`'s environment, or "". */
static void env_of(int pid, const char* name, char* out, size_t len) {
  char path[64], buf[65536];
  snprintf(path, sizeof path, "/proc/%d/environ", pid);
  out[0] = 0;
  FILE* f = fopen(path, "r");
  if (!f) return;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  size_t k = strlen(name);
  for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
    if (strncmp(buf + i, name, k) == 0 && buf[i + k] == '=') {
      snprintf(out, len, "%s", buf + i + k + 1);
      return;
    }
}

static int parent_of(int pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/stat", pid);
  FILE* f = fopen(path, "r");
  int ppid = -1;
  if (f) {
    if (fscanf(f, "%*d (%*[^)]) %*c %d", &ppid) != 1) ppid = -1;
    fclose(f);
  }
  return ppid;
}

/* The process of world rank `rank` of this job on this node: a child of our launcher. */
static int sibling_of_rank(int rank) {
  char want[16], got[16];
  snprintf(want, sizeof want, "%d", rank);
  int parent = getppid();
  DIR* d = opendir("/proc");
  int found = -1;
  for (struct dirent* e; d && (e = readdir(d)) && found < 0;) {
    int pid = atoi(e->d_name);
    if (pid <= 0 || pid == getpid() || parent_of(pid) != parent) continue;
    env_of(pid, "OMPI_COMM_WORLD_RANK", got, sizeof got);
    if (!got[0]) env_of(pid, "PMI_RANK", got, sizeof got);
    if (strcmp(got, want) == 0) found = pid;
  }
  if (d) closedir(d);
  return found;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "inside";
  int pid = -1, x = 0;
#pragma omp target device(0) map(from : pid)
  pid = getpid();
  printf("device 0 is served by pid %d\n", pid);
  fflush(stdout);
  if (strcmp(mode, "stop_main") == 0) {
    printf("stop_main: rank 0 stops itself\n");
    fflush(stdout);
    raise(SIGSTOP);
    printf("unreachable: rank 0 was resumed\n");
    return 0;
  }
  if (strcmp(mode, "stop_idle") == 0) {
    int last = sibling_of_rank(omp_get_num_devices());  /* one device per serving rank */
    CHECK(last > 0, "no process of rank %d next to this one", omp_get_num_devices());
    kill(last, SIGSTOP);
#pragma omp target device(0) map(tofrom : x)
    x = 2;
    printf("stop_idle: rank %d (pid %d) is stopped, device 0 still works (x=%d); ending\n", omp_get_num_devices(),
           last, x);
    return 0;
  }
  if (strcmp(mode, "stop_partner") == 0) {
    int other = -1;
#pragma omp target device(1) map(from : other)
    other = getpid();
    kill(other, SIGSTOP);
    printf("device 1's process %d is stopped\n", other);
    fflush(stdout);
    size_t n = 8u << 20;
    void *a = omp_target_alloc(n, 0), *b = omp_target_alloc(n, 1);
    int rc = omp_target_memcpy(b, a, n, 0, 0, 1, 0);
    printf("stop_partner: the copy returned %d\n", rc);
    return rc == 0 ? 0 : 3;
  }
  if (strcmp(mode, "inside") == 0) {
#pragma omp target device(0) map(tofrom : x)
    x = die_now();
  } else if (strcmp(mode, "crash") == 0) {
#pragma omp target device(0) map(tofrom : x)
    x = crash_now();
  } else {
    kill(pid, strcmp(mode, "stop") == 0 ? SIGSTOP : SIGKILL);
    usleep(200000);
#pragma omp target device(0) map(tofrom : x)
    x = 1;
  }
  printf("unreachable: the region after the fault completed (x=%d)\n", x);
  return 0;
}
