#!/usr/bin/env bash
# The libFuzzer targets (docs/robustness.md, "Fuzzing"): configures and builds build-fuzz with
# clang-16 (FERRY_FUZZ=ON), then
#
#   scripts/fuzz.sh                  runs every target for about a minute (ctest -L fuzz, two at a time)
#   scripts/fuzz.sh --long N [T...]  runs N inputs through each target (or the targets named),
#                                    one at a time, and prints each one's libFuzzer statistics
#   scripts/fuzz.sh --seeds [PROG...] writes the seed corpora again (tests/<layer>/corpus/) from
#                                    Ferry's encoders and the device images of clang-16 offload
#                                    programs (default: the main build's tests/integration ones)
#
# Set FERRY_FUZZ_DIR to use another build directory, FERRY_TEST_JOBS to change the parallelism
# of the bounded runs.
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
dir="${FERRY_FUZZ_DIR:-$FERRY_ROOT/build-fuzz}"
targets=(protocol settings offload_binary image host_maps host_image device_table bench_records)

# The seed corpus of a target: tests/<layer>/corpus/<target>.
seed_dir() { find "$FERRY_ROOT/tests" -type d -path "*/corpus/$1" | head -n 1; }

build() {
  ferry_build "$dir" -DCMAKE_C_COMPILER=clang-16 -DCMAKE_CXX_COMPILER=clang++-16 -DFERRY_FUZZ=ON
}

bounded() {
  (cd "$dir" && ctest -L fuzz -j "${FERRY_TEST_JOBS:-2}" --output-on-failure)
}

# One target at a time: libFuzzer's own -jobs/-workers would share this machine's cores with
# whatever else runs. New inputs go to the build directory's corpus, never the source tree.
long() {
  local runs="$1" t seeds dict work log
  shift
  (($# == 0)) || targets=("$@")
  for t in "${targets[@]}"; do
    seeds="$(seed_dir "$t")"
    [[ -n "$seeds" && -x "$dir/bin/fuzz_$t" ]] || { echo "ferry: no fuzz target $t (${targets[*]})" >&2; return 2; }
    work="$dir/fuzz/corpus/$t"
    log="$dir/fuzz/long-$t.log"
    mkdir -p "$work" "$dir/fuzz/artifacts/$t"
    dict=()
    [[ -f "$seeds.dict" ]] && dict=("-dict=$seeds.dict")
    echo "ferry: fuzz_$t, $runs inputs (log: $log)"
    local start=$SECONDS
    if ! "$dir/bin/fuzz_$t" "${dict[@]}" -runs="$runs" -timeout=10 -print_final_stats=1 \
        -artifact_prefix="$dir/fuzz/artifacts/$t/" "$work" "$seeds" >"$log" 2>&1; then
      tail -n 40 "$log"
      echo "ferry: fuzz_$t crashed; the input is in $dir/fuzz/artifacts/$t/" >&2
      return 1
    fi
    grep -E '^#[0-9]+[[:space:]]+DONE|stat::(number_of_executed_units|new_units_added|peak_rss_mb)' "$log"
    echo "ferry: fuzz_$t: $runs inputs in $((SECONDS - start)) s, no crash"
  done
}

seeds() {
  local programs=("$@")
  if ((${#programs[@]} == 0)); then
    # A program with both an x86_64 and an nvptx64 image where the build could make one.
    local it="$FERRY_ROOT/build/tests/integration"
    if [[ -f "$it/device_memcpy.gpu" ]]; then programs=("$it/device_memcpy.gpu"); else programs=("$it/device_memcpy"); fi
  fi
  "$dir/bin/fuzz_seeds" "$FERRY_ROOT" "${programs[@]}"
  echo "ferry: seed corpora written under tests/*/corpus/"
}

case "${1:-}" in
  "") ferry_install_packages; build; bounded ;;
  --long) [[ "${2:-}" =~ ^[0-9]+$ ]] || { echo "usage: $0 --long N [TARGET...]" >&2; exit 2; }
          shift; ferry_install_packages; build; long "$@" ;;
  --seeds) shift; ferry_install_packages; build; seeds "$@" ;;
  *) echo "usage: $0 [--long N [TARGET...] | --seeds [PROGRAM...]]" >&2; exit 2 ;;
esac
