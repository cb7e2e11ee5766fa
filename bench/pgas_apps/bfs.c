/* bfs: a level-synchronised breadth-first search on a generated graph, the second OpenSHMEM
 * proxy app (docs/shmem.md, "Proxy apps").
 *
 *   oshrun -n P pgas_bfs [SCALE [EDGEFACTOR [ROOTS]]] [--corrupt]
 *
 * The graph: 2^SCALE vertices and EDGEFACTOR * 2^SCALE undirected R-MAT edges (Graph500's
 * probabilities 0.57, 0.19, 0.19, 0.05; vertex numbers scrambled by a bijection so that the
 * high-degree vertices are spread over the PEs). Edge i is a function of i and the seed alone
 * (a counter-based generator), so every PE generates its own share of the edge list and PE 0
 * can generate the whole list again for the check, whatever the number of PEs.
 *
 * Vertices are owned cyclically (vertex v on PE v % P). The build sends each edge, both ways,
 * to the owners of its ends: the counts go with shmem_size_alltoall, the receivers' offsets
 * back the same way, then one put per destination; each PE builds the CSR of its vertices.
 *
 * The search, one level at a time: each PE expands its frontier; a neighbour it owns is
 * marked at once, one owned elsewhere goes into a buffer for its owner (once per search: a
 * vertex sent is visited by the next level at the latest). Each buffer is put into the
 * owner's inbox at an offset reserved with shmem_atomic_fetch_add on the owner's counter;
 * shmem_barrier_all completes the puts; each PE marks what its inbox holds; a sum reduction of
 * the new frontier sizes ends the search when it is 0.
 *
 * The check: for every root PE 0 runs a serial BFS on the whole graph and compares the level
 * of every vertex (fetched from the owners with shmem_getmem) with its own; --corrupt changes
 * one level first, to show that the check fails (exit 1). Prints one line:
 *   bfs pes=4 scale=16 edgefactor=16 roots=4 seconds=... teps=... levels=... build_seconds=... verified=yes
 * seconds is the mean time of one search, teps the edges traversed (each undirected edge of
 * the root's component once, duplicates included) over the total search time. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { kSeed = 20240601 };

typedef struct {
  long scale, edgefactor, roots;
  int corrupt;
} options;

typedef struct {
  uint32_t u, v;
} edge;

/* Compressed sparse rows of `n` vertices: the neighbours of local vertex i are
 * adj[off[i] .. off[i + 1]), as global vertex numbers. */
typedef struct {
  long n;
  size_t *off;
  uint32_t *adj;
} csr;

typedef struct {
  int me, npes;
  long scale, nl, nl_max; /* this PE's vertex count, the largest PE's */
  uint64_t nv, edges;
  csr g;
  int32_t *level;   /* [nl_max], symmetric: PE 0 reads every PE's for the check */
  uint32_t *inbox;  /* [cap], symmetric: vertices other PEs found for this one, this level */
  uint64_t *count;  /* symmetric: the inbox's fill, reserved by the senders' fetch-adds */
  size_t cap;
  uint32_t *frontier, *next, *out; /* out: [npes][nl_max], one buffer per owner */
  size_t *out_n;
  unsigned char *sent; /* [nv]: vertices already sent to their owner in this search */
} state;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Memory that the program cannot do without: without it the job ends, saying what. */
static void *must_alloc(size_t bytes, const char *what) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p) {
    fprintf(stderr, "bfs: PE %d cannot allocate %zu B for %s\n", shmem_my_pe(), bytes, what);
    shmem_global_exit(2);
  }
  return p;
}

static void *must_shmalloc(size_t bytes, const char *what) {
  void *p = shmem_malloc(bytes ? bytes : 1);
  if (!p) {
    if (shmem_my_pe() == 0)
      fprintf(stderr, "bfs: cannot allocate %zu B of symmetric heap for %s (raise SHMEM_SYMMETRIC_SIZE)\n", bytes,
              what);
    shmem_global_exit(2);
  }
  return p;
}

/* ---- arguments -------------------------------------------------------------------------- */

static long parse_long(const char *s, long lo, long hi) {
  char *end;
  long v = strtol(s, &end, 10);
  return (*s && !*end && v >= lo && v <= hi) ? v : -1;
}

