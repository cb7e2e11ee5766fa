#!/bin/sh
# rank_cores.sh FERRY [LAUNCH...]: starts 2 ranks through `ferry run` (or the given launch
# command) and checks that each may run on every core this script may: rank 0's OpenMP
# threads (libomp's hidden helpers carry every nowait region) must not be piled onto one
# core, as Open MPI's default binding for two ranks would pile them.
ferry=$1
want=$(nproc)
unset OMPI_MCA_hwloc_base_binding_policy  # the test environment's own binding choice
out=$("$ferry" run -n 2 sh -c 'echo "rank may use $(nproc) cores"') || exit 1
echo "$out"
echo "this script may use $want cores"
n=$(echo "$out" | grep -c "rank may use $want cores")
[ "$n" -eq 2 ] && echo "every rank may use every core"
