#!/usr/bin/env bash
# Runs osu_allreduce_ferry on the layouts of docs/collectives.md and writes, per layout, the
# printed table (NAME.txt), its CSV and a PNG plot into OUT_DIR.
#
#   bench/coll/run_allreduce.sh BUILD_DIR OUT_DIR [benchmark options, e.g. -r 7 -b 0.5]
#
# The MPI library is the one BUILD_DIR was configured with. MPICH busy-polls, so with it only
# the 2-rank layouts run (docs/benchmarking.md). COLL_LAYOUTS=many runs the
# 8- and 16-rank layouts instead, for a machine with at least 16 cores (one rank per core).
# COLL_ONLY="np2_one_node np4_vnodes2" runs only the layouts named.
# PYTHON names the interpreter that has matplotlib (default /usr/bin/python3).
set -euo pipefail
build=$(cd "$1" && pwd)
out=$2
shift 2
mkdir -p "$out"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mpiexec=$(sed -n 's/^MPIEXEC_EXECUTABLE:FILEPATH=//p' "$build/CMakeCache.txt")
flavor=openmpi
[[ "$mpiexec" == *mpich* ]] && flavor=mpich
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# name | ranks | FERRY_* settings | benchmark options
layouts=(
  "np2_one_node|2||"
  "np2_one_node_shared|2||--buffers shared"
  "np2_one_node_single|2|FERRY_COLL_INTRA=single|"
  "np2_vnodes2|2|FERRY_VIRTUAL_NODES=2|"
  "np4_one_node|4||"
  "np4_vnodes2|4|FERRY_VIRTUAL_NODES=2|"
  "np4_vnodes2_shared|4|FERRY_VIRTUAL_NODES=2|--buffers shared"
  "np4_one_node_single|4|FERRY_COLL_INTRA=single|"
  "np4_vnodes2_single|4|FERRY_VIRTUAL_NODES=2 FERRY_COLL_INTRA=single|"
)
if [[ ${COLL_LAYOUTS:-} == many ]]; then
  layouts=(
    "np8_one_node|8||"
    "np8_vnodes2|8|FERRY_VIRTUAL_NODES=2|"
    "np16_one_node|16||"
    "np16_vnodes2|16|FERRY_VIRTUAL_NODES=2|"
    "np16_vnodes4|16|FERRY_VIRTUAL_NODES=4|"
    "np16_vnodes4_shared|16|FERRY_VIRTUAL_NODES=4|--buffers shared"
    "np8_vnodes2_one|8|FERRY_VIRTUAL_NODES=2 FERRY_COLL_LEADERS=one|"
    "np16_vnodes4_one|16|FERRY_VIRTUAL_NODES=4 FERRY_COLL_LEADERS=one|"
    "np16_one_node_single|16|FERRY_COLL_INTRA=single|"
    "np16_vnodes4_single|16|FERRY_VIRTUAL_NODES=4 FERRY_COLL_INTRA=single|"
  )
fi
for layout in "${layouts[@]}"; do
  IFS='|' read -r name np settings options <<<"$layout"
  if [[ $flavor == mpich && $np -gt 2 && $np -gt $(nproc) ]]; then continue; fi
  if [[ -n ${COLL_ONLY:-} && " $COLL_ONLY " != *" $name "* ]]; then continue; fi
  launcher=("$mpiexec" -n "$np")
  bind=()
  if [[ $flavor == openmpi ]]; then
    # More ranks than cores: Open MPI binds nothing, and the kernel then moves the ranks
    # between cores from run to run, which changes every figure by up to 20%. Pin them in
    # blocks instead (ranks 0,1 on core 0, ...), the way virtual nodes group them, so that
    # a virtual node is a core and runs repeat.
    if [[ $np -gt $(nproc) ]]; then
      launcher+=(--oversubscribe --bind-to none)
      bind=(sh -c 'exec taskset -c $((OMPI_COMM_WORLD_RANK * $0 / OMPI_COMM_WORLD_SIZE)) "$@"' "$(nproc)")
    else
      launcher+=(--bind-to core)
    fi
    for s in $settings; do launcher+=(-x "$s"); done
  elif [[ ${COLL_LAYOUTS:-} == many ]]; then
    launcher+=(-bind-to core)
  fi
  echo "== $name ($flavor)"
  # shellcheck disable=SC2086
  env $settings "${launcher[@]}" "${bind[@]}" "$build/bin/osu_allreduce_ferry" $options --csv "$out/$name.csv" "$@" |
    tee "$out/$name.txt"
  "${PYTHON:-/usr/bin/python3}" "$here/plot_allreduce.py" "$out/$name.csv" "$out/$name.png" \
    "MPI_Allreduce, $np ranks, $name ($flavor)"
done
echo "results in $out"
