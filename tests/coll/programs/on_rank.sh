#!/bin/sh
# on_rank.sh RANK NAME=VALUE PROGRAM [ARGS...]: runs PROGRAM with NAME=VALUE set on rank
# RANK only (the launcher's rank variable: Open MPI's or MPICH's), as a setting made on one
# node would be. The coll tests use it to give one rank other settings.
rank=$1 setting=$2
shift 2
if [ "${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-}}" = "$rank" ]; then
  export "$setting"
  # A sanitizer build's runtimes stay preloaded behind a library the setting preloads
  # (tests/support/sanitizers/sanitizers.cmake); unset in the normal build.
  case $setting in
    LD_PRELOAD=*) [ -n "${SANITIZER_PRELOAD:-}" ] && export LD_PRELOAD="$LD_PRELOAD:$SANITIZER_PRELOAD" ;;
  esac
fi
exec "$@"
