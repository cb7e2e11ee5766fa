#!/bin/sh
# rank_cores.sh FERRY: starts a plain (non-offload) program on 2 ranks through `ferry run`
# and checks that ferry bind gave each rank CPUs of its own: two ranks, two allowed lists
# that do not overlap (Open MPI's default binding, and an unbound start, would not say so).
ferry=$1
unset OMPI_MCA_hwloc_base_binding_policy  # the test environment's own binding choice
out=$("$ferry" run -n 2 sh -c 'echo "rank may use CPUs $(grep Cpus_allowed_list /proc/self/status | cut -f2)"') || exit 1
echo "$out"
lists=$(echo "$out" | sed -n 's/^rank may use CPUs //p' | sort -u)
[ "$(echo "$out" | grep -c '^rank may use CPUs')" -eq 2 ] || exit 1
[ "$(echo "$lists" | wc -l)" -eq 2 ] || { echo "both ranks got the same CPUs"; exit 1; }
# Disjoint: no CPU of the first list is in the second (the lists are plain here: 0, 1).
python3 - "$lists" <<'PY' || exit 1
import sys
def cpus(text):
    out = set()
    for part in text.split(","):
        a, _, b = part.partition("-")
        out |= set(range(int(a), int(b or a) + 1))
    return out
a, b = (cpus(l) for l in sys.argv[1].split("\n"))
sys.exit(1 if a & b else 0)
PY
echo "each rank has CPUs of its own"
