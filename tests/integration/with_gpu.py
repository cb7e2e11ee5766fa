#!/usr/bin/env python3
"""with_gpu.py CMD...: runs CMD when the CUDA driver on this machine reports a GPU, else
prints why not and exits 77 (the GPU tests' SKIP_RETURN_CODE). A GPU that is present but
unused by CMD is CMD's failure to report, not a skip."""
import ctypes
import os
import sys

SKIP = 77


def gpu_count() -> tuple[int, str]:
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError as e:
        return 0, f"no CUDA driver (libcuda.so.1: {e})"
    if cuda.cuInit(0) != 0:
        return 0, "the CUDA driver does not initialise (cuInit failed: no usable GPU)"
    n = ctypes.c_int(0)
    if cuda.cuDeviceGetCount(ctypes.byref(n)) != 0 or n.value == 0:
        return 0, "the CUDA driver reports no GPU"
    return n.value, ""


def main() -> int:
    n, why = gpu_count()
    if n == 0:
        print(f"SKIP: {why}")
        return SKIP
    print(f"with_gpu.py: {n} GPU(s) here", flush=True)
    os.execvp(sys.argv[1], sys.argv[1:])
    return 1


if __name__ == "__main__":
    sys.exit(main())
