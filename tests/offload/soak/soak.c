/* soak: a long offload job must not grow. After a warm-up, every process of the job is
 * measured (rank 0 here; each serving rank inside a region on the first of its devices): its
 * resident memory, open file descriptors and /dev/shm entries (tests/support/proc_usage.h).
 * Then REGIONS target regions of every kind users write (empty, mapped, nowait, unstructured
 * data) and ALLOCS device allocations with copies and frees run across all devices, each
 * result checked, and every process is measured halfway and at the end. It fails if any
 * process grew beyond the bounds of proc_usage.h in the second half. A CPU device's heap is the serving process's own memory, and
 * freed device memory stays resident for reuse up to FERRY_DEVICE_RETAIN by design: it is
 * reported apart and bounded by that budget plus the blocks the soak keeps live (two of 4 MiB).
 *
 * Usage: soak REGIONS ALLOCS   (docs/robustness.md, "Soak") */
#include <stdint.h>

#include "check.h"
#include "proc_usage.h"

enum { kMaxDevices = 64, kInFlight = 32, kWarmupRegions = 2000, kWarmupAllocs = 200 };

static struct proc_usage usage_of(int d) {
  struct proc_usage u;
#pragma omp target device(d) map(from : u)
  u = proc_usage_now(&u);  // &u here is device memory: its mapping is the device's heap
  return u;
}

/* Each serving process once, in the slot of its first device (devices are numbered by rank,
 * FERRY_DEVICES_PER_RANK to a rank), its devices' heaps added up; rank 0 in slot `ndev`. */
static void measure(struct proc_usage* out, int ndev) {
  for (int d = 0; d < ndev; ++d) {
    struct proc_usage u = usage_of(d);
    int first = d - d % devices_per_rank();
    if (d == first) out[d] = u;
    else out[first].mapping_kib += u.mapping_kib;
  }
  out[ndev] = proc_usage_now(NULL);
}

/* Regions of one kind per step, so that every kind runs on every device over time. */
static void region(long step, int ndev) {
  int d = (int)(step % ndev);
  static int slots[kInFlight];
  switch (step % 8) {
    case 4: {
      int v[4] = {1, 2, 3, (int)step};
#pragma omp target device(d) map(tofrom : v)
      for (int i = 0; i < 4; ++i) v[i] *= 2;
      CHECK(v[0] == 2 && v[3] == 2 * (int)step, "map(tofrom) on device %d at step %ld gave %d, %d", d, step, v[0], v[3]);
      break;
    }
    case 5: {
      int k = (int)(step / 8 % kInFlight);
#pragma omp target device(d) map(from : slots[k : 1]) nowait depend(out : slots[k])
      slots[k] = k + 1;
      if (k == kInFlight - 1) {
#pragma omp taskwait
        for (int i = 0; i < kInFlight; ++i) CHECK(slots[i] == i + 1, "nowait slot %d is %d", i, slots[i]);
      }
      break;
    }
    case 6: {
      enum { kMax = 16384 };
      static int64_t data[kMax];
      int n = 1 + (int)(step % kMax);
      int64_t sum = 0;
      for (int i = 0; i < n; ++i) data[i] = i;
#pragma omp target device(d) map(to : data[0 : n]) map(tofrom : sum)
      for (int i = 0; i < n; ++i) sum += data[i];
      CHECK(sum == (int64_t)n * (n - 1) / 2, "map(to) of %d elements on device %d summed to %lld", n, d, (long long)sum);
      break;
    }
    case 7: {
      double buf[64];
      for (int i = 0; i < 64; ++i) buf[i] = i;
#pragma omp target enter data device(d) map(to : buf)
#pragma omp target device(d)
      for (int i = 0; i < 64; ++i) buf[i] += 0.5;
#pragma omp target exit data device(d) map(from : buf)
      CHECK(buf[63] == 63.5, "enter/exit data on device %d gave %g", d, buf[63]);
      break;
    }
    default: {
#pragma omp target device(d)
      {}
    }
  }
}

/* An allocation of 4 KiB to 4 MiB, filled from the host, checked on the device, copied to
 * the next device (when there is one) and freed. */
