/* The type-generic names of OpenSHMEM 1.5 for C++, as overloads (included by shmem.h).
 *
 * The standard defines the generic names (shmem_put, shmem_atomic_fetch_add, shmem_sum_reduce,
 * ...) for C11 only, through _Generic; C++ programs written for Sandia OpenSHMEM, OSHMPI or
 * Open MPI's OSHMEM use them all the same, through overloads those libraries provide. These
 * are the same names over the same type tables as the C11 block of shmem.h, each an inline
 * call of the typed routine, so overload resolution picks exactly what _Generic would: the
 * type of the destination (or source) pointer. A pointer to a type outside a family's table
 * matches no overload, and the compiler says so. The deprecated generic names of 1.3
 * (shmem_add, shmem_wait, ...) are overloaded too, deprecated as in C; and with GCC or
 * clang, the complex routines also take GNU _Complex pointers, which C++ programs written
 * for other libraries pass (std::complex has the same layout). */
#ifndef FERRY_SHMEM_CXX_H
#define FERRY_SHMEM_CXX_H

#if !defined(__cplusplus)
#error "shmem_cxx.h is the C++ part of shmem.h; include <shmem.h>"
#endif

/* The tables: X(TYPE, TYPENAME), the types that are distinct in C and C++ alike. */
#define FERRY_SHMEM_CXX_RMA(X)                                                                                         \
  X(float, float) X(double, double) X(long double, longdouble) X(char, char) X(signed char, schar)                     \
  X(short, short) X(int, int) X(long, long) X(long long, longlong) X(unsigned char, uchar)                             \
  X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define FERRY_SHMEM_CXX_AMO(X)                                                                                         \
  X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint) X(unsigned long, ulong)                       \
  X(unsigned long long, ulonglong)
#define FERRY_SHMEM_CXX_AMO_EXTENDED(X) X(float, float) X(double, double) FERRY_SHMEM_CXX_AMO(X)
#define FERRY_SHMEM_CXX_AMO_BITWISE(X)                                                                                 \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32) X(int64_t, int64)
#define FERRY_SHMEM_CXX_P2P(X) FERRY_SHMEM_CXX_AMO(X) X(short, short) X(unsigned short, ushort)
#define FERRY_SHMEM_CXX_REDUCE_BITWISE(X)                                                                              \
  X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)                      \
  X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) X(int32_t, int32) X(int64_t, int64)
#define FERRY_SHMEM_CXX_REDUCE_ARITH(X)                                                                                \
  FERRY_SHMEM_CXX_RMA(X) X(FERRY_SHMEM_COMPLEXD, complexd) X(FERRY_SHMEM_COMPLEXF, complexf)

/* R shmem_NAME(PARAMS), calling shmem_TYPENAME_NAME with ARGS; and with its context twin,
 * R shmem_NAME(shmem_ctx_t, PARAMS), calling shmem_ctx_TYPENAME_NAME. */
#define FERRY_SHMEM_CXX_FWD(R, NAME, N, PARAMS, ARGS) \
  inline R shmem_##NAME PARAMS { return shmem_##N##_##NAME ARGS; }
#define FERRY_SHMEM_CXX_CTX(R, NAME, N, PARAMS, ARGS)                                                                  \
  FERRY_SHMEM_CXX_FWD(R, NAME, N, PARAMS, ARGS)                                                                        \
  inline R shmem_##NAME(shmem_ctx_t ctx, FERRY_SHMEM_CXX_UNPAREN PARAMS) {                                             \
    return shmem_ctx_##N##_##NAME(ctx, FERRY_SHMEM_CXX_UNPAREN ARGS);                                                  \
  }
#define FERRY_SHMEM_CXX_UNPAREN(...) __VA_ARGS__

