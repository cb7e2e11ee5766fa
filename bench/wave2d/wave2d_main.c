/* wave2d: the 2D wave equation of wave2d_scheme.h on a 2D Cartesian grid of MPI ranks.
 *
 *   mpirun -n P wave2d [--grid NXxNY] [--steps S] [--variant mpi|hybrid|ghost|tb]
 *                      [--schedule static|static,C|dynamic[,C]|guided[,C]] [--depth K]
 *                      [--procs PXxPY|auto] [--reps R] [--no-verify] [--tol T]
 *
 * Threads per rank: OMP_NUM_THREADS (mpi always uses one). Each repetition starts from
 * u^0 = u^1 = 0 and is timed between barriers, the slowest rank's time counting. After the
 * last one rank 0 gathers u^{S+1} and compares it with the serial reference computed in the
 * same run; the job exits 1 if they differ by more than the tolerance (default 0: the
 * variants are bitwise equal to the reference, wave2d_scheme.h says why). The last line is
 * `RESULT {json}` for bench/wave2d/run_wave2d.py. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wave2d.h"

enum { MAX_REPS = 1000 };

typedef struct options {
  int nx, ny, steps, depth, px, py, reps, verify;
  wave_variant variant;
  const char* schedule;
  double tol;
} options;

static const char* const kVariants[] = {"mpi", "hybrid", "ghost", "tb"};

static int parse_variant(const char* v, wave_variant* out) {
  for (int i = 0; i < 4; ++i)
    if (!strcmp(v, kVariants[i])) return *out = (wave_variant)i, 0;
  return -1;
}

/* "static", "static,1", "dynamic,4", "guided": the loop schedule of hybrid and ghost. */
static int set_schedule(const char* text) {
  static const struct { const char* name; omp_sched_t kind; } kinds[] = {
      {"static", omp_sched_static}, {"dynamic", omp_sched_dynamic}, {"guided", omp_sched_guided},
      {"auto", omp_sched_auto}};
  const char* comma = strchr(text, ',');
  const size_t len = comma ? (size_t)(comma - text) : strlen(text);
  const int chunk = comma ? atoi(comma + 1) : 0;
  if (comma && chunk < 1) return -1;
  for (int i = 0; i < 4; ++i)
    if (strlen(kinds[i].name) == len && !strncmp(text, kinds[i].name, len)) {
      omp_set_schedule(kinds[i].kind, chunk);
      return 0;
    }
  return -1;
}

static int parse_pair(const char* v, int* a, int* b) {
  return sscanf(v, "%dx%d", a, b) == 2 ? 0 : -1;
}

static int parse_one(options* o, const char* a, const char* v) {
  if (!strcmp(a, "--grid")) return parse_pair(v, &o->nx, &o->ny);
  if (!strcmp(a, "--steps")) return o->steps = atoi(v), 0;
  if (!strcmp(a, "--variant")) return parse_variant(v, &o->variant);
  if (!strcmp(a, "--schedule")) return o->schedule = v, 0;
  if (!strcmp(a, "--depth")) return o->depth = atoi(v), 0;
  if (!strcmp(a, "--procs")) return strcmp(v, "auto") ? parse_pair(v, &o->px, &o->py) : (o->px = o->py = 0);
  if (!strcmp(a, "--reps")) return o->reps = atoi(v), 0;
  if (!strcmp(a, "--tol")) return o->tol = atof(v), 0;
  return -1;
}

static int parse(options* o, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--no-verify")) {
      o->verify = 0;
      continue;
    }
    if (i + 1 >= argc || parse_one(o, argv[i], argv[i + 1]) != 0) return -1;
    ++i;
  }
  if (o->variant == WAVE_MPI || o->variant == WAVE_HYBRID) o->depth = 1;  /* no temporal blocking */
  const int ok = o->nx >= 1 && o->ny >= 1 && o->steps >= 1 && o->depth >= 1 && o->depth <= WAVE_MAX_DEPTH &&
                 o->reps >= 1 && o->reps <= MAX_REPS && o->tol >= 0 && set_schedule(o->schedule) == 0;
  return ok ? 0 : -1;
}

static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* Repetitions; times[r] is the slowest rank's. */
static void time_reps(wave_local* L, const options* o, double* times) {
  for (int r = 0; r < o->reps; ++r) {
    wave_local_reset(L);
    MPI_Barrier(L->cart);
    const double t0 = MPI_Wtime();
    wave_run(L, o->variant, o->steps, o->depth);
    double t = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, L->cart);
    times[r] = t;
  }
}

/* The check: max |u - u_ref| and max |u_ref| (a zero reference would make any run pass). */
typedef struct check {
  double diff, scale;
} check;

