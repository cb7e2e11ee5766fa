#!/bin/sh
# Fails when a layer includes a header of a layer above it.
# Order (low to high): platform comm service offload coll tools.
src="$1"
status=0
check() {  # check <layer> <forbidden layers...>
  layer=$1; shift
  for up in "$@"; do
    hits=$(grep -rn "#include \"$up/" "$src/$layer" 2>/dev/null)
    if [ -n "$hits" ]; then
      echo "layering violation: $layer includes $up:"; echo "$hits"; status=1
    fi
  done
}
check platform comm service offload coll shmem tools
check comm service offload coll shmem tools
check service offload coll shmem tools
check offload coll shmem tools
check coll offload shmem tools
exit $status
