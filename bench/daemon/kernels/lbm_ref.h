/* A lattice-Boltzmann-style sweep: D2Q5 on a periodic n x n lattice, pull streaming and BGK
 * relaxation to w_q * rho, and its serial reference. f holds the 5 populations of a cell
 * side by side (f[cell * 5 + q]). */
#define LBM_N 512
#define LBM_STEPS 30
/* Declared on the device: a const global only mapped would be copied back into read-only
 * memory at the region's end. */
#pragma omp declare target
static const int lbm_cx[5] = {0, 1, -1, 0, 0}, lbm_cy[5] = {0, 0, 0, 1, -1};
static const double lbm_w[5] = {1.0 / 3, 1.0 / 6, 1.0 / 6, 1.0 / 6, 1.0 / 6};
#pragma omp end declare target
#define LBM_OMEGA 1.2
static void lbm_init(double* f, int n) {
  for (int c = 0; c < n * n; ++c)
    for (int q = 0; q < 5; ++q) f[c * 5 + q] = lbm_w[q] * (1.0 + 0.1 * ((c * 13 + q) % 7));
}
static double lbm_checksum(const double* f, int n) {
  double s = 0;
  for (int c = 0; c < n * n; ++c)
    for (int q = 0; q < 5; ++q) s += (q + 1) * f[c * 5 + q];
  return s;
}
static double lbm_reference(int n, int steps) {
  double* f = malloc(sizeof(double) * 5 * n * n);
  double* g = malloc(sizeof(double) * 5 * n * n);
  lbm_init(f, n);
  for (int t = 0; t < steps; ++t) {
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        double p[5], rho = 0;
        for (int q = 0; q < 5; ++q) {
          int sx = (x - lbm_cx[q] + n) % n, sy = (y - lbm_cy[q] + n) % n;
          p[q] = f[(sy * n + sx) * 5 + q];
          rho += p[q];
        }
        for (int q = 0; q < 5; ++q) g[(y * n + x) * 5 + q] = p[q] - LBM_OMEGA * (p[q] - lbm_w[q] * rho);
      }
    double* tmp = f; f = g; g = tmp;
  }
  double s = lbm_checksum(f, n);
  free(f);
  free(g);
  return s;
}
