/* An application that calls MPI itself: rejected at start-up in offload mode. */
#include <mpi.h>

#include "check.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int x = 0;
#pragma omp target map(tofrom : x)
  x = 1;
  MPI_Finalize();
  return x != 1;
}
