/* wave2d, the MPI / MPI+OpenMP / temporal-blocking program: one rank's part of the grid,
 * its halo exchange (wave2d_mpi.c) and the variants' time loops (wave2d_sweep.c). */
#ifndef WAVE2D_H
#define WAVE2D_H

#include <mpi.h>

#include "wave2d_scheme.h"

enum { WAVE_MAX_DEPTH = 16 };

typedef enum wave_variant {
  WAVE_MPI,     /* one thread per rank; halo of 1 overlapped with the interior */
  WAVE_HYBRID,  /* the same with an OpenMP loop over rows, schedule(runtime) */
  WAVE_GHOST,   /* ghost-zone expansion: halo of k, exchanged every k steps, k sweeps */
  WAVE_TB       /* the same, the k steps done in one wavefront pass over memory */
} wave_variant;

/* Ghost widths of one exchange: datatypes for a strip of w columns (owned rows) and for w
 * rows, of the owned columns or of the whole allocated width (corners included). */
typedef struct wave_strips {
  int w;
  MPI_Datatype cols, rows_owned, rows_full;
} wave_strips;

/* A box of local indices, [i0, i1) x [j0, j1). */
typedef struct wave_box {
  int i0, i1, j0, j1;
} wave_box;

/* One rank's block of the grid. Local index (a, b) is global node
 * (gx0 - halo + a, gy0 - halo + b); the owned nodes are a, b in [halo, halo + nx/ny). */
typedef struct wave_local {
  const wave_problem* pr;
  MPI_Comm cart;
  int rank, size, dims[2], coords[2];  /* dims/coords: {y, x} (rows split first) */
  int west, east, south, north;        /* neighbours, MPI_PROC_NULL at the boundary */
  int nx, ny, gx0, gy0;                /* owned nodes and the first one's global index */
  int halo;                            /* ghost width k */
  int lx, ly;                          /* allocated extent, nx + 2k by ny + 2k */
  double *u_old, *u, *p, *g;           /* u^{n-1}, u^n, nodal p, source shape */
  wave_strips strip_u, strip_old;      /* widths k (u^n) and k - 1 (u^{n-1}) */
} wave_local;

/* ---- wave2d_mpi.c ---- */

/* Splits the grid over `comm` as a px x py Cartesian grid (0: MPI_Dims_create chooses) and
 * allocates this rank's block with ghost width k. Returns 0, or -1 with a message on rank 0
 * (the same verdict on every rank). */
int wave_local_init(wave_local* L, const wave_problem* pr, MPI_Comm comm, int px, int py, int k);
void wave_local_free(wave_local* L);
/* Zero u^{n-1} and u^n (u^0 = u^1 = 0), first-touching the pages with the threads that use them. */
void wave_local_reset(wave_local* L);
/* Halo of width 1 of u^n, no corners (the 5-point stencil reads none), all four sides at
 * once: posts 8 requests into req. */
void wave_halo_begin(wave_local* L, MPI_Request req[8]);
/* Halos of width k of u^n and k - 1 of u^{n-1}, corners included: east-west first, then
 * north-south over whole rows, which carry the corners just received. Blocking. */
void wave_halo_wide(wave_local* L);
/* u^n of the owned nodes of every rank into `all` on rank 0, (nx+2) x (ny+2) nodes with
 * the boundary left as it is. */
void wave_gather(const wave_local* L, double* all);

/* ---- wave2d_sweep.c ---- */

/* Steps 1..steps of one variant from u^0 = u^1 = 0 (depth: k of ghost and tb). */
void wave_run(wave_local* L, wave_variant v, int steps, int depth);

#endif /* WAVE2D_H */
