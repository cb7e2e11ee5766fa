/* Ferry's OpenSHMEM 1.5 C API.
 *
 * Every routine of the OpenSHMEM 1.5 specification, its deprecated names included, for C99,
 * C11 (with the type-generic names, through _Generic) and C++ (the same generic names as
 * overloads, shmem_cxx.h, as other OpenSHMEM libraries give C++ programs). Build
 * with -I<prefix>/include/ferry/shmem and link with Ferry's OpenSHMEM library; extensions are
 * in shmemx.h, which programs include themselves.
 *
 * The typed routines come in families, one routine per type of one of the standard's type
 * tables. Each table below is an X-macro, X(TYPE, TYPENAME), and each family is declared by
 * applying it to a macro that spells the family's prototype: the compiler sees a full
 * prototype for every routine, e.g. `void shmem_int_put(int *dest, const int *source, size_t
 * nelems, int pe)`. FERRY_SHMEM_DECL_CTX declares a routine and its shmem_ctx_ twin, which
 * takes the context first.
 *
 * A misuse that the standard leaves undefined (a call before shmem_init, a PE out of range,
 * an address outside the symmetric memory, SHMEM_CTX_INVALID given to an RMA or AMO) is
 * reported on stderr with the routine's name, the PE and its host, and ends the job. */
#ifndef FERRY_SHMEM_H
#define FERRY_SHMEM_H

#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
#include <complex>
#endif

/* ---- attributes -------------------------------------------------------------------------- */
#if defined(__GNUC__)
#define FERRY_SHMEM_API __attribute__((visibility("default")))
#define FERRY_SHMEM_NORETURN __attribute__((noreturn))
#else
#define FERRY_SHMEM_API
#define FERRY_SHMEM_NORETURN
#endif
/* Define FERRY_SHMEM_NO_DEPRECATION_WARNINGS to use the deprecated names without warnings. */
#if defined(__GNUC__) && !defined(FERRY_SHMEM_NO_DEPRECATION_WARNINGS)
#define FERRY_SHMEM_DEPRECATED __attribute__((deprecated))
#else
#define FERRY_SHMEM_DEPRECATED
#endif

/* The complex types of the reductions: C99's _Complex in C, std::complex in C++ (the same
 * layout). A C compiler without complex support gets no complex routines. */
#if defined(__cplusplus)
#define FERRY_SHMEM_COMPLEXF std::complex<float>
#define FERRY_SHMEM_COMPLEXD std::complex<double>
#define FERRY_SHMEM_HAVE_COMPLEX 1
#elif !defined(__STDC_NO_COMPLEX__)
#define FERRY_SHMEM_COMPLEXF float _Complex
#define FERRY_SHMEM_COMPLEXD double _Complex
#define FERRY_SHMEM_HAVE_COMPLEX 1
#else
#define FERRY_SHMEM_HAVE_COMPLEX 0
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ==== Constants ============================================================================ */

/* Library version and name (shmem_info_get_version, shmem_info_get_name). */
#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define SHMEM_MAX_NAME_LEN 256
#define SHMEM_VENDOR_STRING "Ferry"

/* Thread levels (shmem_init_thread, shmem_query_thread), in increasing order of support. */
#define SHMEM_THREAD_SINGLE 0
#define SHMEM_THREAD_FUNNELED 1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE 3

/* Comparison operators of the point-to-point synchronization routines. */
#define SHMEM_CMP_EQ 0
#define SHMEM_CMP_NE 1
#define SHMEM_CMP_GT 2
#define SHMEM_CMP_GE 3
#define SHMEM_CMP_LT 4
#define SHMEM_CMP_LE 5

/* Signal update operations (sig_op of the put-with-signal routines). */
#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

/* Context options (shmem_ctx_create, shmem_team_create_ctx): bit flags. */
#define SHMEM_CTX_PRIVATE (1L << 0)
#define SHMEM_CTX_SERIALIZED (1L << 1)
#define SHMEM_CTX_NOSTORE (1L << 2)

/* Team configuration mask (config_mask of the team routines): which fields of
 * shmem_team_config_t are set. */
#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)

/* Hints of shmem_malloc_with_hints: bit flags. Accepted; the heap ignores them. */
#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE (1L << 1)

/* Work and synchronization arrays of the deprecated active-set collectives. Ferry uses
 * neither, but programs size and initialize them with these values. Deprecated. */
#define SHMEM_SYNC_VALUE 0L
#define SHMEM_SYNC_SIZE 8
#define SHMEM_BCAST_SYNC_SIZE 8
#define SHMEM_BARRIER_SYNC_SIZE 8
#define SHMEM_REDUCE_SYNC_SIZE 8
#define SHMEM_ALLTOALL_SYNC_SIZE 8
#define SHMEM_ALLTOALLS_SYNC_SIZE 8
#define SHMEM_COLLECT_SYNC_SIZE 8
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 1

/* The names before OpenSHMEM 1.3. Deprecated. */
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE

/* ==== Handles ============================================================================== */

/* Teams and contexts are opaque handles. The predefined ones are fixed values, so that they
 * are constant expressions and compare equal in every translation unit; the INVALID values
 * are null pointers. */
typedef struct ferry_shmem_team *shmem_team_t;
typedef struct ferry_shmem_ctx *shmem_ctx_t;

typedef struct {
  int num_contexts; /* contexts the team's PEs create at most (SHMEM_TEAM_NUM_CONTEXTS) */
} shmem_team_config_t;

#ifdef __cplusplus
#define FERRY_SHMEM_HANDLE(type, value) (reinterpret_cast<type>(static_cast<uintptr_t>(value)))
#define FERRY_SHMEM_NULL_HANDLE(type) (static_cast<type>(nullptr))
#else
#define FERRY_SHMEM_HANDLE(type, value) ((type)(uintptr_t)(value))
#define FERRY_SHMEM_NULL_HANDLE(type) ((type)0)
#endif
#define SHMEM_TEAM_INVALID FERRY_SHMEM_NULL_HANDLE(shmem_team_t)
#define SHMEM_TEAM_WORLD FERRY_SHMEM_HANDLE(shmem_team_t, 1)
#define SHMEM_TEAM_SHARED FERRY_SHMEM_HANDLE(shmem_team_t, 2)
#define SHMEM_CTX_INVALID FERRY_SHMEM_NULL_HANDLE(shmem_ctx_t)
#define SHMEM_CTX_DEFAULT FERRY_SHMEM_HANDLE(shmem_ctx_t, 1)

/* ==== Type tables ========================================================================== */
/* They stay defined after this header: Ferry's definitions of the routines apply them too. */

/* Standard RMA types: RMA, put-with-signal and the team collectives other than reductions. */
#define FERRY_SHMEM_TYPES_RMA(X)                                                                                       \
  X(float, float) X(double, double) X(long double, longdouble) X(char, char) X(signed char, schar)                     \
  X(short, short) X(int, int) X(long, long) X(long long, longlong) X(unsigned char, uchar)                             \
  X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)                                              \
  X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) X(int32_t, int32)                                 \
  X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64)                      \
  X(size_t, size) X(ptrdiff_t, ptrdiff)

/* Sized RMA routines (shmem_put8 ... shmem_put128): X(BITS). */
#define FERRY_SHMEM_SIZES_RMA(X) X(8) X(16) X(32) X(64) X(128)