/* ---- RMA and signaling ---------------------------------------------------------------------- */
#define FERRY_SHMEM_CXX_DEF_RMA(T, N)                                                                                  \
  FERRY_SHMEM_CXX_CTX(void, put, N, (T * dest, const T* source, size_t nelems, int pe), (dest, source, nelems, pe))   \
  FERRY_SHMEM_CXX_CTX(void, get, N, (T * dest, const T* source, size_t nelems, int pe), (dest, source, nelems, pe))   \
  FERRY_SHMEM_CXX_CTX(void, put_nbi, N, (T * dest, const T* source, size_t nelems, int pe),                           \
                      (dest, source, nelems, pe))                                                                      \
  FERRY_SHMEM_CXX_CTX(void, get_nbi, N, (T * dest, const T* source, size_t nelems, int pe),                           \
                      (dest, source, nelems, pe))                                                                      \
  FERRY_SHMEM_CXX_CTX(void, p, N, (T * dest, T value, int pe), (dest, value, pe))                                     \
  FERRY_SHMEM_CXX_CTX(T, g, N, (const T* source, int pe), (source, pe))                                               \
  FERRY_SHMEM_CXX_CTX(void, iput, N, (T * dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe), \
                      (dest, source, dst, sst, nelems, pe))                                                            \
  FERRY_SHMEM_CXX_CTX(void, iget, N, (T * dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe), \
                      (dest, source, dst, sst, nelems, pe))                                                            \
  FERRY_SHMEM_CXX_CTX(void, put_signal, N,                                                                            \
                      (T * dest, const T* source, size_t nelems, uint64_t* sig_addr, uint64_t signal, int sig_op,      \
                       int pe),                                                                                        \
                      (dest, source, nelems, sig_addr, signal, sig_op, pe))                                            \
  FERRY_SHMEM_CXX_CTX(void, put_signal_nbi, N,                                                                        \
                      (T * dest, const T* source, size_t nelems, uint64_t* sig_addr, uint64_t signal, int sig_op,      \
                       int pe),                                                                                        \
                      (dest, source, nelems, sig_addr, signal, sig_op, pe))
FERRY_SHMEM_CXX_RMA(FERRY_SHMEM_CXX_DEF_RMA)
#undef FERRY_SHMEM_CXX_DEF_RMA

/* ---- atomics ------------------------------------------------------------------------------- */
#define FERRY_SHMEM_CXX_DEF_AMO(T, N)                                                                                  \
  FERRY_SHMEM_CXX_CTX(T, atomic_fetch_inc, N, (T * dest, int pe), (dest, pe))                                         \
  FERRY_SHMEM_CXX_CTX(void, atomic_inc, N, (T * dest, int pe), (dest, pe))                                            \
  FERRY_SHMEM_CXX_CTX(T, atomic_fetch_add, N, (T * dest, T value, int pe), (dest, value, pe))                         \
  FERRY_SHMEM_CXX_CTX(void, atomic_add, N, (T * dest, T value, int pe), (dest, value, pe))                            \
  FERRY_SHMEM_CXX_CTX(T, atomic_compare_swap, N, (T * dest, T cond, T value, int pe), (dest, cond, value, pe))        \
  FERRY_SHMEM_CXX_CTX(void, atomic_fetch_inc_nbi, N, (T * fetch, T * dest, int pe), (fetch, dest, pe))                \
  FERRY_SHMEM_CXX_CTX(void, atomic_fetch_add_nbi, N, (T * fetch, T * dest, T value, int pe),                          \
                      (fetch, dest, value, pe))                                                                        \
  FERRY_SHMEM_CXX_CTX(void, atomic_compare_swap_nbi, N, (T * fetch, T * dest, T cond, T value, int pe),               \
                      (fetch, dest, cond, value, pe))
FERRY_SHMEM_CXX_AMO(FERRY_SHMEM_CXX_DEF_AMO)
#undef FERRY_SHMEM_CXX_DEF_AMO

#define FERRY_SHMEM_CXX_DEF_AMO_EXTENDED(T, N)                                                                         \
  FERRY_SHMEM_CXX_CTX(T, atomic_fetch, N, (const T* source, int pe), (source, pe))                                    \
  FERRY_SHMEM_CXX_CTX(void, atomic_set, N, (T * dest, T value, int pe), (dest, value, pe))                            \
  FERRY_SHMEM_CXX_CTX(T, atomic_swap, N, (T * dest, T value, int pe), (dest, value, pe))                              \
  FERRY_SHMEM_CXX_CTX(void, atomic_fetch_nbi, N, (T * fetch, const T* source, int pe), (fetch, source, pe))           \
  FERRY_SHMEM_CXX_CTX(void, atomic_swap_nbi, N, (T * fetch, T * dest, T value, int pe), (fetch, dest, value, pe))
