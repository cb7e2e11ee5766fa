/* wave2d_offload: the scheme of wave2d_scheme.h as plain OpenMP offload code, the grid split
 * over the devices of the job. Under Ferry those devices are other MPI ranks; without it,
 * LLVM's stock host plugin runs them in this process (the baseline of run_wave2d.py).
 *
 *   ferry run -n K+1 wave2d_offload [--grid NXxNY] [--steps S] [--devices K] [--reps R]
 *                                   [--no-verify] [--tol T]
 *
 * Device d owns a band of whole rows, held in its memory (omp_target_alloc) with one ghost
 * row above and below. A step is one `target teams distribute parallel for nowait` per
 * device (in turn, without nowait, on the stock plugin: step_band says why), a taskwait,
 * then the halo: each band's first and last row copied into the
 * neighbours' ghost rows with omp_target_memcpy from device to device (under Ferry the rows
 * travel between the serving ranks, never through rank 0, which the counters check).
 * u^{S+1} is then copied back and compared with the serial reference of the same run;
 * wave2d_scheme.h says why the tolerance is 0. Last line: `RESULT {json}`. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ferry/ferry_offload.h"
#include "wave2d_scheme.h"

enum { MAX_DEVICES = 64, MAX_REPS = 1000 };

typedef struct options {
  int nx, ny, steps, devices, reps, verify;
  double tol;
} options;

/* Device dev's band: global rows [j0, j0 + rows), stored as rows j0 - 1 .. j0 + rows, each
 * of nx + 2 nodes (the boundary columns included, so a halo is one contiguous row). */
typedef struct band {
  int dev, j0, rows;
  double *u_old, *u, *p, *g;
} band;

static int parse(options* o, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (!strcmp(a, "--no-verify")) {
      o->verify = 0;
      continue;
    }
    if (i + 1 >= argc) return -1;
    const char* v = argv[++i];
    if (!strcmp(a, "--grid")) {
      if (sscanf(v, "%dx%d", &o->nx, &o->ny) != 2) return -1;
    } else if (!strcmp(a, "--steps")) o->steps = atoi(v);
    else if (!strcmp(a, "--devices")) o->devices = atoi(v);
    else if (!strcmp(a, "--reps")) o->reps = atoi(v);
    else if (!strcmp(a, "--tol")) o->tol = atof(v);
    else return -1;
  }
  return o->nx >= 1 && o->ny >= 1 && o->steps >= 1 && o->devices >= 0 && o->reps >= 1 && o->reps <= MAX_REPS &&
                 o->tol >= 0 ? 0 : -1;
}

static double* device_alloc(size_t n, int dev) {
  double* p = omp_target_alloc(n * sizeof(double), dev);
  if (!p) fprintf(stderr, "wave2d_offload: cannot allocate %zu bytes on device %d\n", n * sizeof(double), dev);
  return p;
}

/* The band's arrays on its device; p and g computed on the host from global indices. */
static int place(band* b, const wave_problem* pr, double* scratch) {
  const long s = pr->nx + 2;
  const size_t n = (size_t)s * (size_t)(b->rows + 2);
  b->u_old = device_alloc(n, b->dev);
  b->u = device_alloc(n, b->dev);
  b->p = device_alloc(n, b->dev);
  b->g = device_alloc(n, b->dev);
  if (!b->u_old || !b->u || !b->p || !b->g) return -1;
  const int host = omp_get_initial_device();
  wave_fill(pr, scratch, scratch + n, 0, b->j0 - 1, (int)s, b->rows + 2, s);
  if (omp_target_memcpy(b->p, scratch, n * sizeof(double), 0, 0, b->dev, host) != 0 ||
      omp_target_memcpy(b->g, scratch + n, n * sizeof(double), 0, 0, b->dev, host) != 0)
    return -1;
  return 0;
}

static void release(band* b) {
  omp_target_free(b->u_old, b->dev);
  omp_target_free(b->u, b->dev);
  omp_target_free(b->p, b->dev);
  omp_target_free(b->g, b->dev);
}

/* u^0 = u^1 = 0 on the device, boundary and ghost rows included. */
static void reset(band* b, long n) {
  double *uo = b->u_old, *u = b->u;
#pragma omp target teams distribute parallel for device(b->dev) is_device_ptr(uo, u)
  for (long i = 0; i < n; ++i) uo[i] = u[i] = 0.0;
}

/* One step on a band: u^{n+1} over its owned rows, into u_old. Under Ferry the region is
 * `nowait`, so that the devices of the other ranks run their steps at the same time. The
 * stock plugin runs a region in this process, and a `nowait` one on a hidden helper thread
 * of libomp, where a `teams` region is in effect nested in a parallel one: libomp 16 then
 * aborts now and then ("task_team != NULL", llvm-project #63298). So without Ferry the regions
 * run one after another, each on this process's threads, which they would share anyway. */
