/* Ferry's extensions to OpenSHMEM. Not part of the standard: a program that uses them
 * includes this header itself (shmem.h does not). */
#ifndef FERRY_SHMEMX_H
#define FERRY_SHMEMX_H

#include "shmem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- where the symmetric heap lives -------------------------------------------------------
 * Host memory is the default, and the only kind this build offers: shmemx_heap_on_host
 * returns 0, and shmemx_heap_on_device logs why it cannot and returns non-zero, leaving the
 * heap in host memory. A CUDA-aware build will place the heap in device memory. */
FERRY_SHMEM_API int shmemx_heap_on_device(void);
FERRY_SHMEM_API int shmemx_heap_on_host(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* FERRY_SHMEMX_H */