FERRY_SHMEM_CXX_AMO_EXTENDED(FERRY_SHMEM_CXX_DEF_AMO_EXTENDED)
#undef FERRY_SHMEM_CXX_DEF_AMO_EXTENDED

#define FERRY_SHMEM_CXX_DEF_AMO_BITWISE(T, N)                                                                          \
  FERRY_SHMEM_CXX_CTX(T, atomic_fetch_and, N, (T * dest, T value, int pe), (dest, value, pe))                         \
  FERRY_SHMEM_CXX_CTX(void, atomic_and, N, (T * dest, T value, int pe), (dest, value, pe))                            \
  FERRY_SHMEM_CXX_CTX(T, atomic_fetch_or, N, (T * dest, T value, int pe), (dest, value, pe))                          \
  FERRY_SHMEM_CXX_CTX(void, atomic_or, N, (T * dest, T value, int pe), (dest, value, pe))                             \
  FERRY_SHMEM_CXX_CTX(T, atomic_fetch_xor, N, (T * dest, T value, int pe), (dest, value, pe))                         \
  FERRY_SHMEM_CXX_CTX(void, atomic_xor, N, (T * dest, T value, int pe), (dest, value, pe))                            \
  FERRY_SHMEM_CXX_CTX(void, atomic_fetch_and_nbi, N, (T * fetch, T * dest, T value, int pe),                          \
                      (fetch, dest, value, pe))                                                                        \
  FERRY_SHMEM_CXX_CTX(void, atomic_fetch_or_nbi, N, (T * fetch, T * dest, T value, int pe), (fetch, dest, value, pe)) \
  FERRY_SHMEM_CXX_CTX(void, atomic_fetch_xor_nbi, N, (T * fetch, T * dest, T value, int pe),                          \
                      (fetch, dest, value, pe))
FERRY_SHMEM_CXX_AMO_BITWISE(FERRY_SHMEM_CXX_DEF_AMO_BITWISE)
#undef FERRY_SHMEM_CXX_DEF_AMO_BITWISE

/* ---- collectives: typed by dest, after the team ---------------------------------------------- */
#define FERRY_SHMEM_CXX_DEF_COLL(T, N)                                                                                 \
  FERRY_SHMEM_CXX_FWD(int, broadcast, N, (shmem_team_t team, T * dest, const T* source, size_t nelems, int PE_root),   \
                      (team, dest, source, nelems, PE_root))                                                           \
  FERRY_SHMEM_CXX_FWD(int, collect, N, (shmem_team_t team, T * dest, const T* source, size_t nelems),                  \
                      (team, dest, source, nelems))                                                                    \
  FERRY_SHMEM_CXX_FWD(int, fcollect, N, (shmem_team_t team, T * dest, const T* source, size_t nelems),                 \
                      (team, dest, source, nelems))                                                                    \
  FERRY_SHMEM_CXX_FWD(int, alltoall, N, (shmem_team_t team, T * dest, const T* source, size_t nelems),                 \
                      (team, dest, source, nelems))                                                                    \
  FERRY_SHMEM_CXX_FWD(int, alltoalls, N,                                                                              \
                      (shmem_team_t team, T * dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems),     \
                      (team, dest, source, dst, sst, nelems))
FERRY_SHMEM_CXX_RMA(FERRY_SHMEM_CXX_DEF_COLL)
#undef FERRY_SHMEM_CXX_DEF_COLL

#define FERRY_SHMEM_CXX_DEF_REDUCE(T, N, OP)                                                                           \
  FERRY_SHMEM_CXX_FWD(int, OP##_reduce, N, (shmem_team_t team, T * dest, const T* source, size_t nreduce),             \
                      (team, dest, source, nreduce))
#define FERRY_SHMEM_CXX_DEF_REDUCE_BITWISE(T, N)                                                                       \
  FERRY_SHMEM_CXX_DEF_REDUCE(T, N, and) FERRY_SHMEM_CXX_DEF_REDUCE(T, N, or) FERRY_SHMEM_CXX_DEF_REDUCE(T, N, xor)
