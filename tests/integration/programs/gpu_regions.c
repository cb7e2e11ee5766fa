/* GPUs served by other ranks: the CUDA path of the offload plugin, on a real GPU.
 *
 * Built for both targets (x86_64 and nvptx64), so that CPU devices get the x86_64 image and
 * GPUs the nvptx64 one. Each serving rank offers FERRY_DEVICES_PER_RANK CPU devices, then
 * its GPUs (docs/user-guide.md, "GPUs"). Checks, on every device: the table (rank, kind),
 * that each region ran on the device's kind and sees the job's device numbering, map clauses with a teams reduction, target
 * data with update, enter/exit data, declare-target globals per device, omp_target_* copies
 * between every pair of devices (eager and chunked sizes), is_device_ptr, nowait with
 * depend on all devices at once; a GPU region also prints a line (output forwarding).
 *
 * Exits 77 (CTest's skip code) when this machine has no usable GPU, and says why. With a
 * GPU present, a table without GPUs is a failure, not a skip. */
#include <dlfcn.h>
#include <stdint.h>

#include "check.h"
#include "ferry/ferry_offload.h"

enum { kSkip = 77 };

#pragma omp declare target
/* Not static: clang-16 drops a static variant before it selects it. */
int on_gpu_nvptx(void) { return 1; }
#pragma omp declare variant(on_gpu_nvptx) match(device = {arch(nvptx64)})
int on_gpu(void) { return 0; }
int device_tag = -1;
#pragma omp end declare target

/* GPUs the CUDA driver reports on this machine; -1 with *why set when there is no driver. */
static int driver_gpu_count(const char** why) {
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!cuda) {
    *why = "no CUDA driver (libcuda.so.1 cannot be opened)";
    return -1;
  }
  int (*init)(unsigned) = (int (*)(unsigned))dlsym(cuda, "cuInit");
  int (*count)(int*) = (int (*)(int*))dlsym(cuda, "cuDeviceGetCount");
  int n = 0;
  if (!init || !count || init(0) != 0 || count(&n) != 0) {
    *why = "the CUDA driver does not initialise (cuInit failed: no usable GPU)";
    return -1;
  }
  return n;
}

/* Every device's place in the table: rank first + d / per_rank, CPUs first on each rank
 * (rank 0 serves devices only under FERRY_RANK0_DEVICES=1). */
static void check_table(int n, int cpus, int gpus) {
  int per_rank = cpus + gpus;
  int first = env_int("FERRY_RANK0_DEVICES", 0) ? 0 : 1;
  int serving = world_size() - first;
  CHECK(n == serving * per_rank, "%d devices, expected %d serving ranks x (%d CPU + %d GPU)", n, serving, cpus, gpus);
  for (int d = 0; d < n; ++d) {
    ferry_offload_device info;
    CHECK(ferry_offload_get_device(d, &info) == 0, "ferry_offload_get_device(%d)", d);
    int want_gpu = d % per_rank >= cpus;
    int want_rank = first + d / per_rank;
    CHECK(info.rank == want_rank, "device %d is on rank %d, expected %d", d, info.rank, want_rank);
    CHECK(info.is_gpu == want_gpu, "device %d is_gpu=%d, expected %d", d, info.is_gpu, want_gpu);
    if (want_gpu) CHECK(info.memory_bytes > (1ull << 30), "GPU device %d reports %llu bytes", d,
                        (unsigned long long)info.memory_bytes);
    int gpu = -1, initial = -1, num = -1, count = -1;
#pragma omp target device(d) map(from : gpu, initial, num, count)
    {
      gpu = on_gpu();
      initial = omp_is_initial_device();
      num = omp_get_device_num();
      count = omp_get_num_devices();
    }
    CHECK(gpu == want_gpu, "device %d ran its region on a %s", d, gpu ? "GPU" : "CPU");
    CHECK(initial == 0, "device %d ran its region on the initial device", d);
    /* The job's numbering inside regions too (on GPUs Ferry rewrites what the stock plugin
     * sets; omp_get_initial_device() there is LLVM 16's -1, docs/user-guide.md). */
    CHECK(num == d, "device %d: omp_get_device_num() in a region says %d", d, num);
    CHECK(count == n, "device %d: omp_get_num_devices() in a region says %d, the host says %d", d, count, n);
  }
}

