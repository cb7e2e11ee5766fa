#include "coll/copy_probe.h"

#include <cstdio>
#include <cstring>

#include "comm/cma.h"
#include "comm/mpi_check.h"
#include "platform/copy.h"
#include "platform/log.h"

namespace ferry::coll {
namespace {

constexpr int kTries = 10;  // best of: a rank sharing its core may lose runs to a peer
constexpr size_t kMallocOffset = 16;

}  // namespace

CopySpeeds timeCopies(const uint8_t* mine, pid_t peerPid, uint64_t peerAddr) {
  PageBytes dst = allocatePages(kCopyProbeBytes);
  std::memset(dst.get(), 0, kCopyProbeBytes);  // fault the pages in before timing
  CopySpeeds s;
  s.copyGBs = bestCopyGBs(kCopyProbeBytes, kTries, [&] {
    copyBytes(dst.get(), mine + kMallocOffset, kCopyProbeBytes);
    return true;
  });
  Status failed;
  s.cmaGBs = bestCopyGBs(kCopyProbeBytes, kTries, [&] {
    failed = comm::cmaRead(peerPid, peerAddr, dst.get(), kCopyProbeBytes);
    return failed.isOk();
  });
  if (!failed)
    log::warn(log::Coll,
              "timing process_vm_readv from pid %d (a rank of this node) failed (%s); it counts as speed 0 in the "
              "node's average, which favours copy-in (FERRY_COLL_INTRA=single or copy-in forces a path)",
              static_cast<int>(peerPid), failed.message().c_str());
  return s;
}

Result<CopySpeeds> nodeAverage(MPI_Comm nodeComm, const CopySpeeds& mine) {
  double in[2] = {mine.copyGBs, mine.cmaGBs}, sum[2] = {};
  if (Status st =
          comm::mpiStatus(PMPI_Allreduce(in, sum, 2, MPI_DOUBLE, MPI_SUM, nodeComm), "PMPI_Allreduce(copy speeds)");
      !st)
    return st;
  int size = 1;
  MPI_Comm_size(nodeComm, &size);
  return CopySpeeds{sum[0] / size, sum[1] / size};
}

bool copyInCheaper(const CopySpeeds& s, int localSize) {
  if (localSize < 2) return false;
  return s.copyGBs * (localSize - 1) > kCopyInMargin * s.cmaGBs * localSize;
}

std::string describeSpeeds(const CopySpeeds& s) {
  char text[96];
  std::snprintf(text, sizeof text, "copy %.1f GB/s, process_vm_readv %.1f GB/s", s.copyGBs, s.cmaGBs);
  return text;
}

}  // namespace ferry::coll
