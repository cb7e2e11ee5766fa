#!/usr/bin/env python3
"""Sends a signal to one process only, as a batch system or `kill PID` does, and says what
was left: signal_alone.py SIGNAL MARKER COUNT -- CMD...

Starts CMD and waits (up to 60 s) until COUNT processes whose command line matches MARKER,
a regex for pgrep -f, are running ("running: N"); a second later it sends SIGNAL (a name
such as TERM) to CMD's process alone and waits for it: "ended: exit N", or "ended: signal
N" when it died of one, which a shell's $? would not tell from exit 128 + N. A second after
that it counts the processes still matching MARKER ("left: N"), which it then kills, so
that none outlives the test. CMD starts with the default action for SIGINT, which a shell
gives its background jobs ignored. Anchor MARKER ("^/path/prog"), or it matches this
script's own command line."""
import os
import signal
import subprocess
import sys
import time

# pgrep and pkill only look at processes: they run without LD_PRELOAD, where a sanitizer build
# puts its runtimes (tests/support/sanitizers), under which procps' pgrep deadlocks as it starts.
TOOLS_ENV = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}


def matching(marker):
    out = subprocess.run(["pgrep", "-f", "--", marker], capture_output=True, text=True, env=TOOLS_ENV).stdout
    return len(out.split())


def main():
    sig, marker, count = getattr(signal, "SIG" + sys.argv[1]), sys.argv[2], int(sys.argv[3])
    cmd = sys.argv[5:] if sys.argv[4] == "--" else sys.argv[4:]
    proc = subprocess.Popen(cmd, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    while matching(marker) < count and time.monotonic() < deadline:
        time.sleep(0.1)
    print(f"running: {matching(marker)}", flush=True)
    time.sleep(1)
    proc.send_signal(sig)
    code = proc.wait()
    print(f"ended: signal {-code}" if code < 0 else f"ended: exit {code}", flush=True)
    time.sleep(1)
    left = matching(marker)
    print(f"left: {left}", flush=True)
    if left:
        subprocess.run(["pkill", "-KILL", "-f", "--", marker], env=TOOLS_ENV)


if __name__ == "__main__":
    main()
