#!/usr/bin/env python3
"""shm_left.py -- CMD...: runs an offload job with FERRY_LOG=info and checks that none of its
serving ranks left libomp's registration entry (/dev/shm/__KMP_REGISTERED_LIB_<pid>_<uid>)
behind. The serving ranks' pids come from their log lines; a run that names none fails, so
that the check cannot pass by finding nothing to check."""
import glob
import os
import re
import subprocess
import sys


def main() -> int:
    cmd = sys.argv[2:] if sys.argv[1:2] == ["--"] else sys.argv[1:]
    env = dict(os.environ, FERRY_LOG="info")
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    print(r.stdout + r.stderr)
    pids = sorted(set(re.findall(r"\[ferry rank=[1-9][0-9]* host=\S+ pid=([0-9]+)\]", r.stderr)))
    problems = [] if r.returncode == 0 else [f"the job exited {r.returncode}"]
    if not pids:
        problems.append("no serving rank's log line named its pid")
    for pid in pids:
        for left in glob.glob(f"/dev/shm/__KMP_REGISTERED_LIB_{pid}_*"):
            problems.append(f"serving rank pid {pid} left {left}")
            os.unlink(left)
    print(f"serving ranks checked: {', '.join(pids)}")
    for p in problems:
        print(f"EXPECTATION FAILED: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
