// What the OpenSHMEM C entry points (c_api_*.cpp) call. The C API is thousands of typed
// functions; each of them forwards here with the element's size and kind, so that every
// path (same-node load/store, MPI-3 RMA across nodes, CMA for static data) is written once.
//
// Every function reports a misuse (a call before shmem_init, a bad PE, an address outside
// the symmetric memory) with the call's name, the PE, its host and the setting to change,
// and then ends the job (shmem_global_exit semantics): the standard leaves these undefined,
// and carrying on would corrupt memory or hang.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ferry::shmem {

struct Team;  // team.h
struct Ctx;   // ctx.h

// ---- set-up and queries (runtime.cpp) ---------------------------------------------------
// Returns 0, or non-zero after logging why the library could not start.
int init(int requestedThreadLevel, int* provided);
void finalize();
[[noreturn]] void globalExit(int status);
bool isInitialized();
int queryThread();
int myPe();
int nPes();
bool peAccessible(int pe);
bool addrAccessible(const void* addr, int pe);
// The address of `dest` (symmetric) in `pe` as this PE can use it, or nullptr.
void* ptr(const void* dest, int pe);

// ---- symmetric heap (heap_api.cpp); collective over the world team ------------------------
void* malloc(size_t size, const char* call);
void* calloc(size_t count, size_t size);
void* align(size_t alignment, size_t size);
void* realloc(void* p, size_t size);
void free(void* p);

// ---- RMA (rma.cpp). ctx == nullptr: the default context. -----------------------------------
void put(Ctx* ctx, void* dest, const void* source, size_t bytes, int pe, bool nbi, const char* call);
void get(Ctx* ctx, void* dest, const void* source, size_t bytes, int pe, bool nbi, const char* call);
// Strided: element i goes from source[i * sst] to dest[i * dst] (strides in elements).
void iput(Ctx* ctx, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elemSize,
          int pe, const char* call);
void iget(Ctx* ctx, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elemSize,
          int pe, const char* call);
// SHMEM_SIGNAL_SET / SHMEM_SIGNAL_ADD, as in shmem.h.
inline constexpr int kSignalSet = 0;
inline constexpr int kSignalAdd = 1;
void putSignal(Ctx* ctx, void* dest, const void* source, size_t bytes, uint64_t* sigAddr, uint64_t signal, int sigOp,
               int pe, bool nbi, const char* call);
uint64_t signalFetch(const uint64_t* sigAddr);

// ---- atomics (amo.cpp) -------------------------------------------------------------------
enum class AmoOp : uint8_t { Fetch, Set, Swap, CompareSwap, FetchAdd, Add, FetchAnd, And, FetchOr, Or, FetchXor, Xor };
enum class Kind : uint8_t { Signed, Unsigned, Float };
struct AmoType {
  Kind kind;
  uint8_t size;  // 4 or 8
};
// `operand` (and `compare` for CompareSwap) point to one value of the type; `result`, where
// the op fetches, receives the old value (for _nbi forms: once the context is quiet).
void amo(Ctx* ctx, AmoOp op, AmoType type, void* target, const void* operand, const void* compare, void* result, int pe,
         bool nbi, const char* call);

// ---- ordering and completion (rma.cpp) ---------------------------------------------------
void fence(Ctx* ctx);
void quiet(Ctx* ctx);
// Quiet on the default context and on every live one: shmem_barrier_all, the heap's
// collective allocations and shmem_clear_lock complete all of this PE's operations, more
// than the standard asks (the default context's), so that a program that forgot a
// shmem_ctx_quiet before them is still correct (docs/shmem.md, "Teams and contexts").
void quietAll();

// ---- point-to-point synchronisation (wait.cpp) ----------------------------------------------
// SHMEM_CMP_* as in shmem.h.
enum class Cmp : int { Eq = 0, Ne, Gt, Ge, Lt, Le };
// One step of a wait on local symmetric memory: drives the progress the paths need (MPI's,
// for RMA into this PE) and backs off. Waits call it until their condition holds.
void waitStep(const void* ivar, const char* call);
// Ends a wait: the acquire fence that orders the data after the flag.
void waitDone();
// The progress of one waitStep without its backoff, for the shmem_test* routines: a program
// polls them between pieces of its own work, which a yield or sleep per poll would slow.
void testStep(const void* ivar, const char* call);

// ---- teams (team.cpp) and contexts (ctx.cpp) -------------------------------------------------
Team* teamWorld();
Team* teamShared();
int teamMyPe(const Team* team);
int teamNPes(const Team* team);
// Translates `pe` of `src` to its number in `dst`, or -1.
int teamTranslatePe(const Team* src, int pe, const Team* dst);
// Collective over `parent`; returns 0 and the new team (nullptr where this PE is not in it).
int teamSplitStrided(Team* parent, int start, int stride, int size, const void* config, long configMask,
                     Team** newTeam);
int teamSplit2d(Team* parent, int xrange, const void* xConfig, long xMask, Team** xTeam, const void* yConfig,
                long yMask, Team** yTeam);
int teamGetConfig(const Team* team, long mask, void* config);
void teamDestroy(Team* team);
int ctxCreate(Team* team, long options, Ctx** ctx);
void ctxDestroy(Ctx* ctx);
int ctxGetTeam(const Ctx* ctx, Team** team);
Ctx* ctxDefault();

// ---- collectives (coll.cpp), on teams. Return 0 on success. --------------------------------
enum class RedOp : uint8_t { And, Or, Xor, Max, Min, Sum, Prod };
enum class ElemKind : uint8_t { Signed, Unsigned, Float, Complex };
struct ElemType {
  ElemKind kind;
  uint8_t size;  // bytes (Complex: both parts)
};
int barrierAll();
int syncAll();
int teamSync(Team* team);
// `toRoot`: the root's dest receives the data too (the team form); the deprecated active-set
// form leaves it alone.
int broadcast(Team* team, void* dest, const void* source, size_t bytes, int root, bool toRoot);
int collect(Team* team, void* dest, const void* source, size_t bytes);
int fcollect(Team* team, void* dest, const void* source, size_t bytes);
int alltoall(Team* team, void* dest, const void* source, size_t bytesPerPe);
int alltoalls(Team* team, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
              size_t elemSize);
int reduce(Team* team, RedOp op, ElemType type, void* dest, const void* source, size_t nreduce);

// ---- distributed locks (lock.cpp): a ticket lock in PE 0's copy of the symmetric word ----------
void setLock(long* lock);
void clearLock(long* lock);
int testLock(long* lock);  // 0: acquired

// The deprecated active-set forms: a team is made (and kept) for each active set.
Team* activeSet(int peStart, int logPeStride, int peSize, const char* call);

}  // namespace ferry::shmem