/* Computed on rank 0, which gathers the grid and runs the reference; every rank gets it. */
static check verify(const wave_local* L, const options* o) {
  const wave_problem* pr = L->pr;
  const long n = (long)(pr->nx + 2) * (pr->ny + 2);
  check c = {0.0, 0.0};
  double *all = NULL, *ref = NULL;
  if (L->rank == 0) {
    all = calloc((size_t)n, sizeof(double));
    ref = calloc((size_t)n, sizeof(double));
    if (!all || !ref || wave_reference(pr, o->steps, ref) != 0) {
      fprintf(stderr, "wave2d: no memory for the reference of the whole grid: use --no-verify\n");
      MPI_Abort(L->cart, 2);
    }
  }
  wave_gather(L, all);
  if (L->rank == 0) {
    c.diff = wave_max_diff(all, ref, n);
    c.scale = wave_max_abs(ref, n);
  }
  free(all);
  free(ref);
  MPI_Bcast(&c, 2, MPI_DOUBLE, 0, L->cart);
  return c;
}

static int threads_of(const options* o) { return o->variant == WAVE_MPI ? 1 : omp_get_max_threads(); }

/* The human-readable lines and the RESULT line; returns whether the check passed. */
static int report(const wave_local* L, const options* o, double* times, const check* c) {
  qsort(times, (size_t)o->reps, sizeof times[0], by_value);
  const double median = o->reps % 2 ? times[o->reps / 2] : 0.5 * (times[o->reps / 2 - 1] + times[o->reps / 2]);
  const double mlups = (double)L->pr->nx * L->pr->ny * o->steps / median * 1e-6;
  const int pass = !o->verify || (c->diff <= o->tol && c->scale > 0.0);
  printf("wave2d: variant=%s depth=%d schedule=%s grid=%dx%d steps=%d ranks=%d procs=%dx%d threads=%d reps=%d\n",
         kVariants[o->variant], o->depth, o->schedule, L->pr->nx, L->pr->ny, o->steps, L->size, L->dims[1],
         L->dims[0], threads_of(o), o->reps);
  printf("wave2d: seconds median %.6g min %.6g max %.6g, %.1f Mlup/s (tau %.4g, t_end %.4g)\n", median, times[0],
         times[o->reps - 1], mlups, L->pr->tau, (o->steps + 1) * L->pr->tau);
  if (o->verify) wave_print_verification("wave2d", c->diff, o->tol, c->scale, pass);
  printf("RESULT {\"variant\":\"%s\",\"depth\":%d,\"schedule\":\"%s\",\"nx\":%d,\"ny\":%d,\"steps\":%d,\"ranks\":%d,"
         "\"px\":%d,\"py\":%d,\"threads\":%d,\"reps\":%d,\"median_s\":%.9g,\"min_s\":%.9g,\"max_s\":%.9g,"
         "\"mlups\":%.6g,\"verified\":%s,\"maxdiff\":%.6g,\"pass\":%s}\n",
         kVariants[o->variant], o->depth, o->schedule, L->pr->nx, L->pr->ny, o->steps, L->size, L->dims[1], L->dims[0],
         threads_of(o), o->reps, median, times[0], times[o->reps - 1], mlups, o->verify ? "true" : "false",
         o->verify ? c->diff : -1.0, pass ? "true" : "false");
  return pass;
}

int main(int argc, char** argv) {
  int provided, rank;
  /* FUNNELED: only the master thread calls MPI (between the parallel loops). */
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  options o = {256, 256, 50, 1, 0, 0, 3, 1, WAVE_HYBRID, "static", 0.0};
  if (parse(&o, argc, argv) != 0) {
    if (rank == 0) fprintf(stderr, "usage: wave2d [--grid NXxNY] [--steps S] [--variant mpi|hybrid|ghost|tb] "
                           "[--schedule static|static,C|dynamic[,C]|guided[,C]] [--depth 1..%d] "
                           "[--procs PXxPY|auto] [--reps 1..%d] [--no-verify] [--tol T]\n", WAVE_MAX_DEPTH, MAX_REPS);
    MPI_Finalize();
    return 2;
  }
  if (o.variant == WAVE_MPI) omp_set_num_threads(1);
  wave_problem pr;
  wave_problem_init(&pr, o.nx, o.ny);
  wave_local L;
  if (wave_local_init(&L, &pr, MPI_COMM_WORLD, o.px, o.py, o.depth) != 0) {
    wave_local_free(&L);
    MPI_Finalize();
    return 2;
  }
  double times[MAX_REPS];
  time_reps(&L, &o, times);
  const check c = o.verify ? verify(&L, &o) : (check){0.0, 0.0};
  const int pass = L.rank == 0 ? report(&L, &o, times, &c) : !o.verify || (c.diff <= o.tol && c.scale > 0.0);
  wave_local_free(&L);
  MPI_Finalize();
  return pass ? 0 : 1;
}
