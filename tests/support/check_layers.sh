#!/bin/sh
# check_layers.sh SRC_DIR
# Fails when a layer uses a layer it must not depend on, by #include or by CMake link.
# Layers (docs/architecture.md): platform <- comm <- service <- offload <- tools, and
# platform <- comm <- coll and platform <- comm <- shmem: the collectives and OpenSHMEM use the
# platform and communication layers only.
src="$1"
status=0
forbid() {  # forbid <layer> <layers it must not use...>
  layer=$1; shift
  for up in "$@"; do
    hits=$(grep -rnE "^[[:space:]]*#[[:space:]]*include[[:space:]]*[\"<]$up/" "$src/$layer" 2>/dev/null)
    if [ -n "$hits" ]; then
      echo "layering violation: $layer includes $up:"; echo "$hits"; status=1
    fi
    # The layer's library (ferry_<layer>, ferry_coll_core) may not link the other's.
    hits=$(grep -nE "target_link_libraries\(ferry_$layer(_core)? .*ferry_$up(_core)?([[:space:])]|$)" "$src/CMakeLists.txt")
    if [ -n "$hits" ]; then
      echo "layering violation: ferry_$layer links ferry_$up:"; echo "$hits"; status=1
    fi
  done
}
forbid platform comm service offload coll shmem tools
forbid comm service offload coll shmem tools
forbid service offload coll shmem tools
forbid offload coll shmem tools
forbid coll service offload shmem tools
forbid shmem service offload coll tools
exit $status
