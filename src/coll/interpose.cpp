// The PMPI interposer (libferry-pmpi.so): preloaded (`ferry run --pmpi`, LD_PRELOAD) or
// linked before the MPI library, it replaces these MPI entry points and nothing else, so
// every other call still goes straight to the MPI library:
//   MPI_Init/Init_thread     the library's, then one check that every process runs the
//                            same build and settings of Ferry (job_check.h)
//   MPI_Allreduce            Ferry's allreduce where it is faster, the library's otherwise
//   MPI_Allreduce_c          the same for counts that fit an int (MPI-4 libraries only)
//   MPI_Alloc_mem/Free_mem   memory peers can map (FERRY_COLL_ALLOC_MEM), so that allreduce
//                            on it needs no system call; other requests go to the library
// Fortran programs: MPICH's bindings call these entry points; Open MPI's call PMPI_
// directly, so interpose_fortran.cpp replaces those bindings too.
// What Ferry hands on goes to the next definition of the same function (next_layer.h): a
// PMPI tool preloaded after the interposer sees it, as it would without Ferry.
#include "coll/interpose.h"

#include <atomic>
#include <climits>

#include "coll/allreduce.h"
#include "coll/job_check.h"
#include "coll/next_layer.h"
#include "coll/settings.h"
#include "coll/shared_heap.h"
#include "ferry/ferry_coll.h"
#include "platform/log.h"
#include "platform/parse.h"

namespace ferry::coll {

namespace {

int afterInit(int rc) {
  if (rc != MPI_SUCCESS) return rc;
  // Log lines (and a FERRY_LOG_FILE naming %r) carry the MPI rank, also under a launcher
  // whose rank variable the logger does not know.
  int rank = -1;
  if (PMPI_Comm_rank(MPI_COMM_WORLD, &rank) == MPI_SUCCESS) log::setRank(rank);
  agreeAcrossJob();
  // After the check, which starts the platform: logging is off before it.
  log::debug(log::Coll, "calls that Ferry does not run itself go to MPI_Allreduce etc. of %s",
             nextLayerFile().c_str());
  return rc;
}

}  // namespace

int init(int* argc, char*** argv) {
  chainToNextLayer();
  return afterInit(nextLayer().init(argc, argv));
}

int initThread(int* argc, char*** argv, int required, int* provided) {
  chainToNextLayer();
  return afterInit(nextLayer().initThread(argc, argv, required, provided));
}

int allocMem(MPI_Aint size, MPI_Info info, void* baseptr) {
  // Small requests stay with the library: each shared block costs a file descriptor, and a
  // program may allocate many small ones (RMA windows, message buffers).
  // FERRY_COLL=off hands these to the library too: it means "Ferry takes no call".
  if (!ensureStarted() || settings().mode == Mode::Off || !settings().allocMem || size < 0 ||
      static_cast<uint64_t>(size) < kAllocMemMinSize)
    return nextLayer().allocMem(size, info, baseptr);
  auto p = SharedHeap::instance().allocate(static_cast<size_t>(size));
  if (!p) {
    // The block limit once: a program that allocates in a loop would repeat it for every
    // block. A request larger than the machine, each time: it is the program's mistake.
    static std::atomic<bool> warned{false};
    bool again = static_cast<uint64_t>(size) <= maxHeapBlockBytes() && warned.exchange(true);
    log::write(again ? log::Level::Debug : log::Level::Warn, log::Coll,
               "MPI_Alloc_mem: %s; the MPI library serves this request instead, and further ones that Ferry cannot "
               "(FERRY_COLL_ALLOC_MEM=0 makes it serve every request)",
               p.status().message().c_str());
    return nextLayer().allocMem(size, info, baseptr);
  }
  log::debug(log::Coll, "MPI_Alloc_mem of %s: a shared block that same-node peers can map (FERRY_COLL_ALLOC_MEM)",
             parse::formatSize(static_cast<uint64_t>(size)).c_str());
  *static_cast<void**>(baseptr) = *p;
  return MPI_SUCCESS;
}

int freeMem(void* base) {
  if (SharedHeap::instance().release(base)) return MPI_SUCCESS;
  return nextLayer().freeMem(base);
}

}  // namespace ferry::coll

using namespace ferry;

// At load, before main and so before any MPI call: the entry points below hand on to what
// comes after this library.
__attribute__((constructor)) static void chainAtLoad() { coll::chainToNextLayer(); }

extern "C" {

FERRY_COLL_API int MPI_Init(int* argc, char*** argv) { return coll::init(argc, argv); }

FERRY_COLL_API int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  return coll::initThread(argc, argv, required, provided);
}

FERRY_COLL_API int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                 MPI_Comm comm) {
  return coll::allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

#if MPI_VERSION >= 4
// MPI-4's large-count binding (MPICH 4; Open MPI 4.1 has none). A count that fits an int,
// the usual case for programs that call the _c functions throughout, takes MPI_Allreduce's
// path; a larger one goes to the library.
FERRY_COLL_API int MPI_Allreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                                   MPI_Op op, MPI_Comm comm) {
  if (count < 0 || count > INT_MAX) return coll::nextLayer().allreduceC(sendbuf, recvbuf, count, datatype, op, comm);
  return coll::allreduceLargeCount(sendbuf, recvbuf, static_cast<int>(count), datatype, op, comm);
}
#endif

FERRY_COLL_API int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr) {
  return coll::allocMem(size, info, baseptr);
}

FERRY_COLL_API int MPI_Free_mem(void* base) { return coll::freeMem(base); }

}  // extern "C"
