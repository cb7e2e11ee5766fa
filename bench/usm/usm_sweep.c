/* ferry_usm_sweep: what unified shared memory costs a kernel, per access pattern.
 *
 * With `requires unified_shared_memory` a kernel dereferences the host's memory directly.
 * Under the stock host plugin that is plain memory; under Ferry, a device of another rank
 * pages it in on first touch and writes back what changed (src/service/host_pager.h), so the
 * cost depends on how many pages a kernel touches and in what order. Each pattern below is
 * one kernel over a host buffer (the byte patterns add 1 to bytes; the double patterns change
 * most bytes of each element but not all, as arithmetic on doubles does: the exponent byte
 * stays); the program prints one CSV line per pattern:
 *   pattern,bytes,stride,pages_touched,best_ms,median_ms
 * and checks every byte the kernels changed (exit 1 on a mismatch). run_usm.py runs it with
 * the stock plugin and under `ferry run`, and reports Ferry / stock. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#pragma omp requires unified_shared_memory

typedef enum { BYTES, SCALE, TRIAD } kind;

typedef struct {
  const char* name;
  size_t bytes;  /* all the arrays the kernel touches */
  size_t stride; /* BYTES: the kernel adds 1 to every stride-th byte; else 8, an element */
  kind kind;
} pattern;

static const pattern kPatterns[] = {
    {"one_page", 4096, 1, BYTES},          /* the fixed cost of a kernel that touches host memory */
    {"rewrite_1M", 1 << 20, 1, BYTES},     /* every byte: a sweep */
    {"rewrite_16M", 16 << 20, 1, BYTES},
    {"byte_per_page_16M", 16 << 20, 4096, BYTES},    /* a sweep that does little per page */
    {"byte_per_64K_16M", 16 << 20, 65536, BYTES},    /* scattered: one page in 16 */
    {"scale_doubles_1M", 1 << 20, 8, SCALE},          /* x[i] *= s: 7 of 8 bytes change */
    {"triad_doubles_3x4M", 12 << 20, 8, TRIAD},       /* STREAM's a[i] = b[i] + s * c[i] */
};

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* One kernel: add 1 to every stride-th byte of buf. */
static void sweep(unsigned char* buf, size_t bytes, size_t stride) {
#pragma omp target
  for (size_t i = 0; i < bytes; i += stride) buf[i] += 1;
}

/* One kernel over doubles: SCALE rewrites x (n elements); TRIAD writes x from the two arrays
 * that follow it. `s` differs per call, so that every call changes the elements. */
static void doubles(double* x, size_t n, kind k, double s) {
  double *b = x + n, *c = x + 2 * n;
  if (k == SCALE) {
#pragma omp target
    for (size_t i = 0; i < n; ++i) x[i] *= s;
  } else {
#pragma omp target
    for (size_t i = 0; i < n; ++i) x[i] = b[i] + s * c[i];
  }
}

static double factor(int call) { return 1.0 + 1e-7 * (call + 1); }

/* The double patterns: the kernels, then the host's own arithmetic over a copy of the
 * starting values, which must agree bit for bit (the same x86_64 code on both sides).
 * Returns the wrong elements, or (size_t)-1 when out of memory. */
static size_t run_doubles(const pattern* p, int reps, double* ms) {
  size_t arrays = p->kind == TRIAD ? 3 : 1, n = p->bytes / sizeof(double) / arrays;
  double* x = malloc(p->bytes);
  double* want = malloc(p->bytes);
  if (!x || !want) {
    free(x);
    free(want);
    return fprintf(stderr, "ferry_usm_sweep: out of memory\n"), (size_t)-1;
  }
  for (size_t i = 0; i < n * arrays; ++i) x[i] = 1000.0 + (double)(i % 977) * 0.37;
  memcpy(want, x, p->bytes);
  for (int call = 0; call <= reps; ++call) { /* call 0: the warm-up */
    double t = omp_get_wtime();
    doubles(x, n, p->kind, factor(call));
    if (call) ms[call - 1] = (omp_get_wtime() - t) * 1e3;
    for (size_t i = 0; i < n; ++i) want[i] = p->kind == SCALE ? want[i] * factor(call) : want[n + i] + factor(call) * want[2 * n + i];
  }
  size_t bad = 0;
  for (size_t i = 0; i < n * arrays; ++i) bad += memcmp(&x[i], &want[i], sizeof(double)) != 0;
  free(x);
  free(want);
  return bad;
}

/* The byte patterns: the kernels, then every byte checked. Returns the wrong bytes, or
 * (size_t)-1 when out of memory. */
static size_t run_bytes(const pattern* p, int reps, double* ms) {
  unsigned char* buf = malloc(p->bytes);
  if (!buf) return fprintf(stderr, "ferry_usm_sweep: out of memory\n"), (size_t)-1;
  memset(buf, 1, p->bytes);
  sweep(buf, p->bytes, p->stride); /* warm-up: the kernel's image and first-touch costs */
  for (int r = 0; r < reps; ++r) {
    double t = omp_get_wtime();
    sweep(buf, p->bytes, p->stride);
    ms[r] = (omp_get_wtime() - t) * 1e3;
  }
  size_t bad = 0;
  for (size_t i = 0; i < p->bytes; ++i) bad += buf[i] != (unsigned char)(i % p->stride == 0 ? 2 + reps : 1);
  free(buf);
  return bad;
}

static int run(const pattern* p, int reps) {
  double* ms = malloc(sizeof(double) * (size_t)reps);
  if (!ms) return fprintf(stderr, "ferry_usm_sweep: out of memory\n"), -1;
  size_t bad = p->kind == BYTES ? run_bytes(p, reps, ms) : run_doubles(p, reps, ms);
  if (bad == (size_t)-1) {
    free(ms);
    return -1;
  }
  qsort(ms, (size_t)reps, sizeof(double), cmp);
  size_t pages = (p->bytes + 4095) / 4096;
  if (p->stride > 4096) pages = (p->bytes + p->stride - 1) / p->stride;
  printf("%s,%zu,%zu,%zu,%.4f,%.4f\n", p->name, p->bytes, p->stride, pages, ms[0], ms[reps / 2]);
  fflush(stdout);
  free(ms);
  if (bad) fprintf(stderr, "ferry_usm_sweep: %s: %zu %s wrong after the kernels\n", p->name, bad,
                   p->kind == BYTES ? "bytes" : "elements");
  return bad ? -1 : 0;
}

int main(int argc, char** argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 10;
  if (reps < 1) return fprintf(stderr, "usage: ferry_usm_sweep [REPETITIONS >= 1]\n"), 2;
  int failed = 0;
  printf("pattern,bytes,stride,pages_touched,best_ms,median_ms\n");
  for (size_t i = 0; i < sizeof kPatterns / sizeof kPatterns[0]; ++i) failed |= run(&kPatterns[i], reps) != 0;
  return failed;
}
