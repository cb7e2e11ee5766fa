#!/usr/bin/env bash
# All tests: installs what is missing, cross-builds the aarch64 daemon (scripts/aarch64.sh),
# builds Ferry against Open MPI and against MPICH, and
# runs the whole CTest suite on each; then runs every fuzz target for about a minute
# (scripts/fuzz.sh). Set FERRY_TEST_JOBS to change the parallelism.
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
ferry_install_packages
jobs="${FERRY_TEST_JOBS:-2}"

# The emulated aarch64 DPU's daemon first: both builds register its tests when it exists.
ferry_install_aarch64
ferry_build_aarch64 "$FERRY_ROOT/build-aarch64"

ferry_build "$FERRY_ROOT/build"
(cd "$FERRY_ROOT/build" && ctest -j "$jobs" --output-on-failure --timeout 300)

ferry_build "$FERRY_ROOT/build-mpich" -DMPI_C_COMPILER=mpicc.mpich -DMPI_CXX_COMPILER=mpicxx.mpich \
  -DMPI_Fortran_COMPILER=mpif90.mpich \
  -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich
(cd "$FERRY_ROOT/build-mpich" && ctest -j "$jobs" --output-on-failure --timeout 300)

# Every libFuzzer target for about a minute, two at a time, in build-fuzz (clang-16).
"$FERRY_ROOT/scripts/fuzz.sh"
echo "ferry: all tests passed with Open MPI and with MPICH, and the fuzz targets found no crash"