/* Standard AMO types: fetch_inc, inc, fetch_add, add, compare_swap. */
#define FERRY_SHMEM_TYPES_AMO(X)                                                                                       \
  X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint) X(unsigned long, ulong)                       \
  X(unsigned long long, ulonglong) X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32)                             \
  X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)

/* Extended AMO types: fetch, set, swap. */
#define FERRY_SHMEM_TYPES_AMO_EXTENDED(X) X(float, float) X(double, double) FERRY_SHMEM_TYPES_AMO(X)

/* Bitwise AMO types: and, or, xor and their fetching forms. */
#define FERRY_SHMEM_TYPES_AMO_BITWISE(X)                                                                               \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32)                     \
  X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64)

/* Point-to-point synchronization types: the wait_until and test families. */
#define FERRY_SHMEM_TYPES_P2P(X) FERRY_SHMEM_TYPES_AMO(X)
/* The short types, deprecated for point-to-point synchronization since OpenSHMEM 1.5. */
#define FERRY_SHMEM_TYPES_P2P_DEPRECATED(X) X(short, short) X(unsigned short, ushort)

/* Reduction types, by the operations they support. */
#define FERRY_SHMEM_TYPES_REDUCE_BITWISE(X)                                                                            \
  X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)                      \
  X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) X(int32_t, int32)                                 \
  X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64)                      \
  X(size_t, size)
#define FERRY_SHMEM_TYPES_REDUCE_MINMAX(X)                                                                             \
  X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long)                                        \
  X(long long, longlong) X(ptrdiff_t, ptrdiff) FERRY_SHMEM_TYPES_REDUCE_BITWISE(X) X(float, float)                     \
  X(double, double) X(long double, longdouble)
#if FERRY_SHMEM_HAVE_COMPLEX
#define FERRY_SHMEM_TYPES_COMPLEX(X) X(FERRY_SHMEM_COMPLEXD, complexd) X(FERRY_SHMEM_COMPLEXF, complexf)
#else
#define FERRY_SHMEM_TYPES_COMPLEX(X)
#endif
#define FERRY_SHMEM_TYPES_REDUCE_ARITH(X) FERRY_SHMEM_TYPES_REDUCE_MINMAX(X) FERRY_SHMEM_TYPES_COMPLEX(X)

/* The types of the deprecated names: AMOs and waits of OpenSHMEM 1.3, *_to_all of 1.4. */
#define FERRY_SHMEM_TYPES_DEPRECATED_AMO(X) X(int, int) X(long, long) X(long long, longlong)
#define FERRY_SHMEM_TYPES_DEPRECATED_AMO_EXTENDED(X)                                                                   \
  FERRY_SHMEM_TYPES_DEPRECATED_AMO(X) X(float, float) X(double, double)
#define FERRY_SHMEM_TYPES_DEPRECATED_WAIT(X) X(short, short) FERRY_SHMEM_TYPES_DEPRECATED_AMO(X)
#define FERRY_SHMEM_TYPES_TO_ALL_BITWISE(X) FERRY_SHMEM_TYPES_DEPRECATED_WAIT(X)
#define FERRY_SHMEM_TYPES_TO_ALL_MINMAX(X)                                                                             \
  FERRY_SHMEM_TYPES_TO_ALL_BITWISE(X) X(float, float) X(double, double) X(long double, longdouble)
#define FERRY_SHMEM_TYPES_TO_ALL_ARITH(X) FERRY_SHMEM_TYPES_TO_ALL_MINMAX(X) FERRY_SHMEM_TYPES_COMPLEX(X)

/* Declares shmem_NAME(...) and shmem_ctx_NAME(shmem_ctx_t ctx, ...). */
#define FERRY_SHMEM_DECL_CTX(RET, NAME, ...)                                                                           \
  FERRY_SHMEM_API RET shmem_##NAME(__VA_ARGS__);                                                                       \
  FERRY_SHMEM_API RET shmem_ctx_##NAME(shmem_ctx_t ctx, __VA_ARGS__);

/* ==== Library setup, exit and query ======================================================== */

FERRY_SHMEM_API void shmem_init(void);
FERRY_SHMEM_API void shmem_finalize(void);
FERRY_SHMEM_API FERRY_SHMEM_NORETURN void shmem_global_exit(int status);
FERRY_SHMEM_API int shmem_my_pe(void);
FERRY_SHMEM_API int shmem_n_pes(void);
FERRY_SHMEM_API int shmem_pe_accessible(int pe);
FERRY_SHMEM_API int shmem_addr_accessible(const void *addr, int pe);
/* The address of symmetric `dest` on `pe` as this PE can load and store it, or NULL. */
FERRY_SHMEM_API void *shmem_ptr(const void *dest, int pe);
/* The same with `pe` numbered in `team`. */
FERRY_SHMEM_API void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe);
FERRY_SHMEM_API void shmem_info_get_version(int *major, int *minor);
/* Copies SHMEM_VENDOR_STRING, NUL included, into name[SHMEM_MAX_NAME_LEN]. */
FERRY_SHMEM_API void shmem_info_get_name(char *name);

/* ==== Thread support ======================================================================= */

/* Returns 0, or non-zero (and logs why) where the library could not start. */
FERRY_SHMEM_API int shmem_init_thread(int requested, int *provided);
FERRY_SHMEM_API void shmem_query_thread(int *provided);

/* ==== Memory management: the symmetric heap; collective over SHMEM_TEAM_WORLD =============== */

FERRY_SHMEM_API void *shmem_malloc(size_t size);
FERRY_SHMEM_API void *shmem_calloc(size_t count, size_t size);
FERRY_SHMEM_API void *shmem_align(size_t alignment, size_t size);
FERRY_SHMEM_API void *shmem_realloc(void *ptr, size_t size);
FERRY_SHMEM_API void shmem_free(void *ptr);
/* `hints`: SHMEM_MALLOC_* flags; the same as shmem_malloc here. */
FERRY_SHMEM_API void *shmem_malloc_with_hints(size_t size, long hints);

/* ==== Team management ======================================================================= */

/* -1 for SHMEM_TEAM_INVALID. */
FERRY_SHMEM_API int shmem_team_my_pe(shmem_team_t team);
FERRY_SHMEM_API int shmem_team_n_pes(shmem_team_t team);
FERRY_SHMEM_API int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config);
/* -1 where `src_pe` of `src_team` is not in `dest_team`, or either team is invalid. */
FERRY_SHMEM_API int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
/* Collective over the parent team; PEs outside the new team get SHMEM_TEAM_INVALID. */
FERRY_SHMEM_API int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                                             const shmem_team_config_t *config, long config_mask,
                                             shmem_team_t *new_team);
FERRY_SHMEM_API int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                                        long yaxis_mask, shmem_team_t *yaxis_team);
FERRY_SHMEM_API void shmem_team_destroy(shmem_team_t team);

/* ==== Communication contexts ================================================================ */

/* Non-zero, and *ctx == SHMEM_CTX_INVALID, where no context could be made. */
FERRY_SHMEM_API int shmem_ctx_create(long options, shmem_ctx_t *ctx);
FERRY_SHMEM_API int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);
FERRY_SHMEM_API void shmem_ctx_destroy(shmem_ctx_t ctx);
FERRY_SHMEM_API int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);

/* ==== Remote memory access ================================================================== */

