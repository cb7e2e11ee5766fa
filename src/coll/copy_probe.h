// The set-up measurement behind the same-node path's "copy-in" choice (single_copy.cpp).
//
// On the single-copy path a peer's input that is not in the shared heap is read where it
// lies, with process_vm_readv; with copy-in its owner first copies it into its input slot
// in the node's segment, where every peer reads it by pointer. Copy-in costs each rank a
// copy of (k-1)/k of its chunk (all but its own share, which it reads in place); the reads
// cost it (k-1)/k of a chunk through the kernel. Which is cheaper depends on the machine:
// the kernel's copy ran at half of memcpy's speed on some (single copy wins), and at a
// quarter on others, where its 4 KiB-aliasing stall or page pinning dominates
// (docs/collectives.md, "Same-node data paths"). So each node measures both copies when a
// communicator is set up, and every rank of the node decides alike from the node's average.
#pragma once

#include <mpi.h>
#include <sys/types.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "platform/status.h"

namespace ferry::coll {

// What each rank copies per timing: a chunk's worth that stays in the core's cache, so that
// the figure is the copy's, not the memory's, on both sides of the comparison.
constexpr size_t kCopyProbeBytes = 256 * 1024;

// GB/s of the fastest of `tries` runs of `copy` (`bytes` each; it returns whether it
// worked), 0 if a run failed. The allreduce benchmark's copy-speed line times with it too.
template <typename Copy>
double bestCopyGBs(size_t bytes, int tries, Copy copy) {
  double best = 0;
  for (int i = 0; i < tries; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    if (!copy()) return 0;
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s > 0) best = std::max(best, static_cast<double>(bytes) / s * 1e-9);
  }
  return best;
}

struct CopySpeeds {
  double copyGBs = 0;  // copyBytes from a malloc-like offset into a page (copying in)
  double cmaGBs = 0;   // process_vm_readv from a peer, at its page offset (reading in place)
};

// Times both copies on this rank: copyBytes from `mine` + 16 (where malloc puts buffers)
// into a page, and process_vm_readv of kCopyProbeBytes at `peerAddr` in `peerPid` (best of a
// few runs each). `mine` holds kCopyProbeBytes + 4 KiB. A failed read is logged and counts
// as speed 0: the ranks must still meet in nodeAverage().
CopySpeeds timeCopies(const uint8_t* mine, pid_t peerPid, uint64_t peerAddr);

// Collective over `nodeComm`: the average of every rank's figures, the same on every rank.
Result<CopySpeeds> nodeAverage(MPI_Comm nodeComm, const CopySpeeds& mine);

// Whether copying inputs in costs clearly less than reading them in place on a node of
// `localSize` ranks: copyGBs (k-1) > kCopyInMargin * cmaGBs k. The margin keeps a machine
// whose kernel copies at half memcpy's speed (where 2 ranks measured faster reading in
// place) off the edge; the figures of one machine spread by about 10% between set-ups.
// The rule was measured when copy-in copied whole chunks, own share included; it costs
// (k-1)/k of that now, so the rule leans towards reading in place (not re-measured where
// the two are close: docs/collectives.md, "Copy-in, chosen from a measurement").
constexpr double kCopyInMargin = 1.1;
bool copyInCheaper(const CopySpeeds& s, int localSize);

// "copy 38.1 GB/s, process_vm_readv 9.2 GB/s": for the set-up's log line.
std::string describeSpeeds(const CopySpeeds& s);

}  // namespace ferry::coll
