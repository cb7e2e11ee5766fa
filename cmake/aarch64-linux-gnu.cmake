# Cross-builds ferry-serve for an aarch64 co-processor (a BlueField-style DPU) with Debian's
# cross compiler and the arm64 libraries of Debian's multiarch (scripts/aarch64.sh installs
# both):
#
#   cmake -S . -B build-aarch64 -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
#         -DFERRY_SERVE_ONLY=ON -DFERRY_LLVM_LIBDIR=/usr/lib/llvm-16/lib
#
# FERRY_LLVM_LIBDIR is where the daemon finds Debian's aarch64 host plugin at run time: on a
# real DPU /usr/lib/llvm-16/lib; under qemu on x86_64, the private sysroot scripts/aarch64.sh
# unpacks it into (Debian's arm64 libomp cannot be installed beside the amd64 one).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# Libraries and their pkg-config files from the arm64 multiarch directories; headers of
# header-only libraries (JSON, CLI11) from the host, as they are the same for every machine.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)
