#!/usr/bin/env bash
# Runs on a lent GPU machine, from the repository root, after scripts/gpu-kit.sh has packed
# .gpu-kit/kit.tar.xz here: unpacks the kit, puts LLVM 16 and the MPI launchers where the
# builds expect them, then runs the requested steps. Logs go to $OUT (or ./gpu-out).
#
#   scripts/gpu-check.sh [probe] [tests] [usm] [info] [bench-gpu] [coll-openmpi] [coll-mpich]
set -uo pipefail
repo=$(pwd)
out=${OUT:-$repo/gpu-out}
mkdir -p "$out"
kit=/opt/ferry-kit
steps=("$@")
((${#steps[@]})) || steps=(probe tests info)

unpack() {
  # A machine still warm from the last call keeps the unpacked kit, but gets a fresh checkout.
  if [[ ! -d $kit/deps ]]; then
    mkdir -p "$kit" && xz -dc "$repo/.gpu-kit/kit.tar.xz" | tar -C "$kit" -xf - || exit 1
  fi
  # The builds' CTest files name this checkout's path on the packing machine.
  local src
  src=$(cat "$kit/source_root")
  for b in build-gpu build-gpu-mpich; do [[ -d $repo/$b ]] || cp -a "$kit/$b" "$repo/$b"; done
  if [[ $src != "$repo" && ( -L $src || ! -e $src ) ]]; then mkdir -p "$(dirname "$src")" && ln -sfn "$repo" "$src"; fi
  # clang-16's programs look for libomp in /usr/lib/llvm-16/lib (RUNPATH), as Ferry does
  # for the stock plugins; the launchers are where the builds were configured to find them.
  # File by file: the machine may have an /usr/lib/llvm-16 of its own without these.
  local d f
  for d in lib bin; do
    mkdir -p /usr/lib/llvm-16/$d
    for f in "$kit/root/usr/lib/llvm-16/$d"/*; do
      [[ -e /usr/lib/llvm-16/$d/$(basename "$f") ]] || ln -s "$f" /usr/lib/llvm-16/$d/
    done
  done
  [[ -e /usr/bin/mpiexec ]] || ln -s "$kit/root/usr/bin/orterun" /usr/bin/mpiexec
  [[ -e /usr/bin/mpiexec.mpich ]] || ln -s "$kit/root/usr/bin/mpiexec.hydra" /usr/bin/mpiexec.mpich
  # Hydra starts its proxy from the directory it was started from.
  [[ -e /usr/bin/hydra_pmi_proxy ]] || ln -s "$kit/root/usr/bin/hydra_pmi_proxy" /usr/bin/hydra_pmi_proxy
  [[ -e /usr/bin/python3 ]] || ln -s "$(command -v python3)" /usr/bin/python3
  # LLVM 16's CUDA plugin opens libcuda.so, which a driver-only machine may lack.
  local cuda1
  cuda1=$(ldconfig -p | awk '/libcuda\.so\.1 /{print $NF; exit}')
  [[ -z $cuda1 ]] && cuda1=$(ls /usr/local/nvidia/lib64/libcuda.so.1 /usr/lib/x86_64-linux-gnu/libcuda.so.1 2>/dev/null | head -1)
  [[ -n $cuda1 ]] && ln -sf "$cuda1" "$kit/deps/libcuda.so" && ln -sf "$cuda1" "$kit/deps/libcuda.so.1"
  # The tests set their own LD_LIBRARY_PATH, so the libraries this machine lacks are made
  # known to the loader instead; those it has are left to it.
  mkdir -p "$kit/missing"
  for f in "$kit"/deps/*; do
    ldconfig -p | grep -q "^\s$(basename "$f") " || ln -sf "$f" "$kit/missing/"
  done
  echo "$kit/missing" >/etc/ld.so.conf.d/zz-ferry-kit.conf && ldconfig
}

environment() {
  export LD_LIBRARY_PATH="$kit/deps${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  local cxx
  cxx=$(ldconfig -p | awk '/libstdc\+\+\.so\.6 /{print $NF; exit}')
  if [[ -z $cxx ]] || ! grep -q GLIBCXX_3.4.30 "$cxx"; then LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$kit/compat"; fi
  export PATH="$kit/root/usr/bin:$PATH"
  export OPAL_PREFIX="$kit/root/usr" OPAL_SYSCONFDIR="$kit/root/etc/openmpi"
  export UCX_MODULE_DIR="$kit/root/usr/lib/x86_64-linux-gnu/ucx"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  # The machine's own PMIx components do not fit Debian's libpmix; Open MPI runs without them.
  export PMIX_MCA_mca_base_component_show_load_errors=0 PMIX_MCA_pcompress_base_silence_warning=1
}

probe() {
  uname -a; grep PRETTY /etc/os-release; nproc; free -g | head -2; ls -la /usr/lib/llvm-16/lib | head -5
  nvidia-smi -L; nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv
  ldconfig -p | grep -E 'libcuda|libstdc\+\+' ; command -v python3 ctest cmake
  strings "$(ldconfig -p | awk '/libstdc\+\+\.so\.6 /{print $NF; exit}')" | grep -c GLIBCXX_3.4.30
  mpiexec --version | head -2
  "$repo/build-gpu/bin/ferry" doctor
}

tests() {
  (cd "$repo/build-gpu" && ctest -L gpu --output-on-failure --timeout 300 -j 1) 2>&1 | tee "$out/gpu-tests.log"
}

# The CPU-device tests that depend on the machine's address-space layout (unified shared
# memory and the host pager): there the CUDA driver's reservations share the serving ranks.
usm() {
  (cd "$repo/build-gpu" && ctest -R 'usm|unmapped_access|HostPager' --output-on-failure --timeout 120 -j 4) 2>&1 |
    tee "$out/usm-tests.log"
}

# The offload benchmark on GPUs: Ferry's remote GPUs against the stock CUDA plugin on the
# same GPU and raw MPI between the same ranks. Plots are made where the CSV comes back.
bench_gpu() {
  "$repo/build-gpu/bin/ferry" bench offload --gpu -c -r "${BENCH_GPU_REPS:-3}" --no-plots --timeout 300 \
    --sizes 1,64,1K,8K,64K,256K,1M,4M,16M,64M -o "$out/bench-gpu" >"$out/bench-gpu.log" 2>&1
  echo "exit $?"
  tar -C "$out" -czf "$out/bench-gpu.tar.gz" bench-gpu && rm -rf "${out:?}/bench-gpu"
  cat "$out/bench-gpu.log"
}

info() {
  local f="$repo/build-gpu/bin/ferry"
  FERRY_DEVICES_PER_RANK=0 "$f" info -n 3
  "$f" info -n 3 --json >"$out/info-mixed.json"
  # libomptarget's own view, through Ferry's plugin.
  eval "$("$f" env)"
  FERRY_DEVICES_PER_RANK=0 mpiexec -n 3 /usr/lib/llvm-16/bin/llvm-omp-device-info 2>&1 | head -60
}

coll() {  # coll <build> <name>
  local opts=(-r 5 -b 0.1)
  # The log has every table as it is printed; CSVs and plots come back in one archive, since
  # the device tool returns at most 8 files.
  PYTHON=$(command -v python3) COLL_LAYOUTS=many "$repo/bench/coll/run_allreduce.sh" "$repo/$1" "$out/coll-$2" "${opts[@]}" \
    >"$out/coll-$2.log" 2>&1
  tar -C "$out" -czf "$out/coll-$2.tar.gz" "coll-$2" && rm -rf "${out:?}/coll-$2"
  grep -E '^(==|  *[0-9])' "$out/coll-$2.log" | tail -80
}

unpack
environment
for s in "${steps[@]}"; do
  echo "===== $s"
  case $s in
    probe) probe ;;
    tests) tests ;;
    usm) usm ;;
    info) info ;;
    bench-gpu) bench_gpu ;;
    coll-openmpi) coll build-gpu openmpi ;;
    coll-mpich) coll build-gpu-mpich mpich ;;
    *) echo "unknown step $s" ;;
  esac
done
