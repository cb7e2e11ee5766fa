/* The 2D Jacobi stencil (5 points, fixed boundary) and its serial reference. */
#define STENCIL_N 1024
#define STENCIL_ITERS 40
static void stencil_init(double* a, int n) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) a[i * n + j] = (i == 0 || j == 0) ? 1.0 : 0.001 * ((i * 7 + j * 3) % 11);
}
static double stencil_reference(int n, int iters) {
  double* a = malloc(sizeof(double) * n * n);
  double* b = malloc(sizeof(double) * n * n);
  stencil_init(a, n);
  stencil_init(b, n);
  for (int it = 0; it < iters; ++it) {
    for (int i = 1; i < n - 1; ++i)
      for (int j = 1; j < n - 1; ++j)
        b[i * n + j] = 0.25 * (a[(i - 1) * n + j] + a[(i + 1) * n + j] + a[i * n + j - 1] + a[i * n + j + 1]);
    double* t = a; a = b; b = t;
  }
  double s = 0;
  for (int k = 0; k < n * n; ++k) s += a[k];
  free(a);
  free(b);
  return s;
}
