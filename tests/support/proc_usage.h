/* What a process holds, for the soak tests (docs/robustness.md, "Soak"): memory in use
 * through malloc, resident memory, open file descriptors, and /dev/shm entries whose names
 * carry its pid (Ferry's segments "/ferry-<purpose>-<pid>-<n>", libomp's
 * "__KMP_REGISTERED_LIB_<pid>_<uid>", the MPI libraries' own). Counting only this process's
 * entries keeps other jobs on the machine out of the figure. Plain C and static inline, so
 * that an OpenMP target region can call it on the serving rank that runs it.
 *
 * The bounds a soak holds a process to, between its measure halfway and at the end (a pool
 * or cache that grows once after the warm-up has mostly done so by then; a leak grows in
 * both halves):
 * - malloc'd memory in use: 1 MiB. The MPI libraries keep their object pools at their
 *   high-water mark, and load decides when that rises: MPICH grows its request pool by
 *   272 KiB blocks (calloc inside MPI_Irecv, seen once per 10^5-region soak, in either half),
 *   Open MPI its free lists alike. A leak of 20 bytes per call over the half's 5 x 10^4
 *   calls exceeds it. (GLIBC_TUNABLES=glibc.malloc.tcache_count=0 in the soak tests keeps
 *   glibc's per-thread caches, up to ~200 KiB a thread, out of the figure.)
 * - resident memory (outside a device's heap, which FERRY_DEVICE_RETAIN governs): 4 MiB.
 *   The heap's high-water mark may rise once by a few MiB through fragmentation (measured:
 *   2.6 MiB on one rank of an allreduce soak, the same after 3 x 10^4 and 2 x 10^5 calls);
 *   growth that goes on, from whatever source, exceeds it.
 * - descriptors and /dev/shm entries: none, over the whole run. */
#ifndef FERRY_TEST_PROC_USAGE_H
#define FERRY_TEST_PROC_USAGE_H

#include <dirent.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct proc_usage {
  long rss_kib;
  long malloc_kib;  /* in use through malloc (glibc's mallinfo2): a leak grows this */
  long mapping_kib; /* resident in one mapping (a device's heap), part of rss_kib */
  int fds;
  int shm_entries;
  int pid;
};

static inline long proc_usage_rss_kib(void) {
  FILE* f = fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  long kib = -1;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "VmRSS:", 6) == 0) kib = atol(line + 6);
  fclose(f);
  return kib;
}

/* Whether `name` contains the number `pid` on its own (not inside a longer number). */
static inline int proc_usage_names_pid(const char* name, const char* pid) {
  size_t len = strlen(pid);
  for (const char* at = strstr(name, pid); at; at = strstr(at + 1, pid)) {
    int digit_before = at > name && at[-1] >= '0' && at[-1] <= '9';
    int digit_after = at[len] >= '0' && at[len] <= '9';
    if (!digit_before && !digit_after) return 1;
  }
  return 0;
}

/* Entries of `dir` that name the number `needle` (all when it is NULL), "." and ".." aside.
 * The directory's own descriptor, open while it counts, is left out. */
static inline int proc_usage_count(const char* dir, const char* needle, int own_fd_dir) {
  DIR* d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  struct dirent* e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    if (needle && !proc_usage_names_pid(e->d_name, needle)) continue;
    if (own_fd_dir && atoi(e->d_name) == dirfd(d)) continue;
    ++n;
  }
  closedir(d);
  return n;
}

/* Resident KiB of the mapping that holds `addr` (/proc/self/smaps), 0 if none does. */
static inline long proc_usage_mapping_kib(const void* addr) {
  FILE* f = fopen("/proc/self/smaps", "r");
  if (!f) return -1;
  char line[512];
  unsigned long lo, hi, at = (unsigned long)addr;
  int inside = 0;
  long kib = 0;
  while (fgets(line, sizeof line, f)) {
    if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) inside = at >= lo && at < hi;  /* a mapping's first line */
    else if (inside && strncmp(line, "Rss:", 4) == 0) kib = atol(line + 4);
  }
  fclose(f);
  return kib;
}

/* `inside`: an address whose mapping is to be counted apart (NULL: none). */
static inline struct proc_usage proc_usage_now(const void* inside) {
  struct proc_usage u;
  char pid[32];
  u.pid = (int)getpid();
  snprintf(pid, sizeof pid, "%d", u.pid);
  u.rss_kib = proc_usage_rss_kib();
  struct mallinfo2 m = mallinfo2();
  u.malloc_kib = (long)((m.uordblks + m.hblkhd) / 1024);
  u.mapping_kib = inside ? proc_usage_mapping_kib(inside) : 0;
  u.fds = proc_usage_count("/proc/self/fd", NULL, 1);
  u.shm_entries = proc_usage_count("/dev/shm", pid, 0);
  return u;
}

enum { kSoakMallocKib = 1024, kSoakRssKib = 4096 };

/* Writes what grew beyond the bounds above into `why` (empty when nothing did); returns
 * whether anything did. */
static inline int proc_usage_grew(const struct proc_usage* b, const struct proc_usage* a, char* why, size_t len) {
  long malloc_kib = a->malloc_kib - b->malloc_kib;
  long rss_kib = (a->rss_kib - a->mapping_kib) - (b->rss_kib - b->mapping_kib);
  why[0] = '\0';
  if (b->rss_kib <= 0 || a->rss_kib <= 0) snprintf(why, len, "resident memory could not be read");
  else if (malloc_kib > kSoakMallocKib)
    snprintf(why, len, "malloc'd memory grew by %ld KiB (bound %d KiB)", malloc_kib, kSoakMallocKib);
  else if (rss_kib > kSoakRssKib) snprintf(why, len, "resident memory grew by %ld KiB (bound %d KiB)", rss_kib, kSoakRssKib);
  else if (a->fds > b->fds) snprintf(why, len, "%d more file descriptors", a->fds - b->fds);
  else if (a->shm_entries > b->shm_entries) snprintf(why, len, "%d more /dev/shm entries", a->shm_entries - b->shm_entries);
  return why[0] != '\0';
}

#endif
