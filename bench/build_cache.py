"""What the bench runner scripts read from a build directory: CMake cache values, the MPI
launcher the build was configured with, and which MPI that launcher belongs to. Imported by
bench/*/run_*.py (they put bench/ on sys.path)."""
import os
import subprocess
import sys


def cache_value(build, name, default=""):
    """The value of `name` in BUILD/CMakeCache.txt, or `default` where it (or the file) is missing."""
    try:
        with open(os.path.join(build, "CMakeCache.txt")) as f:
            for line in f:
                if line.startswith(name + ":"):
                    return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return default


def launcher(build):
    return cache_value(build, "MPIEXEC_EXECUTABLE", "mpiexec")


def mpi_flavour(build, script):
    """mpich or openmpi, from the build's launcher (Hydra names itself in --version)."""
    try:
        version = subprocess.run([launcher(build), "--version"], capture_output=True, text=True).stdout
    except OSError as e:
        sys.exit(f"{script}: cannot start the launcher {launcher(build)!r} (MPIEXEC_EXECUTABLE of "
                 f"{build}/CMakeCache.txt): {e}")
    return "mpich" if "HYDRA" in version.upper() else "openmpi"
