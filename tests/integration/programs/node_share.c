/* One transfer per node (FERRY_NODE_SHARE): host data mapped to two devices of another node
 * crosses the network once and is copied on that node, and a device copy that may have
 * changed (a kernel ran on it, bytes were written into it) is never the source.
 * Usage: node_share EXPECT_SHARE [bytes]; EXPECT_SHARE 1: the second device of the node gets
 * its bytes on the node; 0: every mapping crosses the network (FERRY_NODE_SHARE=0). Needs a
 * node other than rank 0's with two devices (-n 4 with FERRY_VIRTUAL_NODES=2, or
 * FERRY_DEVICES_PER_RANK=2). */
#include "check.h"
#include "ferry/ferry_offload.h"

static unsigned char* h;
static unsigned char* back;
static size_t n;

static ferry_offload_counters counters(void) {
  ferry_offload_counters c;
  memset(&c, 0, sizeof c);
  CHECK(ferry_offload_get_counters(&c) == FERRY_OFFLOAD_OK, "Ferry's counters (is the plugin loaded?)");
  return c;
}

/* Two devices on one node that is not rank 0's. */
static int pick_devices(int* a, int* b) {
  int nd = omp_get_num_devices();
  for (int i = 0; i < nd; ++i)
    for (int j = i + 1; j < nd; ++j) {
      ferry_offload_device x, y;
      if (ferry_offload_get_device(i, &x) != FERRY_OFFLOAD_OK || ferry_offload_get_device(j, &y) != FERRY_OFFLOAD_OK)
        return 0;
      if (x.node != 0 && x.node == y.node) {
        *a = i, *b = j;
        return 1;
      }
    }
  return 0;
}

/* The device copy of h on `dev` equals `want` (plus `add` in every byte). */
static void expect_device_holds(int dev, const unsigned char* want, int add, const char* step) {
  unsigned char *hp = h, *dp = NULL;
#pragma omp target data use_device_ptr(hp) device(dev)
  dp = hp;
  memset(back, 0, n);
  CHECK(omp_target_memcpy(back, dp, n, 0, 0, omp_get_initial_device(), dev) == 0, "%s: reading device %d", step, dev);
  size_t bad = 0, first = n;
  for (size_t i = 0; i < n; ++i)
    if (back[i] != (unsigned char)(want[i] + add)) bad++, first = first < i ? first : i;
  CHECK(bad == 0, "%s: device %d holds %zu wrong bytes, the first at %zu", step, dev, bad, first);
}

/* Network bytes and node copies of `step` against what it should cost. */
static void expect_traffic(ferry_offload_counters before, int crossings, int node_copies, const char* step) {
  ferry_offload_counters now = counters();
  uint64_t net = now.network_bytes - before.network_bytes, copied = now.node_copy_bytes - before.node_copy_bytes;
  CHECK(net == crossings * n, "%s: %llu bytes crossed the network, want %d x %zu", step, (unsigned long long)net,
        crossings, n);
  CHECK(copied == node_copies * n, "%s: %llu bytes copied on the node, want %d x %zu", step,
        (unsigned long long)copied, node_copies, n);
  printf("%s: network %llu bytes, copied on the node %llu bytes\n", step, (unsigned long long)net,
         (unsigned long long)copied);
}

int main(int argc, char** argv) {
  int share = argc > 1 ? atoi(argv[1]) : 1;
  n = argc > 2 ? (size_t)atoll(argv[2]) : (1u << 20) + 24;
  int a, b;
  if (!pick_devices(&a, &b)) {
    fprintf(stderr, "FAIL: no node other than rank 0's has two devices; run with -n 4 and FERRY_VIRTUAL_NODES=2\n");
    return 1;
  }
  h = malloc(n); /* 16 bytes into its page, as users' arrays are */
  back = malloc(n);
  /* A local pointer: a global one is itself mapped and attached (8 more bytes per device). */
  unsigned char* hp = h;
  for (size_t i = 0; i < n; ++i) h[i] = (unsigned char)(i * 7 + (i >> 12));

  /* Each device's first region loads its image (and libomptarget sends a few bytes of its
   * own): done before anything is counted. */
#pragma omp target device(a)
  {}
#pragma omp target device(b)
  {}

  /* 1. The same bytes to both devices. */
  ferry_offload_counters c = counters();
#pragma omp target enter data map(to : hp[0 : n]) device(a)
#pragma omp target enter data map(to : hp[0 : n]) device(b)
  expect_traffic(c, share ? 1 : 2, share ? 1 : 0, "enter data on both");
  expect_device_holds(a, h, 0, "enter data on both");
  expect_device_holds(b, h, 0, "enter data on both");

  /* 2. New host bytes: the node's first device gets them, the second copies them. */
  h[n / 2] ^= 0x55;
  c = counters();
#pragma omp target update to(hp[0 : n]) device(a)
#pragma omp target update to(hp[0 : n]) device(b)
  expect_traffic(c, share ? 1 : 2, share ? 1 : 0, "update to both");
  expect_device_holds(b, h, 0, "update to both");

  /* 3. A kernel changes device a's copy: b must get the host's bytes, not a's. */
  h[7] ^= 3;
#pragma omp target update to(hp[0 : n]) device(a)
#pragma omp target device(a)
  for (size_t i = 0; i < n; ++i) hp[i] += 1;
  c = counters();
#pragma omp target update to(hp[0 : n]) device(b)
  expect_traffic(c, 1, 0, "after a kernel on the source");
  expect_device_holds(b, h, 0, "after a kernel on the source");
  expect_device_holds(a, h, 1, "the kernel's result");

  /* 4. Bytes written into device a's copy: the same. */
  h[9] ^= 1;
#pragma omp target update to(hp[0 : n]) device(a)
  {
    unsigned char junk[4096], *dp = NULL;
    memset(junk, 0xee, sizeof junk);
#pragma omp target data use_device_ptr(hp) device(a)
    dp = hp;
    CHECK(omp_target_memcpy(dp, junk, sizeof junk, 100, 0, a, omp_get_initial_device()) == 0, "write into a");
  }
  c = counters();
#pragma omp target update to(hp[0 : n]) device(b)
  expect_traffic(c, 1, 0, "after a write into the source");
  expect_device_holds(b, h, 0, "after a write into the source");

#pragma omp target exit data map(delete : hp[0 : n]) device(a)
#pragma omp target exit data map(delete : hp[0 : n]) device(b)
  free(h);
  free(back);
  if (failures) return 1;
  printf("node_share: all checks passed (devices %d and %d, %zu bytes, sharing %s)\n", a, b, n, share ? "on" : "off");
  return 0;
}
