/* stencil2d: a 2D Jacobi (5-point) heat stencil on an N x N grid, the first OpenSHMEM proxy
 * app (docs/shmem.md, "Proxy apps").
 *
 *   oshrun -n P pgas_stencil2d [N [ITERS]] [--corrupt]
 *
 * The rows are split into P contiguous blocks (the first N % P PEs get one row more). Each
 * iteration a PE puts its first owned row into the halo of the PE above and its last into the
 * halo of the PE below with shmem_putmem_signal_nbi, the signal set to the iteration number;
 * the receiver waits with shmem_signal_wait_until(sig, SHMEM_CMP_GE, iter), so no barrier is
 * needed per iteration. The boundary (row 0, row N-1, column 0, column N-1) is fixed.
 *
 * At the end PE 0 runs the same algorithm serially (the same update function, so the same
 * floating-point operations per point), fetches every PE's block with shmem_getmem and
 * requires bitwise equality; the checksum (the result's sum, in row order) is printed for the
 * record.
 * --corrupt changes one value of the distributed result before the check, to show that the
 * check fails (exit 1). Prints one line:
 *   stencil2d pes=4 n=1024 iters=100 seconds=0.123 mlups=850.1 checksum=... verified=yes */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
  long n, iters;
  int corrupt;
} options;

/* This PE's block: global rows [lo, lo + rows); symmetric buffers sized for the largest block. */
typedef struct {
  int me, npes;
  long n, lo, rows, max_rows;
  double *u, *v;     /* the block, current and next (symmetric: PE 0 reads them at the end) */
  double *halo;      /* [parity][above|below][n], symmetric: see exchange() for why two parities */
  uint64_t *sig;     /* [above|below]: the last iteration whose halo row arrived */
} block;

enum { ABOVE = 0, BELOW = 1 };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A whole-number argument in [lo, hi], or -1 (the caller reports it). */
static long parse_long(const char *s, long lo, long hi) {
  char *end;
  long v = strtol(s, &end, 10);
  return (*s && !*end && v >= lo && v <= hi) ? v : -1;
}

/* 0 when the arguments are good; else the message is printed by PE 0 and the result is 2. */
static int parse(options *o, int argc, char **argv) {
  int positional = 0;
  o->n = 1024;
  o->iters = 100;
  for (int i = 1; i < argc; ++i) {
    long *slot = positional == 0 ? &o->n : &o->iters;
    if (!strcmp(argv[i], "--corrupt")) o->corrupt = 1;
    else if (positional < 2 && (*slot = parse_long(argv[i], positional ? 1 : 3, 1L << 20)) > 0) ++positional;
    else {
      if (shmem_my_pe() == 0)
        fprintf(stderr, "stencil2d: bad argument '%s'\nusage: %s [N (3..1048576, default 1024) "
                "[ITERS (1..1048576, default 100)]] [--corrupt]\n", argv[i], argv[0]);
      return 2;
    }
  }
  if (o->n < shmem_n_pes()) {
    if (shmem_my_pe() == 0)
      fprintf(stderr, "stencil2d: N = %ld rows cannot be split over %d PEs (at least one row each)\n", o->n,
              shmem_n_pes());
    return 2;
  }
  return 0;
}

/* The boundary and start values; interior points start at 0. Any deterministic field will
 * do: this one is not symmetric, so that a row or column swapped by mistake shows. */
static double initial(long i, long j, long n) {
  if (i == 0 || j == 0 || i == n - 1 || j == n - 1) return (double)((i * 31 + j * 17) % 97) / 97.0;
  return 0.0;
}

/* The one update, used by the parallel and the serial code alike: the same operations in the
 * same order per point (and no multiply-add to contract), so the results are bitwise equal. */
static void update_row(double *out, const double *up, const double *mid, const double *down, long n) {
  for (long j = 1; j < n - 1; ++j) out[j] = 0.25 * (up[j] + down[j] + mid[j - 1] + mid[j + 1]);
}

