/* Contexts complete apart: on 3 PEs, each on its own virtual node (so every transfer of PE 0
 * is MPI-3 RMA), PE 0 puts to PE 1 on context A and to PE 2 on context B, without waiting.
 * Quiet on A must flush PE 1 alone, quiet on B PE 2 alone, and the default context, which
 * issued nothing, nothing: with FERRY_LOG=debug,shmem the library logs each flushing quiet
 * (src/shmem/amo.cpp), which the test reads. A library whose contexts shared one record
 * would flush "several" PEs at A's quiet and nothing at B's. The data is checked too. */
#include <shmem.h>
#include <stdio.h>
#include <string.h>

#define BYTES (256 * 1024)

static int gBad, gAnyBad; /* symmetric */

static unsigned char pattern(int to, size_t i) { return (unsigned char)(i * 31 + (size_t)to * 7 + 1); }

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  unsigned char* buf = shmem_malloc(BYTES);
  static unsigned char src[3][BYTES];
  if (n != 3 || !buf) {
    fprintf(stderr, "ctx_quiet: needs 3 PEs and a %d B block (have %d PEs)\n", BYTES, n);
    shmem_global_exit(2);
  }
  memset(buf, 0, BYTES);
  shmem_barrier_all();
  if (me == 0) {
    shmem_ctx_t a, b;
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &a) || shmem_ctx_create(SHMEM_CTX_PRIVATE, &b)) {
      fprintf(stderr, "ctx_quiet: shmem_ctx_create failed\n");
      shmem_global_exit(2);
    }
    for (int to = 1; to <= 2; ++to)
      for (size_t i = 0; i < BYTES; ++i) src[to][i] = pattern(to, i);
    printf("ctx_quiet: context A %p puts to PE 1, context B %p to PE 2\n", (void*)a, (void*)b);
    fflush(stdout);
    shmem_ctx_putmem_nbi(a, buf, src[1], BYTES, 1);
    shmem_ctx_putmem_nbi(b, buf, src[2], BYTES, 2);
    shmem_ctx_quiet(a);
    shmem_ctx_quiet(b);
    shmem_quiet();
    shmem_ctx_destroy(a);
    shmem_ctx_destroy(b);
  }
  shmem_barrier_all();
  if (me > 0)
    for (size_t i = 0; i < BYTES; ++i)
      if (buf[i] != pattern(me, i)) {
        fprintf(stderr, "ctx_quiet: PE %d: byte %zu is %d, expected %d\n", me, i, buf[i], pattern(me, i));
        gBad = 1;
        break;
      }
  shmem_int_max_reduce(SHMEM_TEAM_WORLD, &gAnyBad, &gBad, 1);
  if (me == 0 && !gAnyBad) printf("ctx_quiet: the data arrived on PEs 1 and 2\n");
  shmem_free(buf);
  shmem_finalize();
  return gAnyBad;
}
