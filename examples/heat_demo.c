/* Ferry demo: 2-D heat diffusion (Jacobi) split across every device of the job.
 *
 * Unchanged OpenMP offload code: each device owns a band of rows in its own memory
 * (omp_target_alloc), relaxes it with `target teams distribute parallel for nowait`, and
 * swaps halo rows with its neighbours with omp_target_memcpy between devices. Under Ferry
 * the devices live in other MPI ranks, and the halo rows travel directly between those
 * ranks, never through rank 0. The result is checked against the same computation on the
 * host.
 *
 * Usage: heat_demo [grid-size] [iterations] */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ferry/ferry_offload.h"

#pragma omp declare target
static int serving_rank(void) {
  const char* v = getenv("OMPI_COMM_WORLD_RANK");
  if (!v) v = getenv("PMI_RANK");
  /* srun --mpi=pmix (Open MPI started by Slurm) sets neither, only PMIX_RANK. */
  if (!v) v = getenv("PMIX_RANK");
  return v ? atoi(v) : -1;
}
#pragma omp end declare target

/* One relaxation sweep over `rows` interior rows of an (rows+2) x n band. */
static void sweep_host(const double* in, double* out, int rows, int n) {
  for (int i = 1; i <= rows; ++i)
    for (int j = 1; j < n - 1; ++j)
      out[i * n + j] = 0.25 * (in[(i - 1) * n + j] + in[(i + 1) * n + j] + in[i * n + j - 1] + in[i * n + j + 1]);
}

static void initial(double* grid, int n) {
  memset(grid, 0, sizeof(double) * n * n);
  for (int j = 0; j < n; ++j) grid[j] = 100.0;                       /* hot top edge */
  for (int i = 0; i < n; ++i) grid[i * n] = 50.0 * i / (n - 1);      /* warm left edge */
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1024;
  int iters = argc > 2 ? atoi(argv[2]) : 200;
  int ndev = omp_get_num_devices();
  int host = omp_get_initial_device();
  if (ndev < 1 || n < 3 * ndev) {
    fprintf(stderr, "heat_demo: need at least one device and n >= 3 * devices\n");
    return 1;
  }
  double* grid = malloc(sizeof(double) * n * n);
  initial(grid, n);

  /* Bands: device d owns interior rows [first[d], first[d] + rows[d]) of rows 1..n-2. */
  int interior = n - 2;
  int first[64], rows[64], ran_on[64];
  double* cur[64];
  double* nxt[64];
  for (int d = 0; d < ndev; ++d) {
    first[d] = 1 + d * interior / ndev;
    rows[d] = 1 + (d + 1) * interior / ndev - first[d];
    size_t bytes = sizeof(double) * (size_t)(rows[d] + 2) * n;
    cur[d] = omp_target_alloc(bytes, d);
    nxt[d] = omp_target_alloc(bytes, d);
    if (!cur[d] || !nxt[d]) {
      fprintf(stderr, "heat_demo: omp_target_alloc failed on device %d\n", d);
      return 1;
    }
    /* The band plus one halo row on each side, into both buffers (the edges stay fixed). */
    omp_target_memcpy(cur[d], grid + (size_t)(first[d] - 1) * n, bytes, 0, 0, d, host);
    omp_target_memcpy(nxt[d], grid + (size_t)(first[d] - 1) * n, bytes, 0, 0, d, host);
  }

  /* Rank 0's own traffic is counted; during the iterations it must stay at zero. */
  ferry_offload_counters before, after;
  int counted = ferry_offload_get_counters(&before) == FERRY_OFFLOAD_OK;
  double t0 = omp_get_wtime();
  for (int it = 0; it < iters; ++it) {
    for (int d = 0; d < ndev; ++d) {
      double* in = cur[d];
      double* out = nxt[d];
      int r = rows[d];
#pragma omp target teams distribute parallel for collapse(2) device(d) is_device_ptr(in, out) nowait
      for (int i = 1; i <= r; ++i)
        for (int j = 1; j < n - 1; ++j)
          out[i * n + j] = 0.25 * (in[(i - 1) * n + j] + in[(i + 1) * n + j] + in[i * n + j - 1] + in[i * n + j + 1]);
    }
#pragma omp taskwait
    for (int d = 0; d < ndev; ++d) {
      double* t = cur[d];
      cur[d] = nxt[d];
      nxt[d] = t;
    }
    /* Halo exchange, device to device: my last row to the next band's top halo, my first
     * row to the previous band's bottom halo. */
    for (int d = 0; d + 1 < ndev; ++d) {
      size_t row = sizeof(double) * n;
      omp_target_memcpy(cur[d + 1], cur[d], row, 0, row * rows[d], d + 1, d);
      omp_target_memcpy(cur[d], cur[d + 1], row, row * (rows[d] + 1), row, d, d + 1);
    }
  }
  double elapsed = omp_get_wtime() - t0;
  counted = counted && ferry_offload_get_counters(&after) == FERRY_OFFLOAD_OK;

  for (int d = 0; d < ndev; ++d) {
    int r = -1;
#pragma omp target device(d) map(from : r)
    r = serving_rank();
    ran_on[d] = r;
    omp_target_memcpy(grid + (size_t)first[d] * n, cur[d], sizeof(double) * rows[d] * n, 0, sizeof(double) * n, host,
                      d);
    omp_target_free(cur[d], d);
    omp_target_free(nxt[d], d);
  }

  /* The same computation on the host, for the check. */
  double* ref = malloc(sizeof(double) * n * n);
  double* tmp = malloc(sizeof(double) * n * n);
  initial(ref, n);
  initial(tmp, n);
  for (int it = 0; it < iters; ++it) {
    sweep_host(ref, tmp, n - 2, n);
    double* t = ref;
    ref = tmp;
    tmp = t;
  }
  double maxdiff = 0, checksum = 0;
  for (size_t i = 0; i < (size_t)n * n; ++i) {
    maxdiff = fmax(maxdiff, fabs(grid[i] - ref[i]));
    checksum += grid[i];
  }

  printf("\nheat_demo: %d x %d grid, %d iterations on %d device(s) in %.3f s\n", n, n, iters, ndev, elapsed);
  printf("  %-7s %-6s %-12s %s\n", "device", "rank", "rows", "region ran on rank");
  for (int d = 0; d < ndev; ++d) {
    ferry_offload_device info;
    int rank = ferry_offload_get_device(d, &info) == FERRY_OFFLOAD_OK ? info.rank : -1;
    printf("  %-7d %-6d %5d-%-6d %d\n", d, rank, first[d], first[d] + rows[d] - 1, ran_on[d]);
  }
  uint64_t relayed = 0;
  if (counted) {
    relayed = (after.host_to_device_bytes + after.device_to_host_bytes) -
              (before.host_to_device_bytes + before.device_to_host_bytes);
    printf("  halo rows moved device to device: %.2f MiB; bytes through rank 0 meanwhile: %llu\n",
           (after.device_to_device_bytes - before.device_to_device_bytes) / 1048576.0, (unsigned long long)relayed);
  }
  printf("  checksum %.6f, largest difference from the host computation %.3g: %s\n", checksum, maxdiff,
         maxdiff < 1e-9 ? "OK" : "WRONG");
  free(grid);
  free(ref);
  free(tmp);
  return maxdiff < 1e-9 && relayed == 0 ? 0 : 1;
}
