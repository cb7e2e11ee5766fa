/* Ferry offload: optional queries for programs that run on Ferry's OpenMP offload plugin.
 *
 * The plugin is loaded by libomptarget at run time, so these functions are looked up with
 * dlsym and need no link-time dependency: a program built with this header runs unchanged
 * with or without Ferry (the queries then report FERRY_OFFLOAD_UNAVAILABLE).
 *
 * Link with -ldl on old glibc versions. */
#ifndef FERRY_OFFLOAD_H
#define FERRY_OFFLOAD_H

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FERRY_OFFLOAD_OK 0
#define FERRY_OFFLOAD_UNAVAILABLE (-1) /* the Ferry plugin is not loaded in this process */
#define FERRY_OFFLOAD_BAD_DEVICE (-2)
#define FERRY_OFFLOAD_FAILED (-3)     /* the request failed; the log says why */

/* Traffic counters of rank 0 (the process that runs main). */
typedef struct ferry_offload_counters {
  uint64_t host_to_device_bytes;   /* bytes rank 0 sent to devices */
  uint64_t device_to_host_bytes;   /* bytes rank 0 received from devices */
  uint64_t device_to_device_bytes; /* bytes moved between devices by the serving ranks: none of
                                      them pass through rank 0 */
  uint64_t control_messages;       /* commands rank 0 sent */
  uint64_t kernels_launched;
  /* Appended (callers pass sizeof their struct; older callers get the fields above). */
  uint64_t network_bytes;          /* bytes that crossed between nodes (any of the above) */
  uint64_t node_copy_bytes;        /* host-to-device bytes that, instead of crossing the network
                                      again, were copied from another device of the same node
                                      (FERRY_NODE_SHARE): counted in device_to_device_bytes */
} ferry_offload_counters;

/* Where a device of the job's table lives. */
typedef struct ferry_offload_device {
  int rank;          /* MPI rank that serves it */
  int local_index;   /* its index on that rank */
  int node;          /* node (virtual node under FERRY_VIRTUAL_NODES) */
  int is_gpu;
  uint64_t memory_bytes;
  char host[64];
} ferry_offload_device;

/* A raw MPI measurement between two ranks of the job, on Ferry's own communicator: the
 * transport's limit, for benchmark baselines measured in the same run. rank_a times the
 * loop; 0 is the calling rank. The devices of both ranks should be idle meanwhile. */
typedef struct ferry_offload_baseline {
  int rank_a, rank_b;
  int kind;          /* 0: ping-pong (one round trip per iteration); 1: bandwidth (OSU window) */
  uint64_t bytes;    /* message size */
  uint32_t warmup, iters;
  uint32_t window;   /* bandwidth: messages in flight per iteration (OSU uses 64) */
} ferry_offload_baseline;

/* The entry points the plugin exports; `size` lets later versions grow the structs. */
typedef int (*ferry_offload_counters_fn)(ferry_offload_counters* out, size_t size);
typedef int (*ferry_offload_device_fn)(int device, ferry_offload_device* out, size_t size);

typedef int (*ferry_offload_baseline_fn)(const ferry_offload_baseline* spec, size_t size, double* seconds);

/* The plugin's entry point `name` into the function pointer at `fn` (NULL if absent).
 * POSIX makes dlsym's object pointer a valid function pointer; copying its bits rather
 * than casting keeps ISO C's -pedantic quiet in the programs that include this header. */
static inline void ferry_offload_lookup_(const char* name, void* fn, size_t size) {
  void* sym = dlsym(RTLD_DEFAULT, name);
  memcpy(fn, &sym, size);
}

/* Seconds of rank_a's `iters` timed iterations. */
static inline int ferry_offload_mpi_baseline(const ferry_offload_baseline* spec, double* seconds) {
  ferry_offload_baseline_fn fn;
  ferry_offload_lookup_("ferry_offload_mpi_baseline_v1", &fn, sizeof fn);
  if (!fn) return FERRY_OFFLOAD_UNAVAILABLE;
  return fn(spec, sizeof *spec, seconds);
}

static inline int ferry_offload_get_counters(ferry_offload_counters* out) {
  ferry_offload_counters_fn fn;
  ferry_offload_lookup_("ferry_offload_counters_v1", &fn, sizeof fn);
  if (!fn) return FERRY_OFFLOAD_UNAVAILABLE;
  return fn(out, sizeof *out);
}

static inline int ferry_offload_get_device(int device, ferry_offload_device* out) {
  ferry_offload_device_fn fn;
  ferry_offload_lookup_("ferry_offload_device_v1", &fn, sizeof fn);
  if (!fn) return FERRY_OFFLOAD_UNAVAILABLE;
  return fn(device, out, sizeof *out);
}

#ifdef __cplusplus
}
#endif

#endif /* FERRY_OFFLOAD_H */
