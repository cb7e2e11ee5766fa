#!/usr/bin/env python3
"""Submits one batch job and waits for it, as a user would: sbatch, then watch its state.

    sbatch_job.py [--timeout S] -- SBATCH_ARGS... SCRIPT [SCRIPT_ARGS...]

Prints the job's output file (stdout and stderr of the script), then its final state and
exit code. Exits 0 when the job COMPLETED with exit code 0:0, 1 otherwise; a job still
pending or running after S seconds is cancelled (scancel) and counts as hung."""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

FINAL_STATES = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED",
                "BOOT_FAIL", "DEADLINE"}


def job_fields(job_id):
    """JobState and ExitCode of the job, or None once slurmctld no longer knows it."""
    r = subprocess.run(["scontrol", "-o", "show", "job", job_id], capture_output=True, text=True)
    if r.returncode != 0:
        return None
    state = re.search(r"\bJobState=(\S+)", r.stdout)
    code = re.search(r"\bExitCode=(\S+)", r.stdout)
    return (state.group(1) if state else "?", code.group(1) if code else "?")


def wait_for(job_id, timeout):
    """The job's final (state, exit code), or None when it did not end within timeout."""
    deadline = time.monotonic() + timeout
    last = ("?", "?")
    while time.monotonic() < deadline:
        fields = job_fields(job_id)
        if fields is None:  # forgotten already (MinJobAge): its last state seen stands
            return last
        last = fields
        if fields[0] in FINAL_STATES:
            return fields
        time.sleep(0.5)
    return None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--timeout", type=float, default=120)
    p.add_argument("sbatch", nargs=argparse.REMAINDER)
    a = p.parse_args()
    args = a.sbatch[1:] if a.sbatch and a.sbatch[0] == "--" else a.sbatch
    fd, out_path = tempfile.mkstemp(prefix="ferry-sbatch-", suffix=".out")
    os.close(fd)
    try:
        r = subprocess.run(["sbatch", "--parsable", "--output", out_path] + args, capture_output=True, text=True)
        if r.returncode != 0:
            print(f"FAIL: sbatch exited {r.returncode}: {r.stderr.strip()}")
            return 1
        job_id = r.stdout.strip().split(";")[0]
        print(f"submitted batch job {job_id}")
        final = wait_for(job_id, a.timeout)
        if final is None:
            subprocess.run(["scancel", job_id])
            print(f"FAIL: job {job_id} still pending or running after {a.timeout:.0f} s: cancelled it")
        with open(out_path, errors="replace") as f:
            print(f"--- output of job {job_id} ---\n{f.read()}--- end of output")
        if final is None:
            return 1
        state, code = final
        print(f"job {job_id}: {state}, exit code {code}")
        return 0 if state == "COMPLETED" and code == "0:0" else 1
    finally:
        os.unlink(out_path)


if __name__ == "__main__":
    sys.exit(main())