/* 0 when the arguments are good; else PE 0 prints the message and the result is 2. */
static int parse(options *o, int argc, char **argv) {
  static const long lo[] = {1, 1, 1}, hi[] = {30, 1024, 64};
  long *slots[] = {&o->scale, &o->edgefactor, &o->roots};
  int positional = 0;
  o->scale = 16;
  o->edgefactor = 16;
  o->roots = 4;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--corrupt")) o->corrupt = 1;
    else if (positional < 3 && (*slots[positional] = parse_long(argv[i], lo[positional], hi[positional])) > 0)
      ++positional;
    else {
      if (shmem_my_pe() == 0)
        fprintf(stderr, "bfs: bad argument '%s'\nusage: %s [SCALE (1..30, default 16) [EDGEFACTOR (1..1024, "
                "default 16) [ROOTS (1..64, default 4)]]] [--corrupt]\n", argv[i], argv[0]);
      return 2;
    }
  }
  return 0;
}

/* ---- the graph ---------------------------------------------------------------------------- */

static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/* A bijection of [0, 2^scale): odd multipliers and an xor-shift, each invertible mod 2^scale. */
static uint32_t scramble(uint64_t v, long scale) {
  uint64_t mask = (1ULL << scale) - 1;
  v = (v * 0x9E3779B97F4A7C15ULL) & mask;
  v ^= v >> ((scale + 1) / 2);
  return (uint32_t)((v * 0xD6E8FEB86659FD93ULL) & mask);
}

/* Edge i of the graph: one R-MAT quadrant choice per bit, from a generator seeded by i alone. */
static edge rmat_edge(uint64_t i, long scale) {
  uint64_t state = (uint64_t)kSeed ^ (i * 0xA24BAED4963EE407ULL), u = 0, v = 0;
  for (long bit = 0; bit < scale; ++bit) {
    double r = (double)(splitmix64(&state) >> 11) * 0x1.0p-53;
    int down = r >= 0.76, right = (r >= 0.57 && r < 0.76) || r >= 0.95; /* A .57, B .19, C .19, D .05 */
    u = u << 1 | (uint64_t)down;
    v = v << 1 | (uint64_t)right;
  }
  return (edge){scramble(u, scale), scramble(v, scale)};
}

/* Edges [lo, hi) as arcs both ways, self-loops left out; returns the arc count. */
static size_t make_arcs(edge *arcs, uint64_t lo, uint64_t hi, long scale) {
  size_t n = 0;
  for (uint64_t i = lo; i < hi; ++i) {
    edge e = rmat_edge(i, scale);
    if (e.u == e.v) continue;
    arcs[n++] = e;
    arcs[n++] = (edge){e.v, e.u};
  }
  return n;
}

/* The CSR of the arcs' sources, source u being local vertex u / npes (cyclic ownership). */
static void build_csr(csr *g, const edge *arcs, size_t narcs, long n, int npes) {
  g->n = n;
  g->off = must_alloc((size_t)(n + 1) * sizeof(size_t), "the CSR offsets");
  g->adj = must_alloc(narcs * sizeof(uint32_t), "the CSR adjacency");
  memset(g->off, 0, (size_t)(n + 1) * sizeof(size_t));
  for (size_t k = 0; k < narcs; ++k) ++g->off[arcs[k].u / (uint32_t)npes + 1];
  for (long i = 0; i < n; ++i) g->off[i + 1] += g->off[i];
  size_t *fill = must_alloc((size_t)n * sizeof(size_t), "the CSR build");
  memcpy(fill, g->off, (size_t)n * sizeof(size_t));
  for (size_t k = 0; k < narcs; ++k) g->adj[fill[arcs[k].u / (uint32_t)npes]++] = arcs[k].v;
  free(fill);
}

static void free_csr(csr *g) {
  free(g->off);
  free(g->adj);
}

/* This PE's arcs sorted by owner (counting sort), with the count per owner in `counts`. */
static edge *arcs_by_owner(const state *s, size_t *counts, size_t *narcs) {
  uint64_t lo = s->edges * (uint64_t)s->me / (uint64_t)s->npes;
  uint64_t hi = s->edges * (uint64_t)(s->me + 1) / (uint64_t)s->npes;
  edge *raw = must_alloc(2 * (size_t)(hi - lo) * sizeof(edge), "the generated edges");
  edge *sorted = must_alloc(2 * (size_t)(hi - lo) * sizeof(edge), "the edges by owner");
  *narcs = make_arcs(raw, lo, hi, s->scale);
  size_t *at = must_alloc((size_t)s->npes * sizeof(size_t), "the send offsets");
  memset(counts, 0, (size_t)s->npes * sizeof(size_t));
  for (size_t k = 0; k < *narcs; ++k) ++counts[raw[k].u % (uint32_t)s->npes];
  size_t sum = 0;
  for (int p = 0; p < s->npes; sum += counts[p], ++p) at[p] = sum;
  for (size_t k = 0; k < *narcs; ++k) sorted[at[raw[k].u % (uint32_t)s->npes]++] = raw[k];
  free(at);
  free(raw);
  return sorted;
}