static void allocation(long step, int ndev) {
  int d = (int)(step % ndev), next = (d + 1) % ndev;
  size_t bytes = (size_t)4096 << (step % 11);
  size_t n = bytes / sizeof(int64_t);
  int64_t* host = malloc(bytes);
  for (size_t i = 0; i < n; ++i) host[i] = (int64_t)i ^ step;
  int64_t* dev = omp_target_alloc(bytes, d);
  CHECK(dev != NULL, "omp_target_alloc(%zu) on device %d failed", bytes, d);
  if (!dev) {
    free(host);
    return;
  }
  CHECK(omp_target_memcpy(dev, host, bytes, 0, 0, d, omp_get_initial_device()) == 0, "copy to device %d", d);
  int bad = 0;
#pragma omp target device(d) is_device_ptr(dev) map(tofrom : bad)
  for (size_t i = 0; i < n; i += 509) bad += dev[i] != ((int64_t)i ^ step);
  CHECK(bad == 0, "device %d holds %d wrong elements of %zu bytes", d, bad, bytes);
  if (next != d) {
    int64_t* other = omp_target_alloc(bytes, next);
    CHECK(other != NULL && omp_target_memcpy(other, dev, bytes, 0, 0, next, d) == 0, "copy device %d to %d", d, next);
    memset(host, 0, bytes);
    CHECK(omp_target_memcpy(host, other, bytes, 0, 0, omp_get_initial_device(), next) == 0, "copy back from %d", next);
    CHECK(host[n - 1] == ((int64_t)(n - 1) ^ step), "device-to-device copy %d to %d lost its last element", d, next);
    omp_target_free(other, next);
  }
  omp_target_free(dev, d);
  free(host);
}

static void run(long regions, long allocs, int ndev) {
  long every = allocs > 0 && regions > allocs ? regions / allocs : 1;
  for (long s = 0, a = 0; s < regions || a < allocs; ++s) {
    if (s < regions) region(s, ndev);
    if (a < allocs && s % every == 0) allocation(a++, ndev);
  }
#pragma omp taskwait
}

/* FERRY_DEVICE_RETAIN in KiB ("64M", "1G", bytes; 1 GiB unset), as docs/settings.md says. */
static long retain_budget_kib(void) {
  const char* v = getenv("FERRY_DEVICE_RETAIN");
  if (!v || !*v) return 1L << 20;
  char* unit;
  double n = strtod(v, &unit);
  double scale = *unit == 'K' || *unit == 'k' ? 1 : *unit == 'M' || *unit == 'm' ? 1024 : *unit == 'G' || *unit == 'g' ? 1 << 20 : 1.0 / 1024;
  return (long)(n * scale);
}

/* Bounds apply to the second half (`mid` to `after`): a pool or cache that grows once after
 * the warm-up has done so by then; a leak grows in both halves. Nothing may grow in
 * descriptors or /dev/shm entries over the whole run. */
static void report(const struct proc_usage* before, const struct proc_usage* mid, const struct proc_usage* after,
                   int ndev) {
  long retain_kib = retain_budget_kib() + 2 * 4096;
  printf("%-10s %8s %14s %14s %16s %20s %9s %9s\n", "process", "pid", "RSS start KiB", "RSS end KiB",
         "malloc KiB +1st+2nd", "device heap KiB", "fds", "/dev/shm");
  for (int d = 0; d <= ndev; ++d) {
    if (d < ndev && d % devices_per_rank() != 0) continue;
    const struct proc_usage *b = &before[d], *m = &mid[d], *a = &after[d];
    char who[16];
    snprintf(who, sizeof who, d == ndev ? "rank 0" : "rank %d", d == ndev ? 0 : expected_rank(d));
    printf("%-10s %8d %14ld %14ld %+8ld %+7ld %9ld->%-9ld %4d->%-4d %4d->%-4d\n", who, a->pid, b->rss_kib, a->rss_kib,
           m->malloc_kib - b->malloc_kib, a->malloc_kib - m->malloc_kib, b->mapping_kib, a->mapping_kib, b->fds, a->fds,
           b->shm_entries, a->shm_entries);
    char why[160];
    CHECK(!proc_usage_grew(m, a, why, sizeof why), "%s, in the second half: %s", who, why);
    CHECK(a->mapping_kib <= retain_kib, "%s keeps %ld KiB of device memory resident, beyond FERRY_DEVICE_RETAIN",
          who, a->mapping_kib);
    CHECK(a->fds <= b->fds, "%s holds %d more file descriptors", who, a->fds - b->fds);
    CHECK(a->shm_entries <= b->shm_entries, "%s holds %d more /dev/shm entries", who, a->shm_entries - b->shm_entries);
  }
}

int main(int argc, char** argv) {
  long regions = argc > 1 ? atol(argv[1]) : 100000, allocs = argc > 2 ? atol(argv[2]) : 10000;
  int ndev = omp_get_num_devices();
  CHECK(ndev > 0 && ndev < kMaxDevices, "%d devices", ndev);
  if (ndev <= 0 || ndev >= kMaxDevices) return 1;
  static struct proc_usage before[kMaxDevices + 1], mid[kMaxDevices + 1], after[kMaxDevices + 1];
  run(kWarmupRegions, kWarmupAllocs, ndev);  // pools, caches and staging buffers fill up first
  measure(before, ndev);
  double t0 = omp_get_wtime();
  run(regions / 2, allocs / 2, ndev);
  measure(mid, ndev);
  run(regions - regions / 2, allocs - allocs / 2, ndev);
  double seconds = omp_get_wtime() - t0;
  measure(after, ndev);
  printf("soak: %ld regions and %ld allocations on %d device(s) in %.1f s\n", regions, allocs, ndev, seconds);
  report(before, mid, after, ndev);
  return finish("soak");
}
