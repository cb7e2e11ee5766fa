#!/usr/bin/env python3
"""Runs a command that must fail in a controlled way, and checks how it failed.

expect_failure.py [--exit nonzero|zero|N] [--max-seconds S] [--pattern REGEX]... -- CMD...

Passes when the command ends within S seconds (else it is killed: a hang is a failure),
with the expected kind of exit status (or exactly N), and its output (stdout and stderr together)
matches every pattern."""
import argparse
import os
import re
import signal
import subprocess
import sys
import time


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--exit", default="nonzero", help="nonzero, zero, or the exact status")
    p.add_argument("--max-seconds", type=float, default=60.0)
    p.add_argument("--pattern", action="append", default=[])
    p.add_argument("--forbid", action="append", default=[], help="regex that must NOT appear")
    p.add_argument("cmd", nargs=argparse.REMAINDER)
    a = p.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=a.max_seconds)
        hung = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        hung = True
    elapsed = time.monotonic() - start
    text = out.decode(errors="replace")
    problems = []
    if hung:
        problems.append(f"still running after {a.max_seconds:.0f} s: it hung")
    elif a.exit == "nonzero" and proc.returncode == 0:
        problems.append("exited 0, but this case must fail")
    elif a.exit == "zero" and proc.returncode != 0:
        problems.append(f"exited {proc.returncode}, expected 0")
    elif a.exit.isdigit() and proc.returncode != int(a.exit):
        problems.append(f"exited {proc.returncode}, expected {a.exit}")
    for pat in a.pattern:
        if not re.search(pat, text, re.MULTILINE):
            problems.append(f"output lacks /{pat}/")
    for pat in a.forbid:
        if re.search(pat, text, re.MULTILINE):
            problems.append(f"output has forbidden /{pat}/")
    print(text)
    print(f"--- exit {proc.returncode} after {elapsed:.1f} s")
    for pr in problems:
        print(f"EXPECTATION FAILED: {pr}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
