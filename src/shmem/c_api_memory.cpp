// The C entry points of the symmetric heap. Every allocation is collective over the world
// team; the core checks that and reports a mismatch.
#include "shmem/c_api_types.h"

extern "C" {

void* shmem_malloc(size_t size) { return core::malloc(size, "shmem_malloc"); }

void* shmem_calloc(size_t count, size_t size) { return core::calloc(count, size); }

void* shmem_align(size_t alignment, size_t size) { return core::align(alignment, size); }

void* shmem_realloc(void* ptr, size_t size) { return core::realloc(ptr, size); }

void shmem_free(void* ptr) { core::free(ptr); }

// The hints only promise how the memory will be used; one heap serves every use.
void* shmem_malloc_with_hints(size_t size, long) { return core::malloc(size, "shmem_malloc_with_hints"); }

}  // extern "C"
