#!/usr/bin/env bash
# stress.sh: reruns chosen CTest tests many times, optionally under load, and counts the
# failures of each. An intermittent failure shows up here long before it blocks CI.
#
#   scripts/stress.sh [-b BUILD_DIR] [-n RUNS] [-j JOBS] [--load | --no-load] [-o OUT] REGEX
#
#   -b   build directory whose CTest suite runs (default build/; build-mpich/ for MPICH)
#   -n   how many times the selected tests run (default 20)
#   -j   ctest parallelism (default 2, what scripts/test.sh uses)
#   --load     one busy process per core competes with the tests (the default): a rank that
#              is descheduled at the wrong moment is what turns a race into a failure
#   --no-load  the machine as it is
#   -o   where the per-run logs and the summary go (default BUILD_DIR/stress)
#   REGEX      ctest -R pattern; '.' selects everything, 'mpi\.|offload\.|coll\.' the
#              multi-rank tests
#
# Prints, per test that ran: runs, passes, failures, timeouts; saves summary.csv and the
# output of every failed run. Exits 1 if any run failed. See docs/robustness.md.
set -euo pipefail

build=build runs=20 jobs=2 load=1 out=""
while (($#)); do
  case "$1" in
    -b) build=$2; shift 2 ;;
    -n) runs=$2; shift 2 ;;
    -j) jobs=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    --load) load=1; shift ;;
    --no-load) load=0; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    -*) echo "stress.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) break ;;
  esac
done
if (($# != 1)); then
  echo "stress.sh: give one CTest regex (see --help)" >&2
  exit 2
fi
regex=$1
[[ -f "$build/CTestTestfile.cmake" ]] || { echo "stress.sh: $build is not a configured build directory" >&2; exit 2; }
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "stress.sh: -n wants a positive count, not '$runs'" >&2; exit 2; }
build=$(cd "$build" && pwd)
out=${out:-$build/stress}
mkdir -p "$out/failed"
if [[ $(id -u) -eq 0 ]]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

# The load: one spinning shell per core, at the tests' own priority.
spinners=()
stop_load() {
  ((${#spinners[@]})) && kill "${spinners[@]}" 2>/dev/null
  wait 2>/dev/null || true
}
trap stop_load EXIT
if ((load)); then
  for ((c = 0; c < $(nproc); ++c)); do
    (while :; do :; done) &
    spinners+=($!)
  done
fi

declare -A pass fail tmo
start=$(date +%s)
for ((i = 1; i <= runs; ++i)); do
  log="$out/run-$i.log"
  (cd "$build" && ctest -R "$regex" -j "$jobs" --timeout 300 --output-on-failure) >"$log" 2>&1 || true
  # ctest's result lines: "  3/10 Test  #7: name ....   Passed    1.2 sec"
  while read -r name result; do
    case "$result" in
      Passed) pass[$name]=$((${pass[$name]:-0} + 1)) ;;
      Timeout) tmo[$name]=$((${tmo[$name]:-0} + 1)) ;;
      Skipped) ;;  # hardware absent (the GPU tests): neither a pass nor a failure
      *) fail[$name]=$((${fail[$name]:-0} + 1)) ;;
    esac
  done < <(sed -nE 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) \.+ *(\*\*\*)?([A-Za-z]+).*/\1 \3/p' "$log")
  bad=$(grep -cE '^ *[0-9]+/[0-9]+ Test .*(\*\*\*(Failed|Timeout|Exception)|Not Run)' "$log" || true)
  if ((bad)); then cp "$log" "$out/failed/run-$i.log"; fi
  echo "run $i/$runs: $bad failed ($(($(date +%s) - start)) s so far)"
done

names=$(printf '%s\n' "${!pass[@]}" "${!fail[@]}" "${!tmo[@]}" | sort -u)
total_bad=0
{
  echo "test,runs,passed,failed,timeouts"
  for n in $names; do
    p=${pass[$n]:-0} f=${fail[$n]:-0} t=${tmo[$n]:-0}
    echo "$n,$((p + f + t)),$p,$f,$t"
  done
} >"$out/summary.csv"
printf '\n%-60s %5s %6s %6s %8s\n' test runs passed failed timeouts
while IFS=, read -r n r p f t; do
  [[ $n == test ]] && continue
  total_bad=$((total_bad + f + t))
  if ((f + t)) || [[ ${STRESS_ALL_ROWS:-0} == 1 ]]; then printf '%-60s %5s %6s %6s %8s\n' "$n" "$r" "$p" "$f" "$t"; fi
done <"$out/summary.csv"
ntests=$(($(wc -l <"$out/summary.csv") - 1))
echo "$ntests tests x $runs runs with $( ((load)) && echo "load on every core" || echo "no load"), $(($(date +%s) - start)) s:" \
     "$total_bad failed runs (rows above; STRESS_ALL_ROWS=1 lists every test). Summary: $out/summary.csv"
((total_bad == 0))
