/* ferry_xs --out FILE [--lookups L] [--weak-lookups P] [--gridpoints G] [--nuclides N]
 *          [--trials T] [--max-devices K] [--seed S]
 *
 * Strong scaling: L lookups over the first k devices, k = 1..K. Weak scaling: P lookups per
 * device. Checks: every strong run has the checksum of the host reference; weak run k has
 * the sum of the first k per-device checksums of weak run K. Writes JSON lines for
 * `ferry bench xs` (src/tools/ferry/bench_xs.cpp). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ferry/ferry_offload.h"
#include "xs_kernel.h"

enum { XS_MAX_DEVICES = 64 };

typedef struct options {
  const char* out;
  uint64_t lookups, weak_lookups;
  int trials, max_devices;
  xs_params p;
} options;

/* The problem as it lives on one device. */
typedef struct device_copy {
  double *energy, *xs, *conc;
  int *start, *nuclide;
} device_copy;

typedef struct run_result {
  double seconds;                       /* median over trials */
  uint64_t checksum;
  uint64_t partial[XS_MAX_DEVICES];     /* per device, of the last trial */
} run_result;

static FILE* out;
static long checks, failures;

static void check(int ok, const char* what, uint64_t got, uint64_t want) {
  ++checks;
  if (ok) return;
  ++failures;
  fprintf(stderr, "FAIL validation: %s: checksum %016llx, expected %016llx\n", what, (unsigned long long)got,
          (unsigned long long)want);
}

/* ---- moving the problem to the devices ---- */

static void* copy_to(int dev, const void* src, size_t bytes) {
  void* p = omp_target_alloc(bytes, dev);
  if (p && omp_target_memcpy(p, src, bytes, 0, 0, dev, omp_get_initial_device()) != 0) {
    omp_target_free(p, dev);
    p = NULL;
  }
  if (!p) fprintf(stderr, "ferry_xs: cannot place %zu bytes on device %d\n", bytes, dev);
  return p;
}

static int place(const xs_problem* pr, int dev, device_copy* c) {
  size_t points = (size_t)pr->p.nuclides * (size_t)pr->p.gridpoints;
  c->energy = copy_to(dev, pr->energy, points * sizeof(double));
  c->xs = copy_to(dev, pr->xs, points * XS_CHANNELS * sizeof(double));
  c->start = copy_to(dev, pr->mat_start, (XS_MATERIALS + 1) * sizeof(int));
  c->nuclide = copy_to(dev, pr->mat_nuclide, (size_t)pr->total * sizeof(int));
  c->conc = copy_to(dev, pr->mat_conc, (size_t)pr->total * sizeof(double));
  return c->energy && c->xs && c->start && c->nuclide && c->conc ? 0 : -1;
}

/* ---- the event loop ---- */

/* Lookups [lo, hi) on device dev: one target region, the whole slice as one flat loop. */
static uint64_t run_slice(const device_copy* c, int dev, int gridpoints, uint64_t seed, uint64_t lo, uint64_t hi) {
  uint64_t sum = 0;
  const double *energy = c->energy, *xs = c->xs, *conc = c->conc;
  const int *start = c->start, *nuclide = c->nuclide;
#pragma omp target teams distribute parallel for device(dev) is_device_ptr(energy, xs, conc, start, nuclide) \
    map(tofrom : sum) reduction(+ : sum)
  for (uint64_t i = lo; i < hi; ++i) sum += xs_lookup(energy, xs, start, nuclide, conc, gridpoints, seed, i);
  return sum;
}

/* Under Ferry, one host thread per device drives its slice, so that the k regions run at
 * once in k processes. The stock plugin's devices all run in this process, on its threads:
 * there the slices run one after another (LLVM 16's libomp also aborts on `teams` inside an
 * active parallel region: "th_set_nproc >= 1"). */
static int concurrent_devices(void) {
  ferry_offload_counters c;
  return ferry_offload_get_counters(&c) == FERRY_OFFLOAD_OK;
}

static double run_split(const device_copy* copies, int k, const xs_params* p, uint64_t lookups, uint64_t* partial) {
  const int concurrent = concurrent_devices();
  double t0 = omp_get_wtime();
#pragma omp parallel for num_threads(k) schedule(static, 1) if (concurrent)
  for (int d = 0; d < k; ++d)
    partial[d] = run_slice(&copies[d], d, p->gridpoints, p->seed, lookups * (uint64_t)d / (uint64_t)k,
                           lookups * (uint64_t)(d + 1) / (uint64_t)k);
  return omp_get_wtime() - t0;
}