#define FERRY_SHMEM_CXX_DEF_REDUCE_MINMAX(T, N) FERRY_SHMEM_CXX_DEF_REDUCE(T, N, max) FERRY_SHMEM_CXX_DEF_REDUCE(T, N, min)
#define FERRY_SHMEM_CXX_DEF_REDUCE_ARITH(T, N) FERRY_SHMEM_CXX_DEF_REDUCE(T, N, sum) FERRY_SHMEM_CXX_DEF_REDUCE(T, N, prod)
FERRY_SHMEM_CXX_REDUCE_BITWISE(FERRY_SHMEM_CXX_DEF_REDUCE_BITWISE)
FERRY_SHMEM_CXX_RMA(FERRY_SHMEM_CXX_DEF_REDUCE_MINMAX)
FERRY_SHMEM_CXX_REDUCE_ARITH(FERRY_SHMEM_CXX_DEF_REDUCE_ARITH)
#undef FERRY_SHMEM_CXX_DEF_REDUCE_ARITH
#undef FERRY_SHMEM_CXX_DEF_REDUCE_MINMAX
#undef FERRY_SHMEM_CXX_DEF_REDUCE_BITWISE
#undef FERRY_SHMEM_CXX_DEF_REDUCE

/* shmem_sync(team) is shmem_team_sync; the four-argument shmem_sync is the deprecated
 * active-set routine, declared in shmem.h. */
inline int shmem_sync(shmem_team_t team) { return shmem_team_sync(team); }

/* ---- point-to-point synchronization ---------------------------------------------------------- */
/* shmem_wait_until on long is the untyped routine of OpenSHMEM 1.2, declared in shmem.h with
 * this very signature: the overload set uses it rather than define a second one. */
#define FERRY_SHMEM_CXX_DEF_WAIT_UNTIL(T, N)                                                                           \
  FERRY_SHMEM_CXX_FWD(void, wait_until, N, (T * ivar, int cmp, T cmp_value), (ivar, cmp, cmp_value))
#define FERRY_SHMEM_CXX_P2P_BUT_LONG(X)                                                                                \
  X(int, int) X(long long, longlong) X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)   \
  X(short, short) X(unsigned short, ushort)
FERRY_SHMEM_CXX_P2P_BUT_LONG(FERRY_SHMEM_CXX_DEF_WAIT_UNTIL)
#undef FERRY_SHMEM_CXX_P2P_BUT_LONG
#undef FERRY_SHMEM_CXX_DEF_WAIT_UNTIL

/* The wait_until and test forms of one family take the same arguments (the parameter list
 * and the argument list, as one macro argument) and return RW and RT. */
