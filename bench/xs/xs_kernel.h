/* The lookup itself, compiled for the host (reference) and for the devices. Pure integer
 * and IEEE double arithmetic in a fixed order, so both produce bit-identical results. */
#ifndef FERRY_XS_KERNEL_H
#define FERRY_XS_KERNEL_H

#include <stdint.h>
#include <string.h>

#include "xs.h"

#pragma omp declare target

/* splitmix64: a counter-based generator, one independent stream per lookup. */
static inline uint64_t xs_mix(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static inline double xs_unit(uint64_t r) { return (double)(r >> 11) * 0x1.0p-53; }

/* XSBench's share of lookups per material (fuel, cladding, water, ...). */
static inline int xs_pick_material(double u) {
  static const double share[XS_MATERIALS] = {0.140, 0.052, 0.275, 0.134, 0.154, 0.064,
                                             0.066, 0.055, 0.008, 0.015, 0.025, 0.013};
  double acc = 0;
  for (int m = 0; m < XS_MATERIALS - 1; ++m) {
    acc += share[m];
    if (u < acc) return m;
  }
  return XS_MATERIALS - 1;
}

/* Largest index lo with row[lo] <= e, kept within [0, n-2] so that lo+1 exists. */
static inline int xs_search(const double* row, int n, double e) {
  int lo = 0, hi = n - 1;
  while (hi - lo > 1) {
    int mid = lo + (hi - lo) / 2;
    if (row[mid] > e) hi = mid;
    else lo = mid;
  }
  return lo;
}

/* Macroscopic cross sections of one (energy, material) pair. */
static inline void xs_macro(const double* energy, const double* xs, const int* mat_start, const int* mat_nuclide,
                            const double* mat_conc, int gridpoints, double e, int mat, double out[XS_CHANNELS]) {
  for (int c = 0; c < XS_CHANNELS; ++c) out[c] = 0;
  for (int j = mat_start[mat]; j < mat_start[mat + 1]; ++j) {
    const size_t row = (size_t)mat_nuclide[j] * (size_t)gridpoints;
    const int lo = xs_search(energy + row, gridpoints, e);
    const double e0 = energy[row + lo], e1 = energy[row + lo + 1];
    const double f = (e - e0) / (e1 - e0);
    const double* a = xs + (row + lo) * XS_CHANNELS;
    const double* b = a + XS_CHANNELS;
    for (int c = 0; c < XS_CHANNELS; ++c) out[c] += mat_conc[j] * (a[c] + f * (b[c] - a[c]));
  }
}

static inline uint64_t xs_bits(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}

/* Lookup i, from sampling to its contribution to the checksum: a hash of i, of the
 * channel with the largest cross section (XSBench's verification) and of the exact bits of
 * all five values. A sum of these is independent of the order of the lookups. */
static inline uint64_t xs_lookup(const double* energy, const double* xs, const int* mat_start,
                                 const int* mat_nuclide, const double* mat_conc, int gridpoints, uint64_t seed,
                                 uint64_t i) {
  uint64_t s = xs_mix(seed ^ xs_mix(i));
  double e = xs_unit(s);
  int mat = xs_pick_material(xs_unit(xs_mix(s)));
  double macro[XS_CHANNELS];
  xs_macro(energy, xs, mat_start, mat_nuclide, mat_conc, gridpoints, e, mat, macro);
  int best = 0;
  uint64_t h = xs_mix(i);
  for (int c = 0; c < XS_CHANNELS; ++c) {
    if (macro[c] > macro[best]) best = c;
    h = xs_mix(h ^ xs_bits(macro[c]));
  }
  return xs_mix(h + (uint64_t)best);
}

#pragma omp end declare target

#endif
