/* The problem of wave2d_scheme.h: coefficient, source, time step, and the serial reference
 * that every variant is checked against. Host code, built into both programs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wave2d_scheme.h"

static const double kPi = 3.14159265358979323846;
static const double kSigma = 0.05;     /* width of the source pulse */
static const double kNu = 2.0;         /* its frequency */
static const double kCourant = 0.9;    /* tau as a fraction of the CFL limit */

void wave_problem_init(wave_problem* pr, int nx, int ny) {
  pr->nx = nx;
  pr->ny = ny;
  pr->lx = 2.0;
  pr->ly = 1.0;
  pr->hx = pr->lx / (nx + 1);
  pr->hy = pr->ly / (ny + 1);
  pr->pmax = 1.5;  /* max of 1 + 0.5 sin sin */
  pr->tau = kCourant / sqrt(pr->pmax * (1.0 / (pr->hx * pr->hx) + 1.0 / (pr->hy * pr->hy)));
}

wave_coef wave_coef_at(const wave_problem* pr, int n) {
  const double t = n * pr->tau, tau2 = pr->tau * pr->tau;
  wave_coef c = {pr->hy / pr->hx, pr->hx / pr->hy, tau2 / (pr->hx * pr->hy), tau2 * sin(2.0 * kPi * kNu * t)};
  return c;
}

static double coefficient(const wave_problem* pr, double x, double y) {
  return 1.0 + 0.5 * sin(kPi * x / pr->lx) * sin(kPi * y / pr->ly);
}

static double pulse(const wave_problem* pr, double x, double y) {
  const double dx = x - 0.3 * pr->lx, dy = y - 0.4 * pr->ly;
  const double a = (dx * dx + dy * dy) / (2.0 * kSigma * kSigma);
  return a > 200.0 ? 0.0 : exp(-a);  /* no subnormals downstream (see the header) */
}

/* In parallel, rows split as wave_local_reset splits them: the threads that sweep a row
 * touch its pages first, so that on a machine of several NUMA nodes they are near them. */
void wave_fill(const wave_problem* pr, double* p, double* g, int i0, int j0, int w, int h, long stride) {
#pragma omp parallel for schedule(static)
  for (int b = 0; b < h; ++b)
    for (int a = 0; a < w; ++a) {
      const double x = (i0 + a) * pr->hx, y = (j0 + b) * pr->hy;
      p[b * stride + a] = coefficient(pr, x, y);
      g[b * stride + a] = pulse(pr, x, y);
    }
}

/* The scheme on one process, the plainest way: whole-grid sweeps, one step at a time. */
int wave_reference(const wave_problem* pr, int steps, double* out) {
  const long s = pr->nx + 2, n = s * (pr->ny + 2);
  double* mem = calloc((size_t)(4 * n), sizeof(double));
  if (!mem) return -1;
  double *uo = mem, *u = mem + n, *p = mem + 2 * n, *g = mem + 3 * n;
  wave_fill(pr, p, g, 0, 0, (int)s, pr->ny + 2, s);
  for (int step = 1; step <= steps; ++step) {
    const wave_coef c = wave_coef_at(pr, step);
    for (int j = 1; j <= pr->ny; ++j) wave_row(uo + j * s, u + j * s, p + j * s, g + j * s, s, 1, pr->nx + 1, c);
    double* t = uo;  /* uo now holds the newest layer */
    uo = u;
    u = t;
  }
  memcpy(out, u, (size_t)n * sizeof(double));
  free(mem);
  return 0;
}

double wave_max_diff(const double* a, const double* b, long n) {
  double m = 0.0;
  for (long i = 0; i < n; ++i) {
    const double d = fabs(a[i] - b[i]);
    if (isnan(d)) return INFINITY;  /* fmax would skip a NaN, and a broken run would pass */
    m = d > m ? d : m;
  }
  return m;
}

double wave_max_abs(const double* a, long n) {
  double m = 0.0;
  for (long i = 0; i < n; ++i) m = fabs(a[i]) > m ? fabs(a[i]) : m;
  return m;
}

void wave_print_verification(const char* program, double diff, double tol, double scale, int pass) {
  printf("%s: verification: max |u - u_ref| = %.3g (tolerance %.3g, max |u_ref| = %.3g): %s%s\n", program, diff, tol,
         scale, pass ? "PASS" : "FAIL", diff == 0.0 ? " (bitwise equal)" : "");
}