static double *halo_row(const block *b, long iter, int side) { return b->halo + ((iter & 1) * 2 + side) * b->n; }

/* The rows of PE p: [*lo, *lo + *rows); the first n % npes PEs get one row more. */
static void block_of(long n, int npes, int p, long *lo, long *rows) {
  long base = n / npes, extra = n % npes;
  *rows = base + (p < extra);
  *lo = p * base + (p < extra ? p : extra);
}

static int setup(block *b, long n) {
  b->me = shmem_my_pe();
  b->npes = shmem_n_pes();
  b->n = n;
  block_of(n, b->npes, b->me, &b->lo, &b->rows);
  b->max_rows = n / b->npes + (n % b->npes > 0);
  size_t block_bytes = (size_t)b->max_rows * (size_t)n * sizeof(double);
  b->u = shmem_malloc(block_bytes);
  b->v = shmem_malloc(block_bytes);
  b->halo = shmem_malloc(4 * (size_t)n * sizeof(double));
  b->sig = shmem_calloc(2, sizeof(uint64_t));
  if (!b->u || !b->v || !b->halo || !b->sig) {
    if (b->me == 0)
      fprintf(stderr, "stencil2d: cannot allocate 2 x %zu B of symmetric heap (raise SHMEM_SYMMETRIC_SIZE)\n",
              block_bytes);
    return 2;
  }
  for (long r = 0; r < b->rows; ++r)
    for (long j = 0; j < n; ++j) b->u[r * n + j] = b->v[r * n + j] = initial(b->lo + r, j, n);
  return 0;
}

/* Sends this PE's edge rows of iteration `iter` to its neighbours.
 *
 * Buffer reuse: the halos are double-buffered by the parity of the iteration, with no
 * acknowledgement. The put of iteration k goes to parity k&1 on the neighbour; the neighbour
 * last read that buffer in iteration k-2. We reach iteration k only after our wait for the
 * neighbour's signal k-1, and the neighbour sends k-1 only after it finished computing k-2,
 * so its reads of that buffer are done. One buffer would not do: the neighbour may still be
 * computing k-1 from it when our put of k arrives. */
static void exchange(const block *b, long iter) {
  const double *first = b->u, *last = b->u + (b->rows - 1) * b->n;
  size_t bytes = (size_t)b->n * sizeof(double);
  if (b->me > 0)
    shmem_putmem_signal_nbi(halo_row(b, iter, BELOW), first, bytes, &b->sig[BELOW], (uint64_t)iter, SHMEM_SIGNAL_SET,
                            b->me - 1);
  if (b->me < b->npes - 1)
    shmem_putmem_signal_nbi(halo_row(b, iter, ABOVE), last, bytes, &b->sig[ABOVE], (uint64_t)iter, SHMEM_SIGNAL_SET,
                            b->me + 1);
}

/* Updates local row r (global lo + r) of iteration `iter`, unless it is on the boundary. */
static void compute_row(const block *b, long iter, long r) {
  long g = b->lo + r, n = b->n;
  if (g == 0 || g == n - 1) return;
  const double *up = r > 0 ? b->u + (r - 1) * n : halo_row(b, iter, ABOVE);
  const double *down = r < b->rows - 1 ? b->u + (r + 1) * n : halo_row(b, iter, BELOW);
  update_row(b->v + r * n, up, b->u + r * n, down, n);
}

/* One iteration: send the edge rows, compute the rows that need no halo while they travel,
 * then wait for each halo and compute the edge rows. */
static void iterate(block *b, long iter) {
  exchange(b, iter);
  for (long r = 1; r < b->rows - 1; ++r) compute_row(b, iter, r);
  if (b->me > 0) shmem_signal_wait_until(&b->sig[ABOVE], SHMEM_CMP_GE, (uint64_t)iter);
  if (b->me < b->npes - 1) shmem_signal_wait_until(&b->sig[BELOW], SHMEM_CMP_GE, (uint64_t)iter);
  compute_row(b, iter, 0);
  if (b->rows > 1) compute_row(b, iter, b->rows - 1);
  /* The puts read rows of u, which the next iteration overwrites (u and v swap). */
  shmem_quiet();
  double *t = b->u;
  b->u = b->v;
  b->v = t;
}

