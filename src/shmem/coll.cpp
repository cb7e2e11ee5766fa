// Collectives on teams: each is the MPI library's collective on the team's communicator,
// which knows the node layout and the fabric better than a put-based algorithm would.
#include <atomic>
#include <climits>
#include <cstring>
#include <vector>

#include "comm/mpi_check.h"
#include "platform/log.h"
#include "shmem/api.h"
#include "shmem/team.h"

namespace ferry::shmem {
namespace {

// MPI counts are int: larger collectives go in pieces of this many bytes (or elements).
constexpr size_t kMaxCount = size_t{1} << 30;
constexpr size_t kOverlapBytes = 16 << 10;

int check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) [[likely]]
    return 0;
  log::error(log::Shmem, "%s", comm::mpiStatus(rc, what).message().c_str());
  return -1;
}

MPI_Datatype mpiType(ElemType t) {
  switch (t.kind) {
    case ElemKind::Signed:
      return t.size == 1 ? MPI_INT8_T : t.size == 2 ? MPI_INT16_T : t.size == 4 ? MPI_INT32_T : MPI_INT64_T;
    case ElemKind::Unsigned:
      return t.size == 1 ? MPI_UINT8_T : t.size == 2 ? MPI_UINT16_T : t.size == 4 ? MPI_UINT32_T : MPI_UINT64_T;
    case ElemKind::Float: return t.size == 4 ? MPI_FLOAT : t.size == 8 ? MPI_DOUBLE : MPI_LONG_DOUBLE;
    case ElemKind::Complex: return t.size == 8 ? MPI_C_FLOAT_COMPLEX : MPI_C_DOUBLE_COMPLEX;
  }
  return MPI_DATATYPE_NULL;
}

MPI_Op mpiOp(RedOp op) {
  switch (op) {
    case RedOp::And: return MPI_BAND;
    case RedOp::Or: return MPI_BOR;
    case RedOp::Xor: return MPI_BXOR;
    case RedOp::Max: return MPI_MAX;
    case RedOp::Min: return MPI_MIN;
    case RedOp::Sum: return MPI_SUM;
    case RedOp::Prod: return MPI_PROD;
  }
  return MPI_OP_NULL;
}

int intCount(size_t n, const char* call) {
  if (n <= INT_MAX) return static_cast<int>(n);
  log::error(log::Shmem, "%s: %zu bytes per PE is more than this collective can move (2 GiB)", call, n);
  return -1;
}

}  // namespace

int barrierAll() {
  Runtime& r = rt("shmem_barrier_all");
  quietAll();
  return check(MPI_Barrier(r.teamWorld->comm), "MPI_Barrier (shmem_barrier_all)");
}

int syncAll() { return teamSync(rt("shmem_sync_all").teamWorld); }

int teamSync(Team* team) {
  rt("shmem_team_sync");
  if (!team) return -1;
  std::atomic_thread_fence(std::memory_order_seq_cst);  // this PE's stores before the others go on
  return check(MPI_Barrier(team->comm), "MPI_Barrier (shmem_team_sync)");
}