/* map(to/from/tofrom) of 32 MiB with a teams reduction; sums of whole numbers are exact. */
static void check_maps(int d) {
  const int N = 1 << 22;
  double* a = malloc(N * sizeof *a);
  double* b = malloc(N * sizeof *b);
  for (int i = 0; i < N; ++i) a[i] = 0.5 * i, b[i] = -1;
  double sum = 0;
#pragma omp target teams distribute parallel for device(d) map(to : a[0:N]) map(from : b[0:N]) \
    reduction(+ : sum)
  for (int i = 0; i < N; ++i) {
    b[i] = 2 * a[i] + d;
    sum += b[i];
  }
  size_t bad = 0;
  for (int i = 0; i < N; ++i) bad += b[i] != (double)i + d;
  CHECK(bad == 0, "device %d: %zu wrong elements after map(from)", d, bad);
  double want = (double)N * (N - 1) / 2 + (double)d * N;
  CHECK(sum == want, "device %d: reduction %.1f, expected %.1f", d, sum, want);
  free(a);
  free(b);
}

/* target data with update in both directions, then enter/exit data with alloc and delete. */
static void check_data_regions(int d) {
  enum { N = 100000 };
  static int x[N], y[N];
  for (int i = 0; i < N; ++i) x[i] = i, y[i] = 0;
#pragma omp target data device(d) map(to : x) map(from : y)
  {
    for (int i = 0; i < N; ++i) x[i] = 3 * i; /* host-only change until the update */
#pragma omp target update device(d) to(x)
#pragma omp target teams distribute parallel for device(d)
    for (int i = 0; i < N; ++i) y[i] = x[i] + 1;
#pragma omp target update device(d) from(y)
    CHECK(y[N - 1] == 3 * (N - 1) + 1, "device %d: update from gave %d", d, y[N - 1]);
  }
  for (int i = 0; i < N; ++i) CHECK(y[i] == 3 * i + 1, "device %d: y[%d]=%d", d, i, y[i]);

#pragma omp target enter data device(d) map(to : x) map(alloc : y)
#pragma omp target teams distribute parallel for device(d)
  for (int i = 0; i < N; ++i) y[i] = -x[i];
#pragma omp target exit data device(d) map(from : y) map(delete : x)
  CHECK(!omp_target_is_present(x, d) && !omp_target_is_present(y, d), "device %d: still present after exit", d);
  for (int i = 0; i < N; ++i) CHECK(y[i] == -3 * i, "device %d: exit data y[%d]=%d", d, i, y[i]);
}

/* Each device keeps its own copy of a declare-target global. */
static void check_globals(int n) {
  for (int d = 0; d < n; ++d) {
#pragma omp target device(d)
    device_tag = 1000 + d;
  }
  for (int d = 0; d < n; ++d) {
    int seen = -1;
#pragma omp target device(d) map(from : seen)
    seen = device_tag;
    CHECK(seen == 1000 + d, "device %d: declare-target global is %d", d, seen);
  }
}

static unsigned char pattern(size_t i, int salt) { return (unsigned char)(i * 131 + salt * 17 + (i >> 10)); }

