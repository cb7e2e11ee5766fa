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

CMAKE_PREFIX_PATH=$prefix PKG_CONFIG_PATH=$(dirname "$(find "$prefix" -name ferry.pc)") \
  cmake -S "$src/tests/install/consumer" -B "$work" -DMPIEXEC_EXECUTABLE="$mpiexec" -DMPI_C_COMPILER="$(basename "$mpiexec" | sed 's/mpiexec/mpicc/')" >/dev/null
cmake --build "$work" >/dev/null
cat "$work/ferry_locations.txt"
grep -q "FERRY_EXECUTABLE=$prefix/bin/ferry" "$work/ferry_locations.txt"
export LD_LIBRARY_PATH="$(dirname "$(find "$prefix" -name libferry-coll.so | head -1)"):${LD_LIBRARY_PATH:-}"
"$mpiexec" -n 2 "$work/uses_package"
"$mpiexec" -n 2 "$work/uses_pkgconfig"

# The installed CLI finds the installed plugin, and an offload program runs through it.
"$clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -I"$prefix/include" "$src/examples/heat_demo.c" -o "$work/heat_demo" -lm
"$prefix/bin/ferry" env | grep -q "$prefix"
"$prefix/bin/ferry" run -n 3 "$work/heat_demo" 128 10 | grep "OK"
