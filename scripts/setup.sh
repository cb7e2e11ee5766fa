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
  libxxhash-dev                                     # digests for one transfer per node
  nlohmann-json3-dev libcli11-dev                   # JSON and command-line parsing
  libssl-dev openssl                                # HMAC and TLS for the device daemon's channel (OpenSSL; its CLI makes the TLS tests' certificates)
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

# The emulated aarch64 co-processor (docs/daemon.md, "An aarch64 DPU"): Debian's cross
# compiler, qemu-user and the arm64 runtime from Debian's multiarch, and arm64 libomp unpacked
# into a private sysroot, since dpkg refuses it beside the amd64 one (both ship
# /usr/lib/llvm-16/lib/libomp-16.so.5; ../shared/notes/aarch64-offload.md).
FERRY_AARCH64_PACKAGES=(
  gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
  libc6:arm64 libstdc++6:arm64 libffi8:arm64 libssl3:arm64 libllvm16:arm64
  libffi-dev:arm64 libssl-dev:arm64 libhwloc-dev:arm64
)

ferry_install_aarch64() {
  local sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  local missing=()
  for p in "${FERRY_AARCH64_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "ferry: installing ${missing[*]}"
    dpkg --print-foreign-architectures | grep -qx arm64 || $sudo dpkg --add-architecture arm64
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
}

# ferry_build_aarch64 <dir>: <dir>/sysroot (arm64 libomp, libomptarget and its aarch64 host
# plugin) and <dir>/bin/ferry-serve, cross-built without MPI.
ferry_build_aarch64() {
  local dir="$1" sysroot="$1/sysroot"
  if [[ ! -e "$sysroot/usr/lib/llvm-16/lib/libomptarget.devicertl.a" ]]; then
    local debs
    debs=$(mktemp -d)
    # apt warns that root downloads unsandboxed; that line is dropped, any other is shown.
    (cd "$debs" && apt-get download -qq libomp5-16:arm64 libomp-16-dev:arm64 2>&1 | grep -v "unsandboxed" || true)
    if [[ $(ls "$debs"/*.deb 2>/dev/null | wc -l) -ne 2 ]]; then
      echo "ferry: could not download libomp5-16:arm64 and libomp-16-dev:arm64 (apt-get download in $debs)" >&2
      return 1
    fi
    mkdir -p "$sysroot"
    for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$sysroot"; done
    rm -rf "$debs"
  fi
  cmake -S "$FERRY_ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_TOOLCHAIN_FILE="$FERRY_ROOT/cmake/aarch64-linux-gnu.cmake" -DFERRY_SERVE_ONLY=ON \
    -DFERRY_LLVM_LIBDIR="$sysroot/usr/lib/llvm-16/lib"
  cmake --build "$dir"
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