static void step_band(band* b, int nx, wave_coef c, int async) {
  double* uo = b->u_old;
  const double *u = b->u, *p = b->p, *g = b->g;
  const long s = nx + 2;
  const int rows = b->rows;
  /* The constants go in as scalars: libomptarget passes a struct argument as a host-to-device
   * copy, which would count as traffic through rank 0. */
  const double wx = c.wx, wy = c.wy, cc = c.c, src = c.src;
  if (async) {
#pragma omp target teams distribute parallel for device(b->dev) is_device_ptr(uo, u, p, g) nowait
    for (int j = 1; j <= rows; ++j)
      wave_row(uo + j * s, u + j * s, p + j * s, g + j * s, s, 1, nx + 1, (wave_coef){wx, wy, cc, src});
  } else {
#pragma omp target teams distribute parallel for device(b->dev) is_device_ptr(uo, u, p, g)
    for (int j = 1; j <= rows; ++j)
      wave_row(uo + j * s, u + j * s, p + j * s, g + j * s, s, 1, nx + 1, (wave_coef){wx, wy, cc, src});
  }
}

/* The newest layer's halo rows, device to device: band d's last owned row into band d+1's
 * upper ghost row, band d+1's first owned row into band d's lower ghost row. */
static int exchange(band* bands, int k, int nx) {
  const size_t row = (size_t)(nx + 2) * sizeof(double);
  for (int d = 0; d + 1 < k; ++d) {
    band *lo = &bands[d], *hi = &bands[d + 1];
    if (omp_target_memcpy(hi->u, lo->u, row, 0, row * (size_t)lo->rows, hi->dev, lo->dev) != 0 ||
        omp_target_memcpy(lo->u, hi->u, row, row * (size_t)(lo->rows + 1), row, lo->dev, hi->dev) != 0)
      return -1;
  }
  return 0;
}

/* Steps 1..steps from zero; returns the seconds, or -1 if a copy failed. async: Ferry's
 * remote devices, which can run at once (step_band). */
static double run(band* bands, int k, const wave_problem* pr, int steps, int async) {
  for (int d = 0; d < k; ++d) reset(&bands[d], (long)(pr->nx + 2) * (bands[d].rows + 2));
  const double t0 = omp_get_wtime();
  for (int n = 1; n <= steps; ++n) {
    const wave_coef c = wave_coef_at(pr, n);
    for (int d = 0; d < k; ++d) step_band(&bands[d], pr->nx, c, async);
#pragma omp taskwait
    for (int d = 0; d < k; ++d) {
      double* t = bands[d].u_old;  /* u_old now holds u^{n+1} */
      bands[d].u_old = bands[d].u;
      bands[d].u = t;
    }
    if (exchange(bands, k, pr->nx) != 0) return -1.0;
  }
  return omp_get_wtime() - t0;
}

/* u^{S+1} of every band into the whole grid `all` ((nx+2) x (ny+2), boundary left 0). */
static int collect(const band* bands, int k, int nx, double* all) {
  const size_t row = (size_t)(nx + 2) * sizeof(double);
  for (int d = 0; d < k; ++d)
    if (omp_target_memcpy(all, bands[d].u, row * (size_t)bands[d].rows, row * (size_t)bands[d].j0, row,
                          omp_get_initial_device(), bands[d].dev) != 0)
      return -1;
  return 0;
}

static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* Rank 0's own traffic to and from devices, when Ferry is the plugin (else -1). */
static long long host_bytes(void) {
  ferry_offload_counters c;
  if (ferry_offload_get_counters(&c) != FERRY_OFFLOAD_OK) return -1;
  return (long long)(c.host_to_device_bytes + c.device_to_host_bytes);
}

/* Bands of rows for k devices, balanced. */
static void split_rows(band* bands, int k, int ny) {
  for (int d = 0; d < k; ++d) {
    bands[d].dev = d;
    bands[d].j0 = 1 + (int)((long)d * ny / k);
    bands[d].rows = (int)((long)(d + 1) * ny / k - (long)d * ny / k);
  }
}

typedef struct outcome {
  double median, fastest, slowest, diff, scale;
  long long relayed;  /* bytes rank 0 moved to or from devices during the steps; -1: not Ferry */
} outcome;

