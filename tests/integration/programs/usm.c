/* #pragma omp requires unified_shared_memory with devices of other ranks: kernels use rank
 * 0's own addresses (stack, heap, globals, pointers stored in data) without map clauses, and
 * rank 0 sees what they wrote when they end (service/host_pager.h pages rank 0's memory in).
 * The requirement must precede every target construct, so it comes before check.h. */
#pragma omp requires unified_shared_memory
#include <stdint.h>
#include <unistd.h>

#include "check.h"

#define N 1000
#define BIG (3 << 20) /* 768 pages: more than one chunk of the pager's twins */

static int global_values[N];

struct node {
  long value;
  struct node* next;
};

/* Stack, heap and static memory of rank 0, reached through plain pointers. */
static void plain_memory(int d) {
  int stack_values[N];
  int* heap_values = malloc(N * sizeof(int));
  for (int i = 0; i < N; ++i) {
    stack_values[i] = i;
    heap_values[i] = 2 * i;
    global_values[i] = -1;
  }
  int* s = stack_values;
  int* h = heap_values;
  int* g = global_values;
  int ran_on = -1;
  int* where = &ran_on;
#pragma omp target device(d)
  {
    for (int i = 0; i < N; ++i) {
      s[i] += 1;
      g[i] = s[i] + h[i] + d;
    }
    *where = current_rank();
  }
  CHECK(ran_on == expected_rank(d), "device %d ran on rank %d, expected %d", d, ran_on, expected_rank(d));
  for (int i = 0; i < N; ++i) {
    CHECK(stack_values[i] == i + 1, "device %d: stack_values[%d]=%d", d, i, stack_values[i]);
    CHECK(global_values[i] == 3 * i + 1 + d, "device %d: global_values[%d]=%d", d, i, global_values[i]);
    if (failures) break;
  }
  /* The host changes the data between regions: the next kernel sees the new values. */
  for (int i = 0; i < N; ++i) heap_values[i] = 7;
  long sum = 0;
  long* out = &sum;
#pragma omp target device(d)
  for (int i = 0; i < N; ++i) *out += h[i];
  CHECK(sum == 7L * N, "device %d: sum of the host's new values is %ld, want %ld", d, sum, 7L * N);
  free(heap_values);
}

/* A list built on the host and changed on the device: pointers inside the data. */
static void linked_list(int d) {
  struct node* head = NULL;
  for (int i = 0; i < 100; ++i) {
    struct node* n = malloc(sizeof *n);
    n->value = i;
    n->next = head;
    head = n;
  }
#pragma omp target device(d)
  for (struct node* n = head; n; n = n->next) n->value *= 3;
  long i = 99;
  for (struct node* n = head; n; n = n->next, --i) CHECK(n->value == 3 * i, "device %d: node %ld holds %ld", d, i, n->value);
  while (head) {
    struct node* next = head->next;
    free(head);
    head = next;
  }
}

/* Many pages, with map clauses (which unified shared memory makes no-ops) and an update. */
static void many_pages(int d) {
  unsigned char* big = malloc(BIG);
  for (long i = 0; i < BIG; ++i) big[i] = (unsigned char)(i % 251);
#pragma omp target device(d) map(tofrom : big[0 : BIG])
  for (long i = 0; i < BIG; ++i) big[i] = (unsigned char)(big[i] + 1);
  for (long i = 0; i < BIG; ++i) {
    CHECK(big[i] == (unsigned char)(i % 251 + 1), "device %d: big[%ld]=%d", d, i, big[i]);
    if (failures) break;
  }
  free(big);
}

/* Device memory is rank 0's memory too: the host reads and writes it directly. */
static void target_alloc(int d) {
  int* p = omp_target_alloc(N * sizeof(int), d);
  CHECK(p != NULL, "omp_target_alloc on device %d failed", d);
  if (!p) return;
  for (int i = 0; i < N; ++i) p[i] = i;
#pragma omp target device(d) is_device_ptr(p)
  for (int i = 0; i < N; ++i) p[i] *= 5;
  int copy[N];
  CHECK(omp_target_memcpy(copy, p, sizeof copy, 0, 0, omp_get_initial_device(), d) == 0, "memcpy from device %d", d);
  for (int i = 0; i < N; ++i) {
    CHECK(p[i] == 5 * i && copy[i] == 5 * i, "device %d: p[%d]=%d copy[%d]=%d", d, i, p[i], i, copy[i]);
    if (failures) break;
  }
  omp_target_free(p, d);
}

/* Only what a kernel changed goes back: while a nowait kernel writes the even elements of a
 * buffer, the host writes the odd ones, and neither loses the other's. Elements are 8-byte
 * words by default (FERRY_USM_WRITE_BACK=words writes back whole words); single bytes where
 * the run says FERRY_USM_WRITE_BACK=bytes. (If the host wrote before the kernel read the page,
 * the test passes either way; the kernel runs for tens of milliseconds after its first touch,
 * so the host's writes mostly land inside it.) */
static void interleaved_writers(int d, size_t elem) {
  enum { BYTES = 8192 };
  unsigned char* buf = calloc(BYTES, 1);
#pragma omp target device(d) nowait depend(out : buf[0])
  {
    for (size_t i = 0; i < BYTES; i += 2 * elem) memset(buf + i, 1, elem);
    double t0 = omp_get_wtime();
    while (omp_get_wtime() - t0 < 0.05) {
    }
  }
  usleep(10000);
  for (size_t i = elem; i < BYTES; i += 2 * elem) memset(buf + i, 2, elem);
#pragma omp taskwait
  for (size_t i = 0; i < BYTES; ++i) {
    CHECK(buf[i] == (i / elem % 2 ? 2 : 1), "device %d: byte %zu is %d after the kernel and the host wrote %zu-byte elements",
          d, i, buf[i], elem);
    if (failures) break;
  }
  free(buf);
}

int main(void) {
  int n = omp_get_num_devices();
  for (int d = 0; d < n; ++d) {
    check_region_rank(d);
    plain_memory(d);
    linked_list(d);
    many_pages(d);
    target_alloc(d);
    interleaved_writers(d, 8);
    const char* writeBack = getenv("FERRY_USM_WRITE_BACK");
    if (writeBack && strcmp(writeBack, "bytes") == 0) interleaved_writers(d, 1);
  }
  /* Every device at once, each adding into its own part of one array. */
  static long parts[4096];
#pragma omp parallel for
  for (int d = 0; d < n; ++d) {
#pragma omp target device(d)
    for (int i = d; i < 4096; i += n) parts[i] = i + 1;
  }
  for (int i = 0; i < 4096; ++i) CHECK(parts[i] == i + 1, "parts[%d]=%ld", i, parts[i]);
  return finish("usm");
}
