// ferry_allreduce from C++, against the installed header and library.
#include <ferry/ferry_coll.h>
#include <mpi.h>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<double> in(4, 1.0), out(4, 0.0);
  int rc = ferry_allreduce(in.data(), out.data(), 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  bool ok = rc == MPI_SUCCESS && out[3] == size;
  std::printf("C++ consumer: ferry_allreduce %s\n", ok ? "ok" : "WRONG");
  MPI_Finalize();
  return ok ? 0 : 1;
}