/* Typed: counts are in elements, strides (dst, sst) in elements. */
#define FERRY_SHMEM_DECL_RMA(T, N)                                                                                     \
  FERRY_SHMEM_DECL_CTX(void, N##_put, T *dest, const T *source, size_t nelems, int pe)                                 \
  FERRY_SHMEM_DECL_CTX(void, N##_get, T *dest, const T *source, size_t nelems, int pe)                                 \
  FERRY_SHMEM_DECL_CTX(void, N##_p, T *dest, T value, int pe)                                                          \
  FERRY_SHMEM_DECL_CTX(T, N##_g, const T *source, int pe)                                                              \
  FERRY_SHMEM_DECL_CTX(void, N##_iput, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,                         \
                       size_t nelems, int pe)                                                                          \
  FERRY_SHMEM_DECL_CTX(void, N##_iget, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,                         \
                       size_t nelems, int pe)                                                                          \
  FERRY_SHMEM_DECL_CTX(void, N##_put_nbi, T *dest, const T *source, size_t nelems, int pe)                             \
  FERRY_SHMEM_DECL_CTX(void, N##_get_nbi, T *dest, const T *source, size_t nelems, int pe)
FERRY_SHMEM_TYPES_RMA(FERRY_SHMEM_DECL_RMA)
#undef FERRY_SHMEM_DECL_RMA

/* Sized: elements of BITS bits. */
#define FERRY_SHMEM_DECL_RMA_SIZED(BITS)                                                                               \
  FERRY_SHMEM_DECL_CTX(void, put##BITS, void *dest, const void *source, size_t nelems, int pe)                         \
  FERRY_SHMEM_DECL_CTX(void, get##BITS, void *dest, const void *source, size_t nelems, int pe)                         \
  FERRY_SHMEM_DECL_CTX(void, iput##BITS, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,                 \
                       size_t nelems, int pe)                                                                          \
  FERRY_SHMEM_DECL_CTX(void, iget##BITS, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,                 \
                       size_t nelems, int pe)                                                                          \
  FERRY_SHMEM_DECL_CTX(void, put##BITS##_nbi, void *dest, const void *source, size_t nelems, int pe)                   \
  FERRY_SHMEM_DECL_CTX(void, get##BITS##_nbi, void *dest, const void *source, size_t nelems, int pe)
FERRY_SHMEM_SIZES_RMA(FERRY_SHMEM_DECL_RMA_SIZED)
#undef FERRY_SHMEM_DECL_RMA_SIZED

/* Bytes. */
FERRY_SHMEM_DECL_CTX(void, putmem, void *dest, const void *source, size_t nelems, int pe)
FERRY_SHMEM_DECL_CTX(void, getmem, void *dest, const void *source, size_t nelems, int pe)
FERRY_SHMEM_DECL_CTX(void, putmem_nbi, void *dest, const void *source, size_t nelems, int pe)
FERRY_SHMEM_DECL_CTX(void, getmem_nbi, void *dest, const void *source, size_t nelems, int pe)

/* ==== Atomic memory operations =============================================================== */

/* The _nbi forms store the fetched value at `fetch` once the context is quiet. */
#define FERRY_SHMEM_DECL_AMO(T, N)                                                                                     \
  FERRY_SHMEM_DECL_CTX(T, N##_atomic_fetch_inc, T *dest, int pe)                                                       \
  FERRY_SHMEM_DECL_CTX(void, N##_atomic_inc, T *dest, int pe)                                                          \
  FERRY_SHMEM_DECL_CTX(T, N##_atomic_fetch_add, T *dest, T value, int pe)                                              \
  FERRY_SHMEM_DECL_CTX(void, N##_atomic_add, T *dest, T value, int pe)                                                 \
  FERRY_SHMEM_DECL_CTX(T, N##_atomic_compare_swap, T *dest, T cond, T value, int pe)                                   \
  FERRY_SHMEM_DECL_CTX(void, N##_atomic_fetch_inc_nbi, T *fetch, T *dest, int pe)                                      \
  FERRY_SHMEM_DECL_CTX(void, N##_atomic_fetch_add_nbi, T *fetch, T *dest, T value, int pe)                             \
  FERRY_SHMEM_DECL_CTX(void, N##_atomic_compare_swap_nbi, T *fetch, T *dest, T cond, T value, int pe)
FERRY_SHMEM_TYPES_AMO(FERRY_SHMEM_DECL_AMO)
#undef FERRY_SHMEM_DECL_AMO

#define FERRY_SHMEM_DECL_AMO_EXTENDED(T, N)                                                                            \
  FERRY_SHMEM_DECL_CTX(T, N##_atomic_fetch, const T *source, int pe)                                                   \
  FERRY_SHMEM_DECL_CTX(void, N##_atomic_set, T *dest, T value, int pe)                                                 \
  FERRY_SHMEM_DECL_CTX(T, N##_atomic_swap, T *dest, T value, int pe)                                                   \
  FERRY_SHMEM_DECL_CTX(void, N##_atomic_fetch_nbi, T *fetch, const T *source, int pe)                                  \
  FERRY_SHMEM_DECL_CTX(void, N##_atomic_swap_nbi, T *fetch, T *dest, T value, int pe)
FERRY_SHMEM_TYPES_AMO_EXTENDED(FERRY_SHMEM_DECL_AMO_EXTENDED)
#undef FERRY_SHMEM_DECL_AMO_EXTENDED

#define FERRY_SHMEM_DECL_AMO_BITWISE(T, N)                                                                             \
  FERRY_SHMEM_DECL_CTX(T, N##_atomic_fetch_and, T *dest, T value, int pe)                                              \
  FERRY_SHMEM_DECL_CTX(void, N##_atomic_and, T *dest, T value, int pe)                                                 \
  FERRY_SHMEM_DECL_CTX(T, N##_atomic_fetch_or, T *dest, T value, int pe)                                               \
  FERRY_SHMEM_DECL_CTX(void, N##_atomic_or, T *dest, T value, int pe)                                                  \
  FERRY_SHMEM_DECL_CTX(T, N##_atomic_fetch_xor, T *dest, T value, int pe)                                              \
  FERRY_SHMEM_DECL_CTX(void, N##_atomic_xor, T *dest, T value, int pe)                                                 \
  FERRY_SHMEM_DECL_CTX(void, N##_atomic_fetch_and_nbi, T *fetch, T *dest, T value, int pe)                             \
  FERRY_SHMEM_DECL_CTX(void, N##_atomic_fetch_or_nbi, T *fetch, T *dest, T value, int pe)                              \
  FERRY_SHMEM_DECL_CTX(void, N##_atomic_fetch_xor_nbi, T *fetch, T *dest, T value, int pe)
FERRY_SHMEM_TYPES_AMO_BITWISE(FERRY_SHMEM_DECL_AMO_BITWISE)
#undef FERRY_SHMEM_DECL_AMO_BITWISE

/* ==== Signaling operations ================================================================== */

/* Puts the data, then updates *sig_addr on `pe` with `signal` (sig_op: SHMEM_SIGNAL_SET or
 * SHMEM_SIGNAL_ADD) once the data is delivered. */
#define FERRY_SHMEM_DECL_SIGNAL(T, N)                                                                                  \
  FERRY_SHMEM_DECL_CTX(void, N##_put_signal, T *dest, const T *source, size_t nelems, uint64_t *sig_addr,              \
                       uint64_t signal, int sig_op, int pe)                                                            \
  FERRY_SHMEM_DECL_CTX(void, N##_put_signal_nbi, T *dest, const T *source, size_t nelems,                              \
                       uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
FERRY_SHMEM_TYPES_RMA(FERRY_SHMEM_DECL_SIGNAL)
#undef FERRY_SHMEM_DECL_SIGNAL

#define FERRY_SHMEM_DECL_SIGNAL_SIZED(BITS)                                                                            \
  FERRY_SHMEM_DECL_CTX(void, put##BITS##_signal, void *dest, const void *source, size_t nelems,                        \
                       uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)                                        \
  FERRY_SHMEM_DECL_CTX(void, put##BITS##_signal_nbi, void *dest, const void *source, size_t nelems,                    \
                       uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
FERRY_SHMEM_SIZES_RMA(FERRY_SHMEM_DECL_SIGNAL_SIZED)
#undef FERRY_SHMEM_DECL_SIGNAL_SIZED

FERRY_SHMEM_DECL_CTX(void, putmem_signal, void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                     uint64_t signal, int sig_op, int pe)
FERRY_SHMEM_DECL_CTX(void, putmem_signal_nbi, void *dest, const void *source, size_t nelems,
                     uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)

FERRY_SHMEM_API uint64_t shmem_signal_fetch(const uint64_t *sig_addr);
/* Waits until the local *sig_addr satisfies `cmp` against `cmp_value`; returns that value. */
FERRY_SHMEM_API uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* ==== Collectives ============================================================================ */

/* All return 0 on success, non-zero for SHMEM_TEAM_INVALID. Counts are in elements (bytes for
 * the *mem forms); PE_root is numbered in `team`. */
FERRY_SHMEM_API void shmem_barrier_all(void);
FERRY_SHMEM_API void shmem_sync_all(void);
FERRY_SHMEM_API int shmem_team_sync(shmem_team_t team);

#define FERRY_SHMEM_DECL_COLL(T, N)                                                                                    \
  FERRY_SHMEM_API int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems,                \
                                            int PE_root);                                                              \
  FERRY_SHMEM_API int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems);                 \
  FERRY_SHMEM_API int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems);                \
  FERRY_SHMEM_API int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems);                \
  FERRY_SHMEM_API int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst,                \
                                            ptrdiff_t sst, size_t nelems);
FERRY_SHMEM_TYPES_RMA(FERRY_SHMEM_DECL_COLL)
#undef FERRY_SHMEM_DECL_COLL

FERRY_SHMEM_API int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                                       int PE_root);
FERRY_SHMEM_API int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
FERRY_SHMEM_API int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
FERRY_SHMEM_API int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
FERRY_SHMEM_API int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                                       ptrdiff_t sst, size_t nelems);

/* Reductions: dest[i] = OP over the team of source[i], for i < nreduce. (The operation is
 * pasted onto TYPENAME before it goes further, here and below, so that a program's macro
 * named like a TYPENAME, uint say, cannot expand inside a routine's name.) */
#define FERRY_SHMEM_DECL_REDUCE(T, N_OP)                                                                               \
  FERRY_SHMEM_API int shmem_##N_OP##_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce);
#define FERRY_SHMEM_DECL_REDUCE_BITWISE(T, N)                                                                          \
  FERRY_SHMEM_DECL_REDUCE(T, N##_and) FERRY_SHMEM_DECL_REDUCE(T, N##_or) FERRY_SHMEM_DECL_REDUCE(T, N##_xor)
#define FERRY_SHMEM_DECL_REDUCE_MINMAX(T, N) FERRY_SHMEM_DECL_REDUCE(T, N##_max) FERRY_SHMEM_DECL_REDUCE(T, N##_min)
#define FERRY_SHMEM_DECL_REDUCE_ARITH(T, N) FERRY_SHMEM_DECL_REDUCE(T, N##_sum) FERRY_SHMEM_DECL_REDUCE(T, N##_prod)
FERRY_SHMEM_TYPES_REDUCE_BITWISE(FERRY_SHMEM_DECL_REDUCE_BITWISE)
FERRY_SHMEM_TYPES_REDUCE_MINMAX(FERRY_SHMEM_DECL_REDUCE_MINMAX)
FERRY_SHMEM_TYPES_REDUCE_ARITH(FERRY_SHMEM_DECL_REDUCE_ARITH)
#undef FERRY_SHMEM_DECL_REDUCE_BITWISE
#undef FERRY_SHMEM_DECL_REDUCE_MINMAX
#undef FERRY_SHMEM_DECL_REDUCE_ARITH
#undef FERRY_SHMEM_DECL_REDUCE

/* ==== Point-to-point synchronization ========================================================= */

/* The wait set is ivars[0..nelems) less the elements whose status[i] is non-zero (status may
 * be NULL). _any returns the index of one element that satisfies the comparison, SIZE_MAX for
 * an empty set (or, for test_any, when none does); _some stores the indices of those that do
 * in `indices` and returns their number; test_all returns 1 when every element does (and for
 * an empty set), test returns 1 when ivar does. The _vector forms compare ivars[i] with
 * cmp_values[i]. */
#define FERRY_SHMEM_DECL_P2P(T, N)                                                                                     \
  FERRY_SHMEM_API void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value);                                          \
  FERRY_SHMEM_API void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,                 \
                                                  T cmp_value);                                                        \
  FERRY_SHMEM_API size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,               \
                                                    T cmp_value);                                                      \
  FERRY_SHMEM_API size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,                         \
                                                     const int *status, int cmp, T cmp_value);                         \
  FERRY_SHMEM_API void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status,                   \
                                                         int cmp, T *cmp_values);                                      \
  FERRY_SHMEM_API size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status,                 \
                                                           int cmp, T *cmp_values);                                    \
  FERRY_SHMEM_API size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,                  \
                                                            const int *status, int cmp, T *cmp_values);                \
  FERRY_SHMEM_API int shmem_##N##_test(T *ivar, int cmp, T cmp_value);                                                 \
  FERRY_SHMEM_API int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp,                        \
                                           T cmp_value);                                                               \
  FERRY_SHMEM_API size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp,                     \
                                              T cmp_value);                                                            \
  FERRY_SHMEM_API size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices,                               \
                                               const int *status, int cmp, T cmp_value);                               \
  FERRY_SHMEM_API int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,                 \
                                                  T *cmp_values);                                                      \
  FERRY_SHMEM_API size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp,              \
                                                     T *cmp_values);                                                   \
  FERRY_SHMEM_API size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,                        \
                                                      const int *status, int cmp, T *cmp_values);
FERRY_SHMEM_TYPES_P2P(FERRY_SHMEM_DECL_P2P)
/* The short forms carry no deprecated attribute: the C11 names select among them, and a
 * compiler warns of every deprecated routine a _Generic lists, whichever it selects. */
FERRY_SHMEM_TYPES_P2P_DEPRECATED(FERRY_SHMEM_DECL_P2P)
#undef FERRY_SHMEM_DECL_P2P

/* ==== Memory ordering ======================================================================== */

/* For SHMEM_CTX_INVALID these do nothing. */
FERRY_SHMEM_API void shmem_fence(void);
FERRY_SHMEM_API void shmem_ctx_fence(shmem_ctx_t ctx);
FERRY_SHMEM_API void shmem_quiet(void);
FERRY_SHMEM_API void shmem_ctx_quiet(shmem_ctx_t ctx);

/* ==== Distributed locks: `lock` is a symmetric long, zero before first use ==================== */

FERRY_SHMEM_API void shmem_set_lock(long *lock);
FERRY_SHMEM_API void shmem_clear_lock(long *lock);
/* 0: the lock was free and is now held; 1: another PE holds it. */
FERRY_SHMEM_API int shmem_test_lock(long *lock);

/* ==== Profiling interface ==================================================================== */

/* Accepted for tools; the library itself does nothing with the level. */
FERRY_SHMEM_API void shmem_pcontrol(const int level, ...);

/* ==== Deprecated names ======================================================================= */

/* Setup and memory, before OpenSHMEM 1.2. */
FERRY_SHMEM_API FERRY_SHMEM_DEPRECATED void start_pes(int npes);
FERRY_SHMEM_API FERRY_SHMEM_DEPRECATED int _my_pe(void);
FERRY_SHMEM_API FERRY_SHMEM_DEPRECATED int _num_pes(void);
FERRY_SHMEM_API FERRY_SHMEM_DEPRECATED void *shmalloc(size_t size);
FERRY_SHMEM_API FERRY_SHMEM_DEPRECATED void shfree(void *ptr);
FERRY_SHMEM_API FERRY_SHMEM_DEPRECATED void *shrealloc(void *ptr, size_t size);
FERRY_SHMEM_API FERRY_SHMEM_DEPRECATED void *shmemalign(size_t alignment, size_t size);

/* Cache management: no caches to manage, so these do nothing. */
FERRY_SHMEM_API FERRY_SHMEM_DEPRECATED void shmem_clear_cache_inv(void);
FERRY_SHMEM_API FERRY_SHMEM_DEPRECATED void shmem_set_cache_inv(void);
FERRY_SHMEM_API FERRY_SHMEM_DEPRECATED void shmem_clear_cache_line_inv(void *dest);
FERRY_SHMEM_API FERRY_SHMEM_DEPRECATED void shmem_set_cache_line_inv(void *dest);
FERRY_SHMEM_API FERRY_SHMEM_DEPRECATED void shmem_udcflush(void);
FERRY_SHMEM_API FERRY_SHMEM_DEPRECATED void shmem_udcflush_line(void *dest);

/* AMO names before OpenSHMEM 1.4 (shmem_TYPE_atomic_*). */
#define FERRY_SHMEM_DECL_DEPRECATED_AMO(T, N)                                                                          \
  FERRY_SHMEM_API FERRY_SHMEM_DEPRECATED T shmem_##N##_fadd(T *dest, T value, int pe);                                 \
  FERRY_SHMEM_API FERRY_SHMEM_DEPRECATED T shmem_##N##_finc(T *dest, int pe);                                          \
  FERRY_SHMEM_API FERRY_SHMEM_DEPRECATED void shmem_##N##_add(T *dest, T value, int pe);                               \
  FERRY_SHMEM_API FERRY_SHMEM_DEPRECATED void shmem_##N##_inc(T *dest, int pe);                                        \
  FERRY_SHMEM_API FERRY_SHMEM_DEPRECATED T shmem_##N##_cswap(T *dest, T cond, T value, int pe);
#define FERRY_SHMEM_DECL_DEPRECATED_AMO_EXTENDED(T, N)                                                                 \
  FERRY_SHMEM_API FERRY_SHMEM_DEPRECATED T shmem_##N##_swap(T *dest, T value, int pe);                                 \
  FERRY_SHMEM_API FERRY_SHMEM_DEPRECATED T shmem_##N##_fetch(const T *source, int pe);                                 \
  FERRY_SHMEM_API FERRY_SHMEM_DEPRECATED void shmem_##N##_set(T *dest, T value, int pe);
FERRY_SHMEM_TYPES_DEPRECATED_AMO(FERRY_SHMEM_DECL_DEPRECATED_AMO)
FERRY_SHMEM_TYPES_DEPRECATED_AMO_EXTENDED(FERRY_SHMEM_DECL_DEPRECATED_AMO_EXTENDED)
#undef FERRY_SHMEM_DECL_DEPRECATED_AMO
#undef FERRY_SHMEM_DECL_DEPRECATED_AMO_EXTENDED
FERRY_SHMEM_API FERRY_SHMEM_DEPRECATED long shmem_swap(long *dest, long value, int pe);

/* Waits: shmem_TYPE_wait(ivar, v) is shmem_TYPE_wait_until(ivar, SHMEM_CMP_NE, v). */
#define FERRY_SHMEM_DECL_DEPRECATED_WAIT(T, N)                                                                         \
  FERRY_SHMEM_API FERRY_SHMEM_DEPRECATED void shmem_##N##_wait(T *ivar, T cmp_value);
FERRY_SHMEM_TYPES_DEPRECATED_WAIT(FERRY_SHMEM_DECL_DEPRECATED_WAIT)
#undef FERRY_SHMEM_DECL_DEPRECATED_WAIT
FERRY_SHMEM_API FERRY_SHMEM_DEPRECATED void shmem_wait(long *ivar, long cmp_value);
/* In C++ this is also the generic shmem_wait_until for long (shmem_cxx.h), not deprecated. */
#ifdef __cplusplus
FERRY_SHMEM_API void shmem_wait_until(long *ivar, int cmp, long cmp_value);
#else
FERRY_SHMEM_API FERRY_SHMEM_DEPRECATED void shmem_wait_until(long *ivar, int cmp, long cmp_value);
#endif

/* Active-set collectives: the PEs PE_start + i * 2^logPE_stride, i < PE_size. pSync and pWrk
 * are accepted and not used. The broadcasts leave the root's dest alone. */
FERRY_SHMEM_API FERRY_SHMEM_DEPRECATED void shmem_barrier(int PE_start, int logPE_stride, int PE_size,
                                                          long *pSync);
FERRY_SHMEM_API FERRY_SHMEM_DEPRECATED void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync);
#define FERRY_SHMEM_DECL_ACTIVE_SET(BITS)                                                                              \
  FERRY_SHMEM_API FERRY_SHMEM_DEPRECATED void shmem_broadcast##BITS(void *dest, const void *source,                    \
                                                                    size_t nelems, int PE_root,                        \
                                                                    int PE_start, int logPE_stride,                    \
                                                                    int PE_size, long *pSync);                         \
  FERRY_SHMEM_API FERRY_SHMEM_DEPRECATED void shmem_collect##BITS(void *dest, const void *source,                      \
                                                                  size_t nelems, int PE_start,                         \
                                                                  int logPE_stride, int PE_size,                       \
                                                                  long *pSync);                                        \
  FERRY_SHMEM_API FERRY_SHMEM_DEPRECATED void shmem_fcollect##BITS(void *dest, const void *source,                     \
                                                                   size_t nelems, int PE_start,                        \
                                                                   int logPE_stride, int PE_size,                      \
                                                                   long *pSync);                                       \
  FERRY_SHMEM_API FERRY_SHMEM_DEPRECATED void shmem_alltoall##BITS(void *dest, const void *source,                     \
                                                                   size_t nelems, int PE_start,                        \
                                                                   int logPE_stride, int PE_size,                      \
                                                                   long *pSync);                                       \
  FERRY_SHMEM_API FERRY_SHMEM_DEPRECATED void shmem_alltoalls##BITS(                                                   \
      void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int PE_start,                       \
      int logPE_stride, int PE_size, long *pSync);
FERRY_SHMEM_DECL_ACTIVE_SET(32)
FERRY_SHMEM_DECL_ACTIVE_SET(64)
#undef FERRY_SHMEM_DECL_ACTIVE_SET

#define FERRY_SHMEM_DECL_TO_ALL(T, N_OP)                                                                               \
  FERRY_SHMEM_API FERRY_SHMEM_DEPRECATED void shmem_##N_OP##_to_all(T *dest, const T *source, int nreduce,             \
                                                                    int PE_start, int logPE_stride, int PE_size,       \
                                                                    T *pWrk, long *pSync);
#define FERRY_SHMEM_DECL_TO_ALL_BITWISE(T, N)                                                                          \
  FERRY_SHMEM_DECL_TO_ALL(T, N##_and) FERRY_SHMEM_DECL_TO_ALL(T, N##_or) FERRY_SHMEM_DECL_TO_ALL(T, N##_xor)
#define FERRY_SHMEM_DECL_TO_ALL_MINMAX(T, N) FERRY_SHMEM_DECL_TO_ALL(T, N##_max) FERRY_SHMEM_DECL_TO_ALL(T, N##_min)
#define FERRY_SHMEM_DECL_TO_ALL_ARITH(T, N) FERRY_SHMEM_DECL_TO_ALL(T, N##_sum) FERRY_SHMEM_DECL_TO_ALL(T, N##_prod)
FERRY_SHMEM_TYPES_TO_ALL_BITWISE(FERRY_SHMEM_DECL_TO_ALL_BITWISE)
FERRY_SHMEM_TYPES_TO_ALL_MINMAX(FERRY_SHMEM_DECL_TO_ALL_MINMAX)
FERRY_SHMEM_TYPES_TO_ALL_ARITH(FERRY_SHMEM_DECL_TO_ALL_ARITH)
#undef FERRY_SHMEM_DECL_TO_ALL_BITWISE
#undef FERRY_SHMEM_DECL_TO_ALL_MINMAX
#undef FERRY_SHMEM_DECL_TO_ALL_ARITH
#undef FERRY_SHMEM_DECL_TO_ALL

#undef FERRY_SHMEM_DECL_CTX

#ifdef __cplusplus
} /* extern "C" */
#include "shmem_cxx.h"
#endif

/* ==== C11 type-generic names ================================================================= */

/* shmem_put(dest, source, nelems, pe) calls shmem_TYPENAME_put for dest's type, and
 * shmem_put(ctx, dest, ...) shmem_ctx_TYPENAME_put. The generic names cover the types that
 * are distinct in C (the fixed-width and size types are typedefs of them). A type outside a
 * family's table selects ferry_shmem_generic_no_match, which no call compiles against. */
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L

void ferry_shmem_generic_no_match(void);

/* The generic tables: X(TYPE, TYPENAME, SUFFIX), SUFFIX naming the routine ("_put"). */
#define FERRY_SHMEM_GENERIC_RMA(X, S)                                                                                  \
  X(float, float, S) X(double, double, S) X(long double, longdouble, S) X(char, char, S)                               \
  X(signed char, schar, S) X(short, short, S) X(int, int, S) X(long, long, S)                                          \
  X(long long, longlong, S) X(unsigned char, uchar, S) X(unsigned short, ushort, S)                                    \
  X(unsigned int, uint, S) X(unsigned long, ulong, S) X(unsigned long long, ulonglong, S)
#define FERRY_SHMEM_GENERIC_AMO(X, S)                                                                                  \
  X(int, int, S) X(long, long, S) X(long long, longlong, S) X(unsigned int, uint, S)                                   \
  X(unsigned long, ulong, S) X(unsigned long long, ulonglong, S)
#define FERRY_SHMEM_GENERIC_AMO_EXTENDED(X, S) X(float, float, S) X(double, double, S) FERRY_SHMEM_GENERIC_AMO(X, S)
#define FERRY_SHMEM_GENERIC_AMO_BITWISE(X, S)                                                                          \
  X(unsigned int, uint, S) X(unsigned long, ulong, S) X(unsigned long long, ulonglong, S)                              \
  X(int32_t, int32, S) X(int64_t, int64, S)
#define FERRY_SHMEM_GENERIC_P2P(X, S) FERRY_SHMEM_GENERIC_AMO(X, S) X(short, short, S) X(unsigned short, ushort, S)
#define FERRY_SHMEM_GENERIC_REDUCE_BITWISE(X, S)                                                                       \
  X(unsigned char, uchar, S) X(unsigned short, ushort, S) X(unsigned int, uint, S)                                     \
  X(unsigned long, ulong, S) X(unsigned long long, ulonglong, S) X(int8_t, int8, S)                                    \
  X(int16_t, int16, S) X(int32_t, int32, S) X(int64_t, int64, S)
#define FERRY_SHMEM_GENERIC_REDUCE_MINMAX(X, S) FERRY_SHMEM_GENERIC_RMA(X, S)
#if FERRY_SHMEM_HAVE_COMPLEX
#define FERRY_SHMEM_GENERIC_REDUCE_ARITH(X, S)                                                                         \
  FERRY_SHMEM_GENERIC_RMA(X, S) X(double _Complex, complexd, S) X(float _Complex, complexf, S)
#else
#define FERRY_SHMEM_GENERIC_REDUCE_ARITH(X, S) FERRY_SHMEM_GENERIC_RMA(X, S)
#endif
#define FERRY_SHMEM_GENERIC_DEPRECATED_AMO(X, S) X(int, int, S) X(long, long, S) X(long long, longlong, S)
#define FERRY_SHMEM_GENERIC_DEPRECATED_AMO_EXTENDED(X, S)                                                              \
  FERRY_SHMEM_GENERIC_DEPRECATED_AMO(X, S) X(float, float, S) X(double, double, S)
#define FERRY_SHMEM_GENERIC_DEPRECATED_WAIT(X, S) FERRY_SHMEM_GENERIC_DEPRECATED_AMO(X, S) X(short, short, S)

/* Associations: pointer to TYPE -> routine; the _RO forms also take pointers to const. */
#define FERRY_SHMEM_ASSOC(T, N, S) T *: shmem_##N##S,
#define FERRY_SHMEM_ASSOC_CTX(T, N, S) T *: shmem_ctx_##N##S,
#define FERRY_SHMEM_ASSOC_RO(T, N, S) T *: shmem_##N##S, const T *: shmem_##N##S,
#define FERRY_SHMEM_ASSOC_RO_CTX(T, N, S) T *: shmem_ctx_##N##S, const T *: shmem_ctx_##N##S,
#define FERRY_SHMEM_SELECT(TABLE, ASSOC, S, arg) _Generic((arg), TABLE(ASSOC, S) default: ferry_shmem_generic_no_match)

/* The first and second argument; the padding keeps "..." non-empty, as C99 requires. */
#define FERRY_SHMEM_ARG0(...) FERRY_SHMEM_ARG0_(__VA_ARGS__, ~)
#define FERRY_SHMEM_ARG0_(a, ...) a
#define FERRY_SHMEM_ARG1(...) FERRY_SHMEM_ARG1_(__VA_ARGS__, ~, ~)
#define FERRY_SHMEM_ARG1_(a, b, ...) b

/* A routine with a ctx-first twin: the type comes from the first argument, or from the
 * second where the first is a context. */
#define FERRY_SHMEM_GENERIC_CTX(TABLE, ASSOC, ASSOC_CTX, S, ...)                                                       \
  _Generic(FERRY_SHMEM_ARG0(__VA_ARGS__),                                                                              \
      shmem_ctx_t: FERRY_SHMEM_SELECT(TABLE, ASSOC_CTX, S, FERRY_SHMEM_ARG1(__VA_ARGS__)),                             \
      default: FERRY_SHMEM_SELECT(TABLE, ASSOC, S, FERRY_SHMEM_ARG0(__VA_ARGS__)))(__VA_ARGS__)
#define FERRY_SHMEM_RW(TABLE, S, ...)                                                                                  \
  FERRY_SHMEM_GENERIC_CTX(TABLE, FERRY_SHMEM_ASSOC, FERRY_SHMEM_ASSOC_CTX, S, __VA_ARGS__)
#define FERRY_SHMEM_RO(TABLE, S, ...)                                                                                  \
  FERRY_SHMEM_GENERIC_CTX(TABLE, FERRY_SHMEM_ASSOC_RO, FERRY_SHMEM_ASSOC_RO_CTX, S, __VA_ARGS__)
/* A routine without a context form, typed by its first or (after the team) second argument. */
#define FERRY_SHMEM_ON_ARG0(TABLE, S, ...)                                                                             \
  FERRY_SHMEM_SELECT(TABLE, FERRY_SHMEM_ASSOC, S, FERRY_SHMEM_ARG0(__VA_ARGS__))(__VA_ARGS__)
#define FERRY_SHMEM_ON_ARG1(TABLE, S, ...)                                                                             \
  FERRY_SHMEM_SELECT(TABLE, FERRY_SHMEM_ASSOC, S, FERRY_SHMEM_ARG1(__VA_ARGS__))(__VA_ARGS__)

/* RMA */
#define shmem_put(...) FERRY_SHMEM_RW(FERRY_SHMEM_GENERIC_RMA, _put, __VA_ARGS__)
#define shmem_get(...) FERRY_SHMEM_RW(FERRY_SHMEM_GENERIC_RMA, _get, __VA_ARGS__)
#define shmem_p(...) FERRY_SHMEM_RW(FERRY_SHMEM_GENERIC_RMA, _p, __VA_ARGS__)
#define shmem_g(...) FERRY_SHMEM_RO(FERRY_SHMEM_GENERIC_RMA, _g, __VA_ARGS__)
#define shmem_iput(...) FERRY_SHMEM_RW(FERRY_SHMEM_GENERIC_RMA, _iput, __VA_ARGS__)
#define shmem_iget(...) FERRY_SHMEM_RW(FERRY_SHMEM_GENERIC_RMA, _iget, __VA_ARGS__)
#define shmem_put_nbi(...) FERRY_SHMEM_RW(FERRY_SHMEM_GENERIC_RMA, _put_nbi, __VA_ARGS__)
#define shmem_get_nbi(...) FERRY_SHMEM_RW(FERRY_SHMEM_GENERIC_RMA, _get_nbi, __VA_ARGS__)

/* AMO */
#define shmem_atomic_fetch(...) FERRY_SHMEM_RO(FERRY_SHMEM_GENERIC_AMO_EXTENDED, _atomic_fetch, __VA_ARGS__)
#define shmem_atomic_set(...) FERRY_SHMEM_RW(FERRY_SHMEM_GENERIC_AMO_EXTENDED, _atomic_set, __VA_ARGS__)
#define shmem_atomic_swap(...) FERRY_SHMEM_RW(FERRY_SHMEM_GENERIC_AMO_EXTENDED, _atomic_swap, __VA_ARGS__)
#define shmem_atomic_compare_swap(...) FERRY_SHMEM_RW(FERRY_SHMEM_GENERIC_AMO, _atomic_compare_swap, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...) FERRY_SHMEM_RW(FERRY_SHMEM_GENERIC_AMO, _atomic_fetch_inc, __VA_ARGS__)
#define shmem_atomic_inc(...) FERRY_SHMEM_RW(FERRY_SHMEM_GENERIC_AMO, _atomic_inc, __VA_ARGS__)
#define shmem_atomic_fetch_add(...) FERRY_SHMEM_RW(FERRY_SHMEM_GENERIC_AMO, _atomic_fetch_add, __VA_ARGS__)
#define shmem_atomic_add(...) FERRY_SHMEM_RW(FERRY_SHMEM_GENERIC_AMO, _atomic_add, __VA_ARGS__)
#define shmem_atomic_fetch_and(...) FERRY_SHMEM_RW(FERRY_SHMEM_GENERIC_AMO_BITWISE, _atomic_fetch_and, __VA_ARGS__)
#define shmem_atomic_and(...) FERRY_SHMEM_RW(FERRY_SHMEM_GENERIC_AMO_BITWISE, _atomic_and, __VA_ARGS__)
#define shmem_atomic_fetch_or(...) FERRY_SHMEM_RW(FERRY_SHMEM_GENERIC_AMO_BITWISE, _atomic_fetch_or, __VA_ARGS__)
#define shmem_atomic_or(...) FERRY_SHMEM_RW(FERRY_SHMEM_GENERIC_AMO_BITWISE, _atomic_or, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...) FERRY_SHMEM_RW(FERRY_SHMEM_GENERIC_AMO_BITWISE, _atomic_fetch_xor, __VA_ARGS__)
#define shmem_atomic_xor(...) FERRY_SHMEM_RW(FERRY_SHMEM_GENERIC_AMO_BITWISE, _atomic_xor, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(...)                                                                                    \
  FERRY_SHMEM_RW(FERRY_SHMEM_GENERIC_AMO_EXTENDED, _atomic_fetch_nbi, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...) FERRY_SHMEM_RW(FERRY_SHMEM_GENERIC_AMO_EXTENDED, _atomic_swap_nbi, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...)                                                                             \
  FERRY_SHMEM_RW(FERRY_SHMEM_GENERIC_AMO, _atomic_compare_swap_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...) FERRY_SHMEM_RW(FERRY_SHMEM_GENERIC_AMO, _atomic_fetch_inc_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...) FERRY_SHMEM_RW(FERRY_SHMEM_GENERIC_AMO, _atomic_fetch_add_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...)                                                                                \
  FERRY_SHMEM_RW(FERRY_SHMEM_GENERIC_AMO_BITWISE, _atomic_fetch_and_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...)                                                                                 \
  FERRY_SHMEM_RW(FERRY_SHMEM_GENERIC_AMO_BITWISE, _atomic_fetch_or_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...)                                                                                \
  FERRY_SHMEM_RW(FERRY_SHMEM_GENERIC_AMO_BITWISE, _atomic_fetch_xor_nbi, __VA_ARGS__)

/* Signaling */
#define shmem_put_signal(...) FERRY_SHMEM_RW(FERRY_SHMEM_GENERIC_RMA, _put_signal, __VA_ARGS__)
#define shmem_put_signal_nbi(...) FERRY_SHMEM_RW(FERRY_SHMEM_GENERIC_RMA, _put_signal_nbi, __VA_ARGS__)

/* Collectives: typed by dest, the argument after the team. shmem_sync(team) is
 * shmem_team_sync; with four arguments it is the deprecated active-set routine. */
#define shmem_broadcast(...) FERRY_SHMEM_ON_ARG1(FERRY_SHMEM_GENERIC_RMA, _broadcast, __VA_ARGS__)
#define shmem_collect(...) FERRY_SHMEM_ON_ARG1(FERRY_SHMEM_GENERIC_RMA, _collect, __VA_ARGS__)
#define shmem_fcollect(...) FERRY_SHMEM_ON_ARG1(FERRY_SHMEM_GENERIC_RMA, _fcollect, __VA_ARGS__)
#define shmem_alltoall(...) FERRY_SHMEM_ON_ARG1(FERRY_SHMEM_GENERIC_RMA, _alltoall, __VA_ARGS__)
#define shmem_alltoalls(...) FERRY_SHMEM_ON_ARG1(FERRY_SHMEM_GENERIC_RMA, _alltoalls, __VA_ARGS__)
#define shmem_and_reduce(...) FERRY_SHMEM_ON_ARG1(FERRY_SHMEM_GENERIC_REDUCE_BITWISE, _and_reduce, __VA_ARGS__)
#define shmem_or_reduce(...) FERRY_SHMEM_ON_ARG1(FERRY_SHMEM_GENERIC_REDUCE_BITWISE, _or_reduce, __VA_ARGS__)
#define shmem_xor_reduce(...) FERRY_SHMEM_ON_ARG1(FERRY_SHMEM_GENERIC_REDUCE_BITWISE, _xor_reduce, __VA_ARGS__)
#define shmem_max_reduce(...) FERRY_SHMEM_ON_ARG1(FERRY_SHMEM_GENERIC_REDUCE_MINMAX, _max_reduce, __VA_ARGS__)
#define shmem_min_reduce(...) FERRY_SHMEM_ON_ARG1(FERRY_SHMEM_GENERIC_REDUCE_MINMAX, _min_reduce, __VA_ARGS__)
#define shmem_sum_reduce(...) FERRY_SHMEM_ON_ARG1(FERRY_SHMEM_GENERIC_REDUCE_ARITH, _sum_reduce, __VA_ARGS__)
#define shmem_prod_reduce(...) FERRY_SHMEM_ON_ARG1(FERRY_SHMEM_GENERIC_REDUCE_ARITH, _prod_reduce, __VA_ARGS__)
#define shmem_sync(...)                                                                                                \
  FERRY_SHMEM_ARG4_(__VA_ARGS__, shmem_sync, shmem_sync, shmem_sync, shmem_team_sync, ~)(__VA_ARGS__)
#define FERRY_SHMEM_ARG4_(a, b, c, d, e, ...) e

/* Point-to-point synchronization */
#define shmem_wait_until(...) FERRY_SHMEM_ON_ARG0(FERRY_SHMEM_GENERIC_P2P, _wait_until, __VA_ARGS__)
#define shmem_wait_until_all(...) FERRY_SHMEM_ON_ARG0(FERRY_SHMEM_GENERIC_P2P, _wait_until_all, __VA_ARGS__)
#define shmem_wait_until_any(...) FERRY_SHMEM_ON_ARG0(FERRY_SHMEM_GENERIC_P2P, _wait_until_any, __VA_ARGS__)
#define shmem_wait_until_some(...) FERRY_SHMEM_ON_ARG0(FERRY_SHMEM_GENERIC_P2P, _wait_until_some, __VA_ARGS__)
#define shmem_wait_until_all_vector(...)                                                                               \
  FERRY_SHMEM_ON_ARG0(FERRY_SHMEM_GENERIC_P2P, _wait_until_all_vector, __VA_ARGS__)
#define shmem_wait_until_any_vector(...)                                                                               \
  FERRY_SHMEM_ON_ARG0(FERRY_SHMEM_GENERIC_P2P, _wait_until_any_vector, __VA_ARGS__)
#define shmem_wait_until_some_vector(...)                                                                              \
  FERRY_SHMEM_ON_ARG0(FERRY_SHMEM_GENERIC_P2P, _wait_until_some_vector, __VA_ARGS__)
#define shmem_test(...) FERRY_SHMEM_ON_ARG0(FERRY_SHMEM_GENERIC_P2P, _test, __VA_ARGS__)
#define shmem_test_all(...) FERRY_SHMEM_ON_ARG0(FERRY_SHMEM_GENERIC_P2P, _test_all, __VA_ARGS__)
#define shmem_test_any(...) FERRY_SHMEM_ON_ARG0(FERRY_SHMEM_GENERIC_P2P, _test_any, __VA_ARGS__)
#define shmem_test_some(...) FERRY_SHMEM_ON_ARG0(FERRY_SHMEM_GENERIC_P2P, _test_some, __VA_ARGS__)
#define shmem_test_all_vector(...) FERRY_SHMEM_ON_ARG0(FERRY_SHMEM_GENERIC_P2P, _test_all_vector, __VA_ARGS__)
#define shmem_test_any_vector(...) FERRY_SHMEM_ON_ARG0(FERRY_SHMEM_GENERIC_P2P, _test_any_vector, __VA_ARGS__)
#define shmem_test_some_vector(...) FERRY_SHMEM_ON_ARG0(FERRY_SHMEM_GENERIC_P2P, _test_some_vector, __VA_ARGS__)

/* Deprecated generic names (OpenSHMEM 1.3). */
#define shmem_wait(...) FERRY_SHMEM_ON_ARG0(FERRY_SHMEM_GENERIC_DEPRECATED_WAIT, _wait, __VA_ARGS__)
#define shmem_fadd(...) FERRY_SHMEM_ON_ARG0(FERRY_SHMEM_GENERIC_DEPRECATED_AMO, _fadd, __VA_ARGS__)
#define shmem_finc(...) FERRY_SHMEM_ON_ARG0(FERRY_SHMEM_GENERIC_DEPRECATED_AMO, _finc, __VA_ARGS__)
#define shmem_add(...) FERRY_SHMEM_ON_ARG0(FERRY_SHMEM_GENERIC_DEPRECATED_AMO, _add, __VA_ARGS__)
#define shmem_inc(...) FERRY_SHMEM_ON_ARG0(FERRY_SHMEM_GENERIC_DEPRECATED_AMO, _inc, __VA_ARGS__)
#define shmem_cswap(...) FERRY_SHMEM_ON_ARG0(FERRY_SHMEM_GENERIC_DEPRECATED_AMO, _cswap, __VA_ARGS__)
#define shmem_swap(...) FERRY_SHMEM_ON_ARG0(FERRY_SHMEM_GENERIC_DEPRECATED_AMO_EXTENDED, _swap, __VA_ARGS__)
#define shmem_set(...) FERRY_SHMEM_ON_ARG0(FERRY_SHMEM_GENERIC_DEPRECATED_AMO_EXTENDED, _set, __VA_ARGS__)
#define shmem_fetch(...)                                                                                               \
  FERRY_SHMEM_SELECT(FERRY_SHMEM_GENERIC_DEPRECATED_AMO_EXTENDED, FERRY_SHMEM_ASSOC_RO, _fetch,                        \
                     FERRY_SHMEM_ARG0(__VA_ARGS__))(__VA_ARGS__)

#endif /* C11 */

#endif /* FERRY_SHMEM_H */
