#!/usr/bin/env bash
# The demo: installs what is missing, builds Ferry, prints the device table of a 3-rank
# job and runs a heat-diffusion computation offloaded across it (device-to-device halo
# exchanges, result checked against the host).
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
ferry_install_packages
ferry_build "$FERRY_ROOT/build"

echo
echo "== ferry info -n 3: the device table of a 3-rank job (rank 0 runs main) =="
"$FERRY_ROOT/build/bin/ferry" info -n 3
echo
echo "== ferry run -n 3 build/bin/heat_demo =="
"$FERRY_ROOT/build/bin/ferry" run -n 3 "$FERRY_ROOT/build/bin/heat_demo" "$@"
