#!/usr/bin/env bash
# Shared set-up for demo.sh and test.sh: install what is missing from Debian's packages,
# then configure and build Ferry. Sourced, not run.
#
#   ferry_install_packages          apt-get install the build and run dependencies
#   ferry_build <dir> [cmake args]  configure (Ninja, Open MPI by default) and build
set -euo pipefail

FERRY_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FERRY_PACKAGES=(
  gcc g++                                           # the build's C and C++ compilers
  clang-16 clang-tools-16 libomp-16-dev            # OpenMP offload compiler and runtime
  libclang-rt-16-dev                                # libFuzzer and the sanitizers' runtimes (scripts/fuzz.sh)
  openmpi-bin libopenmpi-dev mpich libmpich-dev     # both MPI libraries Ferry supports
  libffi-dev libhwloc-dev hwloc libgtest-dev        # libraries Ferry uses, and tests
  nlohmann-json3-dev libcli11-dev                   # JSON and command-line parsing
  libssl-dev                                        # HMAC for the device daemon's channel (OpenSSL)
  gfortran                                          # Fortran test programs (tests/coll)
  slurm-wlm munge                                   # the Slurm tests' private cluster (scripts/slurm-cluster.sh)
  cmake ninja-build pkg-config python3 python3-matplotlib
)

ferry_install_packages() {
  local missing=()
  for p in "${FERRY_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]} == 0)); then
    echo "ferry: all packages present"
    return
  fi
  echo "ferry: installing ${missing[*]}"
  local sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

ferry_build() {
  local dir="$1"
  shift
  cmake -S "$FERRY_ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
  cmake --build "$dir"
}

# Open MPI refuses to start as root unless told twice; these runs are meant.
if [[ $(id -u) -eq 0 ]]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