/* Generates this PE's share of the edges and sends every arc to its source's owner, at the
 * offset the owner computed for this sender; then builds this PE's CSR. Collective. */
static void build_graph(state *s) {
  size_t np = (size_t)s->npes, narcs, *sym = must_shmalloc(4 * np * sizeof(size_t), "the arc counts");
  size_t *sent_n = sym, *recv_n = sym + np, *recv_at = sym + 2 * np, *send_at = sym + 3 * np;
  static size_t total, most; /* symmetric, for the reduction */
  edge *arcs = arcs_by_owner(s, sent_n, &narcs);
  shmem_size_alltoall(SHMEM_TEAM_WORLD, recv_n, sent_n, 1);
  total = 0;
  for (size_t p = 0; p < np; total += recv_n[p], ++p) recv_at[p] = total;
  shmem_size_alltoall(SHMEM_TEAM_WORLD, send_at, recv_at, 1);
  shmem_size_max_reduce(SHMEM_TEAM_WORLD, &most, &total, 1);
  edge *inbox = must_shmalloc(most * sizeof(edge), "the arcs received");
  for (size_t p = 0, from = 0; p < np; from += sent_n[p], ++p)
    if (sent_n[p]) shmem_putmem_nbi(inbox + send_at[p], arcs + from, sent_n[p] * sizeof(edge), (int)p);
  shmem_barrier_all(); /* completes the puts: every inbox is full */
  build_csr(&s->g, inbox, total, s->nl, s->npes);
  free(arcs);
  shmem_free(inbox);
  shmem_free(sym);
}

/* ---- the search --------------------------------------------------------------------------- */

static void setup(state *s, const options *o) {
  s->me = shmem_my_pe();
  s->npes = shmem_n_pes();
  s->scale = o->scale;
  s->nv = 1ULL << o->scale;
  s->edges = s->nv * (uint64_t)o->edgefactor;
  s->nl = (long)((s->nv - (uint64_t)s->me + (uint64_t)s->npes - 1) / (uint64_t)s->npes);
  s->nl_max = (long)((s->nv + (uint64_t)s->npes - 1) / (uint64_t)s->npes);
  /* Each sender sends a vertex to its owner once per search, so an inbox never holds more
   * than every other PE's whole share of this PE's vertices. */
  s->cap = (size_t)(s->npes - 1) * (size_t)s->nl_max;
  s->level = must_shmalloc((size_t)s->nl_max * sizeof(int32_t), "the levels");
  s->inbox = must_shmalloc((s->cap ? s->cap : 1) * sizeof(uint32_t), "the inbox");
  s->count = must_shmalloc(sizeof(uint64_t), "the inbox counter");
  *s->count = 0;
  s->frontier = must_alloc((size_t)s->nl * sizeof(uint32_t), "the frontier");
  s->next = must_alloc((size_t)s->nl * sizeof(uint32_t), "the next frontier");
  s->out = must_alloc((size_t)s->npes * (size_t)s->nl_max * sizeof(uint32_t), "the send buffers");
  s->out_n = must_alloc((size_t)s->npes * sizeof(size_t), "the send counts");
  s->sent = must_alloc((size_t)s->nv, "the sent flags");
  shmem_barrier_all(); /* every counter is 0 before anyone adds to it */
}

/* Marks local vertex lv at `depth` and queues it, unless it has a level already. */
static void visit(state *s, uint32_t lv, int32_t depth, size_t *nn) {
  if (s->level[lv] >= 0) return;
  s->level[lv] = depth;
  s->next[(*nn)++] = lv;
}

/* Expands the frontier: owned neighbours are visited, the others go to their owner's buffer. */
static size_t expand(state *s, size_t nf, int32_t depth) {
  size_t nn = 0;
  uint32_t np = (uint32_t)s->npes;
  for (size_t f = 0; f < nf; ++f) {
    uint32_t u = s->frontier[f];
    for (size_t k = s->g.off[u]; k < s->g.off[u + 1]; ++k) {
      uint32_t w = s->g.adj[k], owner = w % np;
      if (owner == (uint32_t)s->me) visit(s, w / np, depth, &nn);
      else if (!s->sent[w]) {
        s->sent[w] = 1;
        s->out[owner * (size_t)s->nl_max + s->out_n[owner]++] = w;
      }
    }
  }
  return nn;
}

