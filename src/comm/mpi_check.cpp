#include "comm/mpi_check.h"

#include <algorithm>

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

std::string mpiLibraryVersion() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(text, &len);
  return std::string(text, static_cast<size_t>(std::max(len, 0)));
}

std::string mpiLibraryName() {
  std::string text = mpiLibraryVersion();
  return text.substr(0, text.find('\n'));
}

}  // namespace ferry::comm
