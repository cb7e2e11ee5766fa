// Teams and contexts. A team is an MPI communicator over its PEs (its collectives are the
// MPI library's) plus the translation between its PE numbers and the world's (RMA and
// atomics address world PEs). A context names the team whose PE numbers its calls use, and
// keeps what it has to complete at quiet (pending.h).
#pragma once

#include <mpi.h>

#include <vector>

#include "shmem/pending.h"
#include "shmem/runtime.h"

namespace ferry::shmem {

struct Team {
  MPI_Comm comm = MPI_COMM_NULL;
  int myPe = 0, nPes = 0;
  std::vector<int> worldPe;  // team PE -> world PE
  int numContexts = 0;       // shmem_team_config_t, as given at the split
  bool predefined = false;   // world and shared: never destroyed by the program
  const char* name = "a split team";
};

struct Ctx {
  Team* team = nullptr;
  long options = 0;
  Pending pending;  // its own completion record: quiet(ctx) flushes what it issued
  // Its puts' and gets' window across nodes (Runtime::ctxWins), or MPI_WIN_NULL: heapWin.
  MPI_Win heapWin = MPI_WIN_NULL;
  int window = -1;  // its index in Runtime::ctxWins
};

Status createPredefinedTeams(Runtime& r);
void destroyTeams(Runtime& r);
// A team of the PEs of `parent` that call with member = true, ordered by key; collective
// over `parent`. nullptr where this PE is not a member (or on error, after logging it).
Result<Team*> makeTeam(Runtime& r, const Team& parent, bool member, int key, const char* call);
// The world PE that `pe` of the context's team is (the default context: the world team).
int worldPeOf(Runtime& r, const Ctx* ctx, int pe, const char* call);

}  // namespace ferry::shmem
