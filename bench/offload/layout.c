/* Which devices each section uses. Under Ferry the job's device table says where each
 * device lives (nodes are numbered by their lowest rank, so rank 0 is on node 0); in stock
 * mode all devices are the host plugin's, in this process. */
#include <omp.h>

#include "bench.h"
#include "ferry/ferry_offload.h"

int device_count(void) { return omp_get_num_devices(); }

int device_rank(int device) {
  ferry_offload_device info;
  return ferry_offload_get_device(device, &info) == FERRY_OFFLOAD_OK ? info.rank : -1;
}

static void pick_pairs(bench_layout* l, int n, const int* rank, const int* node) {
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) {
      if (node[a] != 0 && node[a] == node[b] && l->node_a < 0) l->node_a = a, l->node_b = b;
      if (rank[a] == rank[b]) continue;
      if (node[a] != node[b] && l->cross_src < 0) l->cross_src = a, l->cross_dst = b;
      if (node[a] == node[b] && l->same_src < 0) l->same_src = a, l->same_dst = b;
    }
}

static int ferry_layout(bench_ctx* ctx, int n) {
  int rank[256], node[256];
  if (n > 256) n = 256;
  bench_layout* l = &ctx->layout;
  for (int d = 0; d < n; ++d) {
    ferry_offload_device info;
    if (ferry_offload_get_device(d, &info) != FERRY_OFFLOAD_OK) {
      fprintf(stderr, "ferry_offload_bench: --mode ferry, but the Ferry plugin is not loaded; start it with "
                      "`ferry bench offload` or `ferry run -n 4 %s`\n", "ferry_offload_bench --mode ferry");
      return -1;
    }
    rank[d] = info.rank;
    node[d] = info.node;
    emit_device(ctx, d, info.rank, info.node, info.host);
    if (l->host_dev < 0 && info.node != 0) l->host_dev = d;
  }
  if (l->host_dev < 0) l->host_dev = 0; /* one node: the host<->device path is then CMA */
  l->host_dev_rank = rank[l->host_dev];
  pick_pairs(l, n, rank, node);
  return 0;
}

static int stock_layout(bench_ctx* ctx, int n) {
  ferry_offload_device info;
  if (ferry_offload_get_device(0, &info) != FERRY_OFFLOAD_UNAVAILABLE) {
    fprintf(stderr, "ferry_offload_bench: --mode stock, but Ferry's plugin is loaded: remove its directory from "
                    "LD_LIBRARY_PATH\n");
    return -1;
  }
  /* Distinct in-process devices stand in for the pairs: the copy is a memcpy either way. */
  int rank[4] = {0, 1, 2, 3}, node[4] = {0, 1, 1, 1};
  for (int d = 0; d < n && d < 4; ++d) emit_device(ctx, d, -1, 0, "local");
  ctx->layout.host_dev = 0;
  ctx->layout.host_dev_rank = -1;
  pick_pairs(&ctx->layout, n < 4 ? n : 4, rank, node);
  return 0;
}

int layout_pick(bench_ctx* ctx) {
  bench_layout none = {-1, -1, -1, -1, -1, -1, -1, -1};
  ctx->layout = none;
  int n = device_count();
  if (n < 1) {
    fprintf(stderr, "ferry_offload_bench: no offload device (omp_get_num_devices() = 0)\n");
    return -1;
  }
  return ctx->mode == MODE_FERRY ? ferry_layout(ctx, n) : stock_layout(ctx, n);
}
