// The OpenSHMEM library's state between shmem_init and shmem_finalize: the job's layout
// (comm::World, with its virtual nodes), the symmetric memory of every PE and how this PE
// reaches it, the MPI windows of the cross-node path, and the predefined teams.
#pragma once

#include <mpi.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "comm/shm_segment.h"
#include "comm/world.h"
#include "shmem/heap.h"
#include "shmem/static_data.h"

namespace ferry::shmem {

struct Team;

struct Runtime {
  comm::World* world = nullptr;
  int me = 0, npes = 1;
  int threadLevel = 0;

  // The symmetric heap: one segment per node holds the heaps of the node's PEs, so that each
  // maps every same-node heap (direct load/store, shmem_ptr). peerHeap[pe] is nullptr for a
  // PE of another node, which MPI-3 RMA on heapWin reaches.
  comm::ShmSegment nodeHeaps;
  uint8_t* heapBase = nullptr;
  size_t heapSize = 0;
  std::vector<uint8_t*> peerHeap;
  HeapAllocator heap{0};

  // The executable's data and bss, symmetric by the standard: CMA within a node (where the
  // kernel allows it), dataWin across nodes and otherwise.
  StaticData data;
  std::vector<uint64_t> peerDataBase;
  std::vector<pid_t> pid;
  std::vector<bool> sameNode;
  bool cma = false;

  MPI_Comm comm = MPI_COMM_NULL;  // SHMEM's own duplicate of the world
  MPI_Win heapWin = MPI_WIN_NULL;
  MPI_Win dataWin = MPI_WIN_NULL;
  // More windows over the heap, for created contexts' RMA (FERRY_SHMEM_CONTEXT_WINDOWS; only
  // in a multi-node job, where RMA uses windows): a context on a window of its own flushes
  // nothing of another's. Atomics stay on heapWin, the one agent of every word. ctxWinUsers
  // counts the contexts on each (team.cpp's lock guards it).
  std::vector<MPI_Win> ctxWins;
  std::vector<int> ctxWinUsers;
  // Every atomic on a word must go through one agent: CPU atomics and MPI accumulates are not
  // atomic with respect to each other. CPU atomics are used only where no PE can reach the
  // word through MPI, i.e. when the whole job is one node (docs/shmem.md, "Atomics").
  bool directAmo = false;
  bool multiNode = false;

  Team* teamWorld = nullptr;
  Team* teamShared = nullptr;

  std::string host() const { return world->self().host; }
};

// Calls f(MPI_Win&) on every window of the library: the heap's, the static data's and the
// contexts' (any may be MPI_WIN_NULL).
template <class F>
void forEachWindow(Runtime& r, F&& f) {
  f(r.heapWin);
  f(r.dataWin);
  for (MPI_Win& w : r.ctxWins) f(w);
}

// The running library. Every entry point other than init calls it: before shmem_init (or
// after shmem_finalize) it reports the call and ends the process.
Runtime& rt(const char* call);
Runtime* runtimeIfUp();

// A misuse of the API: logged with the call, this PE and its host, and what to change; then
// the job ends (shmem_global_exit), since carrying on would corrupt memory or hang.
[[noreturn]] void misuse(const char* call, const std::string& what);
// Enters MPI's progress engine once (an MPI_Iprobe on SHMEM's communicator): libraries
// without asynchronous progress complete other PEs' RMA into this one only then (wait.cpp).
void probeProgress(const Runtime& r);
// Checks that `pe` names a PE of a team of `n` PEs.
void checkPe(const char* call, int pe, int n, const char* teamName);

}  // namespace ferry::shmem
