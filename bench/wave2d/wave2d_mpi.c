/* wave2d's domain decomposition: a 2D Cartesian grid of ranks, each with a block of nodes
 * and a ghost zone of width k, halos exchanged with MPI_Isend/MPI_Irecv of derived
 * datatypes (strided columns, contiguous rows), and the gather for the check. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wave2d.h"

/* Nodes [lo, hi) of n interior nodes (global 1..n) for part c of parts: balanced blocks. */
static void split(int n, int parts, int c, int* first, int* count) {
  const long lo = (long)c * n / parts, hi = (long)(c + 1) * n / parts;
  *first = 1 + (int)lo;
  *count = (int)(hi - lo);
}

static void strips_init(wave_strips* s, const wave_local* L, int w) {
  s->w = w;
  if (w < 1) return;
  MPI_Type_vector(L->ny, w, L->lx, MPI_DOUBLE, &s->cols);
  MPI_Type_vector(w, L->nx, L->lx, MPI_DOUBLE, &s->rows_owned);
  MPI_Type_contiguous(w * L->lx, MPI_DOUBLE, &s->rows_full);
  MPI_Type_commit(&s->cols);
  MPI_Type_commit(&s->rows_owned);
  MPI_Type_commit(&s->rows_full);
}

static void strips_free(wave_strips* s) {
  if (s->w < 1) return;
  MPI_Type_free(&s->cols);
  MPI_Type_free(&s->rows_owned);
  MPI_Type_free(&s->rows_full);
}

/* The Cartesian communicator. Rows are split first (dims[0] >= dims[1] from
 * MPI_Dims_create goes to y): north-south halos are contiguous rows, east-west halos are
 * strided columns, so the cheaper kind carries more of the traffic. */
static int make_cart(wave_local* L, MPI_Comm comm, int px, int py) {
  MPI_Comm_size(comm, &L->size);
  int dims[2] = {py, px}, periods[2] = {0, 0};
  /* MPI_Dims_create aborts the job on a grid that cannot be filled: refuse it first. */
  if (px < 0 || py < 0 || (px && L->size % px) || (py && L->size % py) || (px && py && px * py != L->size))
    return -1;
  MPI_Dims_create(L->size, 2, dims);
  /* No reordering: rank 0 of the job stays rank 0 here, so it prints and gathers. */
  MPI_Cart_create(comm, 2, dims, periods, 0, &L->cart);
  MPI_Comm_rank(L->cart, &L->rank);
  MPI_Cart_coords(L->cart, L->rank, 2, L->coords);
  memcpy(L->dims, dims, sizeof dims);
  MPI_Cart_shift(L->cart, 1, 1, &L->west, &L->east);
  MPI_Cart_shift(L->cart, 0, 1, &L->south, &L->north);
  return 0;
}

static int say(int rank, const char* msg) {
  if (rank == 0) fprintf(stderr, "wave2d: %s\n", msg);
  return -1;
}

int wave_local_init(wave_local* L, const wave_problem* pr, MPI_Comm comm, int px, int py, int k) {
  memset(L, 0, sizeof *L);
  L->pr = pr;
  L->cart = MPI_COMM_NULL;
  int rank;
  MPI_Comm_rank(comm, &rank);
  if (make_cart(L, comm, px, py) != 0) return say(rank, "--procs PXxPY must multiply to the number of ranks");
  split(pr->nx, L->dims[1], L->coords[1], &L->gx0, &L->nx);
  split(pr->ny, L->dims[0], L->coords[0], &L->gy0, &L->ny);
  /* A ghost zone of k must come from the next rank alone: every block at least k wide. */
  int small = L->nx < k || L->ny < k, any_small = 0;
  MPI_Allreduce(&small, &any_small, 1, MPI_INT, MPI_MAX, L->cart);
  if (any_small)
    return say(rank, "a block is narrower than the depth: use a larger grid, fewer ranks or a smaller --depth");
  L->halo = k;
  L->lx = L->nx + 2 * k;
  L->ly = L->ny + 2 * k;
  const size_t n = (size_t)L->lx * (size_t)L->ly;
  L->u_old = malloc(n * sizeof(double));
  L->u = malloc(n * sizeof(double));
  L->p = malloc(n * sizeof(double));
  L->g = malloc(n * sizeof(double));
  int failed = !L->u_old || !L->u || !L->p || !L->g, any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, L->cart);
  if (any_failed) return say(rank, "out of memory for the grid");
  /* p and g over the whole block, ghost zone included, from global indices: no exchange,
   * and the same values as the reference's at the same node. */
  wave_fill(pr, L->p, L->g, L->gx0 - k, L->gy0 - k, L->lx, L->ly, L->lx);
  strips_init(&L->strip_u, L, k);
  strips_init(&L->strip_old, L, k - 1);
  return 0;
}

void wave_local_free(wave_local* L) {
  strips_free(&L->strip_u);
  strips_free(&L->strip_old);
  free(L->u_old);
  free(L->u);
  free(L->p);
  free(L->g);
  if (L->cart != MPI_COMM_NULL) MPI_Comm_free(&L->cart);
}

