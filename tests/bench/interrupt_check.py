#!/usr/bin/env python3
"""Stops a running command as a user or a batch system would, and checks that nothing it
started is left running.

interrupt_check.py --when-running NAME --signal INT|TERM [--group] [--max-seconds S] -- CMD...

CMD starts in a session of its own. Once a process called NAME runs among its descendants,
the signal goes to CMD alone (as `kill` and `timeout` send it) or, with --group, to CMD's
process group (as a terminal's Ctrl-C does). Passes when CMD ends of that signal within S
seconds and, a few seconds later, none of its descendants is left.

This script makes itself a child subreaper, so that processes orphaned by CMD's end stay
its descendants: a launcher's proxies may start sessions of their own (MPICH's Hydra), so
the session alone would miss them."""
import argparse
import ctypes
import os
import signal
import subprocess
import sys
import tempfile
import time

PR_SET_CHILD_SUBREAPER = 36


def descendants() -> dict:
    """pid -> command name of every live process below this one."""
    parent, name = {}, {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = open(f"/proc/{entry}/stat").read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # state, ppid, ...
        if fields[0] == "Z":
            continue
        parent[int(entry)] = int(fields[1])
        name[int(entry)] = stat[stat.index("(") + 1:stat.rindex(")")]
    found, todo = {}, [os.getpid()]
    while todo:
        pid = todo.pop()
        for child, ppid in parent.items():
            if ppid == pid and child not in found:
                found[child] = name[child]
                todo.append(child)
    return found


def reap_orphans():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


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
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    log = tempfile.TemporaryFile()  # not a pipe: what outlives CMD would hold it open
    proc = subprocess.Popen(cmd, start_new_session=True, stdout=log, stderr=subprocess.STDOUT)
    problems = []
    if not wait_for(lambda: a.when_running in descendants().values(), a.max_seconds):
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
    if not wait_for(lambda: (reap_orphans(), not descendants())[1], 10):
        left = descendants()
        problems.append(f"left running: {left}")
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    if proc.poll() is None:
        proc.kill()
    reap_orphans()
    log.seek(0)
    print(log.read().decode(errors="replace"))
    for pr in problems:
        print(f"EXPECTATION FAILED: {pr}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
