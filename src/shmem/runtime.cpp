// shmem_init and shmem_finalize: the job's layout, the symmetric memory, the windows.
#include "shmem/runtime.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "comm/mpi_check.h"
#include "platform/config.h"
#include "platform/init.h"
#include "platform/log.h"
#include "platform/parse.h"
#include "shmem/api.h"
#include "shmem/interop.h"
#include "shmem/team.h"

namespace ferry::shmem {
namespace {

Runtime* gRt = nullptr;
std::atomic<bool> gFinalized{false};

constexpr size_t kPage = 4096;

int shmemLevelOfMpi(int mpiLevel) {
  if (mpiLevel == MPI_THREAD_MULTIPLE) return 3;
  if (mpiLevel == MPI_THREAD_SERIALIZED) return 2;
  if (mpiLevel == MPI_THREAD_FUNNELED) return 1;
  return 0;
}

// Each PE's heap within its node's segment, in node-local rank order.
Status mapHeaps(Runtime& r) {
  const auto& nodes = r.world->nodes();
  r.heapSize = (config().size(Knob::ShmemSymmetricSize) + kPage - 1) / kPage * kPage;
  auto seg = comm::mapNodeSegment(nodes.nodeComm, r.heapSize * static_cast<size_t>(nodes.localSize), "shmem-heap");
  if (!seg)
    return Status(seg.status().code(), "the symmetric heap (SHMEM_SYMMETRIC_SIZE=" +
                                           parse::formatSize(r.heapSize) + " per PE, " +
                                           std::to_string(nodes.localSize) + " PEs on this node): " +
                                           seg.status().message() + "; lower SHMEM_SYMMETRIC_SIZE");
  r.nodeHeaps = std::move(seg.value());
  r.heapBase = r.nodeHeaps.data() + r.heapSize * static_cast<size_t>(nodes.localRank);
  r.peerHeap.assign(static_cast<size_t>(r.npes), nullptr);
  r.sameNode.assign(static_cast<size_t>(r.npes), false);
  int local = 0;
  for (int pe = 0; pe < r.npes; ++pe) {
    if (nodes.nodeOfRank[pe] != nodes.node) continue;
    r.sameNode[pe] = true;
    r.peerHeap[pe] = r.nodeHeaps.data() + r.heapSize * static_cast<size_t>(local++);
  }
  r.heap = HeapAllocator(r.heapSize);
  return {};
}

// Where every PE has its static data; a job whose PEs run different executables (MPMD)
// has none that is symmetric.
Status exchangeStaticData(Runtime& r) {
  r.data = findStaticData();
  uint64_t mine[2] = {reinterpret_cast<uint64_t>(r.data.base), r.data.size};
  std::vector<uint64_t> all(2 * static_cast<size_t>(r.npes));
  if (Status st = comm::mpiStatus(MPI_Allgather(mine, 2, MPI_UINT64_T, all.data(), 2, MPI_UINT64_T, r.comm),
                                  "MPI_Allgather(static data regions)");
      !st)
    return st;
  r.peerDataBase.resize(static_cast<size_t>(r.npes));
  for (int pe = 0; pe < r.npes; ++pe) {
    r.peerDataBase[pe] = all[2 * pe];
    if (all[2 * pe + 1] != r.data.size) {
      log::warn(log::Shmem, "PE %d's static data is %llu B, this PE's %zu B (different executables?): global and "
                "static variables are not symmetric in this job, only the symmetric heap is",
                pe, static_cast<unsigned long long>(all[2 * pe + 1]), r.data.size);
      r.data = StaticData{};
      break;
    }
  }
  r.pid.resize(static_cast<size_t>(r.npes));
  for (int pe = 0; pe < r.npes; ++pe) r.pid[pe] = r.world->peer(pe).pid;
  r.cma = r.world->cmaEnabled();
  return {};
}

Status createWindow(Runtime& r, void* base, size_t size, MPI_Win& win, const char* what) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "same_disp_unit", "true");
  int rc = MPI_Win_create(base, static_cast<MPI_Aint>(size), 1, info, r.comm, &win);
  MPI_Info_free(&info);
  if (Status st = comm::mpiStatus(rc, what); !st) return st;
  // One passive epoch for the whole job: quiet is a flush, never a lock or a barrier.
  return comm::mpiStatus(MPI_Win_lock_all(MPI_MODE_NOCHECK, win), "MPI_Win_lock_all");
}

Status startRuntime(Runtime& r) {
  if (Status st = comm::mpiStatus(MPI_Comm_dup(r.world->comm(), &r.comm), "MPI_Comm_dup(SHMEM's world)"); !st)
    return st;
  r.me = r.world->rank();
  r.npes = r.world->size();
  if (Status st = mapHeaps(r); !st) return st;
  if (Status st = exchangeStaticData(r); !st) return st;
  // One PE reaches all its memory by load and store: no windows (and no MPI RMA, which
  // some libraries refuse on a lone process).
  r.multiNode = r.world->nodes().numNodes > 1;
  if (r.npes > 1) {
    if (Status st = createWindow(r, r.heapBase, r.heapSize, r.heapWin, "MPI_Win_create(symmetric heap)"); !st)
      return st;
    if (r.data.size)
      if (Status st = createWindow(r, r.data.base, r.data.size, r.dataWin, "MPI_Win_create(static data)"); !st)
        return st;
  }
  if (r.multiNode) {
    r.ctxWins.assign(static_cast<size_t>(config().integer(Knob::ShmemContextWindows)), MPI_WIN_NULL);
    r.ctxWinUsers.assign(r.ctxWins.size(), 0);
    for (MPI_Win& w : r.ctxWins)
      if (Status st = createWindow(r, r.heapBase, r.heapSize, w, "MPI_Win_create(a context's window)"); !st)
        return Status(st.code(), st.message() + "; FERRY_SHMEM_CONTEXT_WINDOWS=0 makes contexts share one");
  }
  r.directAmo = !r.multiNode;
  return createPredefinedTeams(r);
}

