#!/usr/bin/env python3
"""Cancels a running job as its owner or an administrator would, and says what was left:
scancel_job.py MARKER COUNT -- CMD...

Starts CMD (an srun, its job named by SLURM_JOB_NAME, which with_cluster.sh sets) and waits
(up to 60 s) until COUNT processes whose command line matches MARKER, a regex for pgrep -f,
are running ("running: N"); a second later it runs `scancel --name=$SLURM_JOB_NAME` (Slurm
sends SIGCONT and SIGTERM to every task, SIGKILL after KillWait) and waits up to 30 s for
CMD: "ended: exit N after S s". A second after that it counts the processes still matching
MARKER ("left: N"), which it then kills, so that none outlives the test. Anchor MARKER
("^/path/prog"), or it matches this script's own command line."""
import os
import subprocess
import sys
import time

# pgrep and pkill only look at processes: they run without LD_PRELOAD, where a sanitizer build
# puts its runtimes (tests/support/sanitizers), under which procps' pgrep deadlocks as it starts.
TOOLS_ENV = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}


def matching(marker):
    out = subprocess.run(["pgrep", "-f", "--", marker], capture_output=True, text=True, env=TOOLS_ENV).stdout
    return out.split()


def main():
    name = os.environ["SLURM_JOB_NAME"]
    marker, count = sys.argv[1], int(sys.argv[2])
    cmd = sys.argv[4:] if sys.argv[3] == "--" else sys.argv[3:]
    proc = subprocess.Popen(cmd)
    deadline = time.monotonic() + 60
    while len(matching(marker)) < count and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.1)
    print(f"running: {len(matching(marker))}", flush=True)
    time.sleep(1)  # rank 0 is then waiting for its devices
    start = time.monotonic()
    subprocess.run(["scancel", f"--name={name}"])
    try:
        code = proc.wait(timeout=30)
        print(f"ended: exit {code} after {time.monotonic() - start:.1f} s")
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        print("ended: not within 30 s of scancel: killed srun")
    time.sleep(1)
    left = matching(marker)
    print(f"left: {len(left)}")
    subprocess.run(["kill", "-KILL"] + left, stderr=subprocess.DEVNULL)
    return 0


if __name__ == "__main__":
    sys.exit(main())
