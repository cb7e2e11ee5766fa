// The interposer's calls made from Fortran, where the MPI library's Fortran bindings do not
// call the C entry points that interpose.cpp replaces. These take the bindings' place and
// do what the C ones do (interpose.h). Tests: coll.program.fortran_* (tests/coll), all three
// bindings on both libraries.
//
// Open MPI: mpif.h, `use mpi` and `use mpi_f08` call PMPI_Init, PMPI_Init_thread,
// PMPI_Allreduce, PMPI_Alloc_mem and PMPI_Free_mem, so every binding is replaced:
//   mpi_init_, mpi_init_thread_, mpi_allreduce_, mpi_alloc_mem_, mpi_alloc_mem_cptr_,
//   mpi_free_mem_ and their other manglings    mpif.h and `use mpi`
//   ompi_init_f, ompi_init_thread_f, ompi_allreduce_f, ompi_alloc_mem_f,
//   ompi_alloc_mem_cptr_f, ompi_free_mem_f     `use mpi_f08` (mpi_allreduce_f08_ etc. call them)
// MPICH: its bindings call the C entry points, except MPI_Init, MPI_Init_thread and
// MPI_Alloc_mem of `use mpi_f08`, which call PMPI_: mpi_init_f08_, mpi_init_thread_f08_ and
// mpi_alloc_mem_f08_ are replaced.
#include <dlfcn.h>
#include <mpi.h>

#include <array>

#include "coll/allreduce.h"
#include "coll/interpose.h"
#include "ferry/ferry_coll.h"

namespace {

// Fortran gets the C call's return code in `ierr`, which mpi_f08 calls that leave out the
// optional ierror pass as null.
void returnCode(MPI_Fint* ierr, int rc) {
  if (ierr != nullptr) *ierr = static_cast<MPI_Fint>(rc);
}

// `baseptr` is an INTEGER(KIND=MPI_ADDRESS_KIND) or a TYPE(C_PTR): either way the address
// is stored in it, as the C call does.
void allocMemFromFortran(const MPI_Aint* size, const MPI_Fint* info, void* baseptr, MPI_Fint* ierr) {
  returnCode(ierr, ferry::coll::allocMem(*size, PMPI_Info_f2c(*info), baseptr));
}

// MPI_Init from Fortran, as from C (interpose.h): through the layer below's C entry point, so
// that a PMPI tool after Ferry sees it even where its own Fortran wrappers are passed over.
// With an empty command line, as Open MPI's binding passes it: a C wrapper may read *argc.
void initFromFortran(MPI_Fint* ierr) {
  int argc = 0;
  char** argv = nullptr;
  returnCode(ierr, ferry::coll::init(&argc, &argv));
}

void initThreadFromFortran(const MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierr) {
  int argc = 0;
  char** argv = nullptr;
  int given = MPI_THREAD_SINGLE;
  int rc = ferry::coll::initThread(&argc, &argv, static_cast<int>(*required), &given);
  if (rc == MPI_SUCCESS) *provided = static_cast<MPI_Fint>(given);
  returnCode(ierr, rc);
}

}  // namespace

#define FERRY_FORTRAN_INIT(name) \
  extern "C" FERRY_COLL_API void name(MPI_Fint* ierr) { initFromFortran(ierr); }
#define FERRY_FORTRAN_INIT_THREAD(name)                                                           \
  extern "C" FERRY_COLL_API void name(MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierr) { \
    initThreadFromFortran(required, provided, ierr);                                            \
  }

#define FERRY_FORTRAN_ALLOC_MEM(name)                                                                  \
  extern "C" FERRY_COLL_API void name(MPI_Aint* size, MPI_Fint* info, void* baseptr, MPI_Fint* ierr) { \
    allocMemFromFortran(size, info, baseptr, ierr);                                                    \
  }

#if defined(OPEN_MPI)
namespace {

// Fortran's MPI_IN_PLACE and MPI_BOTTOM are variables in a common block; a program passes
// their address. Open MPI names them in each compiler's mangling and compares with all.
struct Sentinel {
  std::array<const void*, 4> addresses{};