/* Puts each buffer into its owner's inbox, at an offset reserved by a fetch-add there. */
static void send_buffers(state *s) {
  for (int p = 0; p < s->npes; ++p) {
    size_t n = s->out_n[p];
    if (n == 0) continue;
    uint64_t at = shmem_uint64_atomic_fetch_add(s->count, (uint64_t)n, p);
    if (at + n > s->cap) {
      fprintf(stderr, "bfs: PE %d's inbox overflows (%llu + %zu > %zu): a bug\n", p, (unsigned long long)at, n,
              s->cap);
      shmem_global_exit(3);
    }
    shmem_putmem_nbi(s->inbox + at, s->out + (size_t)p * (size_t)s->nl_max, n * sizeof(uint32_t), p);
    s->out_n[p] = 0;
  }
}

/* One level: returns the size of the next frontier over all PEs (0: the search is over).
 * The inbox counter is reset after the inbox is read; the next level's fetch-adds come after
 * the sum reduction, which no PE leaves before every PE entered it, so after every reset. */
static long level_step(state *s, size_t *nf, int32_t depth) {
  static long mine, all; /* symmetric, for the reduction */
  size_t nn = expand(s, *nf, depth);
  send_buffers(s);
  shmem_barrier_all(); /* completes the fetch-adds and the puts */
  uint64_t got = shmem_uint64_atomic_fetch(s->count, s->me);
  for (uint64_t i = 0; i < got; ++i) visit(s, s->inbox[i] / (uint32_t)s->npes, depth, &nn);
  shmem_uint64_atomic_set(s->count, 0, s->me); /* an atomic: across nodes the fetch-adds are MPI's */
  mine = (long)nn;
  shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &all, &mine, 1);
  uint32_t *t = s->frontier;
  s->frontier = s->next;
  s->next = t;
  *nf = nn;
  return all;
}

/* One search from `root`; returns the number of levels. Collective. */
static int32_t search(state *s, uint32_t root) {
  for (long i = 0; i < s->nl; ++i) s->level[i] = -1;
  memset(s->sent, 0, (size_t)s->nv);
  memset(s->out_n, 0, (size_t)s->npes * sizeof(size_t));
  size_t nf = 0;
  if (root % (uint32_t)s->npes == (uint32_t)s->me) {
    s->level[root / (uint32_t)s->npes] = 0;
    s->frontier[nf++] = root / (uint32_t)s->npes;
  }
  int32_t depth = 1;
  while (level_step(s, &nf, depth) > 0) ++depth;
  return depth; /* levels 0 .. depth - 1 hold vertices */
}

/* The edges the search traversed: half the degree sum of the vertices it reached. */
static long traversed(const state *s) {
  static long mine, all; /* symmetric, for the reduction */
  mine = 0;
  for (long i = 0; i < s->nl; ++i)
    if (s->level[i] >= 0) mine += (long)(s->g.off[i + 1] - s->g.off[i]);
  shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &all, &mine, 1);
  return all / 2;
}

/* ---- the check ---------------------------------------------------------------------------- */

/* Root k: an end of the first edge from a spread-out index that is not a self-loop (so the
 * root has a neighbour); vertex 0 where every edge is one (tiny graphs). */
static uint32_t root_of(long k, const state *s) {
  uint64_t i = (uint64_t)k * 7919u % s->edges;
  for (uint64_t tried = 0; tried < s->edges; ++tried, i = (i + 1) % s->edges) {
    edge e = rmat_edge(i, s->scale);
    if (e.u != e.v) return e.u;
  }
  return 0;
}

/* PE 0's serial reference: the whole graph's CSR, built from the whole edge list. */
static void serial_graph(csr *g, const state *s) {
  edge *arcs = must_alloc(2 * (size_t)s->edges * sizeof(edge), "the serial edge list");
  size_t narcs = make_arcs(arcs, 0, s->edges, s->scale);
  build_csr(g, arcs, narcs, (long)s->nv, 1);
  free(arcs);
}

