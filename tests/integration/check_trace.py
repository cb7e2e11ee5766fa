#!/usr/bin/env python3
"""Runs an offload program with FERRY_TRACE and checks the merged timeline.

check_trace.py TRACE_FILE -- CMD...

The file must be valid Chrome-trace JSON with: a named process per rank; complete events
with non-negative times; kernels by name on the serving ranks; transfers with their bytes;
allocations and waits on rank 0; and every serving rank's events inside rank 0's time span
(the clocks were aligned)."""
import json
import os
import subprocess
import sys


def fail(msg):
    print(f"TRACE CHECK FAILED: {msg}")
    sys.exit(1)


def main():
    path = sys.argv[1]
    cmd = sys.argv[3:] if sys.argv[2] == "--" else sys.argv[2:]
    if os.path.exists(path):
        os.remove(path)
    env = dict(os.environ, FERRY_TRACE=path)
    run = subprocess.run(cmd, env=env, timeout=120)
    if run.returncode != 0:
        fail(f"the program exited {run.returncode}")
    with open(path) as f:
        doc = json.load(f)  # well-formed JSON, or this raises
    events = doc.get("traceEvents")
    if not isinstance(events, list) or not events:
        fail("no traceEvents")
    names = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e["name"] == "process_name"}
    complete = [e for e in events if e.get("ph") == "X"]
    pids = sorted({e["pid"] for e in complete})
    print(f"{len(complete)} events from ranks {pids}; processes: {names}")
    if pids[:3] != [0, 1, 2]:
        fail(f"expected events from ranks 0, 1 and 2, got {pids}")
    for pid in pids:
        if pid not in names:
            fail(f"rank {pid} has no process_name")
    for e in complete:
        if not all(k in e for k in ("name", "cat", "ts", "dur", "pid", "tid")) or e["dur"] < 0:
            fail(f"malformed event {e}")

    def having(pred):
        return [e for e in complete if pred(e)]

    kernels = having(lambda e: e["cat"] == "kernel" and e["pid"] != 0 and e["name"].startswith("__omp_offloading_"))
    moves = having(lambda e: e["cat"] == "device-op" and e["args"].get("bytes", 0) > 0)
    exchanges = having(lambda e: e["name"].startswith("exchange_") and e["args"]["bytes"] > 0)
    allocs = having(lambda e: e["pid"] == 0 and e["name"] == "data_alloc" and e["args"]["bytes"] > 0)
    waits = having(lambda e: e["pid"] == 0 and e["cat"] == "wait")
    submits = having(lambda e: e["pid"] == 0 and e["name"] == "data_submit" and e["args"]["bytes"] > 0)
    for what, found in [("kernels by name", kernels), ("transfers with bytes", moves),
                        ("device-to-device exchanges", exchanges), ("allocations on rank 0", allocs),
                        ("waits on rank 0", waits), ("submits on rank 0", submits)]:
        print(f"  {what}: {len(found)}")
        if not found:
            fail(f"no {what}")
    # Aligned clocks: serving ranks act between rank 0's first and last event.
    r0 = having(lambda e: e["pid"] == 0)
    lo = min(e["ts"] for e in r0) - 1000.0  # 1 ms of slack for clock alignment
    hi = max(e["ts"] + e["dur"] for e in r0) + 1000.0
    stray = having(lambda e: e["pid"] != 0 and not (lo <= e["ts"] <= hi))
    if stray:
        fail(f"{len(stray)} serving-rank events lie outside rank 0's span, e.g. {stray[0]}")
    print("trace OK")


if __name__ == "__main__":
    main()