#define FERRY_SHMEM_CXX_WAIT_TEST(RW, RT, SUFFIX, N, ...)                                                              \
  FERRY_SHMEM_CXX_FWD_(RW, wait_until##SUFFIX, N, __VA_ARGS__) FERRY_SHMEM_CXX_FWD_(RT, test##SUFFIX, N, __VA_ARGS__)
#define FERRY_SHMEM_CXX_FWD_(R, NAME, N, ...) FERRY_SHMEM_CXX_FWD(R, NAME, N, __VA_ARGS__)
#define FERRY_SHMEM_CXX_P2P_SET(T)                                                                                     \
  (T * ivars, size_t nelems, const int* status, int cmp, T cmp_value), (ivars, nelems, status, cmp, cmp_value)
#define FERRY_SHMEM_CXX_P2P_SOME(T)                                                                                    \
  (T * ivars, size_t nelems, size_t * indices, const int* status, int cmp, T cmp_value),                               \
      (ivars, nelems, indices, status, cmp, cmp_value)
#define FERRY_SHMEM_CXX_P2P_VECTOR(T)                                                                                  \
  (T * ivars, size_t nelems, const int* status, int cmp, T* cmp_values), (ivars, nelems, status, cmp, cmp_values)
#define FERRY_SHMEM_CXX_P2P_SOME_VECTOR(T)                                                                             \
  (T * ivars, size_t nelems, size_t * indices, const int* status, int cmp, T* cmp_values),                             \
      (ivars, nelems, indices, status, cmp, cmp_values)
#define FERRY_SHMEM_CXX_DEF_P2P(T, N)                                                                                  \
  FERRY_SHMEM_CXX_FWD(int, test, N, (T * ivar, int cmp, T cmp_value), (ivar, cmp, cmp_value))                          \
  FERRY_SHMEM_CXX_WAIT_TEST(void, int, _all, N, FERRY_SHMEM_CXX_P2P_SET(T))                                            \
  FERRY_SHMEM_CXX_WAIT_TEST(size_t, size_t, _any, N, FERRY_SHMEM_CXX_P2P_SET(T))                                       \
  FERRY_SHMEM_CXX_WAIT_TEST(size_t, size_t, _some, N, FERRY_SHMEM_CXX_P2P_SOME(T))                                     \
  FERRY_SHMEM_CXX_WAIT_TEST(void, int, _all_vector, N, FERRY_SHMEM_CXX_P2P_VECTOR(T))                                  \
  FERRY_SHMEM_CXX_WAIT_TEST(size_t, size_t, _any_vector, N, FERRY_SHMEM_CXX_P2P_VECTOR(T))                             \
  FERRY_SHMEM_CXX_WAIT_TEST(size_t, size_t, _some_vector, N, FERRY_SHMEM_CXX_P2P_SOME_VECTOR(T))
FERRY_SHMEM_CXX_P2P(FERRY_SHMEM_CXX_DEF_P2P)
#undef FERRY_SHMEM_CXX_DEF_P2P
#undef FERRY_SHMEM_CXX_P2P_SOME_VECTOR
#undef FERRY_SHMEM_CXX_P2P_VECTOR
#undef FERRY_SHMEM_CXX_P2P_SOME
#undef FERRY_SHMEM_CXX_P2P_SET
#undef FERRY_SHMEM_CXX_FWD_
#undef FERRY_SHMEM_CXX_WAIT_TEST

/* ---- the generic names of OpenSHMEM 1.3, deprecated ---------------------------------------------
 * Each calls a deprecated typed routine: the warning belongs to the program's call of the
 * overload, not to this header. shmem_swap and shmem_wait on long are untyped routines of
 * 1.2 with the same signature, declared in shmem.h, and so are left out here. */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
#define FERRY_SHMEM_CXX_DEF_DEPRECATED_AMO(T, N)                                                                       \
  FERRY_SHMEM_DEPRECATED FERRY_SHMEM_CXX_FWD(T, fadd, N, (T * dest, T value, int pe), (dest, value, pe))                        \
  FERRY_SHMEM_DEPRECATED FERRY_SHMEM_CXX_FWD(T, finc, N, (T * dest, int pe), (dest, pe))                                        \
  FERRY_SHMEM_DEPRECATED FERRY_SHMEM_CXX_FWD(void, add, N, (T * dest, T value, int pe), (dest, value, pe))                      \
  FERRY_SHMEM_DEPRECATED FERRY_SHMEM_CXX_FWD(void, inc, N, (T * dest, int pe), (dest, pe))                                      \
  FERRY_SHMEM_DEPRECATED FERRY_SHMEM_CXX_FWD(T, cswap, N, (T * dest, T cond, T value, int pe), (dest, cond, value, pe))
#define FERRY_SHMEM_CXX_DEF_DEPRECATED_AMO_EXTENDED(T, N)                                                              \
  FERRY_SHMEM_DEPRECATED FERRY_SHMEM_CXX_FWD(T, fetch, N, (const T* source, int pe), (source, pe))                              \
  FERRY_SHMEM_DEPRECATED FERRY_SHMEM_CXX_FWD(void, set, N, (T * dest, T value, int pe), (dest, value, pe))
#define FERRY_SHMEM_CXX_DEF_DEPRECATED_SWAP(T, N) FERRY_SHMEM_DEPRECATED FERRY_SHMEM_CXX_FWD(T, swap, N, (T * dest, T value, int pe), (dest, value, pe))
#define FERRY_SHMEM_CXX_DEF_DEPRECATED_WAIT(T, N) FERRY_SHMEM_DEPRECATED FERRY_SHMEM_CXX_FWD(void, wait, N, (T * ivar, T cmp_value), (ivar, cmp_value))
FERRY_SHMEM_TYPES_DEPRECATED_AMO(FERRY_SHMEM_CXX_DEF_DEPRECATED_AMO)
FERRY_SHMEM_TYPES_DEPRECATED_AMO_EXTENDED(FERRY_SHMEM_CXX_DEF_DEPRECATED_AMO_EXTENDED)
FERRY_SHMEM_CXX_DEF_DEPRECATED_SWAP(int, int)
FERRY_SHMEM_CXX_DEF_DEPRECATED_SWAP(long long, longlong)
FERRY_SHMEM_CXX_DEF_DEPRECATED_SWAP(float, float)
FERRY_SHMEM_CXX_DEF_DEPRECATED_SWAP(double, double)
FERRY_SHMEM_CXX_DEF_DEPRECATED_WAIT(short, short)
FERRY_SHMEM_CXX_DEF_DEPRECATED_WAIT(int, int)
FERRY_SHMEM_CXX_DEF_DEPRECATED_WAIT(long long, longlong)
#undef FERRY_SHMEM_CXX_DEF_DEPRECATED_WAIT
#undef FERRY_SHMEM_CXX_DEF_DEPRECATED_SWAP
#undef FERRY_SHMEM_CXX_DEF_DEPRECATED_AMO_EXTENDED
#undef FERRY_SHMEM_CXX_DEF_DEPRECATED_AMO

/* ---- GNU _Complex in C++ ---------------------------------------------------------------------
 * The same layout as std::complex (C++ [complex.numbers]): the typed routines, their *_to_all
 * forms and the generic reductions accept either. */
#if defined(__GNUC__)
__extension__ typedef float _Complex ferry_shmem_gnu_complexf;
__extension__ typedef double _Complex ferry_shmem_gnu_complexd;
#define FERRY_SHMEM_CXX_DEF_GNU_COMPLEX(G, STD, N, OP)                                                                 \
  inline int shmem_##N##_##OP##_reduce(shmem_team_t team, G* dest, const G* source, size_t nreduce) {                  \
    return shmem_##N##_##OP##_reduce(team, reinterpret_cast<STD*>(dest), reinterpret_cast<const STD*>(source),         \
                                     nreduce);                                                                         \
  }                                                                                                                    \
  inline int shmem_##OP##_reduce(shmem_team_t team, G* dest, const G* source, size_t nreduce) {                        \
    return shmem_##N##_##OP##_reduce(team, dest, source, nreduce);                                                     \
  }                                                                                                                    \
  FERRY_SHMEM_DEPRECATED inline void shmem_##N##_##OP##_to_all(G* dest, const G* source, int nreduce, int PE_start,    \
                                                               int logPE_stride, int PE_size, G* pWrk, long* pSync) {  \
    shmem_##N##_##OP##_to_all(reinterpret_cast<STD*>(dest), reinterpret_cast<const STD*>(source), nreduce, PE_start,   \
                              logPE_stride, PE_size, reinterpret_cast<STD*>(pWrk), pSync);                             \
  }
