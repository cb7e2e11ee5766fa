// The C API (include/ferry/ferry_coll.h): each entry point converts Ferry's errors into an
// MPI error code plus one log line, here and nowhere else.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "coll/allreduce.h"
#include "coll/comm_context.h"
#include "coll/shared_heap.h"
#include "coll/stats.h"
#include "ferry/ferry_coll.h"
#include "platform/log.h"

using namespace ferry;

extern "C" {

int ferry_allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return coll::allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

int ferry_coll_alloc(size_t bytes, void** ptr) {
  if (!ptr) {
    log::error(log::Coll, "ferry_coll_alloc: ptr is NULL");
    return MPI_ERR_ARG;
  }
  (void)coll::ensureStarted();
  auto p = coll::SharedHeap::instance().allocate(bytes);
  if (!p) {
    log::error(log::Coll, "ferry_coll_alloc: %s", p.status().message().c_str());
    return MPI_ERR_NO_MEM;
  }
  *ptr = *p;
  return MPI_SUCCESS;
}

int ferry_coll_free(void* ptr) {
  if (!ptr) return MPI_SUCCESS;
  if (coll::SharedHeap::instance().release(ptr)) return MPI_SUCCESS;
  log::error(log::Coll, "ferry_coll_free: %p did not come from ferry_coll_alloc", ptr);
  return MPI_ERR_ARG;
}

int ferry_coll_get_stats(ferry_coll_stats* out, size_t size) {
  if (!out) return MPI_ERR_ARG;
  coll::StatsSnapshot s = coll::stats().snapshot();
  ferry_coll_stats full{s.ferryCalls,  s.libraryCalls, s.bytesCma,  s.bytesMapped,      s.bytesStaged, s.interChunks,
                        s.regHits,     s.regMisses,    s.regInvalidations, s.regEvictions, s.setups};
  std::memcpy(out, &full, std::min(size, sizeof full));
  return MPI_SUCCESS;
}

int ferry_coll_describe(MPI_Comm comm, char* text, size_t size) {
  if (!text || size == 0) return MPI_ERR_ARG;
  coll::CommContext* ctx = comm == MPI_COMM_NULL ? nullptr : coll::existingContext(comm);
  std::string line = ctx ? ctx->describe() : "not set up: no allreduce on this communicator has needed Ferry yet";
  std::snprintf(text, size, "%s", line.c_str());
  return MPI_SUCCESS;
}

}  // extern "C"