void wave_local_reset(wave_local* L) {
  const long s = L->lx;
#pragma omp parallel for schedule(static)
  for (int b = 0; b < L->ly; ++b) {
    memset(L->u_old + b * s, 0, (size_t)s * sizeof(double));
    memset(L->u + b * s, 0, (size_t)s * sizeof(double));
  }
}

static double* at(const wave_local* L, double* a, int i, int j) { return a + (long)j * L->lx + i; }

/* Tags: the direction of travel, plus TAG_OLD for u^{n-1}, so that no message can match a
 * receive of the other array (their strips differ in width). */
enum { TAG_WEST, TAG_EAST, TAG_SOUTH, TAG_NORTH, TAG_OLD = 4 };

/* East-west: w columns of the owned rows. */
static int post_x(wave_local* L, double* a, const wave_strips* s, int tag, MPI_Request* r) {
  const int k = L->halo, w = s->w;
  MPI_Irecv(at(L, a, k - w, k), 1, s->cols, L->west, tag + TAG_EAST, L->cart, r + 0);
  MPI_Irecv(at(L, a, k + L->nx, k), 1, s->cols, L->east, tag + TAG_WEST, L->cart, r + 1);
  MPI_Isend(at(L, a, k, k), 1, s->cols, L->west, tag + TAG_WEST, L->cart, r + 2);
  MPI_Isend(at(L, a, k + L->nx - w, k), 1, s->cols, L->east, tag + TAG_EAST, L->cart, r + 3);
  return 4;
}

/* North-south: w rows, of the owned columns (i0 = k, type rows_owned) or of the whole width
 * (i0 = 0, rows_full: the corners the east-west phase filled travel on). */
static int post_y(wave_local* L, double* a, const wave_strips* s, int full, int tag, MPI_Request* r) {
  const int k = L->halo, w = s->w, i0 = full ? 0 : k;
  const MPI_Datatype t = full ? s->rows_full : s->rows_owned;
  MPI_Irecv(at(L, a, i0, k - w), 1, t, L->south, tag + TAG_NORTH, L->cart, r + 0);
  MPI_Irecv(at(L, a, i0, k + L->ny), 1, t, L->north, tag + TAG_SOUTH, L->cart, r + 1);
  MPI_Isend(at(L, a, i0, k), 1, t, L->south, tag + TAG_SOUTH, L->cart, r + 2);
  MPI_Isend(at(L, a, i0, k + L->ny - w), 1, t, L->north, tag + TAG_NORTH, L->cart, r + 3);
  return 4;
}

void wave_halo_begin(wave_local* L, MPI_Request req[8]) {
  post_x(L, L->u, &L->strip_u, 0, req);
  post_y(L, L->u, &L->strip_u, 0, 0, req + 4);
}

void wave_halo_wide(wave_local* L) {
  MPI_Request r[8];
  MPI_Status st[8];  /* not MPI_STATUSES_IGNORE: gcc 12 misreads MPICH's prototype (-Wstringop-overflow) */
  int n = post_x(L, L->u, &L->strip_u, 0, r);
  if (L->strip_old.w > 0) n += post_x(L, L->u_old, &L->strip_old, TAG_OLD, r + n);
  MPI_Waitall(n, r, st);
  n = post_y(L, L->u, &L->strip_u, 1, 0, r);
  if (L->strip_old.w > 0) n += post_y(L, L->u_old, &L->strip_old, 1, TAG_OLD, r + n);
  MPI_Waitall(n, r, st);
}

/* Every rank's owned block, packed, and where it goes: {gx0, gy0, nx, ny}. */
void wave_gather(const wave_local* L, double* all) {
  const int k = L->halo, mine = L->nx * L->ny, where[4] = {L->gx0, L->gy0, L->nx, L->ny};
  double* block = malloc((size_t)mine * sizeof(double));
  for (int b = 0; b < L->ny; ++b)
    memcpy(block + (long)b * L->nx, at(L, L->u, k, k + b), (size_t)L->nx * sizeof(double));
  int *places = NULL, *counts = NULL, *displs = NULL;
  double* blocks = NULL;
  if (L->rank == 0) {
    places = malloc(4 * (size_t)L->size * sizeof(int));
    counts = malloc((size_t)L->size * sizeof(int));
    displs = malloc((size_t)L->size * sizeof(int));
  }
  MPI_Gather(where, 4, MPI_INT, places, 4, MPI_INT, 0, L->cart);
  if (L->rank == 0)
    for (int r = 0, off = 0; r < L->size; off += counts[r++]) {
      counts[r] = places[4 * r + 2] * places[4 * r + 3];
      displs[r] = off;
    }
  if (L->rank == 0) blocks = malloc((size_t)L->pr->nx * (size_t)L->pr->ny * sizeof(double));
  MPI_Gatherv(block, mine, MPI_DOUBLE, blocks, counts, displs, MPI_DOUBLE, 0, L->cart);
  const long s = L->pr->nx + 2;
  for (int r = 0; L->rank == 0 && r < L->size; ++r) {
    const int *w = places + 4 * r;
    for (int b = 0; b < w[3]; ++b)
      memcpy(all + (long)(w[1] + b) * s + w[0], blocks + displs[r] + (long)b * w[2], (size_t)w[2] * sizeof(double));
  }
  free(block);
  free(places);
  free(counts);
  free(displs);
  free(blocks);
}
