#!/bin/sh
# check_service_without_mpi.sh CXX SRC_DIR [compiler flags...]
# The device service runs over any comm::Transport, so that a co-processor daemon is the same
# service without MPI (docs/architecture.md, "The transport seam"). Every source of
# src/service must therefore compile with an mpi.h that refuses to be included, except the
# files listed below, which still reach MPI for a stated reason. The list may only shrink.
cxx="$1"; src="$2"; shift 2
poison=$(mktemp -d)
trap 'rm -rf "$poison"' EXIT
echo '#error "this file of the device service includes mpi.h (tests/support/check_service_without_mpi.sh)"' > "$poison/mpi.h"
# The one MPI part, built into ferry_service but not into ferry_service_core (the daemon's):
#   client_memory_mpi.cpp  how the ranks' kernels reach rank 0's memory: CMA or comm::PageLink
allowed="client_memory_mpi.cpp"
status=0
checked=0
for f in "$src"/service/*.cpp; do
  name=$(basename "$f")
  case " $allowed " in *" $name "*) continue ;; esac
  if ! out=$("$cxx" -std=c++20 -fsyntax-only -I"$poison" -I"$src" -I"$src/../include" "$@" "$f" 2>&1); then
    echo "service/$name does not compile without MPI:"; echo "$out" | head -5; status=1
  fi
  checked=$((checked + 1))
done
echo "$checked service sources compile without MPI; $(echo $allowed | wc -w) still use it: $allowed"
[ "$checked" -gt 10 ] || { echo "too few sources checked: is SRC_DIR right?"; status=1; }
exit $status
