/* Ferry collectives: a hierarchical, pipelined MPI_Allreduce for medium and large messages.
 *
 * Link with -lferry-coll (or preload libferry-pmpi.so, which also exports these functions
 * and routes MPI_Allreduce itself through Ferry). Settings are FERRY_COLL* environment
 * variables (`ferry info --config`); the design is in docs/collectives.md.
 *
 * Every function returns an MPI error code: MPI_SUCCESS, or an error class that
 * MPI_Error_string describes. Failures also go through the communicator's error handler,
 * as MPI calls do, and leave one log line with the rank, host and reason. */
#ifndef FERRY_COLL_H
#define FERRY_COLL_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define FERRY_COLL_API __attribute__((visibility("default")))
#else
#define FERRY_COLL_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define FERRY_COLL_VERSION_MAJOR 0
#define FERRY_COLL_VERSION_MINOR 1

/* ---- ferry_allreduce ---------------------------------------------------------------
 * Exactly MPI_Allreduce: same arguments, same results, MPI_IN_PLACE allowed. Calls that the
 * cost model gives to Ferry run its algorithm; all others (small messages, derived
 * datatypes, user-defined ops, inter-communicators, ...) run the MPI library's
 * PMPI_Allreduce. Every rank of `comm` must call it where it would call MPI_Allreduce, with
 * the same FERRY_COLL* settings. The first large call on a communicator sets it up
 * (collectively); MPI_Comm_free releases that. */
FERRY_COLL_API int ferry_allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                   MPI_Comm comm);

/* ---- ferry_coll_alloc / ferry_coll_free ----------------------------------------------
 * Memory that same-node peers can map. An allreduce whose buffers lie in it moves data
 * with one copy and no system call (otherwise: one copy through process_vm_readv where the
 * kernel allows it, two through a shared segment where not). Under the interposer,
 * MPI_Alloc_mem returns such memory for requests of at least 64 KiB unless
 * FERRY_COLL_ALLOC_MEM=0 or FERRY_COLL=off. ferry_coll_alloc returns MPI_ERR_NO_MEM, and
 * logs why, for a size larger than the machine's memory and swap or once the process holds
 * as many blocks as its descriptor limit allows; ferry_coll_free accepts only pointers from
 * ferry_coll_alloc. */
FERRY_COLL_API int ferry_coll_alloc(size_t bytes, void** ptr);
FERRY_COLL_API int ferry_coll_free(void* ptr);

/* ---- ferry_coll_get_stats --------------------------------------------------------------
 * Counters of this process since it started, which prove the data path a program took.
 * Pass sizeof(ferry_coll_stats): fields added later are left alone by older callers. */
typedef struct ferry_coll_stats {
  uint64_t ferry_calls;           /* allreduce calls Ferry's algorithm ran */
  uint64_t library_calls;         /* allreduce calls handed to the MPI library */
  uint64_t bytes_cma;             /* bytes moved with process_vm_readv/writev */
  uint64_t bytes_mapped;          /* bytes read or written in peers' mapped memory */
  uint64_t bytes_staged;          /* bytes copied through the staging segment */
  uint64_t inter_node_chunks;     /* chunks the leaders reduced across nodes */
  uint64_t reg_cache_hits;        /* a peer's buffer was mapped already */
  uint64_t reg_cache_misses;      /* a peer's buffer was mapped now */
  uint64_t reg_cache_invalidations; /* a cached mapping was stale (memory freed and reused) */
  uint64_t reg_cache_evictions;   /* mappings dropped to stay under FERRY_COLL_REG_CACHE */
  uint64_t setups;                /* communicators set up */
} ferry_coll_stats;

FERRY_COLL_API int ferry_coll_get_stats(ferry_coll_stats* stats, size_t size);

/* ---- ferry_coll_describe ---------------------------------------------------------------
 * One line on how Ferry runs allreduce on `comm`: nodes, ranks per node, the same-node data
 * path and why, the inter-node stage; or why it does not. Local (not collective).
 * Truncated to `size` bytes, always NUL-terminated. */
FERRY_COLL_API int ferry_coll_describe(MPI_Comm comm, char* text, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* FERRY_COLL_H */
