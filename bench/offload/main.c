/* ferry_offload_bench --mode ferry|stock --out FILE [--quick] [--validate] [--budget S]
 *                     [--sizes 1,8K,1M,...]
 * See bench.h; `ferry bench offload` is the way to run it. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static const char kUsage[] =
    "usage: ferry_offload_bench --mode ferry|stock --out FILE [--quick] [--validate] [--budget SECONDS]\n"
    "                           [--sizes 1,8K,1M,...]\n"
    "Run it through `ferry bench offload`, which starts both modes and reports the ratios.\n";

/* "64", "8K", "1M": bytes, or 0 when malformed. */
static size_t parse_size(const char* s) {
  char* end = NULL;
  if (*s < '0' || *s > '9') return 0; /* strtoull would take "-5" as 2^64 - 5 */
  unsigned long long v = strtoull(s, &end, 10);
  if (*end == 'K' || *end == 'k') v <<= 10, ++end;
  else if (*end == 'M' || *end == 'm') v <<= 20, ++end;
  else if (*end == 'G' || *end == 'g') v <<= 30, ++end;
  return *end == '\0' || *end == ',' ? (size_t)v : 0;
}

static int parse_sizes(bench_ctx* ctx, const char* list) {
  ctx->nsizes = 0;
  for (const char* p = list; *p; ++p) {
    size_t v = parse_size(p);
    if (v == 0 || ctx->nsizes == BENCH_MAX_SIZES) return -1;
    ctx->sizes[ctx->nsizes++] = v;
    p = strchr(p, ',');
    if (!p) break;
  }
  return ctx->nsizes > 0 ? 0 : -1;
}

/* OSU's default range, 1 B to 64 MiB in powers of two. */
static void default_sizes(bench_ctx* ctx) {
  ctx->nsizes = 0;
  for (size_t s = 1; s <= ((size_t)64 << 20); s *= 2) ctx->sizes[ctx->nsizes++] = s;
}

static int parse_args(bench_ctx* ctx, int argc, char** argv, const char** out_path) {
  const char* mode = NULL;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    const char* next = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--quick")) ctx->quick = 1;
    else if (!strcmp(a, "--validate") || !strcmp(a, "-c")) ctx->validate = 1;
    else if (!strcmp(a, "--mode") && next) mode = argv[++i];
    else if (!strcmp(a, "--out") && next) *out_path = argv[++i];
    else if (!strcmp(a, "--budget") && next) ctx->budget_s = atof(argv[++i]);
    else if (!strcmp(a, "--sizes") && next) {
      if (parse_sizes(ctx, argv[++i]) != 0) return fprintf(stderr, "ferry_offload_bench: bad --sizes '%s'\n", next), -1;
    } else return fprintf(stderr, "ferry_offload_bench: unknown or incomplete argument '%s'\n%s", a, kUsage), -1;
  }
  if (!mode || !*out_path) return fprintf(stderr, "%s", kUsage), -1;
  if (strcmp(mode, "ferry") && strcmp(mode, "stock")) return fprintf(stderr, "ferry_offload_bench: bad --mode\n"), -1;
  ctx->mode = strcmp(mode, "ferry") ? MODE_STOCK : MODE_FERRY;
  if (ctx->budget_s <= 0) return fprintf(stderr, "ferry_offload_bench: --budget must be > 0\n"), -1;
  return 0;
}

static int setup(bench_ctx* ctx, const char* out_path) {
  ctx->max_size = 1;
  for (int i = 0; i < ctx->nsizes; ++i)
    if (ctx->sizes[i] > ctx->max_size) ctx->max_size = ctx->sizes[i];
  ctx->out = fopen(out_path, "w");
  if (!ctx->out) return fprintf(stderr, "ferry_offload_bench: cannot write %s\n", out_path), -1;
  /* Page-aligned and touched, as OSU's buffers are, so first-touch costs stay out. */
  void* p = NULL;
  /* 4 KiB more for the offset sweep, which moves the buffer's start within its page. */
  if (posix_memalign(&p, 4096, ctx->max_size + 4096) != 0)
    return fprintf(stderr, "ferry_offload_bench: out of memory\n"), -1;
  ctx->host_buf = p;
  memset(ctx->host_buf, 1, ctx->max_size + 4096);
  return layout_pick(ctx);
}

int main(int argc, char** argv) {
  bench_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  ctx.budget_s = 0.1;
  default_sizes(&ctx);
  const char* out_path = NULL;
  if (parse_args(&ctx, argc, argv, &out_path) != 0 || setup(&ctx, out_path) != 0) return 2;
  const bench_layout* l = &ctx.layout;
  fprintf(ctx.out, "{\"run\":{\"mode\":\"%s\",\"devices\":%d,\"host_dev\":%d,\"host_dev_rank\":%d,"
          "\"cross\":[%d,%d],\"same\":[%d,%d],\"node\":[%d,%d],\"quick\":%d,\"validate\":%d,\"budget_s\":%g}}\n",
          ctx.mode == MODE_FERRY ? "ferry" : "stock", device_count(), l->host_dev, l->host_dev_rank, l->cross_src,
          l->cross_dst, l->same_src, l->same_dst, l->node_a, l->node_b, ctx.quick, ctx.validate, ctx.budget_s);
  run_empty_region(&ctx);
  run_region_after_work(&ctx);
  run_map_latency(&ctx);
  run_map_bandwidth(&ctx);
  run_offset_bandwidth(&ctx);
  run_device_copies(&ctx);
  run_nowait_rate(&ctx);
  run_node_mapping(&ctx);
  fprintf(ctx.out, "{\"validation\":{\"checks\":%ld,\"failures\":%ld}}\n", ctx.checks, ctx.failures);
  fclose(ctx.out);
  free(ctx.host_buf);
  return ctx.failures ? 1 : 0;
}
