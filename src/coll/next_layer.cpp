#include "coll/next_layer.h"

#include <dlfcn.h>

#include <mutex>

namespace ferry::coll {

namespace {

// Constant-initialised, so it holds the PMPI_ defaults before any constructor runs.
constinit NextLayer gLayer;

// The definition after this object (libferry-pmpi.so) in the search order; the slot keeps
// its PMPI_ default where there is none (an MPI library opened with RTLD_LOCAL).
template <typename Fn>
void chain(Fn& slot, const char* name) {
  if (void* p = dlsym(RTLD_NEXT, name)) slot = reinterpret_cast<Fn>(p);
}

void lookUp(NextLayer& t) {
  chain(t.init, "MPI_Init");
  chain(t.initThread, "MPI_Init_thread");
  chain(t.allreduce, "MPI_Allreduce");
#if MPI_VERSION >= 4
  chain(t.allreduceC, "MPI_Allreduce_c");
#endif
  chain(t.allocMem, "MPI_Alloc_mem");
  chain(t.freeMem, "MPI_Free_mem");
}

}  // namespace

const NextLayer& nextLayer() { return gLayer; }

void chainToNextLayer() {
  static std::once_flag once;
  std::call_once(once, [] { lookUp(gLayer); });
}

std::string nextLayerFile() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(gLayer.allreduce), &info) && info.dli_fname) return info.dli_fname;
  return "the MPI library";
}

}  // namespace ferry::coll
