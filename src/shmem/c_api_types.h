// Shared by the C entry points (c_api_*.cpp): how a C argument becomes what the core (api.h)
// takes. The type tables are shmem.h's own (FERRY_SHMEM_TYPES_*), so that the declarations
// users compile against and the definitions here come from one list.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ferry/shmem/shmem.h"
#include "shmem/api.h"

namespace core = ferry::shmem;

namespace ferry::shmem::capi {

// A misuse the C layer itself detects (SHMEM_CTX_INVALID for an RMA, a comparison that is not
// a SHMEM_CMP_* value): one log line naming the call, then the job ends, as the core does for
// its own checks.
[[noreturn]] void misuse(const char* call, const char* what);

// ---- handles -----------------------------------------------------------------------------------
// The predefined handles are fixed values (shmem.h), so that they are constants in C; every
// other handle is the core's object. SHMEM_TEAM_INVALID becomes nullptr, which the team
// routines answer with an error code rather than a crash.
inline Team* toTeam(shmem_team_t team) {
  if (team == SHMEM_TEAM_WORLD) return teamWorld();
  if (team == SHMEM_TEAM_SHARED) return teamShared();
  return reinterpret_cast<Team*>(team);
}

// Programs compare handles with SHMEM_TEAM_WORLD, so a predefined team goes back as its
// constant, never as the core's pointer.
inline shmem_team_t toHandle(Team* team) {
  if (!team) return SHMEM_TEAM_INVALID;
  if (team == teamWorld()) return SHMEM_TEAM_WORLD;
  if (team == teamShared()) return SHMEM_TEAM_SHARED;
  return reinterpret_cast<shmem_team_t>(team);
}

// For RMA and AMO. SHMEM_CTX_INVALID is a null pointer like the core's default context, so
// it must be caught here or its operations would silently run on the default context.
inline Ctx* toCtx(shmem_ctx_t ctx, const char* call) {
  if (ctx == SHMEM_CTX_DEFAULT) return nullptr;
  if (ctx == SHMEM_CTX_INVALID) misuse(call, "ctx is SHMEM_CTX_INVALID (a context that could not be created?)");
  return reinterpret_cast<Ctx*>(ctx);
}

inline shmem_ctx_t toHandle(Ctx* ctx) { return ctx ? reinterpret_cast<shmem_ctx_t>(ctx) : SHMEM_CTX_INVALID; }

// ---- element descriptions -------------------------------------------------------------------
template <class T>
inline constexpr bool kIsComplex = false;
template <class T>
inline constexpr bool kIsComplex<std::complex<T>> = true;

template <class T>
constexpr AmoType amoType() {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "the standard's AMO types are 4 or 8 bytes");
  if constexpr (std::is_floating_point_v<T>) return {Kind::Float, sizeof(T)};
  if constexpr (std::is_signed_v<T>) return {Kind::Signed, sizeof(T)};
  return {Kind::Unsigned, sizeof(T)};
}

// long double is {Float, 16}: its storage size, which the core maps to MPI_LONG_DOUBLE.
template <class T>
constexpr ElemType elemType() {
  static_assert(sizeof(T) <= 255);
  if constexpr (kIsComplex<T>) return {ElemKind::Complex, sizeof(T)};
  if constexpr (std::is_floating_point_v<T>) return {ElemKind::Float, sizeof(T)};
  if constexpr (std::is_signed_v<T>) return {ElemKind::Signed, sizeof(T)};
  return {ElemKind::Unsigned, sizeof(T)};
}

inline Cmp toCmp(int cmp, const char* call) {
  if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE) misuse(call, "cmp is not one of SHMEM_CMP_EQ ... SHMEM_CMP_LE");
  return static_cast<Cmp>(cmp);
}

// ---- atomics --------------------------------------------------------------------------------
// The shapes of the AMO routines. `operand` and `compare` may point into this stack frame:
// the core copies them where an _nbi operation reads them after the call returns.
template <class T>
T fetchingAmo(Ctx* ctx, AmoOp op, T* dest, T operand, int pe, const char* call) {
  T old{};
  amo(ctx, op, amoType<T>(), dest, &operand, nullptr, &old, pe, false, call);
  return old;
}

template <class T>
void updatingAmo(Ctx* ctx, AmoOp op, T* dest, T operand, int pe, const char* call) {
  amo(ctx, op, amoType<T>(), dest, &operand, nullptr, nullptr, pe, false, call);
}

template <class T>
void fetchingAmoNbi(Ctx* ctx, AmoOp op, T* fetch, T* dest, T operand, int pe, const char* call) {
  amo(ctx, op, amoType<T>(), dest, &operand, nullptr, fetch, pe, true, call);
}

// A fetch modifies nothing; the core's one signature takes the target as void*.
template <class T>
T atomicFetch(Ctx* ctx, const T* source, int pe, const char* call) {
  T value{};
  amo(ctx, AmoOp::Fetch, amoType<T>(), const_cast<T*>(source), nullptr, nullptr, &value, pe, false, call);
  return value;
}

template <class T>
void atomicFetchNbi(Ctx* ctx, T* fetch, const T* source, int pe, const char* call) {
  amo(ctx, AmoOp::Fetch, amoType<T>(), const_cast<T*>(source), nullptr, nullptr, fetch, pe, true, call);
}

template <class T>
T compareSwap(Ctx* ctx, T* dest, T cond, T value, int pe, const char* call) {
  T old{};
  amo(ctx, AmoOp::CompareSwap, amoType<T>(), dest, &value, &cond, &old, pe, false, call);
  return old;
}

template <class T>
void compareSwapNbi(Ctx* ctx, T* fetch, T* dest, T cond, T value, int pe, const char* call) {
  amo(ctx, AmoOp::CompareSwap, amoType<T>(), dest, &value, &cond, fetch, pe, true, call);
}

}  // namespace ferry::shmem::capi

namespace capi = ferry::shmem::capi;

// Defines shmem_NAME(PARAMS) and shmem_ctx_NAME(shmem_ctx_t ctx, PARAMS), each running the
// body with `c` (the core's context) and `call` (the routine's own name) in scope.
#define FERRY_CAPI_PARAMS(...) __VA_ARGS__
#define FERRY_CAPI_CTX_PAIR(RET, NAME, PARAMS, ...)                                                                    \
  RET shmem_##NAME(FERRY_CAPI_PARAMS PARAMS) {                                                                         \
    [[maybe_unused]] constexpr const char* call = "shmem_" #NAME;                                                      \
    [[maybe_unused]] core::Ctx* c = nullptr;                                                                           \
    __VA_ARGS__                                                                                                        \
  }                                                                                                                    \
  RET shmem_ctx_##NAME(shmem_ctx_t ctx, FERRY_CAPI_PARAMS PARAMS) {                                                    \
    [[maybe_unused]] constexpr const char* call = "shmem_ctx_" #NAME;                                                  \
    [[maybe_unused]] core::Ctx* c = capi::toCtx(ctx, call);                                                            \
    __VA_ARGS__                                                                                                        \
  }
