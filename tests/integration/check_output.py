#!/usr/bin/env python3
"""Runs a command and checks its numbered stdout lines (device_output.c).

Lines "seq N ..." must be N = 0, 1, 2, ... in that order, as many as the program's closing
"lines N" says. With --any-order (direct device output) the launcher forwards each rank's
stdout in pieces of any size and interleaves the pieces, even inside a line or inside "seq":
what stays certain is the number of newlines, N numbered lines plus the closing "lines N" and
the program's summary, with N taken from the "lines N" the program also writes to stderr.
With --byte-count, in either mode, stdout must hold as many bytes, with the same sum of byte
values, as the program says on stderr it printed ("stdout B bytes, byte sum S").
"""
import argparse
import re
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--any-order", action="store_true")
    ap.add_argument("--stderr-has", default=None, help="text that must appear on stderr")
    ap.add_argument("--byte-count", action="store_true",
                    help="the program says on stderr what stdout holds (device_output.c)")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.command[1:] if a.command and a.command[0] == "--" else a.command
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=150)
    sys.stdout.write(p.stdout)
    sys.stderr.write(p.stderr)
    problems = []
    if p.returncode != 0:
        problems.append(f"exit status {p.returncode}")
    seqs = [int(m.group(1)) for m in re.finditer(r"^seq (\d+) ", p.stdout, re.M)]
    total = re.search(r"^lines (\d+)$", p.stdout, re.M)
    if not total:
        problems.append("no closing 'lines N' line")
    elif a.any_order:
        whole = re.search(r"^lines (\d+)$", p.stderr, re.M)
        if not whole:
            problems.append("no 'lines N' line on stderr")
        else:
            want = int(whole.group(1)) + 2
            got = p.stdout.count("\n")
            if got != want:
                problems.append(f"{got} lines on stdout, {want} expected ({whole.group(1)} numbered, 'lines', summary)")
    else:
        want = list(range(int(total.group(1))))
        if seqs != want:
            first_bad = next((i for i, (x, y) in enumerate(zip(seqs, want)) if x != y), min(len(seqs), len(want)))
            problems.append(f"{len(seqs)} numbered lines, {len(want)} expected; first difference at "
                            f"position {first_bad}: {seqs[first_bad:first_bad + 5]}")
    if a.byte_count:
        # The whole of stdout, in any order: as many bytes, with the same sum, as the program
        # says it printed (a lost, repeated or garbled piece changes them).
        told = re.search(r"^stdout (\d+) bytes, byte sum (\d+)$", p.stderr, re.M)
        out = p.stdout.encode()
        if not told:
            problems.append("no 'stdout N bytes, byte sum S' line on stderr")
        elif (len(out), sum(out)) != (int(told.group(1)), int(told.group(2))):
            problems.append(f"stdout has {len(out)} bytes summing to {sum(out)}; the program printed "
                            f"{told.group(1)} summing to {told.group(2)}")
    if a.stderr_has is not None and a.stderr_has not in p.stderr:
        problems.append(f"stderr lacks {a.stderr_has!r}")
    for pr in problems:
        print("FAIL check_output:", pr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