  explicit Sentinel(const char* const (&names)[4]) {
    for (size_t i = 0; i < 4; ++i) addresses[i] = dlsym(RTLD_DEFAULT, names[i]);
  }
  bool is(const void* p) const {
    for (const void* a : addresses)
      if (a != nullptr && a == p) return true;
    return false;
  }
};

const Sentinel& inPlace() {
  static const Sentinel s({"mpi_fortran_in_place_", "mpi_fortran_in_place", "mpi_fortran_in_place__",
                           "MPI_FORTRAN_IN_PLACE"});
  return s;
}

const Sentinel& bottom() {
  static const Sentinel s({"mpi_fortran_bottom_", "mpi_fortran_bottom", "mpi_fortran_bottom__", "MPI_FORTRAN_BOTTOM"});
  return s;
}

void* toC(void* buf) {
  if (inPlace().is(buf)) return MPI_IN_PLACE;
  if (bottom().is(buf)) return MPI_BOTTOM;
  return buf;
}

// The binding's own conversion (handles by f2c, sentinels), then the C path: Ferry's
// allreduce where it is faster, the next layer's MPI_Allreduce otherwise.
void allreduceFromFortran(void* sendbuf, void* recvbuf, const MPI_Fint* count, const MPI_Fint* datatype,
                          const MPI_Fint* op, const MPI_Fint* comm, MPI_Fint* ierr) {
  returnCode(ierr, ferry::coll::allreduce(toC(sendbuf), toC(recvbuf), static_cast<int>(*count),
                                          PMPI_Type_f2c(*datatype), PMPI_Op_f2c(*op), PMPI_Comm_f2c(*comm)));
}

void freeMemFromFortran(void* base, MPI_Fint* ierr) {
  returnCode(ierr, ferry::coll::freeMem(base));
}

}  // namespace

extern "C" {

#define FERRY_FORTRAN_ALLREDUCE(name)                                                                          \
  FERRY_COLL_API void name(void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* datatype, MPI_Fint* op, \
                           MPI_Fint* comm, MPI_Fint* ierr) {                                                 \
    allreduceFromFortran(sendbuf, recvbuf, count, datatype, op, comm, ierr);                                 \
  }

FERRY_FORTRAN_INIT(mpi_init_)
FERRY_FORTRAN_INIT(mpi_init)
FERRY_FORTRAN_INIT(mpi_init__)
FERRY_FORTRAN_INIT(MPI_INIT)
FERRY_FORTRAN_INIT(ompi_init_f)
FERRY_FORTRAN_INIT_THREAD(mpi_init_thread_)
FERRY_FORTRAN_INIT_THREAD(mpi_init_thread)
FERRY_FORTRAN_INIT_THREAD(mpi_init_thread__)
FERRY_FORTRAN_INIT_THREAD(MPI_INIT_THREAD)
FERRY_FORTRAN_INIT_THREAD(ompi_init_thread_f)

FERRY_FORTRAN_ALLREDUCE(mpi_allreduce_)
FERRY_FORTRAN_ALLREDUCE(mpi_allreduce)
FERRY_FORTRAN_ALLREDUCE(mpi_allreduce__)
FERRY_FORTRAN_ALLREDUCE(MPI_ALLREDUCE)
FERRY_FORTRAN_ALLREDUCE(ompi_allreduce_f)

FERRY_FORTRAN_ALLOC_MEM(mpi_alloc_mem_)
FERRY_FORTRAN_ALLOC_MEM(mpi_alloc_mem)
FERRY_FORTRAN_ALLOC_MEM(mpi_alloc_mem__)
FERRY_FORTRAN_ALLOC_MEM(MPI_ALLOC_MEM)
FERRY_FORTRAN_ALLOC_MEM(mpi_alloc_mem_cptr_)
FERRY_FORTRAN_ALLOC_MEM(mpi_alloc_mem_cptr)
FERRY_FORTRAN_ALLOC_MEM(mpi_alloc_mem_cptr__)
FERRY_FORTRAN_ALLOC_MEM(MPI_ALLOC_MEM_CPTR)
FERRY_FORTRAN_ALLOC_MEM(ompi_alloc_mem_f)
FERRY_FORTRAN_ALLOC_MEM(ompi_alloc_mem_cptr_f)

#define FERRY_FORTRAN_FREE_MEM(name) \
  FERRY_COLL_API void name(void* base, MPI_Fint* ierr) { freeMemFromFortran(base, ierr); }

FERRY_FORTRAN_FREE_MEM(mpi_free_mem_)
FERRY_FORTRAN_FREE_MEM(mpi_free_mem)
FERRY_FORTRAN_FREE_MEM(mpi_free_mem__)
FERRY_FORTRAN_FREE_MEM(MPI_FREE_MEM)
FERRY_FORTRAN_FREE_MEM(ompi_free_mem_f)

}  // extern "C"

#elif defined(MPICH)
// MPICH's MPI_Init_f08 and MPI_Init_thread_f08 take the optional ierror by reference, the
// thread levels as INTEGERs.
FERRY_FORTRAN_INIT(mpi_init_f08_)
FERRY_FORTRAN_INIT_THREAD(mpi_init_thread_f08_)
// The arguments of MPICH's MPI_Alloc_mem_f08: INTEGER(KIND=MPI_ADDRESS_KIND) size,
// TYPE(MPI_Info) info (one INTEGER), TYPE(C_PTR) baseptr, optional ierror; all by reference.
FERRY_FORTRAN_ALLOC_MEM(mpi_alloc_mem_f08_)
#endif