/* The serial BFS levels of every vertex (-1: not reached), with a plain queue. */
static int32_t *serial_bfs(const csr *g, uint32_t root) {
  int32_t *level = must_alloc((size_t)g->n * sizeof(int32_t), "the serial levels");
  uint32_t *queue = must_alloc((size_t)g->n * sizeof(uint32_t), "the serial queue");
  for (long i = 0; i < g->n; ++i) level[i] = -1;
  size_t head = 0, tail = 0;
  level[root] = 0;
  queue[tail++] = root;
  while (head < tail) {
    uint32_t u = queue[head++];
    for (size_t k = g->off[u]; k < g->off[u + 1]; ++k)
      if (level[g->adj[k]] < 0) {
        level[g->adj[k]] = level[u] + 1;
        queue[tail++] = g->adj[k];
      }
  }
  free(queue);
  return level;
}

/* PE 0: the number of vertices whose level differs from the serial search's. */
static long compare(const state *s, const csr *whole, uint32_t root) {
  int32_t *ref = serial_bfs(whole, root);
  int32_t *got = must_alloc((size_t)s->nl_max * sizeof(int32_t), "the fetched levels");
  long bad = 0;
  for (int p = 0; p < s->npes; ++p) {
    long n = (long)((s->nv - (uint64_t)p + (uint64_t)s->npes - 1) / (uint64_t)s->npes);
    shmem_getmem(got, s->level, (size_t)n * sizeof(int32_t), p);
    for (long i = 0; i < n; ++i) {
      uint64_t v = (uint64_t)i * (uint64_t)s->npes + (uint64_t)p;
      if (got[i] != ref[v] && bad++ < 5)
        fprintf(stderr, "bfs: root %u: vertex %llu (PE %d) has level %d, the serial search %d\n", root,
                (unsigned long long)v, p, got[i], ref[v]);
    }
  }
  free(got);
  free(ref);
  return bad;
}

/* PE 0's verdict on this search, known to every PE: the number of wrong levels. */
static long verify(const state *s, const csr *whole, uint32_t root) {
  static long verdict, bad; /* symmetric, for the broadcast */
  shmem_barrier_all(); /* every level written (and any --corrupt) before PE 0 reads them */
  verdict = s->me == 0 ? compare(s, whole, root) : 0;
  shmem_long_broadcast(SHMEM_TEAM_WORLD, &bad, &verdict, 1, 0);
  if (bad && s->me == 0) fprintf(stderr, "bfs: root %u: %ld vertices have a wrong level\n", root, bad);
  return bad;
}

/* ---- the run ------------------------------------------------------------------------------ */

/* Searches from each root, checking each; returns the exit status. */
static int run(state *s, const options *o, double build_seconds) {
  csr whole = {0};
  if (s->me == 0) serial_graph(&whole, s);
  double seconds = 0.0;
  long edges = 0, bad = 0;
  int32_t levels = 0;
  for (long k = 0; k < o->roots; ++k) {
    uint32_t root = root_of(k, s);
    shmem_barrier_all();
    double t0 = now();
    int32_t depth = search(s, root);
    seconds += now() - t0; /* the search ends in a reduction: every PE is done */
    edges += traversed(s);
    levels = depth > levels ? depth : levels;
    if (o->corrupt && k == o->roots - 1 && s->me == s->npes - 1) s->level[s->nl - 1] += 1;
    bad += verify(s, &whole, root);
  }
  if (s->me == 0) {
    printf("bfs pes=%d scale=%ld edgefactor=%ld roots=%ld seconds=%.6f teps=%.4g levels=%d build_seconds=%.3f "
           "verified=%s\n", s->npes, o->scale, o->edgefactor, o->roots, seconds / (double)o->roots,
           (double)edges / seconds, levels, build_seconds, bad == 0 ? "yes" : "no");
    free_csr(&whole);
  }
  return bad == 0 ? 0 : 1;
}

/* Everything setup() and build_graph() took, so that the leak checks of the sanitizer
 * builds see a clean end (shmem_free is collective: every PE calls it in the same order). */
static void teardown(state *s) {
  free_csr(&s->g);
  free(s->frontier);
  free(s->next);
  free(s->out);
  free(s->out_n);
  free(s->sent);
  shmem_free(s->count);
  shmem_free(s->inbox);
  shmem_free(s->level);
}

int main(int argc, char **argv) {
  options o = {0};
  state s = {0};
  shmem_init();
  int status = parse(&o, argc, argv);
  if (status == 0) {
    setup(&s, &o);
    double t0 = now();
    build_graph(&s);
    status = run(&s, &o, now() - t0);
    teardown(&s);
  }
  shmem_finalize();
  return status;
}
