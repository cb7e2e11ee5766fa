#!/usr/bin/env bash
# The emulated aarch64 DPU on this x86_64 machine: installs the cross compiler, qemu-user and
# the arm64 runtime, and cross-builds ferry-serve into build-aarch64 (docs/daemon.md). The
# main build then registers the offload.daemon.aarch64.* tests, which start
#   LD_LIBRARY_PATH=build-aarch64/sysroot/usr/lib/llvm-16/lib qemu-aarch64 build-aarch64/bin/ferry-serve ...
# and run fat (x86_64 + aarch64) programs against it.
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
ferry_install_aarch64
ferry_build_aarch64 "${1:-$FERRY_ROOT/build-aarch64}"
echo "ferry: aarch64 daemon in ${1:-$FERRY_ROOT/build-aarch64}/bin/ferry-serve"
