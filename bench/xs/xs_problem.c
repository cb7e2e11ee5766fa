/* The cross-section data: nuclides with random energy grids and cross sections, and
 * XSBench's twelve materials (fuel with 34 nuclides, cladding, water, ...), all from one
 * seed, so every rank and every run builds the same problem. */
#include <stdlib.h>
#include <string.h>

#include "xs_kernel.h"

/* Nuclides per material in XSBench's "small" problem. */
static const int kMaterialSize[XS_MATERIALS] = {34, 5, 4, 4, 27, 21, 21, 21, 21, 21, 9, 9};

static int by_value(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static void fill_nuclides(xs_problem* pr, uint64_t* state) {
  const size_t g = (size_t)pr->p.gridpoints;
  for (int n = 0; n < pr->p.nuclides; ++n) {
    double* row = pr->energy + (size_t)n * g;
    for (size_t k = 0; k < g; ++k) row[k] = xs_unit(*state = xs_mix(*state));
    qsort(row, g, sizeof *row, by_value);
    double* x = pr->xs + (size_t)n * g * XS_CHANNELS;
    for (size_t k = 0; k < g * XS_CHANNELS; ++k) x[k] = xs_unit(*state = xs_mix(*state));
  }
}

/* Each material takes distinct nuclides, drawn at random, with random concentrations. */
static void fill_materials(xs_problem* pr, uint64_t* state) {
  int at = 0;
  char* used = calloc((size_t)pr->p.nuclides, 1);
  for (int m = 0; m < XS_MATERIALS; ++m) {
    pr->mat_start[m] = at;
    memset(used, 0, (size_t)pr->p.nuclides);
    int count = kMaterialSize[m] < pr->p.nuclides ? kMaterialSize[m] : pr->p.nuclides;
    for (int j = 0; j < count; ++j) {
      int n;
      do n = (int)((*state = xs_mix(*state)) % (uint64_t)pr->p.nuclides);
      while (used[n]);
      used[n] = 1;
      pr->mat_nuclide[at] = n;
      pr->mat_conc[at] = xs_unit(*state = xs_mix(*state));
      ++at;
    }
  }
  pr->mat_start[XS_MATERIALS] = at;
  pr->total = at;
  free(used);
}

int xs_generate(xs_problem* pr, const xs_params* p) {
  memset(pr, 0, sizeof *pr);
  pr->p = *p;
  size_t points = (size_t)p->nuclides * (size_t)p->gridpoints;
  int total = 0;
  for (int m = 0; m < XS_MATERIALS; ++m) total += kMaterialSize[m];
  pr->energy = malloc(points * sizeof(double));
  pr->xs = malloc(points * XS_CHANNELS * sizeof(double));
  pr->mat_start = malloc((XS_MATERIALS + 1) * sizeof(int));
  pr->mat_nuclide = malloc((size_t)total * sizeof(int));
  pr->mat_conc = malloc((size_t)total * sizeof(double));
  if (!pr->energy || !pr->xs || !pr->mat_start || !pr->mat_nuclide || !pr->mat_conc) return -1;
  uint64_t state = p->seed;
  fill_nuclides(pr, &state);
  fill_materials(pr, &state);
  return 0;
}

void xs_release(xs_problem* pr) {
  free(pr->energy);
  free(pr->xs);
  free(pr->mat_start);
  free(pr->mat_nuclide);
  free(pr->mat_conc);
  memset(pr, 0, sizeof *pr);
}

size_t xs_bytes(const xs_problem* pr) {
  size_t points = (size_t)pr->p.nuclides * (size_t)pr->p.gridpoints;
  return points * (1 + XS_CHANNELS) * sizeof(double) + (XS_MATERIALS + 1) * sizeof(int) +
         (size_t)pr->total * (sizeof(int) + sizeof(double));
}
