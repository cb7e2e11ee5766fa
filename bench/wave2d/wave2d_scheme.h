/* The 2D wave equation and its explicit scheme, shared by every variant of bench/wave2d
 * (the MPI / MPI+OpenMP / temporal-blocking program, the offload program, and the serial
 * reference they are all checked against).
 *
 * Problem. On the rectangle [0, Lx] x [0, Ly] (Lx = 2, Ly = 1):
 *
 *     d2u/dt2 = div(p grad u) + f(x, y, t),   u = 0 on the boundary,   u = du/dt = 0 at t = 0,
 *
 *     p(x, y)    = 1 + 0.5 sin(pi x / Lx) sin(pi y / Ly)           (smooth, 1 <= p <= 1.5)
 *     f(x, y, t) = g(x, y) s(t),  g = exp(-r^2 / (2 sigma^2)),  s(t) = sin(2 pi nu t)
 *
 * with r the distance to the source point (0.3 Lx, 0.4 Ly), sigma = 0.05, nu = 2: a smooth,
 * localised pulse that radiates from a point off every symmetry axis, so that a wrong halo
 * or a mirrored index shows. g is cut to 0 where r^2 / (2 sigma^2) > 200 (g < 1e-87), so
 * that no subnormal number enters the arithmetic (they are slow on x86 and would make the
 * timing depend on where the wave front is).
 *
 * Grid. NX x NY interior nodes x_i = i h_x, y_j = j h_y, h_x = Lx / (NX + 1),
 * h_y = Ly / (NY + 1); nodes i = 0, NX + 1 and j = 0, NY + 1 are the boundary and stay 0.
 *
 * Scheme (two time layers, explicit, second order in time and space):
 *
 *     u^{n+1}_{ij} = 2 u^n_{ij} - u^{n-1}_{ij} + tau^2 f(x_i, y_j, t_n)
 *                    + tau^2 / (h_x h_y) * sum_k gamma_k,              t_n = n tau,
 *
 *     sum_k gamma_k = (h_y/h_x) [p_{i+1/2,j} (u_{i+1,j} - u_{ij}) - p_{i-1/2,j} (u_{ij} - u_{i-1,j})]
 *                   + (h_x/h_y) [p_{i,j+1/2} (u_{i,j+1} - u_{ij}) - p_{i,j-1/2} (u_{ij} - u_{i,j-1})]
 *
 * the conservative 5-point operator (the fluxes through the four sides of the cell of node
 * (i, j), each of length h_y or h_x), with p at half points the AVERAGE of the two
 * neighbouring nodal values, p_{i+1/2,j} = (p_{ij} + p_{i+1,j}) / 2, computed on the fly from
 * the nodal array (one array less to stream than four half-point arrays; the same
 * expression everywhere, so p_{i+1/2} seen from i and from i+1 is the same double).
 * Start: u^0 = u^1 = 0 (zero displacement and velocity); step n = 1, 2, ... makes u^{n+1}.
 *
 * Stability (CFL). For constant p von Neumann analysis gives
 * tau^2 p (1/h_x^2 + 1/h_y^2) <= 1; we take tau = 0.9 / sqrt(p_max (1/h_x^2 + 1/h_y^2)) with
 * p_max = 1.5, the maximum of p (the half-point averages cannot exceed it).
 *
 * Order of operations. Every variant updates a point with wave_row below, whose expression
 * is evaluated in one fixed order (built with -ffp-contract=off, so no compiler fuses a
 * multiply-add in one place and not in another), and no variant sums across points. So the
 * variants are bitwise equal to the serial reference, whatever the decomposition, thread
 * count, schedule or blocking depth: the tolerance of the checks is 0. */
#ifndef WAVE2D_SCHEME_H
#define WAVE2D_SCHEME_H

/* The physical problem and its grid. */
typedef struct wave_problem {
  int nx, ny;        /* interior nodes; i = 0, nx+1 and j = 0, ny+1 are the boundary */
  double lx, ly;     /* the rectangle */
  double hx, hy;     /* grid steps */
  double tau;        /* time step, from the CFL condition */
  double pmax;       /* max of p over the domain, used for tau */
} wave_problem;

/* The per-step constants of the update: the weights of sum gamma_k and this step's source. */
typedef struct wave_coef {
  double wx;   /* h_y / h_x: weight of the x fluxes */
  double wy;   /* h_x / h_y: weight of the y fluxes */
  double c;    /* tau^2 / (h_x h_y) */
  double src;  /* tau^2 s(t_n): f = g(x, y) s(t), so tau^2 f = src * g */
} wave_coef;

/* One row segment [i0, i1) of a step, in place: uo holds u^{n-1} on entry and u^{n+1} on
 * return (each point reads its own u^{n-1} only, so the new layer can overwrite the old one
 * and a step needs two arrays, not three). u, p and g have the same layout as uo, and
 * `stride` is the distance between rows; every pointer points at the start of the row. */
#pragma omp declare target
static inline void wave_row(double* restrict uo, const double* restrict u, const double* restrict p,
                            const double* restrict g, long stride, int i0, int i1, wave_coef c) {
  for (int i = i0; i < i1; ++i) {
    const double pe = 0.5 * (p[i] + p[i + 1]), pw = 0.5 * (p[i - 1] + p[i]);
    const double pn = 0.5 * (p[i] + p[i + stride]), ps = 0.5 * (p[i - stride] + p[i]);
    const double fx = pe * (u[i + 1] - u[i]) - pw * (u[i] - u[i - 1]);
    const double fy = pn * (u[i + stride] - u[i]) - ps * (u[i] - u[i - stride]);
    uo[i] = 2.0 * u[i] - uo[i] + c.src * g[i] + c.c * (c.wx * fx + c.wy * fy);
  }
}
#pragma omp end declare target

/* ---- wave2d_problem.c (host code) ---- */

/* Grid steps and tau for NX x NY interior nodes. */
void wave_problem_init(wave_problem* pr, int nx, int ny);
/* The step that makes u^{n+1} from u^n and u^{n-1}: its constants (source at t_n = n tau). */
wave_coef wave_coef_at(const wave_problem* pr, int n);
/* p and g at the nodes of a box of w x h nodes whose first node is global node (i0, j0),
 * rows `stride` apart. Nodes outside the domain get values too (they are never read). */
void wave_fill(const wave_problem* pr, double* p, double* g, int i0, int j0, int w, int h, long stride);
/* The serial reference: u^{steps+1} at all (nx+2) x (ny+2) nodes into `out` (row j at
 * out + j (nx+2)). Returns 0, or -1 if out of memory. */
int wave_reference(const wave_problem* pr, int steps, double* out);
/* max |a - b| over n values (infinite if one is NaN). */
double wave_max_diff(const double* a, const double* b, long n);
/* max |a| over n values: the scale of the check (a zero reference would pass anything). */
double wave_max_abs(const double* a, long n);
/* "PROGRAM: verification: max |u - u_ref| = ...: PASS" (or FAIL), the line the tests match. */
void wave_print_verification(const char* program, double diff, double tol, double scale, int pass);

#endif /* WAVE2D_SCHEME_H */
