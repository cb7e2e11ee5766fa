#include "shmem/team.h"

#include <map>
#include <mutex>
#include <set>
#include <tuple>

#include "comm/mpi_check.h"
#include "platform/log.h"
#include "shmem/api.h"

namespace ferry::shmem {
namespace {

// Every team a split made and not yet destroyed, and the active sets of the deprecated
// collectives (kept for the job: the programs that use them repeat the same few sets).
std::set<Team*> gTeams;
std::map<std::tuple<int, int, int>, Team*> gActiveSets;

Result<Team*> teamOver(const Runtime& r, MPI_Comm comm, const char* name, bool predefined) {
  auto* t = new Team();
  t->name = name;
  t->predefined = predefined;
  if (Status st = comm::mpiStatus(MPI_Comm_dup(comm, &t->comm), "MPI_Comm_dup(team)"); !st) {
    delete t;
    return st;
  }
  MPI_Comm_rank(t->comm, &t->myPe);
  MPI_Comm_size(t->comm, &t->nPes);
  int mine = r.me;
  t->worldPe.resize(static_cast<size_t>(t->nPes));
  MPI_Allgather(&mine, 1, MPI_INT, t->worldPe.data(), 1, MPI_INT, t->comm);
  return t;
}


}  // namespace

Status createPredefinedTeams(Runtime& r) {
  auto world = teamOver(r, r.comm, "SHMEM_TEAM_WORLD", true);
  if (!world) return world.takeStatus();
  auto shared = teamOver(r, r.world->nodes().nodeComm, "SHMEM_TEAM_SHARED", true);
  if (!shared) return shared.takeStatus();
  r.teamWorld = *world;
  r.teamShared = *shared;
  return {};
}

void destroyTeams(Runtime& r) {
  for (Team* t : gTeams) {
    MPI_Comm_free(&t->comm);
    delete t;
  }
  gTeams.clear();
  gActiveSets.clear();  // their teams were in gTeams
  for (Team** t : {&r.teamWorld, &r.teamShared}) {
    MPI_Comm_free(&(*t)->comm);
    delete *t;
    *t = nullptr;
  }
}

Result<Team*> makeTeam(Runtime& r, const Team& parent, bool member, int key, const char* call) {
  MPI_Comm comm = MPI_COMM_NULL;
  if (Status st = comm::mpiStatus(MPI_Comm_split(parent.comm, member ? 0 : MPI_UNDEFINED, key, &comm), call); !st)
    return st;
  if (comm == MPI_COMM_NULL) return static_cast<Team*>(nullptr);
  auto t = teamOver(r, comm, "a split team", false);
  MPI_Comm_free(&comm);
  if (!t) return t;
  gTeams.insert(*t);
  return t;
}

int worldPeOf(Runtime& r, const Ctx* ctx, int pe, const char* call) {
  const Team* team = ctx ? ctx->team : r.teamWorld;
  checkPe(call, pe, team->nPes, team->name);
  return team->worldPe[static_cast<size_t>(pe)];
}

Team* teamWorld() { return rt("SHMEM_TEAM_WORLD").teamWorld; }
Team* teamShared() { return rt("SHMEM_TEAM_SHARED").teamShared; }
int teamMyPe(const Team* team) { return team ? team->myPe : -1; }
int teamNPes(const Team* team) { return team ? team->nPes : -1; }

int teamTranslatePe(const Team* src, int pe, const Team* dst) {
  if (!src || !dst || pe < 0 || pe >= src->nPes) return -1;
  int world = src->worldPe[static_cast<size_t>(pe)];
  for (int i = 0; i < dst->nPes; ++i)
    if (dst->worldPe[static_cast<size_t>(i)] == world) return i;
  return -1;
}

int teamSplitStrided(Team* parent, int start, int stride, int size, const void* config, long mask, Team** out) {
  const char* call = "shmem_team_split_strided";
  Runtime& r = rt(call);
  *out = nullptr;
  if (!parent) return -1;
  // Every PE of the parent computes the same verdict, so all return alike.
  long last = static_cast<long>(start) + static_cast<long>(stride) * (size - 1);
  if (size < 1 || start < 0 || start >= parent->nPes || (size > 1 && stride == 0) || last < 0 ||
      last >= parent->nPes) {
    log::error(log::Shmem, "%s: start %d, stride %d, size %d do not fit the parent team's %d PEs", call, start,
               stride, size, parent->nPes);
    return -1;
  }
  long offset = parent->myPe - start;
  bool member = stride == 0 ? offset == 0 : offset % stride == 0 && offset / stride >= 0 && offset / stride < size;
  auto t = makeTeam(r, *parent, member, member ? static_cast<int>(stride ? offset / stride : 0) : 0, call);
  if (!t) return -1;
  *out = *t;
  if (*out && config && (mask & 1)) (*out)->numContexts = *static_cast<const int*>(config);
  return 0;
}

int teamSplit2d(Team* parent, int xrange, const void* xConfig, long xMask, Team** xTeam, const void* yConfig,
                long yMask, Team** yTeam) {
  const char* call = "shmem_team_split_2d";
  Runtime& r = rt(call);
  *xTeam = *yTeam = nullptr;
  if (!parent || xrange < 1) return -1;
  xrange = std::min(xrange, parent->nPes);
  int x = parent->myPe % xrange, y = parent->myPe / xrange;
  // The x-team of a PE is its row (PEs y*xrange ...), the y-team its column.
  MPI_Comm rowComm = MPI_COMM_NULL, colComm = MPI_COMM_NULL;
  if (!comm::mpiStatus(MPI_Comm_split(parent->comm, y, x, &rowComm), call) ||
      !comm::mpiStatus(MPI_Comm_split(parent->comm, x, y, &colComm), call))
    return -1;
  auto row = teamOver(r, rowComm, "a split_2d x-team", false);
  auto col = teamOver(r, colComm, "a split_2d y-team", false);
  MPI_Comm_free(&rowComm);
  MPI_Comm_free(&colComm);
  if (!row || !col) return -1;
  *xTeam = *row;
  *yTeam = *col;
  gTeams.insert(*row);
  gTeams.insert(*col);
  if (xConfig && (xMask & 1)) (*xTeam)->numContexts = *static_cast<const int*>(xConfig);
  if (yConfig && (yMask & 1)) (*yTeam)->numContexts = *static_cast<const int*>(yConfig);
  return 0;
}

int teamGetConfig(const Team* team, long mask, void* config) {
  if (!team || !config) return -1;
  if (mask & 1) *static_cast<int*>(config) = team->numContexts;
  return 0;
}

void teamDestroy(Team* team) {
  if (!team || team->predefined) return;
  if (!gTeams.erase(team)) return;
  for (auto it = gActiveSets.begin(); it != gActiveSets.end();)
    it = it->second == team ? gActiveSets.erase(it) : std::next(it);
  MPI_Comm_free(&team->comm);
  delete team;
}

Team* activeSet(int peStart, int logPeStride, int peSize, const char* call) {
  Runtime& r = rt(call);
  auto key = std::make_tuple(peStart, logPeStride, peSize);
  if (auto it = gActiveSets.find(key); it != gActiveSets.end()) return it->second;
  int stride = 1 << logPeStride;
  long last = static_cast<long>(peStart) + static_cast<long>(stride) * (peSize - 1);
  if (peStart < 0 || peSize < 1 || logPeStride < 0 || logPeStride > 30 || last >= r.npes)
    misuse(call, "the active set (PE_start " + std::to_string(peStart) + ", logPE_stride " +
                     std::to_string(logPeStride) + ", PE_size " + std::to_string(peSize) + ") does not fit the " +
                     std::to_string(r.npes) + " PEs");
  int offset = r.me - peStart;
  if (offset < 0 || offset % stride != 0 || offset / stride >= peSize)
    misuse(call, "this PE is not in the active set it was called with");
  // Only the set's PEs call: MPI_Comm_create_group is collective over them alone.
  MPI_Group worldGroup, group;
  MPI_Comm_group(r.comm, &worldGroup);
  int range[1][3] = {{peStart, static_cast<int>(last), stride}};
  MPI_Group_range_incl(worldGroup, 1, range, &group);
  MPI_Comm comm = MPI_COMM_NULL;
  int rc = MPI_Comm_create_group(r.comm, group, 7, &comm);
  MPI_Group_free(&group);
  MPI_Group_free(&worldGroup);
  if (Status st = comm::mpiStatus(rc, "MPI_Comm_create_group(active set)"); !st) misuse(call, st.message());
  auto t = teamOver(r, comm, "the active set", false);
  MPI_Comm_free(&comm);
  if (!t) misuse(call, t.status().message());
  gTeams.insert(*t);
  gActiveSets[key] = *t;
  return *t;
}

// ---- contexts -----------------------------------------------------------------------------
// A created context keeps its own record of what it issued (pending.h) and, across nodes,
// puts and gets on a window of its own where the pool has one free (Runtime::ctxWins): its
// quiet flushes that window, which completes nothing of another context's. Contexts beyond
// the pool share its windows, least used first; a flush then also completes the other's
// operations to that PE, which the standard allows (docs/shmem.md, "Contexts").

namespace {
// The live contexts, for quietAll(); created and destroyed rarely, so one mutex.
std::mutex gContextsMutex;
std::set<Ctx*> gContexts;
}  // namespace

// The context window with the fewest contexts on it (under gContextsMutex), or -1.
int leastUsedWindow(const Runtime& r) {
  int best = -1;
  for (size_t i = 0; i < r.ctxWinUsers.size(); ++i)
    if (best < 0 || r.ctxWinUsers[i] < r.ctxWinUsers[static_cast<size_t>(best)]) best = static_cast<int>(i);
  return best;
}

int ctxCreate(Team* team, long options, Ctx** ctx) {
  Runtime& r = rt("shmem_ctx_create");
  *ctx = nullptr;
  if (!team) return -1;
  auto* c = new Ctx;
  c->team = team;
  c->options = options;
  std::lock_guard lock(gContextsMutex);
  c->window = leastUsedWindow(r);
  if (c->window >= 0) {
    c->heapWin = r.ctxWins[static_cast<size_t>(c->window)];
    ++r.ctxWinUsers[static_cast<size_t>(c->window)];
  }
  gContexts.insert(c);
  *ctx = c;
  return 0;
}

void ctxDestroy(Ctx* ctx) {
  if (!ctx) return;
  Runtime& r = rt("shmem_ctx_destroy");
  std::lock_guard lock(gContextsMutex);
  quiet(ctx);
  if (ctx->window >= 0) --r.ctxWinUsers[static_cast<size_t>(ctx->window)];
  gContexts.erase(ctx);
  delete ctx;
}

void quietAll() {
  quiet(nullptr);
  std::lock_guard lock(gContextsMutex);
  for (Ctx* c : gContexts) quiet(c);
}

int ctxGetTeam(const Ctx* ctx, Team** team) {
  Runtime& r = rt("shmem_ctx_get_team");
  if (!team) return -1;
  *team = ctx ? ctx->team : r.teamWorld;
  return 0;
}

Ctx* ctxDefault() { return nullptr; }

}  // namespace ferry::shmem
