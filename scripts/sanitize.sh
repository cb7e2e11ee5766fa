#!/usr/bin/env bash
# The sanitizer builds (docs/robustness.md, "Sanitizers"): configures a build directory of its
# own from CMakePresets.json, builds it and runs the tests that run under the sanitizer, then
# fails on any sanitizer report in any test's output (a report in a process whose status a
# test does not check, or in a rank of a test that expects its job to fail).
#
#   scripts/sanitize.sh address [--mpich] [CTEST ARGS...]   ASan+UBSan, the whole suite (build-asan,
#                                                          build-asan-mpich with --mpich)
#   scripts/sanitize.sh thread [CTEST ARGS...]              TSan, the unit.* and mpi.* tests (build-tsan)
#
# Extra arguments go to ctest (-R REGEX to run fewer tests). FERRY_TEST_JOBS sets the
# parallelism of the build and of ctest (2).
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
jobs="${FERRY_TEST_JOBS:-2}"
kind="${1:-}"
shift || true

select=()
case "$kind" in
  address)
    preset=asan
    # Tests that cannot run under ASan, whatever the code (docs/robustness.md, "Sanitizers"):
    # each process of the job has ASan's shadow memory and heap at the same fixed addresses,
    # so rank 0's memory can never appear at its own addresses in a serving rank (unified
    # shared memory, a kernel's unmapped access, served or refused), and a serving rank's
    # device memory from the stock plugin's malloc is also mapped in rank 0 (device_addr on
    # staged devices, which then takes it for a host buffer).
    select=(-E '^offload\.(usm\.|unmapped_access\.|fail\.unmapped_access_|device_addr\..*staged$)')
    if [[ "${1:-}" == "--mpich" ]]; then
      preset=asan-mpich
      shift
    fi
    ;;
  thread)
    preset=tsan
    # The single-process and multi-rank GoogleTest suites: the OpenMP programs' ranks run
    # kernels on libomp's threads, whose synchronisation TSan cannot see (docs/robustness.md).
    select=(-R '^(unit|mpi)\.')
    ;;
  *)
    echo "usage: scripts/sanitize.sh address [--mpich] | thread  [ctest arguments]" >&2
    exit 2
    ;;
esac
dir="$FERRY_ROOT/build-${preset}"

ferry_install_packages
(cd "$FERRY_ROOT" && cmake --preset "$preset" && cmake --build --preset "$preset" -j "$jobs")

start=$SECONDS
status=0
(cd "$dir" && ctest -j "$jobs" --output-on-failure "${select[@]}" "$@") || status=$?
elapsed=$((SECONDS - start))

# A report the exit statuses did not turn into a failure: the tests whose output holds one.
reported="$(python3 - "$dir/Testing/Temporary/LastTest.log" <<'EOF'
import re, sys
text = open(sys.argv[1], errors="replace").read()
marker = re.compile(r"ERROR: (AddressSanitizer|LeakSanitizer)|runtime error: |WARNING: ThreadSanitizer")
for m in re.finditer(r'^\d+/\d+ Test: (\S+)\n(.*?)^<end of output>', text, re.M | re.S):
    if marker.search(m.group(2)):
        print(m.group(1))
EOF
)"
if [[ -n "$reported" ]]; then
  echo "ferry: sanitizer reports in the output of:" >&2
  echo "$reported" | sed 's/^/  /' >&2
  status=1
fi
echo "ferry: $preset: ctest $((elapsed / 60)) min $((elapsed % 60)) s, $( ((status == 0)) && echo clean || echo FAILED)"
exit "$status"
