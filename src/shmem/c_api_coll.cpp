// The C entry points of the team collectives. Every team routine answers SHMEM_TEAM_INVALID
// with a non-zero code and does nothing; counts become bytes here (the *mem forms count
// bytes already).
#include "shmem/c_api_types.h"

using core::RedOp;

namespace {

constexpr int kInvalidTeam = -1;

template <class Op>
int onTeam(shmem_team_t team, Op op) {
  core::Team* t = capi::toTeam(team);
  return t ? op(t) : kInvalidTeam;
}

int broadcastOn(shmem_team_t team, void* dest, const void* source, size_t bytes, int root) {
  return onTeam(team, [&](core::Team* t) { return core::broadcast(t, dest, source, bytes, root, true); });
}

int collectOn(shmem_team_t team, void* dest, const void* source, size_t bytes) {
  return onTeam(team, [&](core::Team* t) { return core::collect(t, dest, source, bytes); });
}

int fcollectOn(shmem_team_t team, void* dest, const void* source, size_t bytes) {
  return onTeam(team, [&](core::Team* t) { return core::fcollect(t, dest, source, bytes); });
}

int alltoallOn(shmem_team_t team, void* dest, const void* source, size_t bytesPerPe) {
  return onTeam(team, [&](core::Team* t) { return core::alltoall(t, dest, source, bytesPerPe); });
}

int alltoallsOn(shmem_team_t team, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                size_t elemSize) {
  return onTeam(team, [&](core::Team* t) { return core::alltoalls(t, dest, source, dst, sst, nelems, elemSize); });
}

template <class T>
int reduceOn(shmem_team_t team, RedOp op, T* dest, const T* source, size_t nreduce) {
  return onTeam(team, [&](core::Team* t) { return core::reduce(t, op, capi::elemType<T>(), dest, source, nreduce); });
}

}  // namespace

extern "C" {

// The standard's barrier_all and sync_all return nothing; the core reports a failure itself.
void shmem_barrier_all(void) { (void)core::barrierAll(); }

void shmem_sync_all(void) { (void)core::syncAll(); }

int shmem_team_sync(shmem_team_t team) { return onTeam(team, [](core::Team* t) { return core::teamSync(t); }); }

#define FERRY_CAPI_COLL(T, N)                                                                                          \
  int shmem_##N##_broadcast(shmem_team_t team, T* dest, const T* source, size_t nelems, int PE_root) {                 \
    return broadcastOn(team, dest, source, nelems * sizeof(T), PE_root);                                               \
  }                                                                                                                    \
  int shmem_##N##_collect(shmem_team_t team, T* dest, const T* source, size_t nelems) {                                \
    return collectOn(team, dest, source, nelems * sizeof(T));                                                          \
  }                                                                                                                    \
  int shmem_##N##_fcollect(shmem_team_t team, T* dest, const T* source, size_t nelems) {                               \
    return fcollectOn(team, dest, source, nelems * sizeof(T));                                                         \
  }                                                                                                                    \
  int shmem_##N##_alltoall(shmem_team_t team, T* dest, const T* source, size_t nelems) {                               \
    return alltoallOn(team, dest, source, nelems * sizeof(T));                                                         \
  }                                                                                                                    \
  int shmem_##N##_alltoalls(shmem_team_t team, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,                 \
                            size_t nelems) {                                                                           \
    return alltoallsOn(team, dest, source, dst, sst, nelems, sizeof(T));                                               \
  }
FERRY_SHMEM_TYPES_RMA(FERRY_CAPI_COLL)
#undef FERRY_CAPI_COLL

int shmem_broadcastmem(shmem_team_t team, void* dest, const void* source, size_t nelems, int PE_root) {
  return broadcastOn(team, dest, source, nelems, PE_root);
}

int shmem_collectmem(shmem_team_t team, void* dest, const void* source, size_t nelems) {
  return collectOn(team, dest, source, nelems);
}

int shmem_fcollectmem(shmem_team_t team, void* dest, const void* source, size_t nelems) {
  return fcollectOn(team, dest, source, nelems);
}

int shmem_alltoallmem(shmem_team_t team, void* dest, const void* source, size_t nelems) {
  return alltoallOn(team, dest, source, nelems);
}

int shmem_alltoallsmem(shmem_team_t team, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,
                       size_t nelems) {
  return alltoallsOn(team, dest, source, dst, sst, nelems, 1);
}

#define FERRY_CAPI_REDUCE(T, N, OP, NAME)                                                                              \
  int shmem_##N##_##NAME##_reduce(shmem_team_t team, T* dest, const T* source, size_t nreduce) {                       \
    return reduceOn(team, RedOp::OP, dest, source, nreduce);                                                           \
  }
#define FERRY_CAPI_REDUCE_BITWISE(T, N)                                                                                \
  FERRY_CAPI_REDUCE(T, N, And, and) FERRY_CAPI_REDUCE(T, N, Or, or) FERRY_CAPI_REDUCE(T, N, Xor, xor)
#define FERRY_CAPI_REDUCE_MINMAX(T, N) FERRY_CAPI_REDUCE(T, N, Max, max) FERRY_CAPI_REDUCE(T, N, Min, min)
#define FERRY_CAPI_REDUCE_ARITH(T, N) FERRY_CAPI_REDUCE(T, N, Sum, sum) FERRY_CAPI_REDUCE(T, N, Prod, prod)
FERRY_SHMEM_TYPES_REDUCE_BITWISE(FERRY_CAPI_REDUCE_BITWISE)
FERRY_SHMEM_TYPES_REDUCE_MINMAX(FERRY_CAPI_REDUCE_MINMAX)
FERRY_SHMEM_TYPES_REDUCE_ARITH(FERRY_CAPI_REDUCE_ARITH)
#undef FERRY_CAPI_REDUCE_BITWISE
#undef FERRY_CAPI_REDUCE_MINMAX
#undef FERRY_CAPI_REDUCE_ARITH
#undef FERRY_CAPI_REDUCE

}  // extern "C"
