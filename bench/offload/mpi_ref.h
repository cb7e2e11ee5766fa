/* The transport's limit, measured in the same run between the same ranks: raw MPI
 * ping-pong and OSU windowed bandwidth on Ferry's own communicator
 * (ferry_offload_mpi_baseline). Ferry mode only; the devices involved are drained first,
 * because a baseline must not share the ranks with Ferry's own work. */
#ifndef FERRY_OFFLOAD_BENCH_MPI_REF_H
#define FERRY_OFFLOAD_BENCH_MPI_REF_H

#include "bench.h"

/* Microseconds per round trip of `bytes` each way between ranks a and b; < 0 on failure. */
double mpi_round_trip_us(const bench_ctx* ctx, int rank_a, int rank_b, size_t bytes, unsigned long* iters);
/* OSU bandwidth from a to b in MB/s (10^6 bytes), window 64; < 0 on failure. *msgs gets the
 * number of timed messages and *msg_rate (if not NULL) messages per second. */
double mpi_bandwidth_mbs(const bench_ctx* ctx, int rank_a, int rank_b, size_t bytes, unsigned long* msgs,
                         double* msg_rate);
/* Returns once every operation sent to `device` has finished. */
void drain_device(int device);

#endif
