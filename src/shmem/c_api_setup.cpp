// The C entry points for set-up, exit and queries, thread support and the profiling hook,
// plus shmemx.h's heap placement.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "ferry/shmem/shmemx.h"
#include "platform/log.h"
#include "shmem/c_api_types.h"
#include "shmem/runtime.h"

// shmem.h's constants are the core's values: the entry points pass them through unchanged.
static_assert(SHMEM_CMP_EQ == static_cast<int>(core::Cmp::Eq) && SHMEM_CMP_NE == static_cast<int>(core::Cmp::Ne) &&
              SHMEM_CMP_GT == static_cast<int>(core::Cmp::Gt) && SHMEM_CMP_GE == static_cast<int>(core::Cmp::Ge) &&
              SHMEM_CMP_LT == static_cast<int>(core::Cmp::Lt) && SHMEM_CMP_LE == static_cast<int>(core::Cmp::Le));
static_assert(SHMEM_SIGNAL_SET == core::kSignalSet && SHMEM_SIGNAL_ADD == core::kSignalAdd);
static_assert(sizeof(SHMEM_VENDOR_STRING) <= SHMEM_MAX_NAME_LEN);

namespace ferry::shmem::capi {

// The core's report (runtime.h): one message format and one way to end the job.
void misuse(const char* call, const char* what) { core::misuse(call, what); }

}  // namespace ferry::shmem::capi

extern "C" {

// ---- set-up, exit and queries ---------------------------------------------------------------

void shmem_init(void) {
  // shmem_init cannot report failure: a process whose library did not start (init has
  // logged why) exits rather than run into its first RMA. Not globalExit: MPI may not be up.
  int provided = 0;
  if (core::init(SHMEM_THREAD_SINGLE, &provided) != 0) std::exit(1);
}

void shmem_finalize(void) { core::finalize(); }

void shmem_global_exit(int status) { core::globalExit(status); }

int shmem_my_pe(void) { return core::myPe(); }

int shmem_n_pes(void) { return core::nPes(); }

int shmem_pe_accessible(int pe) { return core::peAccessible(pe) ? 1 : 0; }

int shmem_addr_accessible(const void* addr, int pe) { return core::addrAccessible(addr, pe) ? 1 : 0; }

void* shmem_ptr(const void* dest, int pe) { return core::ptr(dest, pe); }

void* shmem_team_ptr(shmem_team_t team, const void* dest, int pe) {
  core::Team* t = capi::toTeam(team);
  if (!t) return nullptr;
  int worldPe = core::teamTranslatePe(t, pe, core::teamWorld());
  return worldPe < 0 ? nullptr : core::ptr(dest, worldPe);
}

void shmem_info_get_version(int* major, int* minor) {
  if (major) *major = SHMEM_MAJOR_VERSION;
  if (minor) *minor = SHMEM_MINOR_VERSION;
}

void shmem_info_get_name(char* name) {
  if (name) std::memcpy(name, SHMEM_VENDOR_STRING, sizeof(SHMEM_VENDOR_STRING));
}

// ---- thread support -------------------------------------------------------------------------

int shmem_init_thread(int requested, int* provided) {
  int level = SHMEM_THREAD_SINGLE;
  int rc = core::init(requested, &level);
  if (provided) *provided = level;
  return rc;
}

void shmem_query_thread(int* provided) {
  if (provided) *provided = core::queryThread();
}

// ---- profiling ------------------------------------------------------------------------------

// The standard's hook for profiling tools, which intercept it; the library has no level.
void shmem_pcontrol(const int, ...) {}

// ---- shmemx.h: where the symmetric heap lives -------------------------------------------------

int shmemx_heap_on_host(void) { return 0; }

int shmemx_heap_on_device(void) {
  std::fprintf(stderr,
               "shmemx_heap_on_device: this Ferry build has no CUDA device heap yet (issue: CUDA-aware OpenSHMEM)\n");
  return 1;
}

}  // extern "C"