/* omp_target_memcpy host->device, device->device for every ordered pair, device->host. */
static void check_copies(int n, size_t size) {
  int host = omp_get_initial_device();
  unsigned char* h = malloc(size);
  unsigned char* back = malloc(size);
  void** buf = calloc(n, sizeof *buf);
  for (int d = 0; d < n; ++d) CHECK((buf[d] = omp_target_alloc(size, d)) != NULL, "omp_target_alloc(%zu, %d)", size, d);
  for (int src = 0; src < n; ++src) {
    for (size_t i = 0; i < size; ++i) h[i] = pattern(i, src);
    CHECK(omp_target_memcpy(buf[src], h, size, 0, 0, src, host) == 0, "host -> device %d", src);
    for (int dst = 0; dst < n; ++dst) {
      if (dst == src) continue;
      CHECK(omp_target_memcpy(buf[dst], buf[src], size, 0, 0, dst, src) == 0, "device %d -> %d", src, dst);
      memset(back, 0, size);
      CHECK(omp_target_memcpy(back, buf[dst], size, 0, 0, host, dst) == 0, "device %d -> host", dst);
      size_t bad = 0;
      for (size_t i = 0; i < size; ++i) bad += back[i] != pattern(i, src);
      CHECK(bad == 0, "%zu of %zu bytes wrong after device %d -> device %d", bad, size, src, dst);
    }
  }
  /* The allocations work in regions through is_device_ptr. */
  for (int d = 0; d < n; ++d) {
    for (size_t i = 0; i < size; ++i) h[i] = pattern(i, 50 + d);
    CHECK(omp_target_memcpy(buf[d], h, size, 0, 0, d, host) == 0, "refill device %d", d);
    unsigned char* p = buf[d];
    unsigned long long sum = 0, want = 0;
#pragma omp target teams distribute parallel for device(d) is_device_ptr(p) reduction(+ : sum)
    for (size_t i = 0; i < size; ++i) sum += p[i];
    for (size_t i = 0; i < size; ++i) want += h[i];
    CHECK(sum == want, "device %d: is_device_ptr sum %llu, expected %llu", d, sum, want);
  }
  for (int d = 0; d < n; ++d) omp_target_free(buf[d], d);
  free(buf);
  free(h);
  free(back);
}

/* A chain of three dependent nowait regions on every device at once. */
static void check_nowait(int n) {
  enum { N = 1 << 16 };
  int** v = calloc(n, sizeof *v);
  for (int d = 0; d < n; ++d) {
    v[d] = malloc(N * sizeof(int));
    for (int i = 0; i < N; ++i) v[d][i] = i;
  }
  for (int d = 0; d < n; ++d) {
    int* p = v[d];
#pragma omp target enter data device(d) map(to : p[0:N]) depend(out : p[0]) nowait
#pragma omp target teams distribute parallel for device(d) map(p[0:N]) depend(inout : p[0]) nowait
    for (int i = 0; i < N; ++i) p[i] = p[i] * 2 + d;
#pragma omp target teams distribute parallel for device(d) map(p[0:N]) depend(inout : p[0]) nowait
    for (int i = 0; i < N; ++i) p[i] += 1;
#pragma omp target exit data device(d) map(from : p[0:N]) depend(inout : p[0]) nowait
  }
#pragma omp taskwait
  for (int d = 0; d < n; ++d) {
    size_t bad = 0;
    for (int i = 0; i < N; ++i) bad += v[d][i] != 2 * i + d + 1;
    CHECK(bad == 0, "device %d: %zu wrong elements after the nowait chain", d, bad);
    free(v[d]);
  }
  free(v);
}

int main(void) {
  const char* why = NULL;
  int gpus = driver_gpu_count(&why);
  if (gpus <= 0) {
    printf("SKIP: %s\n", gpus == 0 ? "the CUDA driver reports no GPU" : why);
    return kSkip;
  }
  const char* cap = getenv("FERRY_GPUS_PER_RANK");
  if (cap && *cap && strcmp(cap, "all") != 0 && atoi(cap) < gpus) gpus = atoi(cap);
  int cpus = env_int("FERRY_DEVICES_PER_RANK", 1);
  int n = omp_get_num_devices();
  check_table(n, cpus, gpus);
  if (failures) return finish("gpu_regions");

  for (int d = 0; d < n; ++d) {
    check_maps(d);
    check_data_regions(d);
  }
  check_globals(n);
  check_copies(n, 1000);            /* inside the control message */
  check_copies(n, (9u << 20) + 13); /* chunked and staged, odd length */
  check_nowait(n);
  for (int d = 0; d < n; ++d) {
#pragma omp target device(d)
    if (on_gpu()) printf("device %d says hello from a GPU\n", d);
  }
  return finish("gpu_regions");
}
