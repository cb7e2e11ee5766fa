#!/usr/bin/env bash
# Packs what the GPU checks need on a lent GPU machine, which has the CUDA driver but none
# of Debian's packages: Ferry built here for that GPU (build-gpu/, plus build-gpu-mpich/ for
# the MPICH allreduce benchmark), LLVM 16's OpenMP runtime and stock plugins, the Open MPI
# and MPICH runtimes, and every library these load. Writes .gpu-kit/kit.tar.xz, which
# scripts/gpu-check.sh unpacks and runs there (docs/gpu.md says how to use both).
#
#   scripts/gpu-kit.sh [GPU_ARCH]      (default sm_90: the H100 and H200)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
arch=${1:-sm_90}
kit=$FERRY_ROOT/.gpu-kit
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

# Release builds; the tests' CTest files keep this checkout's absolute paths, which
# gpu-check.sh recreates on the other machine.
ferry_build "$FERRY_ROOT/build-gpu" -DCMAKE_BUILD_TYPE=Release -DFERRY_GPU_ARCH="$arch" \
  -DPython3_EXECUTABLE=/usr/bin/python3
ferry_build "$FERRY_ROOT/build-gpu-mpich" -DCMAKE_BUILD_TYPE=Release -DFERRY_BUILD_TESTS=OFF \
  -DMPI_C_COMPILER=mpicc.mpich -DMPI_CXX_COMPILER=mpicxx.mpich -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich

# Files copied at their absolute paths under root/.
copy_abs() {
  for f in "$@"; do
    mkdir -p "$stage/root$(dirname "$f")"
    cp -a "$f" "$stage/root$f"
  done
}
llvm=/usr/lib/llvm-16/lib
copy_abs $llvm/libomp.so* $llvm/libomptarget.so* $llvm/libomptarget.rtl.* $llvm/libLLVM-16.so.1 \
  "$(readlink -f $llvm/libLLVM-16.so.1)" /usr/lib/llvm-16/bin/llvm-omp-device-info
copy_abs /usr/bin/orterun /usr/bin/orted /usr/bin/mpirun.openmpi /usr/bin/mpiexec.hydra /usr/bin/hydra_pmi_proxy
mkdir -p "$stage/root/usr/lib/x86_64-linux-gnu" "$stage/root/usr/share" "$stage/root/etc"
cp -a /usr/lib/x86_64-linux-gnu/openmpi /usr/lib/x86_64-linux-gnu/ucx "$stage/root/usr/lib/x86_64-linux-gnu/"
cp -a /usr/share/openmpi "$stage/root/usr/share/"
cp -a /etc/openmpi "$stage/root/etc/"

# Every library those load, flat in deps/, except the C runtime the other machine has and
# what root/ already holds. The C++ runtime goes to compat/, used only where the other
# machine's is older than this one's.
objects=("$stage"/root/usr/lib/llvm-16/lib/*.so* "$stage"/root/usr/bin/*
  "$stage"/root/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/*.so "$stage"/root/usr/lib/x86_64-linux-gnu/ucx/*.so
  "$FERRY_ROOT"/build-gpu/bin/* "$FERRY_ROOT"/build-gpu/lib/ferry/offload/*.so
  "$FERRY_ROOT"/build-gpu-mpich/bin/osu_allreduce_ferry "$FERRY_ROOT"/build-gpu/tests/integration/*.gpu)
mkdir -p "$stage/deps" "$stage/compat"
for o in "${objects[@]}"; do
  [[ -f $o ]] || continue
  ldd "$o" 2>/dev/null | awk '$3 ~ /^\// {print $3}'
done | sort -u | grep -Ev '/(libc|libm|libpthread|libdl|librt|libresolv|ld-linux-x86-64)\.so' |
  while read -r lib; do
    name=$(basename "$lib")
    [[ -e $stage/root$llvm/$name ]] && continue
    case $name in
      libstdc++.so*|libgcc_s.so*) cp -L "$lib" "$stage/compat/" ;;
      *) cp -L "$lib" "$stage/deps/" ;;
    esac
  done

# The builds, without objects and static archives.
for b in build-gpu build-gpu-mpich; do
  tar -C "$FERRY_ROOT" --exclude='*.o' --exclude='*.a' --exclude='CMakeFiles' -cf - "$b" | tar -C "$stage" -xf -
done
strip --strip-unneeded "$stage"/deps/*.so* "$stage"/root/usr/lib/llvm-16/lib/libLLVM-16.so.1 2>/dev/null || true

mkdir -p "$kit"
echo "$FERRY_ROOT" >"$stage/source_root"
tar -C "$stage" -cf - . | xz -T0 -6 >"$kit/kit.tar.xz"
ls -la "$kit/kit.tar.xz"
