/* What target regions print to stdout appears in program order among rank 0's own output,
 * as with the stock plugin (FERRY_DEVICE_OUTPUT=ordered). Every stdout line is numbered;
 * check_output.py checks that the numbers come in order, once each. Covered: printf from
 * every device between host printf calls, output larger than one message, fprintf(stdout)
 * (the host's FILE* must become the serving rank's), a raw write(1), a nowait region, and
 * stderr, which is not captured. */
#include <stdarg.h>
#include <unistd.h>

#include "check.h"

enum { BIG_LINES = 300 };  // ~12 KiB in one region: several output messages

/* What stdout must hold in all, whatever the order: its bytes and their sum, told on stderr
 * at the end, so that a line lost, repeated or garbled shows in direct mode too. */
static long out_bytes, out_sum;

static void expect_out(const char* fmt, ...) {
  char line[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  for (const char* p = line; *p; ++p) {
    ++out_bytes;
    out_sum += (unsigned char)*p;
  }
}

/* A host line: printed and expected. */
#define HOST_OUT(...)       \
  do {                      \
    expect_out(__VA_ARGS__); \
    printf(__VA_ARGS__);    \
  } while (0)

int main(void) {
  int n = omp_get_num_devices();
  int seq = 0;
  CHECK(n >= 1, "no device");
  HOST_OUT("seq %d host: %d devices\n", seq, n);
  ++seq;
  for (int round = 0; round < 2; ++round) {
    for (int d = 0; d < n; ++d) {
      HOST_OUT("seq %d host: before device %d\n", seq, d);
      ++seq;
      int s = seq++;
      expect_out("seq %d device %d on rank %d\n", s, d, expected_rank(d));
#pragma omp target device(d) firstprivate(s)
      printf("seq %d device %d on rank %d\n", s, omp_get_device_num(), current_rank());
    }
  }
  int first = seq;
  seq += BIG_LINES;
  for (int i = 0; i < BIG_LINES; ++i) expect_out("seq %d big line %03d ..............................\n", first + i, i);
#pragma omp target device(n - 1) firstprivate(first)
  for (int i = 0; i < BIG_LINES; ++i) printf("seq %d big line %03d ..............................\n", first + i, i);
  HOST_OUT("seq %d host: after the big region\n", seq);
  ++seq;

  int s = seq++;
  expect_out("seq %d fprintf(stdout) on a device\n", s);
#pragma omp target device(0) firstprivate(s)
  fprintf(stdout, "seq %d fprintf(stdout) on a device\n", s);
  s = seq++;
  expect_out("seq %d raw write(1) on a device\n", s);
#pragma omp target device(0) firstprivate(s)
  {
    char line[64];
    int len = snprintf(line, sizeof line, "seq %d raw write(1) on a device\n", s);
    if (write(1, line, (size_t)len) != len) abort();
  }
  s = seq++;
  expect_out("seq %d nowait region\n", s);
#pragma omp target device(0)
  fprintf(stderr, "stderr line from a device\n");
#pragma omp target device(0) nowait firstprivate(s)
  printf("seq %d nowait region\n", s);
#pragma omp taskwait
  HOST_OUT("seq %d host: after taskwait\n", seq);
  ++seq;
  HOST_OUT("lines %d\n", seq);
  /* Again on stderr, whole: in direct mode the launcher may splice the stdout one. */
  fprintf(stderr, "lines %d\n", seq);
  expect_out("device_output: all checks passed on %d device(s)\n", n);  /* finish()'s line */
  fprintf(stderr, "stdout %ld bytes, byte sum %ld\n", out_bytes, out_sum);
  return finish("device_output");
}
