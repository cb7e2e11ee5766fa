#include "comm/mpi_check.h"

namespace ferry::comm {

Status mpiStatus(int rc, const char* call, int peer) {
  if (rc == MPI_SUCCESS) return {};
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(rc, text, &len);
  int cls = 0;
  MPI_Error_class(rc, &cls);
  std::string where = peer >= 0 ? " with rank " + std::to_string(peer) : std::string();
  // A failed peer shows up as one of these classes in MPI libraries with fault reporting.
  Errc code = (cls == MPI_ERR_OTHER || cls == MPI_ERR_INTERN) ? Errc::Unavailable : Errc::Internal;
  return Status(code, std::string(call) + where + " failed: " + text);
}

}  // namespace ferry::comm