/* PE 0's private memory for the check; without it the job ends (the check cannot be made). */
static double *must_alloc(size_t count) {
  double *p = malloc(count * sizeof(double));
  if (!p) {
    fprintf(stderr, "stencil2d: PE 0 cannot allocate %zu doubles for the serial reference\n", count);
    shmem_global_exit(2);
  }
  return p;
}

/* The whole grid computed serially, the same way; returns the final field (n * n). */
static double *serial(long n, long iters) {
  double *u = must_alloc((size_t)n * (size_t)n), *v = must_alloc((size_t)n * (size_t)n);
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < n; ++j) u[i * n + j] = v[i * n + j] = initial(i, j, n);
  for (long k = 0; k < iters; ++k) {
    for (long i = 1; i < n - 1; ++i) update_row(v + i * n, u + (i - 1) * n, u + i * n, u + (i + 1) * n, n);
    double *t = u;
    u = v;
    v = t;
  }
  free(v);
  return u;
}

/* PE 0: the number of grid points of the distributed result that differ (bitwise) from the
 * serial one, and in *sum the sum of the distributed result in row-major order (the same
 * order whatever the number of PEs, so the same figure for every run of one N and ITERS).
 * Every PE's final block is at the same symmetric address, b->u. */
static long compare(const block *b, long iters, double *sum) {
  double *ref = serial(b->n, iters), *got = must_alloc((size_t)b->max_rows * (size_t)b->n);
  long bad = 0;
  for (int p = 0; p < b->npes; ++p) {
    long lo, rows;
    block_of(b->n, b->npes, p, &lo, &rows);
    shmem_getmem(got, b->u, (size_t)rows * (size_t)b->n * sizeof(double), p);
    for (long k = 0; k < rows * b->n; ++k) {
      *sum += got[k];
      if (memcmp(&got[k], &ref[lo * b->n + k], sizeof(double)) == 0) continue;
      if (bad++ < 5)
        fprintf(stderr, "stencil2d: point (%ld, %ld) of PE %d is %.17g, the serial value %.17g\n", lo + k / b->n,
                k % b->n, p, got[k], ref[lo * b->n + k]);
    }
  }
  free(got);
  free(ref);
  return bad;
}

/* Runs the iterations, checks the result; returns the exit status. */
static int run(block *b, const options *o) {
  shmem_barrier_all();
  double t0 = now();
  for (long k = 1; k <= o->iters; ++k) iterate(b, k);
  shmem_barrier_all();
  double seconds = now() - t0;
  if (o->corrupt && b->me == b->npes - 1) b->u[(b->rows / 2) * b->n + b->n / 2] += 1e-12;
  shmem_barrier_all(); /* the corruption (a local store) before PE 0 reads the blocks */
  double sum = 0.0;
  static long verdict, bad; /* symmetric, for the broadcast of PE 0's verdict */
  verdict = b->me == 0 ? compare(b, o->iters, &sum) : 0;
  shmem_long_broadcast(SHMEM_TEAM_WORLD, &bad, &verdict, 1, 0);
  if (b->me == 0) {
    double points = (double)(b->n - 2) * (double)(b->n - 2) * (double)o->iters;
    printf("stencil2d pes=%d n=%ld iters=%ld seconds=%.6f mlups=%.1f checksum=%.17g verified=%s\n", b->npes, b->n,
           o->iters, seconds, points / seconds / 1e6, sum, bad == 0 ? "yes" : "no");
    if (bad) fprintf(stderr, "stencil2d: %ld points differ from the serial computation\n", bad);
  }
  return bad == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
  options o = {0};
  block b = {0};
  shmem_init();
  int status = parse(&o, argc, argv);
  if (status == 0) status = setup(&b, o.n);
  if (status == 0) status = run(&b, &o);
  shmem_finalize();
  return status;
}