int broadcast(Team* team, void* dest, const void* source, size_t bytes, int root, bool toRoot) {
  const char* call = "shmem_broadcast";
  rt(call);
  if (!team) return -1;
  checkPe(call, root, team->nPes, team->name);
  bool isRoot = team->myPe == root;
  auto* buf = static_cast<uint8_t*>(isRoot ? const_cast<void*>(source) : dest);
  // The root's own copy (the 1.5 team form updates its dest too) runs while the others
  // receive: a single-copy transport reads the source meanwhile.
  // Below kOverlapBytes the copy is shorter than what a non-blocking call costs. The choice
  // depends on the size alone: every PE must call the same collective (Bcast or Ibcast).
  bool copy = isRoot && toRoot && dest != source;
  if (bytes < kOverlapBytes) {
    if (copy) std::memmove(dest, source, bytes);
    return check(MPI_Bcast(buf, static_cast<int>(bytes), MPI_BYTE, root, team->comm), "MPI_Bcast (shmem_broadcast)");
  }
  for (size_t at = 0; at < bytes; at += kMaxCount) {
    int n = static_cast<int>(std::min(kMaxCount, bytes - at));
    MPI_Request req;
    if (check(MPI_Ibcast(buf + at, n, MPI_BYTE, root, team->comm, &req), "MPI_Ibcast (shmem_broadcast)")) return -1;
    if (copy) std::memmove(static_cast<uint8_t*>(dest) + at, buf + at, static_cast<size_t>(n));
    if (check(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait (shmem_broadcast)")) return -1;
  }
  return 0;
}

int fcollect(Team* team, void* dest, const void* source, size_t bytes) {
  const char* call = "shmem_fcollect";
  rt(call);
  if (!team) return -1;
  int n = intCount(bytes, call);
  if (n < 0) return -1;
  return check(MPI_Allgather(source, n, MPI_BYTE, dest, n, MPI_BYTE, team->comm), "MPI_Allgather (shmem_fcollect)");
}

int collect(Team* team, void* dest, const void* source, size_t bytes) {
  const char* call = "shmem_collect";
  rt(call);
  if (!team) return -1;
  uint64_t mine = bytes;
  std::vector<uint64_t> all(static_cast<size_t>(team->nPes));
  if (check(MPI_Allgather(&mine, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, team->comm), "MPI_Allgather")) return -1;
  std::vector<int> counts(all.size()), displs(all.size());
  uint64_t at = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    if (at > INT_MAX || all[i] > INT_MAX) return intCount(at + all[i], call);
    counts[i] = static_cast<int>(all[i]);
    displs[i] = static_cast<int>(at);
    at += all[i];
  }
  return check(MPI_Allgatherv(source, counts[static_cast<size_t>(team->myPe)], MPI_BYTE, dest, counts.data(),
                              displs.data(), MPI_BYTE, team->comm),
               "MPI_Allgatherv (shmem_collect)");
}

int alltoall(Team* team, void* dest, const void* source, size_t bytesPerPe) {
  const char* call = "shmem_alltoall";
  rt(call);
  if (!team) return -1;
  int n = intCount(bytesPerPe, call);
  if (n < 0) return -1;
  return check(MPI_Alltoall(source, n, MPI_BYTE, dest, n, MPI_BYTE, team->comm), "MPI_Alltoall (shmem_alltoall)");
}

// Block j of the source (nelems elements, stride sst) goes to PE j, where it lands as block
// `me` of its dest (stride dst): packed, exchanged, unpacked.
int alltoalls(Team* team, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t size) {
  const char* call = "shmem_alltoalls";
  rt(call);
  if (!team) return -1;
  if (dst < 1 || sst < 1) misuse(call, "strides must be positive");
  size_t blocks = static_cast<size_t>(team->nPes), total = blocks * nelems;
  std::vector<uint8_t> out(total * size), in(total * size);
  const auto* src = static_cast<const uint8_t*>(source);
  for (size_t e = 0; e < total; ++e) std::memcpy(&out[e * size], src + e * static_cast<size_t>(sst) * size, size);
  if (alltoall(team, in.data(), out.data(), nelems * size)) return -1;
  auto* d = static_cast<uint8_t*>(dest);
  for (size_t e = 0; e < total; ++e) std::memcpy(d + e * static_cast<size_t>(dst) * size, &in[e * size], size);
  return 0;
}

int reduce(Team* team, RedOp op, ElemType type, void* dest, const void* source, size_t nreduce) {
  rt("shmem_reduce");
  if (!team) return -1;
  MPI_Datatype t = mpiType(type);
  for (size_t at = 0; at < nreduce; at += kMaxCount) {
    int n = static_cast<int>(std::min(kMaxCount, nreduce - at));
    auto* out = static_cast<uint8_t*>(dest) + at * type.size;
    const auto* in = static_cast<const uint8_t*>(source) + at * type.size;
    const void* send = in == out ? MPI_IN_PLACE : in;
    if (check(MPI_Allreduce(send, out, n, t, mpiOp(op), team->comm), "MPI_Allreduce (shmem reduction)")) return -1;
  }
  return 0;
}

}  // namespace ferry::shmem
