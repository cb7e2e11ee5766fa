#!/usr/bin/env python3
"""check_binding.py --expect piled|spread --ranks R --threads T [--doctor] -- CMD...

Runs CMD (a job of busy_threads), then checks where its threads ran, by the program's own
measurement (each thread's sched_getcpu() over its run):
  piled   every rank's T threads all ran on one CPU (the launcher bound the rank to one
          core), and, with --doctor, ferry doctor --binding warned about it, naming the fix;
  spread  no two threads of the job shared a CPU, and, with --doctor, the report has a line
          for each thread and no warning.
Prints what it found; exits 1 on a mismatch."""
import argparse
import re
import subprocess
import sys


def fail(msg, out):
    print(out)
    print(f"FAIL: {msg}")
    sys.exit(1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--expect", choices=["piled", "spread"], required=True)
    p.add_argument("--ranks", type=int, required=True)
    p.add_argument("--threads", type=int, required=True)
    p.add_argument("--doctor", action="store_true", help="CMD is ferry doctor --binding: check its report")
    p.add_argument("--timeout", type=float, default=100)
    p.add_argument("cmd", nargs=argparse.REMAINDER)
    a = p.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout)
    except subprocess.TimeoutExpired:
        fail(f"did not end within {a.timeout} s", "")
    out = r.stdout + r.stderr
    if r.returncode != 0:
        fail(f"exit status {r.returncode}", out)
    ran = {}  # (rank, thread) -> set of CPUs
    for m in re.finditer(r"busy_threads: rank (\d+) thread (\d+) of (\d+) ran on CPUs ([\d,]+)", out):
        ran[(int(m[1]), int(m[2]))] = {int(c) for c in m[4].split(",")}
    if len(ran) != a.ranks * a.threads:
        fail(f"{len(ran)} threads reported, not {a.ranks} x {a.threads}", out)
    for rank in range(a.ranks):
        cpus = [ran[(rank, t)] for t in range(a.threads)]
        union = set().union(*cpus)
        print(f"rank {rank}: threads ran on {[sorted(c) for c in cpus]}")
        if a.expect == "piled" and len(union) != 1:
            fail(f"rank {rank}'s threads ran on CPUs {sorted(union)}, not all on one", out)
    if a.expect == "spread":
        sets = list(ran.items())
        for i, (who, x) in enumerate(sets):
            for other, y in sets[i + 1:]:
                if x & y:
                    fail(f"rank/thread {who} and {other} shared CPU(s) {sorted(x & y)}", out)
    if a.doctor:
        lines = re.findall(r"^  \d+ +\S+ +\d+ .*%$", out, re.M)
        if a.expect == "piled":
            if not re.search(rf"its {a.threads} busy threads ran on 1 core\(s\).*ferry run does", out):
                fail("ferry doctor --binding did not warn that the threads were piled onto one core", out)
        else:
            if not re.search(r"^Warnings\n  none:", out, re.M):
                fail("ferry doctor --binding warned where every thread had a CPU of its own", out)
        if len(lines) < a.ranks * a.threads:
            fail(f"the report has {len(lines)} thread lines, fewer than {a.ranks * a.threads}", out)
    print(out)
    print(f"OK: {a.expect}")


if __name__ == "__main__":
    main()
