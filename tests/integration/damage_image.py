#!/usr/bin/env python3
"""damage_image.py IN OUT: copies an offload program with its embedded x86_64 device image
damaged, as a disk or a transfer might: the image's section-header offset (e_shoff) is made
to point past its end. The host program itself stays intact and runs.

The device image is the ELF inside the LLVM OffloadBinary container (magic 10 FF 10 AD)
that clang-16 embeds in the program."""
import os
import shutil
import struct
import sys

E_SHOFF = 0x28  # offset of e_shoff in an ELF64 header


def main() -> int:
    src, dst = sys.argv[1], sys.argv[2]
    data = bytearray(open(src, "rb").read())
    wrapper = data.find(b"\x10\xff\x10\xad")
    elf = data.find(b"\x7fELF", wrapper if wrapper >= 0 else 1)
    if wrapper < 0 or elf < 0:
        print(f"damage_image.py: {src} holds no embedded device image", file=sys.stderr)
        return 1
    struct.pack_into("<Q", data, elf + E_SHOFF, 0x7FFFFFFF)
    open(dst, "wb").write(data)
    shutil.copymode(src, dst)
    return 0


if __name__ == "__main__":
    sys.exit(main())