static int by_value(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static run_result run_trials(const device_copy* copies, int k, const options* o, uint64_t lookups) {
  run_result r;
  memset(&r, 0, sizeof r);
  double t[64];
  int trials = o->trials < 64 ? o->trials : 64;
  for (int i = 0; i < trials; ++i) t[i] = run_split(copies, k, &o->p, lookups, r.partial);
  qsort(t, (size_t)trials, sizeof t[0], by_value);
  r.seconds = trials % 2 ? t[trials / 2] : 0.5 * (t[trials / 2 - 1] + t[trials / 2]);
  for (int d = 0; d < k; ++d) r.checksum += r.partial[d];
  return r;
}

static void emit(const char* test, int k, double seconds, uint64_t lookups, uint64_t checksum) {
  fprintf(out, "{\"test\":\"%s\",\"size\":%d,\"series\":\"ferry\",\"value\":%.9g,\"unit\":\"s\",\"iters\":%llu}\n",
          test, k, seconds, (unsigned long long)lookups);
  fprintf(out, "{\"counter\":\"checksum\",\"test\":\"%s.%d\",\"value\":%llu}\n", test, k, (unsigned long long)checksum);
  fflush(out);
}

/* ---- host reference ---- */

static uint64_t host_checksum(const xs_problem* pr, uint64_t lookups) {
  uint64_t sum = 0;
  for (uint64_t i = 0; i < lookups; ++i)
    sum += xs_lookup(pr->energy, pr->xs, pr->mat_start, pr->mat_nuclide, pr->mat_conc, pr->p.gridpoints, pr->p.seed, i);
  return sum;
}

/* ---- the two scaling series ---- */

static void strong_scaling(const device_copy* copies, int devices, const options* o, uint64_t reference) {
  for (int k = 1; k <= devices; ++k) {
    run_result r = run_trials(copies, k, o, o->lookups);
    emit("strong", k, r.seconds, o->lookups, r.checksum);
    char what[64];
    snprintf(what, sizeof what, "strong scaling on %d device(s) vs the host", k);
    check(r.checksum == reference, what, r.checksum, reference);
  }
}

static void weak_scaling(const device_copy* copies, int devices, const options* o) {
  run_result runs[XS_MAX_DEVICES];
  for (int k = 1; k <= devices; ++k) {
    runs[k - 1] = run_trials(copies, k, o, o->weak_lookups * (uint64_t)k);
    emit("weak", k, runs[k - 1].seconds, o->weak_lookups * (uint64_t)k, runs[k - 1].checksum);
  }
  /* Weak run k covers the first k slices of weak run `devices`, slice for slice. */
  for (int k = 1; k <= devices; ++k) {
    uint64_t want = 0;
    for (int d = 0; d < k; ++d) want += runs[devices - 1].partial[d];
    char what[64];
    snprintf(what, sizeof what, "weak scaling on %d device(s) vs the slices of %d", k, devices);
    check(runs[k - 1].checksum == want, what, runs[k - 1].checksum, want);
  }
}

/* ---- main ---- */

static int parse(options* o, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (i + 1 >= argc) return fprintf(stderr, "ferry_xs: '%s' needs a value\n", a), -1;
    const char* v = argv[++i];
    if (!strcmp(a, "--out")) o->out = v;
    else if (!strcmp(a, "--lookups")) o->lookups = strtoull(v, NULL, 10);
    else if (!strcmp(a, "--weak-lookups")) o->weak_lookups = strtoull(v, NULL, 10);
    else if (!strcmp(a, "--gridpoints")) o->p.gridpoints = atoi(v);
    else if (!strcmp(a, "--nuclides")) o->p.nuclides = atoi(v);
    else if (!strcmp(a, "--trials")) o->trials = atoi(v);
    else if (!strcmp(a, "--max-devices")) o->max_devices = atoi(v);
    else if (!strcmp(a, "--seed")) o->p.seed = strtoull(v, NULL, 10);
    else return fprintf(stderr, "ferry_xs: unknown argument '%s'\n", a), -1;
  }
  if (!o->out || o->lookups == 0 || o->weak_lookups == 0 || o->p.gridpoints < 2 || o->p.nuclides < 34 ||
      o->trials < 1)
    return fprintf(stderr, "ferry_xs: need --out, lookups > 0, gridpoints >= 2, nuclides >= 34, trials >= 1\n"), -1;
  return 0;
}

static int device_limit(const options* o) {
  int n = omp_get_num_devices();
  if (o->max_devices > 0 && o->max_devices < n) n = o->max_devices;
  return n < XS_MAX_DEVICES ? n : XS_MAX_DEVICES;
}

int main(int argc, char** argv) {
  options o = {NULL, 1000000, 300000, 3, 0, {68, 11303, 42}};
  if (parse(&o, argc, argv) != 0) return 2;
  int devices = device_limit(&o);
  if (devices < 1) return fprintf(stderr, "ferry_xs: no offload device\n"), 2;
  out = fopen(o.out, "w");
  xs_problem pr;
  if (!out || xs_generate(&pr, &o.p) != 0) return fprintf(stderr, "ferry_xs: cannot set up (memory, --out)\n"), 2;
  fprintf(out, "{\"run\":{\"devices\":%d,\"nuclides\":%d,\"gridpoints\":%d,\"lookups\":%llu,\"weak_lookups\":%llu,"
          "\"trials\":%d,\"seed\":%llu,\"problem_bytes\":%zu}}\n", devices, o.p.nuclides, o.p.gridpoints,
          (unsigned long long)o.lookups, (unsigned long long)o.weak_lookups, o.trials, (unsigned long long)o.p.seed,
          xs_bytes(&pr));
  device_copy copies[XS_MAX_DEVICES];
  for (int d = 0; d < devices; ++d) {
    double t0 = omp_get_wtime();
    if (place(&pr, d, &copies[d]) != 0) return 1;
    fprintf(out, "{\"test\":\"setup\",\"size\":%d,\"series\":\"ferry\",\"value\":%.9g,\"unit\":\"s\",\"iters\":1}\n",
            d, omp_get_wtime() - t0);
  }
  /* The host reference is timed too: one thread of rank 0 running the same lookups is what
   * a device's figure is compared with. */
  double t0 = omp_get_wtime();
  uint64_t reference = host_checksum(&pr, o.lookups);
  emit("host", 1, omp_get_wtime() - t0, o.lookups, reference);
  strong_scaling(copies, devices, &o, reference);
  weak_scaling(copies, devices, &o);
  fprintf(out, "{\"validation\":{\"checks\":%ld,\"failures\":%ld}}\n", checks, failures);
  fclose(out);
  printf("ferry_xs: %d device(s), %ld checks, %ld failures; host reference checksum %016llx\n", devices, checks,
         failures, (unsigned long long)reference);
  xs_release(&pr);
  return failures ? 1 : 0;
}
