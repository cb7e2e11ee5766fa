/* mpi_fault.so: makes chosen MPI point-to-point calls of one rank fail, so that tests can
 * check what Ferry does when a send or receive fails (docs/robustness.md, "Failures at
 * the seams"). Preloaded through the launcher (LD_PRELOAD); it intercepts the MPI_* entry
 * points through the MPI profiling interface, as any PMPI tool does.
 *
 *   MPIFAULT_RANK   the MPI_COMM_WORLD rank whose calls fail (required; others pass through)
 *   MPIFAULT_CALL   Isend, Irecv or Send
 *   MPIFAULT_TAG    a tag, or "dynamic" for every tag from 16 up (Ferry's reply and data
 *                   tags), or "any"
 *   MPIFAULT_AFTER  how many matching calls succeed before every later one fails (0)
 *
 * A failing call behaves as the library's own failure would: the communicator's error
 * handler is called (Ferry's return codes; the default one aborts), the request is null,
 * and MPI_ERR_OTHER is returned. Each failure is said on stderr, so a test can tell that
 * the fault was injected, not merely that the program failed. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int configured = -1; /* -1: not read yet, 0: off, 1: on */
static char call_name[16];
static int tag_kind; /* 0: exact, 1: dynamic (>= 16), 2: any */
static int tag_value;
static long after, seen;

static int world_rank(void) {
  const char* vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; ++i)
    if (getenv(vars[i])) return atoi(getenv(vars[i]));
  return -1;
}

static void configure(void) {
  const char* rank = getenv("MPIFAULT_RANK");
  const char* call = getenv("MPIFAULT_CALL");
  const char* tag = getenv("MPIFAULT_TAG");
  configured = rank && call && atoi(rank) == world_rank();
  if (!configured) return;
  snprintf(call_name, sizeof call_name, "%s", call);
  tag_kind = !tag || !strcmp(tag, "any") ? 2 : !strcmp(tag, "dynamic") ? 1 : 0;
  tag_value = tag_kind == 0 ? atoi(tag) : 0;
  after = getenv("MPIFAULT_AFTER") ? atol(getenv("MPIFAULT_AFTER")) : 0;
}

/* Whether this call is to fail: it matches, and `after` matching calls have gone before. */
static int should_fail(const char* call, int tag) {
  if (configured < 0) configure();
  if (!configured || strcmp(call, call_name) != 0) return 0;
  if (tag_kind == 0 && tag != tag_value) return 0;
  if (tag_kind == 1 && tag < 16) return 0;
  return __atomic_fetch_add(&seen, 1, __ATOMIC_RELAXED) >= after;
}

static int fail(const char* call, int tag, int peer, MPI_Comm comm, MPI_Request* request) {
  fprintf(stderr, "mpi_fault: failing MPI_%s (tag %d, peer %d) on rank %d, matching call %ld\n", call, tag, peer,
          world_rank(), seen);
  if (request) *request = MPI_REQUEST_NULL;
  MPI_Comm_call_errhandler(comm, MPI_ERR_OTHER);
  return MPI_ERR_OTHER;
}

int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* req) {
  if (should_fail("Isend", tag)) return fail("Isend", tag, dest, comm, req);
  return PMPI_Isend(buf, count, type, dest, tag, comm, req);
}

int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request* req) {
  if (should_fail("Irecv", tag)) return fail("Irecv", tag, source, comm, req);
  return PMPI_Irecv(buf, count, type, source, tag, comm, req);
}

int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  if (should_fail("Send", tag)) return fail("Send", tag, dest, comm, NULL);
  return PMPI_Send(buf, count, type, dest, tag, comm);
}
