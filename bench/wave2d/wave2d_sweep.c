/* The time loops of wave2d's variants. All of them update each point with wave_row, so
 * they differ only in which points are computed when, and where the halos come from.
 *
 *   mpi, hybrid  one step at a time: post the width-1 halo, update the interior that does
 *                not read it, wait, update the ring that does (communication overlapped with
 *                computation). hybrid shares rows among OpenMP threads, schedule(runtime).
 *   ghost        ghost-zone expansion: a halo of width k (corners included) every k steps,
 *                then k sweeps over boxes that shrink by one node a step, the ghost zone
 *                recomputed redundantly. k times fewer messages, the same memory traffic.
 *   tb           the same k steps in ONE pass over memory: a wavefront that does step s on
 *                row J - 2(s-1) while step 1 is on row J, so the 2k + 1 rows it touches stay
 *                in cache and each row is read from memory once per k steps. */
#include <omp.h>

#include "wave2d.h"

static void swap_layers(wave_local* L) {
  double* t = L->u_old;
  L->u_old = L->u;
  L->u = t;
}

/* One step over box b, u^{n+1} into u_old. Rows are shared by the threads under the
 * schedule that main set with omp_set_schedule. */
static void update_box(wave_local* L, wave_box b, wave_coef c, int threaded) {
  const long s = L->lx;
  double* uo = L->u_old;
  const double *u = L->u, *p = L->p, *g = L->g;
#pragma omp parallel for schedule(runtime) if (threaded)
  for (int j = b.j0; j < b.j1; ++j) wave_row(uo + j * s, u + j * s, p + j * s, g + j * s, s, b.i0, b.i1, c);
}

/* The owned box grown by e nodes into the ghost zone, but never onto or past the boundary
 * of the domain (global nodes 1..nx, 1..ny are the unknowns; the boundary stays 0). */
static wave_box extended(const wave_local* L, int e) {
  const int k = L->halo;
  wave_box b = {k - e, k + L->nx + e, k - e, k + L->ny + e};
  const int imin = k + 1 - L->gx0, imax = imin + L->pr->nx, jmin = k + 1 - L->gy0, jmax = jmin + L->pr->ny;
  b.i0 = b.i0 < imin ? imin : b.i0;
  b.i1 = b.i1 > imax ? imax : b.i1;
  b.j0 = b.j0 < jmin ? jmin : b.j0;
  b.j1 = b.j1 > jmax ? jmax : b.j1;
  return b;
}

/* mpi / hybrid: step n with a halo of 1 in flight while the interior is computed. Open MPI
 * and MPICH progress a transfer only inside MPI calls, but a same-node transfer of this size
 * is mostly done by the time the interior is; the ring is thin and runs on one thread. */
static void naive_step(wave_local* L, int n, int threaded) {
  const wave_coef c = wave_coef_at(L->pr, n);
  const int i0 = L->halo, i1 = i0 + L->nx, j0 = L->halo, j1 = j0 + L->ny;
  MPI_Request req[8];
  MPI_Status st[8];  /* not MPI_STATUSES_IGNORE: gcc 12 misreads MPICH's prototype */
  wave_halo_begin(L, req);
  update_box(L, (wave_box){i0 + 1, i1 - 1, j0 + 1, j1 - 1}, c, threaded);
  MPI_Waitall(8, req, st);
  update_box(L, (wave_box){i0, i1, j0, j0 + 1}, c, 0);
  if (j1 - 1 > j0) update_box(L, (wave_box){i0, i1, j1 - 1, j1}, c, 0);
  update_box(L, (wave_box){i0, i0 + 1, j0 + 1, j1 - 1}, c, 0);
  if (i1 - 1 > i0) update_box(L, (wave_box){i1 - 1, i1, j0 + 1, j1 - 1}, c, 0);
  swap_layers(L);
}

/* ghost: steps n .. n+r-1 after one wide exchange. Step s (1-based) is valid r - s nodes
 * into the ghost zone, which is what step s + 1 reads. */
static void ghost_block(wave_local* L, int n, int r) {
  wave_halo_wide(L);
  for (int s = 1; s <= r; ++s) {
    update_box(L, extended(L, r - s), wave_coef_at(L->pr, n + s - 1), 1);
    swap_layers(L);
  }
}

/* tb: step s (0-based) of the block on row j, columns [a0, a1) of this thread. Step s
 * writes u^{n+s+1}: into u_old for even s (over u^{n-1}), into u for odd s (over u^n). */
static void wavefront_row(const wave_local* L, const wave_box* b, wave_coef c, int s, int j, int a0, int a1) {
  if (j < b->j0 || j >= b->j1) return;
  const int i0 = a0 > b->i0 ? a0 : b->i0, i1 = a1 < b->i1 ? a1 : b->i1;
  double* out = s % 2 == 0 ? L->u_old : L->u;
  const double* in = s % 2 == 0 ? L->u : L->u_old;
  const long o = (long)j * L->lx;
  if (i0 < i1) wave_row(out + o, in + o, L->p + o, L->g + o, L->lx, i0, i1, c);
}

/* tb: steps n .. n+r-1 in one pass. At position J, step s does row J - 2s. Why a skew of 2
 * rows per step and one barrier per position suffice, with the new layer written in place:
 * step s+1 on row j reads step s's rows j-1..j+1, done by position j + 2s - 1 (earlier);
 * step s+2 overwrites row j of the array step s+1 reads only at position j + 2s + 2, after
 * step s+1 finished reading it (rows j-1..j+1 at positions up to j + 2s + 1). Within one
 * position the steps' rows are 2 apart, so threads that share a row's columns never write
 * what another reads. The columns are split statically: the schedule does not apply. */
static void wavefront_block(wave_local* L, int n, int r) {
  wave_box box[WAVE_MAX_DEPTH];
  wave_coef coef[WAVE_MAX_DEPTH];
  for (int s = 0; s < r; ++s) {
    box[s] = extended(L, r - 1 - s);
    coef[s] = wave_coef_at(L->pr, n + s);
  }
  wave_halo_wide(L);
  const int first = box[0].j0, last = box[r - 1].j1 - 1 + 2 * (r - 1), width = box[0].i1 - box[0].i0;
#pragma omp parallel
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const int a0 = box[0].i0 + (int)((long)width * t / nt), a1 = box[0].i0 + (int)((long)width * (t + 1) / nt);
    for (int J = first; J <= last; ++J) {
      for (int s = 0; s < r; ++s) wavefront_row(L, &box[s], coef[s], s, J - 2 * s, a0, a1);
#pragma omp barrier
    }
  }
  if (r % 2) swap_layers(L);  /* the newest layer, u^{n+r}, is in u_old after an odd count */
}

void wave_run(wave_local* L, wave_variant v, int steps, int depth) {
  for (int n = 1; n <= steps;) {
    if (v == WAVE_MPI || v == WAVE_HYBRID) {
      naive_step(L, n++, v == WAVE_HYBRID);
      continue;
    }
    const int r = steps - n + 1 < depth ? steps - n + 1 : depth;  /* the last block may be shorter */
    if (v == WAVE_GHOST)
      ghost_block(L, n, r);
    else
      wavefront_block(L, n, r);
    n += r;
  }
}
