/* The --out file: one JSON object per line, read by `ferry bench offload`. Names are
 * fixed identifiers of this program, so nothing needs escaping except the host name. */
#include <ctype.h>

#include "bench.h"

void emit(const bench_ctx* ctx, const char* test, size_t size, const char* series, double value, const char* unit,
          unsigned long iters) {
  fprintf(ctx->out, "{\"test\":\"%s\",\"size\":%zu,\"series\":\"%s\",\"value\":%.9g,\"unit\":\"%s\",\"iters\":%lu}\n",
          test, size, series, value, unit, iters);
  fflush(ctx->out);
}

void emit_counter(const bench_ctx* ctx, const char* test, const char* name, uint64_t value) {
  fprintf(ctx->out, "{\"counter\":\"%s\",\"test\":\"%s\",\"value\":%llu}\n", name, test, (unsigned long long)value);
  fflush(ctx->out);
}

void emit_device(const bench_ctx* ctx, int device, int rank, int node, const char* host) {
  char safe[64];
  size_t i = 0;
  for (; host[i] && i + 1 < sizeof safe; ++i) safe[i] = isalnum((unsigned char)host[i]) || host[i] == '-' || host[i] == '.' ? host[i] : '_';
  safe[i] = '\0';
  fprintf(ctx->out, "{\"device\":%d,\"rank\":%d,\"node\":%d,\"host\":\"%s\"}\n", device, rank, node, safe);
  fflush(ctx->out);
}
