#include "verify.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "osu.h"

#pragma omp declare target
static int serving_rank(void) {
#ifdef __NVPTX__
  return -1; /* a GPU kernel has no environment to read */
#else
  const char* v = getenv("OMPI_COMM_WORLD_RANK");
  if (!v) v = getenv("PMI_RANK");
  return v ? atoi(v) : -1;
#endif
}
static unsigned char pattern(size_t i, unsigned salt) { return (unsigned char)(i * 131u + salt * 17u + (i >> 12)); }
#pragma omp end declare target

static void record(bench_ctx* ctx, int ok, const char* what, const char* detail) {
  ++ctx->checks;
  if (ok) return;
  ++ctx->failures;
  fprintf(stderr, "FAIL validation: %s: %s\n", what, detail);
}

static void fill(unsigned char* b, size_t n, unsigned salt) {
  for (size_t i = 0; i < n; ++i) b[i] = pattern(i, salt);
}

/* Index of the first byte that differs from pattern(i, salt) + add, or n. */
static size_t first_wrong(const unsigned char* b, size_t n, unsigned salt, unsigned char add) {
  for (size_t i = 0; i < n; ++i)
    if (b[i] != (unsigned char)(pattern(i, salt) + add)) return i;
  return n;
}

static void check_bytes(bench_ctx* ctx, const unsigned char* b, size_t n, unsigned salt, unsigned char add,
                        const char* what) {
  size_t bad = first_wrong(b, n, salt, add);
  char detail[96];
  snprintf(detail, sizeof detail, "byte %zu of %zu is wrong", bad, n);
  record(ctx, bad == n, what, detail);
}

void verify_rank(bench_ctx* ctx, const char* what) {
  int where[2] = {-2, -2};
#pragma omp target device(ctx->layout.host_dev) map(from : where)
  {
    where[0] = serving_rank();
    where[1] = omp_get_device_num();
  }
  char detail[96];
#ifdef FERRY_BENCH_GPU
  /* On a GPU the region reports the job's device number instead, which Ferry writes into
   * each image it loads; it names the rank through the device table. */
  int want = ctx->layout.host_dev;
  snprintf(detail, sizeof detail, "region ran on device %d, expected %d", where[1], want);
  record(ctx, where[1] == want, what, detail);
#else
  int want = ctx->layout.host_dev_rank;
  snprintf(detail, sizeof detail, "region ran on rank %d, expected %d", where[0], want);
  record(ctx, where[0] == want, what, detail);
#endif
}

void verify_map_to(bench_ctx* ctx, int dev, size_t n, const char* what) {
  unsigned salt = (unsigned)ctx->checks;
  unsigned char* b = ctx->host_buf;
  fill(b, n, salt);
  size_t bad = n;
#pragma omp target device(dev) map(always, to : b[0 : n]) map(tofrom : bad)
  for (size_t i = 0; i < n; ++i)
    if (b[i] != pattern(i, salt)) {
      bad = i;
      break;
    }
  char detail[96];
  snprintf(detail, sizeof detail, "the device saw byte %zu of %zu wrong", bad, n);
  record(ctx, bad == n, what, detail);
}

void verify_node_map(bench_ctx* ctx, int a, int b, size_t n, const char* what) {
  unsigned salt = (unsigned)ctx->checks;
  unsigned char* h = ctx->host_buf;
  fill(h, n, salt);
#pragma omp target update to(h[0 : n]) device(a)
#pragma omp target update to(h[0 : n]) device(b)
  int devs[2] = {a, b};
  for (int k = 0; k < 2; ++k) {
    size_t bad = n;
#pragma omp target device(devs[k]) map(tofrom : bad)
    for (size_t i = 0; i < n; ++i)
      if (h[i] != pattern(i, salt)) {
        bad = i;
        break;
      }
    char detail[96];
    snprintf(detail, sizeof detail, "device %d saw byte %zu of %zu wrong", devs[k], bad, n);
    record(ctx, bad == n, what, detail);
  }
}

void verify_map_from(bench_ctx* ctx, int dev, size_t n, const char* what) {
  unsigned salt = (unsigned)ctx->checks;
  unsigned char* b = ctx->host_buf;
  memset(b, 0, n);
#pragma omp target device(dev) map(always, from : b[0 : n])
  for (size_t i = 0; i < n; ++i) b[i] = pattern(i, salt);
  check_bytes(ctx, b, n, salt, 0, what);
}

void verify_map_tofrom(bench_ctx* ctx, int dev, size_t n, const char* what) {
  unsigned salt = (unsigned)ctx->checks;
  unsigned char* b = ctx->host_buf;
  fill(b, n, salt);
#pragma omp target device(dev) map(always, tofrom : b[0 : n])
  for (size_t i = 0; i < n; ++i) b[i] = (unsigned char)(b[i] + 1);
  check_bytes(ctx, b, n, salt, 1, what);
}

void verify_copy(bench_ctx* ctx, void* dst_ptr, int dst, void* src_ptr, int src, size_t n, const char* what) {
  unsigned salt = (unsigned)ctx->checks;
  int host = omp_get_initial_device();
  unsigned char* b = ctx->host_buf;
  fill(b, n, salt);
  int rc = omp_target_memcpy(src_ptr, b, n, 0, 0, src, host);
  memset(b, 0, n);
  rc |= omp_target_memcpy(dst_ptr, src_ptr, n, 0, 0, dst, src);
  rc |= omp_target_memcpy(b, dst_ptr, n, 0, 0, host, dst);
  if (rc != 0) {
    record(ctx, 0, what, "omp_target_memcpy failed");
    return;
  }
  check_bytes(ctx, b, n, salt, 0, what);
}

void verify_no_relay(bench_ctx* ctx, uint64_t bytes_through_rank0, const char* what) {
  char detail[96];
  snprintf(detail, sizeof detail, "%llu bytes passed through rank 0", (unsigned long long)bytes_through_rank0);
  record(ctx, bytes_through_rank0 == 0, what, detail);
}

void verify_nowait(bench_ctx* ctx, int dev, const char* what) {
  int marks[OSU_WINDOW];
  int* d = omp_target_alloc(sizeof marks, dev);
  if (!d) {
    record(ctx, 0, what, "omp_target_alloc failed");
    return;
  }
  for (int w = 0; w < OSU_WINDOW; ++w) {
#pragma omp target device(dev) is_device_ptr(d) firstprivate(w) nowait
    d[w] = w + 1;
  }
#pragma omp taskwait
  int rc = omp_target_memcpy(marks, d, sizeof marks, 0, 0, omp_get_initial_device(), dev);
  omp_target_free(d, dev);
  int missing = rc != 0 ? OSU_WINDOW : 0;
  for (int w = 0; rc == 0 && w < OSU_WINDOW; ++w) missing += marks[w] != w + 1;
  char detail[96];
  snprintf(detail, sizeof detail, "%d of %d nowait regions left no mark", missing, OSU_WINDOW);
  record(ctx, missing == 0, what, detail);
}
