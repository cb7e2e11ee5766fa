/* An embarrassingly parallel kernel: a quadrature of 4/(1+x^2) on [0,1] (pi), and its serial
 * reference. */
#define EP_N 200000000L
static double ep_reference(long n) {
  double s = 0, h = 1.0 / (double)n;
  for (long i = 0; i < n; ++i) {
    double x = ((double)i + 0.5) * h;
    s += 4.0 / (1.0 + x * x);
  }
  return s * h;
}
