#!/usr/bin/env python3
"""Stops a running command as a user or a batch system would, and checks that nothing it
started is left running.

interrupt_check.py --when-running NAME --signal INT|TERM [--group] [--max-seconds S] -- CMD...

CMD starts in a session of its own. Once a process called NAME runs in that session, the
signal goes to CMD alone (as `kill` and `timeout` send it) or, with --group, to CMD's
process group (as a terminal's Ctrl-C does). Passes when CMD ends of that signal within S
seconds and, a few seconds later, no process of the session is left."""
import argparse
import os
import signal
import subprocess
import sys
import time


def session_processes(sid: int) -> dict:
    """pid -> command name of every live process whose session is `sid`."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = open(f"/proc/{entry}/stat").read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        if fields[0] != "Z" and int(fields[3]) == sid:  # state, ppid, pgrp, session
            found[int(entry)] = name
    return found


def wait_for(predicate, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--when-running", required=True)
    p.add_argument("--signal", choices=["INT", "TERM"], required=True)
    p.add_argument("--group", action="store_true")
    p.add_argument("--max-seconds", type=float, default=60)
    p.add_argument("cmd", nargs=argparse.REMAINDER)
    a = p.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    sig = getattr(signal, "SIG" + a.signal)
    proc = subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    problems = []
    if not wait_for(lambda: a.when_running in session_processes(proc.pid).values(), a.max_seconds):
        problems.append(f"{a.when_running} never started")
    else:
        time.sleep(1)  # let it get going
        (os.killpg if a.group else os.kill)(proc.pid, sig)
        try:
            proc.wait(timeout=a.max_seconds)
        except subprocess.TimeoutExpired:
            problems.append(f"still running {a.max_seconds:.0f} s after SIG{a.signal}")
        if proc.returncode is not None and proc.returncode != -sig:
            problems.append(f"ended with status {proc.returncode}, not of SIG{a.signal}")
    if not wait_for(lambda: not session_processes(proc.pid), 10):
        left = session_processes(proc.pid)
        problems.append(f"left running: {left}")
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    if proc.poll() is None:
        proc.kill()
    print(proc.stdout.read().decode(errors="replace"))
    for pr in problems:
        print(f"EXPECTATION FAILED: {pr}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