void announce(const Runtime& r) {
  if (r.me != 0) return;
  if (config().flag(Knob::ShmemVersion)) std::printf("Ferry OpenSHMEM, standard version 1.5\n");
  if (config().flag(Knob::ShmemInfo)) {
    std::printf("Ferry OpenSHMEM 1.5: %d PEs on %d node(s)\n", r.npes, r.world->nodes().numNodes);
    for (const auto& k : knobTable())
      if (std::string_view(k.subsystem) == "shmem")
        std::printf("  %-22s %s\n    %s\n", k.name, config().rawText(k.key).empty() ? k.defaultValue
                                                                                    : config().rawText(k.key).c_str(),
                    k.help);
  }
  std::fflush(stdout);
}

// Open MPI 4.1's osc/rdma crashes on a 64-bit MPI_Compare_and_swap between processes of one
// machine (its vader BTL's emulated atomics; open-mpi/ompi#7967 and #11349), which every
// shmem_*_compare_swap and lock needs; osc/ucx does it right. The choice must be made before
// MPI starts: here when SHMEM starts it, by oshrun otherwise.
void chooseOneSidedComponent() {
#ifdef OPEN_MPI
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    setenv("OMPI_MCA_osc", "ucx", 0);  // the user's own choice stays
    return;
  }
  const char* osc = getenv("OMPI_MCA_osc");
  if (!osc || std::string_view(osc).find("ucx") == std::string_view::npos)
    log::warn(log::Shmem, "shmem_init after MPI_Init with Open MPI: set OMPI_MCA_osc=ucx before the job starts "
              "(oshrun does); Open MPI's default osc/rdma crashes on 64-bit compare-and-swap (shmem_*_compare_swap, "
              "shmem_set_lock) between processes of one machine (open-mpi/ompi#7967)");
#endif
}

}  // namespace

Runtime* runtimeIfUp() { return gRt; }

Runtime& rt(const char* call) {
  if (gRt) [[likely]]
    return *gRt;
  std::fprintf(stderr, "[ferry shmem pid=%d] %s: called %s; call shmem_init first\n", static_cast<int>(getpid()),
               call, gFinalized ? "after shmem_finalize" : "before shmem_init");
  std::exit(1);
}

int init(int requested, int* provided) {
  if (gRt) {
    if (provided) *provided = gRt->threadLevel;
    return 0;
  }
  // The platform's start (the registry, FERRY_LOG and its file, FERRY_TRACE, the warnings
  // about unknown FERRY_* names), as the offload plugin and the collectives start it.
  Status cfg = initPlatform();
  if (config().flag(Knob::ShmemDebug) && !config().isSet(Knob::Log)) (void)log::configure("debug,shmem");
  if (!cfg) {
    log::error(log::Shmem, "shmem_init: %s", cfg.message().c_str());
    return 1;
  }
  chooseOneSidedComponent();
  auto world = comm::World::create();
  if (!world) {
    log::error(log::Shmem, "shmem_init: %s", world.status().message().c_str());
    return 1;
  }
  auto* r = new Runtime();
  r->world = *world;
  r->threadLevel = std::min(requested, shmemLevelOfMpi(r->world->threadLevel()));
  if (Status st = startRuntime(*r); !st) {
    log::error(log::Shmem, "shmem_init on PE %d (host %s): %s", r->world->rank(), r->host().c_str(),
               st.message().c_str());
    return 1;
  }
  gRt = r;
  interop::shmemStarted();
  announce(*r);
  log::debug(log::Shmem, "shmem_init: %d PEs, %d node(s), heap %s per PE, static data %zu B, atomics %s", r->npes,
             r->world->nodes().numNodes, parse::formatSize(r->heapSize).c_str(), r->data.size,
             r->directAmo ? "CPU" : "MPI");
  if (provided) *provided = r->threadLevel;
  return 0;
}

bool isInitialized() { return gRt != nullptr; }
int queryThread() { return rt("shmem_query_thread").threadLevel; }
int myPe() { return rt("shmem_my_pe").me; }
int nPes() { return rt("shmem_n_pes").npes; }

void finalize() {
  if (!gRt) return;
  Runtime& r = *gRt;
  barrierAll();
  destroyTeams(r);
  forEachWindow(r, [](MPI_Win& w) {
    if (w == MPI_WIN_NULL) return;
    MPI_Win_unlock_all(w);
    MPI_Win_free(&w);
  });
  MPI_Comm_free(&r.comm);
  r.nodeHeaps = comm::ShmSegment();
  gRt = nullptr;
  gFinalized = true;
  interop::shmemEnding(*r.world);
  delete &r;
}

void globalExit(int status) {
  log::debug(log::Shmem, "shmem_global_exit(%d)", status);
  comm::World::abortJob(status);  // so that what the program printed last still arrives
}

void misuse(const char* call, const std::string& what) {
  Runtime& r = rt(call);
  log::error(log::Shmem, "%s on PE %d of %d (host %s): %s", call, r.me, r.npes, r.host().c_str(), what.c_str());
  comm::World::abortJob();  // which gives the launcher time to forward this line
}

void checkPe(const char* call, int pe, int n, const char* teamName) {
  if (pe >= 0 && pe < n) [[likely]]
    return;
  misuse(call, "PE " + std::to_string(pe) + " is out of range: " + teamName + " has PEs 0.." + std::to_string(n - 1));
}

bool peAccessible(int pe) {
  Runtime& r = rt("shmem_pe_accessible");
  return pe >= 0 && pe < r.npes;
}

}  // namespace ferry::shmem
