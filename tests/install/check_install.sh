#!/bin/sh
# Installs Ferry into a scratch prefix, builds a consumer project with find_package(Ferry)
# and with pkg-config, and runs the demo with the installed CLI and plugin.
# Usage: check_install.sh <build-dir> <source-dir> <mpiexec> <clang>
set -eu
build=$1 src=$2 mpiexec=$3 clang=$4
prefix=$build/test-install/prefix
work=$build/test-install/consumer
rm -rf "$build/test-install"
cmake --install "$build" --prefix "$prefix" >/dev/null
test -x "$prefix/bin/ferry"
test -e "$prefix/lib/ferry/offload/libomptarget.rtl.x86_64.so" || test -e "$(ls -d "$prefix"/lib*/*/ferry/offload 2>/dev/null | head -1)/libomptarget.rtl.x86_64.so"

# The consumers name no MPI wrapper: the package brings the MPI Ferry was built with, also
# where another MPI's wrapper comes first on PATH.
pcdir=$(dirname "$(find "$prefix" -name ferry.pc)")
CMAKE_PREFIX_PATH=$prefix PKG_CONFIG_PATH=$pcdir cmake -S "$src/tests/install/consumer" -B "$work" >/dev/null
cmake --build "$work" >/dev/null
CMAKE_PREFIX_PATH=$prefix cmake -S "$src/tests/install/consumer_cxx" -B "$work/cxx" >/dev/null
cmake --build "$work/cxx" >/dev/null
cat "$work/ferry_locations.txt"
grep -q "FERRY_EXECUTABLE=$prefix/bin/ferry" "$work/ferry_locations.txt"
# CMake's targets carry the library's RUNPATH; a pkg-config link needs the library path.
"$mpiexec" -n 2 "$work/uses_package"
"$mpiexec" -n 2 "$work/uses_pmpi"
"$mpiexec" -n 2 "$work/cxx/uses_package_cxx"
LD_LIBRARY_PATH="$(PKG_CONFIG_PATH=$pcdir pkg-config --variable=libdir ferry):${LD_LIBRARY_PATH:-}" \
  "$mpiexec" -n 2 "$work/uses_pkgconfig"

# OpenSHMEM: the package's target, pkg-config, and the installed oshcc and oshrun.
"$mpiexec" -n 2 "$work/uses_shmem" | grep -c "shmem ok" | grep -qx 2
LD_LIBRARY_PATH="$(PKG_CONFIG_PATH=$pcdir pkg-config --variable=libdir ferry-shmem):${LD_LIBRARY_PATH:-}" \
  "$mpiexec" -n 2 "$work/uses_shmem_pkgconfig" | grep -c "shmem ok" | grep -qx 2
"$prefix/bin/oshcc" "$src/tests/install/consumer/uses_shmem.c" -o "$work/uses_shmem_oshcc"
"$prefix/bin/oshrun" -n 3 "$work/uses_shmem_oshcc" | grep -c "shmem ok" | grep -qx 3
# oshc++: the same program as C++.
"$prefix/bin/oshc++" -x c++ "$src/tests/install/consumer/uses_shmem.c" -o "$work/uses_shmem_oshcxx"
"$prefix/bin/oshrun" -n 2 "$work/uses_shmem_oshcxx" | grep -c "shmem ok" | grep -qx 2
echo "shmem: package, pkg-config, oshcc, oshc++ and oshrun"

# The public headers compile as strict C and C++, warnings as errors.
for hdr in ferry_offload.h ferry_coll.h; do
  printf '#include <ferry/%s>\nint main(void) { return 0; }\n' "$hdr" > "$work/header.c"
  for cc in gcc "$clang"; do
    "$cc" -std=c99 -Wall -Wextra -pedantic -Werror $(PKG_CONFIG_PATH=$pcdir pkg-config --cflags ferry) \
      -c "$work/header.c" -o "$work/header.o"
  done
done
printf '#include <shmem.h>\n#include <shmemx.h>\nint main(void) { return 0; }\n' > "$work/shmem_header.c"
for std in c99 c11; do
  for cc in gcc "$clang"; do
    "$cc" -std=$std -Wall -Wextra -pedantic -Werror $(PKG_CONFIG_PATH=$pcdir pkg-config --cflags ferry-shmem) \
      -c "$work/shmem_header.c" -o "$work/header.o"
  done
done
clangxx=$(echo "$clang" | sed 's/\(.*\)clang/\1clang++/')  # clang-16 -> clang++-16
for std in c++11 c++20; do
  for cxx in g++ "$clangxx"; do
    "$cxx" -x c++ -std=$std -Wall -Wextra -pedantic -Werror $(PKG_CONFIG_PATH=$pcdir pkg-config --cflags ferry-shmem) \
      -c "$work/shmem_header.c" -o "$work/header.o"
  done
done
echo "headers: strict C99 with gcc and $clang; shmem.h as C99, C11, C++11 and C++20"

# The installed CLI finds the installed plugin, and an offload program runs through it.
"$clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -I"$prefix/include" "$src/examples/heat_demo.c" -o "$work/heat_demo" -lm
"$prefix/bin/ferry" env | grep -q "$prefix"
# The run's own exit status counts (heat_demo prints OK but exits 1 when bytes pass through
# rank 0): its output goes to a file, not into a pipe that would hide the status.
"$prefix/bin/ferry" run -n 3 "$work/heat_demo" 128 10 > "$work/run.txt"
grep "OK" "$work/run.txt"
# ferry run --dry-run prints a command that reproduces the run, the installed plugin first.
eval "$("$prefix/bin/ferry" run --dry-run -n 3 "$work/heat_demo" 128 10)" > "$work/dry_run.txt"
grep "OK" "$work/dry_run.txt"
"$prefix/bin/ferry" run --dry-run -n 2 "$work/heat_demo" | grep -q "LD_LIBRARY_PATH=$prefix/"
# An install without its plugin refuses, rather than run some other build's.
cp -r "$prefix" "$prefix-noplugin"
rm -rf "$prefix-noplugin"/lib*/ferry/offload
if "$prefix-noplugin/bin/ferry" env 2>"$work/noplugin.txt"; then
  echo "an install without its plugin used another one" && exit 1
fi
grep "the Ferry offload plugin .* is not in $prefix-noplugin/" "$work/noplugin.txt"
echo "install check passed"
