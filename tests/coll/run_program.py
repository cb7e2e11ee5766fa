#!/usr/bin/env python3
"""Runs one command the way a user would and checks what they would see: the exit status,
that it ends in time, and text that must (or must not) appear on stdout and stderr.

    run_program.py [--env NAME=VALUE]... [--stdout TEXT]... [--stderr TEXT[=COUNT]]...
                   [--not-stderr TEXT]... -- CMD...
"""
import argparse
import os
import subprocess
import sys


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--stdout", action="append", default=[], help="text stdout must contain")
    p.add_argument("--stderr", action="append", default=[],
                   help="text stderr must contain; TEXT=N: exactly N times")
    p.add_argument("--not-stderr", action="append", default=[], help="text stderr must not contain")
    p.add_argument("--env", action="append", default=[], help="NAME=VALUE for the command only")
    p.add_argument("--timeout", type=float, default=90)
    p.add_argument("cmd", nargs=argparse.REMAINDER)
    a = p.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    try:
        env = dict(os.environ, **dict(e.split("=", 1) for e in a.env))
        # A sanitizer build's runtimes stay preloaded behind the library a test preloads
        # (tests/support/sanitizers/sanitizers.cmake); unset in the normal build.
        if os.environ.get("SANITIZER_PRELOAD") and any(e.startswith("LD_PRELOAD=") for e in a.env):
            env["LD_PRELOAD"] += ":" + os.environ["SANITIZER_PRELOAD"]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout, env=env)
    except subprocess.TimeoutExpired:
        print(f"FAIL: did not end within {a.timeout} s: {' '.join(cmd)}")
        return 1
    problems = []
    if r.returncode != 0:
        problems.append(f"exit status {r.returncode}")
    for text in a.stdout:
        if text not in r.stdout:
            problems.append(f"stdout lacks {text!r}")
    for spec in a.stderr:
        text, _, count = spec.rpartition("=") if "=" in spec and spec.rsplit("=", 1)[1].isdigit() else (spec, "", "")
        found = r.stderr.count(text)
        if (count and found != int(count)) or (not count and found == 0):
            problems.append(f"stderr has {text!r} {found} times, expected {count or 'at least once'}")
    for text in a.not_stderr:
        if text in r.stderr:
            problems.append(f"stderr has {text!r}")
    if problems:
        print("FAIL: " + "; ".join(problems))
        print("command: " + " ".join(cmd))
        print("--- stdout ---\n" + r.stdout + "--- stderr ---\n" + r.stderr)
        return 1
    print("ok: " + " ".join(cmd))
    return 0


if __name__ == "__main__":
    sys.exit(main())
