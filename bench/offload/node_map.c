/* Section (e): one host array mapped to both devices of a node other than rank 0's, data
 * present, one `target update to` per device: how programs spread one input over the GPUs
 * of a node. Under Ferry the bytes should cross the network once per node, not once per
 * device (FERRY_NODE_SHARE); the counters say how many did. */
#include <omp.h>

#include "bench.h"
#include "ferry/ferry_offload.h"
#include "mpi_ref.h"
#include "osu.h"
#include "verify.h"

typedef struct node_arg {
  int a, b;
  unsigned char* buf;
  size_t n;
} node_arg;

/* New bytes each time, as each step of a program has: the node's first device must get them
 * over the network, and only the second may copy them from the first. */
static void update_both(void* p) {
  node_arg* x = p;
  unsigned char* h = x->buf;
  h[x->n / 2] += 1;
#pragma omp target update to(h[0 : x->n]) device(x->a)
#pragma omp target update to(h[0 : x->n]) device(x->b)
}

static uint64_t network_bytes(void) {
  ferry_offload_counters c;
  return ferry_offload_get_counters(&c) == FERRY_OFFLOAD_OK ? c.network_bytes : 0;
}

enum { LARGE = 1 << 20 };

static void node_one_size(bench_ctx* ctx, node_arg* x, uint64_t* net, uint64_t* mapped) {
  int ferry = ctx->mode == MODE_FERRY;
  unsigned long ops = 0;
  if (ferry) {
    drain_device(x->a);
    drain_device(x->b);
    double mbs = mpi_bandwidth_mbs(ctx, 0, device_rank(x->a), x->n, &ops, NULL);
    emit(ctx, "mpi_bw_node", x->n, "mpi", mbs, "MB/s", ops);
  }
  double s = time_op(ctx, COUNT_BANDWIDTH, x->n, update_both, NULL, x, &ops);
  emit(ctx, "map_node_bw", x->n, ferry ? "ferry" : "stock", 2.0 * (double)x->n / s / 1e6, "MB/s", ops);
  if (ferry && x->n >= LARGE) { /* one more, counted on its own: the timed loop's warm-up is not */
    uint64_t before = network_bytes();
    update_both(x);
    *net += network_bytes() - before;
    *mapped += 2 * x->n;
  }
  if (ctx->validate) verify_node_map(ctx, x->a, x->b, x->n, "map_node_bw");
}

void run_node_mapping(bench_ctx* ctx) {
  const bench_layout* l = &ctx->layout;
  if (l->node_a < 0) {
    fprintf(stderr, "ferry_offload_bench: map_node_bw skipped: no node other than rank 0's has two devices (use "
                    "-n 4 with FERRY_VIRTUAL_NODES=2)\n");
    return;
  }
  node_arg x = {l->node_a, l->node_b, ctx->host_buf, 0};
  uint64_t net = 0, mapped = 0;
  unsigned char* h = ctx->host_buf;
  size_t max = ctx->max_size;
#pragma omp target data map(alloc : h[0 : max]) device(x.a)
#pragma omp target data map(alloc : h[0 : max]) device(x.b)
  for (int i = 0; i < ctx->nsizes; ++i) {
    x.n = ctx->sizes[i];
    node_one_size(ctx, &x, &net, &mapped);
  }
  if (ctx->mode == MODE_FERRY && mapped) {
    emit_counter(ctx, "map_node_bw", "network_bytes_large", net);
    emit_counter(ctx, "map_node_bw", "mapped_bytes_large", mapped);
  }
}
