/* omp_target_alloc / omp_target_memcpy / omp_target_free between every pair of devices
 * (same rank, same node, different nodes, depending on the job's layout), plus
 * omp_target_memcpy_rect and omp_target_associate_ptr. Usage: device_memcpy [bytes] */
#include "check.h"

static unsigned char pattern(size_t i, int salt) { return (unsigned char)(i * 131 + salt * 17 + (i >> 10)); }

int main(int argc, char** argv) {
  int n = omp_get_num_devices();
  int host = omp_get_initial_device();
  size_t size = argc > 1 ? (size_t)atoll(argv[1]) : (3u << 20) + 5;
  unsigned char* h = malloc(size);
  unsigned char* back = malloc(size);
  void** buf = calloc(n, sizeof(void*));
  for (int d = 0; d < n; ++d) {
    buf[d] = omp_target_alloc(size, d);
    CHECK(buf[d] != NULL, "omp_target_alloc on device %d", d);
  }
  for (int src = 0; src < n; ++src) {
    for (size_t i = 0; i < size; ++i) h[i] = pattern(i, src);
    CHECK(omp_target_memcpy(buf[src], h, size, 0, 0, src, host) == 0, "host->dev %d", src);
    for (int dst = 0; dst < n; ++dst) {
      if (dst == src) continue;
      CHECK(omp_target_memcpy(buf[dst], buf[src], size, 0, 0, dst, src) == 0, "dev %d -> dev %d", src, dst);
      memset(back, 0, size);
      CHECK(omp_target_memcpy(back, buf[dst], size, 0, 0, host, dst) == 0, "dev %d -> host", dst);
      size_t bad = 0;
      for (size_t i = 0; i < size; ++i) bad += back[i] != pattern(i, src);
      CHECK(bad == 0, "%zu wrong bytes after copying device %d to device %d", bad, src, dst);
    }
    /* offsets on both sides */
    CHECK(omp_target_memcpy(back, buf[src], 1000, 7, 333, host, src) == 0, "offset copy");
    for (size_t i = 0; i < 1000; ++i) CHECK(back[7 + i] == pattern(333 + i, src), "offset byte %zu", i);
  }
  /* Within one device, overlapping ranges, both ways: memmove's result (the stock plugin's
   * round trip gives it), not a hang. */
  enum { N = 100000, SHIFT = 4099 };
  for (int d = 0; d < n && size >= N + SHIFT; ++d) {
    for (size_t i = 0; i < N + SHIFT; ++i) h[i] = pattern(i, 50 + d);
    CHECK(omp_target_memcpy(buf[d], h, N + SHIFT, 0, 0, d, host) == 0, "overlap fill dev %d", d);
    CHECK(omp_target_memcpy(buf[d], buf[d], N, SHIFT, 0, d, d) == 0, "overlapping copy up on dev %d", d);
    CHECK(omp_target_memcpy(back, buf[d], N + SHIFT, 0, 0, host, d) == 0, "overlap read dev %d", d);
    for (size_t i = 0; i < N + SHIFT; ++i)
      CHECK(back[i] == pattern(i < SHIFT ? i : i - SHIFT, 50 + d), "dev %d copy up: byte %zu", d, i);
    CHECK(omp_target_memcpy(buf[d], buf[d], N, 0, SHIFT, d, d) == 0, "overlapping copy down on dev %d", d);
    CHECK(omp_target_memcpy(back, buf[d], N, 0, 0, host, d) == 0, "overlap read dev %d", d);
    for (size_t i = 0; i < N; ++i) CHECK(back[i] == pattern(i, 50 + d), "dev %d copy down: byte %zu", d, i);
  }
  /* The device pointers are usable in regions (is_device_ptr). */
  for (int d = 0; d < n; ++d) {
    for (size_t i = 0; i < 4096; ++i) h[i] = pattern(i, 100 + d);
    CHECK(omp_target_memcpy(buf[d], h, 4096, 0, 0, d, host) == 0, "refill dev %d", d);
    unsigned char* p = buf[d];
    long sum = 0, want = 0;
#pragma omp target device(d) is_device_ptr(p) map(tofrom : sum)
    for (size_t i = 0; i < 4096; ++i) sum += p[i];
    for (size_t i = 0; i < 4096; ++i) want += pattern(i, 100 + d);
    CHECK(sum == want, "device %d sum %ld want %ld", d, sum, want);
  }
  /* 2-D rectangle copy between devices */
  if (n >= 2) {
    enum { R = 64, C = 64 };
    int grid[R][C], out[R][C];
    for (int i = 0; i < R; ++i)
      for (int j = 0; j < C; ++j) grid[i][j] = i * 1000 + j, out[i][j] = -1;
    CHECK(omp_target_memcpy(buf[0], grid, sizeof grid, 0, 0, 0, host) == 0, "grid to dev 0");
    size_t volume[2] = {10, 20}, dst_off[2] = {0, 0}, src_off[2] = {5, 7}, dims[2] = {R, C};
    CHECK(omp_target_memcpy_rect(buf[1], buf[0], sizeof(int), 2, volume, dst_off, src_off, dims, dims, 1, 0) == 0,
          "rect copy");
    CHECK(omp_target_memcpy(out, buf[1], sizeof out, 0, 0, host, 1) == 0, "grid back");
    for (int i = 0; i < 10; ++i)
      for (int j = 0; j < 20; ++j)
        CHECK(out[i][j] == (i + 5) * 1000 + (j + 7), "rect [%d][%d]=%d", i, j, out[i][j]);
  }
  /* associate a host array with device memory, then map it without a copy-in */
  {
    int* dev = omp_target_alloc(100 * sizeof(int), 0);
    int hostArr[100];
    for (int i = 0; i < 100; ++i) hostArr[i] = i;
    CHECK(omp_target_memcpy(dev, hostArr, sizeof hostArr, 0, 0, 0, host) == 0, "fill assoc");
    CHECK(omp_target_associate_ptr(hostArr, dev, sizeof hostArr, 0, 0) == 0, "associate");
    CHECK(omp_target_is_present(hostArr, 0), "associated pointer present");
#pragma omp target device(0) map(tofrom : hostArr)
    for (int i = 0; i < 100; ++i) hostArr[i] += 1;
    int check[100];
    CHECK(omp_target_memcpy(check, dev, sizeof check, 0, 0, host, 0) == 0, "read assoc");
    for (int i = 0; i < 100; ++i) CHECK(check[i] == i + 1, "assoc[%d]=%d", i, check[i]);
    CHECK(omp_target_disassociate_ptr(hostArr, 0) == 0, "disassociate");
    omp_target_free(dev, 0);
  }
  for (int d = 0; d < n; ++d) omp_target_free(buf[d], d);
  free(h);
  free(back);
  free(buf);
  return finish("device_memcpy");
}
