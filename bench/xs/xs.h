/* ferry_xs: an XSBench-style proxy app written for Ferry.
 *
 * Monte Carlo neutron transport spends most of its time in macroscopic cross-section
 * lookups: for a particle of energy E in material m, sum over the material's nuclides
 * (concentration x the nuclide's microscopic cross sections at E), each found by a binary
 * search in that nuclide's energy grid and a linear interpolation. XSBench (ANL) distils
 * that loop; this is our own version of the idea, in OpenMP target code.
 *
 * Event-based: one flat loop over all lookups, split into contiguous slices, one slice per
 * device, each a `target teams distribute parallel for`. Lookup i draws its energy and
 * material from a counter-based generator seeded by i alone, so the set of lookups, and
 * the checksum over them, do not depend on how many devices share the work. */
#ifndef FERRY_XS_H
#define FERRY_XS_H

#include <stddef.h>
#include <stdint.h>

enum { XS_CHANNELS = 5 }; /* total, elastic, absorption, fission, nu-fission */
enum { XS_MATERIALS = 12 };

typedef struct xs_params {
  int nuclides;      /* 68, as XSBench's "small" problem */
  int gridpoints;    /* energy points per nuclide */
  uint64_t seed;
} xs_params;

/* The problem, flat so that it maps to a device with a few memcpys. */
typedef struct xs_problem {
  xs_params p;
  double* energy;     /* [nuclides][gridpoints], each row ascending in [0, 1) */
  double* xs;         /* [nuclides][gridpoints][XS_CHANNELS] */
  int* mat_start;     /* [XS_MATERIALS + 1]: material m's nuclides are [mat_start[m], mat_start[m+1]) */
  int* mat_nuclide;   /* [total]: nuclide index */
  double* mat_conc;   /* [total]: its concentration */
  int total;          /* sum of the materials' nuclide counts */
} xs_problem;

int xs_generate(xs_problem* pr, const xs_params* p);
void xs_release(xs_problem* pr);
size_t xs_bytes(const xs_problem* pr);

#endif
