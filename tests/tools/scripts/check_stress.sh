#!/bin/sh
# check_stress.sh STRESS_SH: the stress script's bounded run in the suite. It reruns a tiny
# CTest project made here (one test that passes, one that fails, one that fails every other
# run) and must count exactly that: 4 runs each, 0, 4 and 2 failures, exit status 1.
set -eu
stress=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/CTestTestfile.cmake" <<CTEST
add_test(always_passes "true")
add_test(always_fails "false")
add_test(every_other_run "sh" "-c" "n=\\\$(cat $dir/count 2>/dev/null || echo 0); echo \\\$((n + 1)) > $dir/count; [ \\\$((n % 2)) -eq 0 ]")
CTEST
status=0
"$stress" -b "$dir" -n 4 -j 1 --no-load -o "$dir/out" . > "$dir/log" 2>&1 || status=$?
cat "$dir/log"
summary=$(cat "$dir/out/summary.csv")
echo "$summary"
expect() {
  echo "$summary" | grep -qx "$1" || { echo "check_stress: summary lacks the row $1"; exit 1; }
}
expect "always_passes,4,4,0,0"
expect "always_fails,4,0,4,0"
expect "every_other_run,4,2,2,0"
[ "$status" -eq 1 ] || { echo "check_stress: stress.sh exited $status, expected 1 (failed runs)"; exit 1; }
[ "$(ls "$dir/out/failed" | wc -l)" -eq 4 ] || { echo "check_stress: expected the 4 failed runs' logs"; exit 1; }
echo "check_stress: the stress script counts passes and failures per test"