/* Every repetition, then the check against the reference. Returns -1 if a transfer failed. */
static int measure(band* bands, int k, const wave_problem* pr, const options* o, outcome* out) {
  double times[MAX_REPS];
  const long long before = host_bytes();
  for (int r = 0; r < o->reps; ++r)
    if ((times[r] = run(bands, k, pr, o->steps, before >= 0)) < 0) return -1;
  const long long after = host_bytes();
  out->relayed = before < 0 || after < 0 ? -1 : after - before;
  qsort(times, (size_t)o->reps, sizeof times[0], by_value);
  out->median = o->reps % 2 ? times[o->reps / 2] : 0.5 * (times[o->reps / 2 - 1] + times[o->reps / 2]);
  out->fastest = times[0];
  out->slowest = times[o->reps - 1];
  out->diff = out->scale = 0.0;
  if (!o->verify) return 0;
  const long n = (long)(pr->nx + 2) * (pr->ny + 2);
  double *all = calloc((size_t)n, sizeof(double)), *ref = calloc((size_t)n, sizeof(double));
  int rc = !all || !ref || collect(bands, k, pr->nx, all) != 0 || wave_reference(pr, o->steps, ref) != 0 ? -1 : 0;
  if (rc == 0) {
    out->diff = wave_max_diff(all, ref, n);
    out->scale = wave_max_abs(ref, n);
  }
  free(all);
  free(ref);
  return rc;
}

static int report(const band* bands, int k, const wave_problem* pr, const options* o, const outcome* r) {
  const int ferry = r->relayed >= 0;
  const int pass = (!o->verify || (r->diff <= o->tol && r->scale > 0.0)) && r->relayed <= 0;
  printf("wave2d_offload: plugin=%s devices=%d grid=%dx%d steps=%d reps=%d\n", ferry ? "ferry" : "stock", k, pr->nx,
         pr->ny, o->steps, o->reps);
  char ranks[512] = "";
  for (int d = 0, at = 0; d < k; ++d) {
    ferry_offload_device info;
    const int rank = ferry_offload_get_device(bands[d].dev, &info) == FERRY_OFFLOAD_OK ? info.rank : 0;
    at += snprintf(ranks + at, sizeof ranks - (size_t)at, "%s%d", d ? "," : "", rank);
    printf("wave2d_offload: device %d (%s %d): rows %d-%d\n", d, ferry ? "rank" : "in-process, rank", rank, bands[d].j0,
           bands[d].j0 + bands[d].rows - 1);
  }
  printf("wave2d_offload: seconds median %.6g min %.6g max %.6g, %.1f Mlup/s\n", r->median, r->fastest, r->slowest,
         (double)pr->nx * pr->ny * o->steps / r->median * 1e-6);
  if (ferry)
    printf("wave2d_offload: bytes through rank 0 during the steps: %lld (halos go device to device)\n", r->relayed);
  if (o->verify) wave_print_verification("wave2d_offload", r->diff, o->tol, r->scale, pass);
  printf("RESULT {\"variant\":\"offload\",\"plugin\":\"%s\",\"devices\":%d,\"device_ranks\":[%s],\"nx\":%d,\"ny\":%d,"
         "\"steps\":%d,\"reps\":%d,\"median_s\":%.9g,\"min_s\":%.9g,\"max_s\":%.9g,\"mlups\":%.6g,\"verified\":%s,"
         "\"maxdiff\":%.6g,\"relayed_bytes\":%lld,\"pass\":%s}\n",
         ferry ? "ferry" : "stock", k, ranks, pr->nx, pr->ny, o->steps, o->reps, r->median, r->fastest, r->slowest,
         (double)pr->nx * pr->ny * o->steps / r->median * 1e-6, o->verify ? "true" : "false",
         o->verify ? r->diff : -1.0, r->relayed, pass ? "true" : "false");
  return pass;
}

int main(int argc, char** argv) {
  options o = {256, 256, 50, 0, 3, 1, 0.0};
  if (parse(&o, argc, argv) != 0)
    return fprintf(stderr, "usage: wave2d_offload [--grid NXxNY] [--steps S] [--devices K] [--reps 1..%d] "
                   "[--no-verify] [--tol T]\n", MAX_REPS), 2;
  const int available = omp_get_num_devices();
  int k = o.devices && o.devices < available ? o.devices : available;
  k = k < MAX_DEVICES ? k : MAX_DEVICES;
  if (k < 1 || o.ny < k)
    return fprintf(stderr, "wave2d_offload: %d device(s) for %d rows: need a device and a row per device\n", k, o.ny),
           2;
  wave_problem pr;
  wave_problem_init(&pr, o.nx, o.ny);
  band bands[MAX_DEVICES];
  split_rows(bands, k, o.ny);
  /* p and g of one band on their way to its device; no band has more than ny / k + 1 rows. */
  double* scratch = malloc(2 * sizeof(double) * (size_t)(o.nx + 2) * (size_t)(o.ny / k + 3));
  for (int d = 0; d < k; ++d)
    if (!scratch || place(&bands[d], &pr, scratch) != 0) return fprintf(stderr, "wave2d_offload: set-up failed\n"), 2;
  free(scratch);
  outcome r;
  if (measure(bands, k, &pr, &o, &r) != 0) return fprintf(stderr, "wave2d_offload: a device copy failed\n"), 2;
  const int pass = report(bands, k, &pr, &o, &r);
  for (int d = 0; d < k; ++d) release(&bands[d]);
  return pass ? 0 : 1;
}