FERRY_SHMEM_CXX_DEF_GNU_COMPLEX(ferry_shmem_gnu_complexf, std::complex<float>, complexf, sum)
FERRY_SHMEM_CXX_DEF_GNU_COMPLEX(ferry_shmem_gnu_complexf, std::complex<float>, complexf, prod)
FERRY_SHMEM_CXX_DEF_GNU_COMPLEX(ferry_shmem_gnu_complexd, std::complex<double>, complexd, sum)
FERRY_SHMEM_CXX_DEF_GNU_COMPLEX(ferry_shmem_gnu_complexd, std::complex<double>, complexd, prod)
#undef FERRY_SHMEM_CXX_DEF_GNU_COMPLEX
#endif

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#undef FERRY_SHMEM_CXX_UNPAREN
#undef FERRY_SHMEM_CXX_CTX
#undef FERRY_SHMEM_CXX_FWD
#undef FERRY_SHMEM_CXX_REDUCE_ARITH
#undef FERRY_SHMEM_CXX_REDUCE_BITWISE
#undef FERRY_SHMEM_CXX_P2P
#undef FERRY_SHMEM_CXX_AMO_BITWISE
#undef FERRY_SHMEM_CXX_AMO_EXTENDED
#undef FERRY_SHMEM_CXX_AMO
#undef FERRY_SHMEM_CXX_RMA

#endif /* FERRY_SHMEM_CXX_H */
