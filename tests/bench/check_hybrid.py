#!/usr/bin/env python3
"""Runs hybrid_bench (or run_hybrid.py) and checks what it printed and wrote; no timing
target is asserted (bench/hybrid/run_hybrid.py measures, docs/hybrid.md reports).

check_hybrid.py --kind bandwidth|schedule|false-sharing|compute|script [--out-dir DIR]
                [--max-seconds S] -- CMD...

bandwidth:     a copy and a triad row per thread count, positive GB/s with min <= median <= max,
               every array verified, every thread ran (its CPUs reported), the saturation line.
schedule:      static, static,1, dynamic, dynamic,k and guided each ran, every result hashes
               as static's did (and the same in every repetition); static's ratio is 1.
false-sharing: a row per distance and per state layout, every counter reached its count; the
               alignas(128) state is the reference (ratio 1) and, as gross sanity, its best time
               is not 3x the unpadded state's best (sharing can only slow the unpadded one).
compute:       a row per thread count, every count gives the same checksum.
script:        run_hybrid.py's five tables, its five CSVs with rows, hybrid.md, environment.txt,
               the PNGs (or the reported skip without matplotlib); in the binding study the
               piled run's threads share one CPU and the spread run's do not."""
import argparse
import csv
import os
import re
import subprocess
import sys


class Checks:
    def __init__(self):
        self.problems = []

    def expect(self, ok, what):
        if not ok:
            self.problems.append(what)


def rows_of(text):
    return list(csv.DictReader(line for line in text.splitlines() if line and not line.startswith("#")))


def full_team(binding, threads):
    """One CPU set per thread, none missing ('-'), none unknown ('?')."""
    masks = binding.split(";")
    return len(masks) == threads and all(m and m not in ("-", "?") for m in masks)


def ordered(r, key):
    lo, mid, hi = (float(r[f"{key}_{k}"]) for k in ("min", "median", "max"))
    return 0 < lo <= mid <= hi


def preamble(c, out, study):
    c.expect(re.search(rf"^# hybrid_bench {study}: ", out, re.M), "the study's first line")
    c.expect(re.search(r"^# OMP_NUM_THREADS=.* OMP_PLACES=.*; \d+ places, \d+ processors$", out, re.M),
             "the OpenMP environment")
    c.expect(re.search(r"^# binding at \d+ threads \(CPUs each thread may run on\): \S+$", out, re.M), "the binding")


def check_bandwidth(c, out, _):
    preamble(c, out, "bandwidth")
    rows = rows_of(out)
    counts = sorted({int(r["threads"]) for r in rows})
    c.expect(len(counts) >= 1 and len(rows) == 2 * len(counts), "a copy and a triad row per thread count")
    for r in rows:
        where = f"{r['kernel']} at {r['threads']} threads"
        c.expect(r["kernel"] in ("copy", "triad"), f"{where}: a known kernel")
        c.expect(ordered(r, "gbs"), f"{where}: 0 < min <= median <= max GB/s")
        c.expect(r["verified"] == "1", f"{where}: the arrays hold the expected values")
        c.expect(full_team(r["binding"], int(r["threads"])), f"{where}: every thread ran and reported its CPUs")
    sat = re.search(r"^# saturation: triad reaches 90% of its best median \([\d.]+ GB/s\) at (\d+) threads?$", out, re.M)
    c.expect(sat and int(sat.group(1)) in counts, "the saturation point, at a measured thread count")


def check_schedule(c, out, _):
    preamble(c, out, "schedule")
    rows = rows_of(out)
    kinds = [(r["kind"], r["chunk"]) for r in rows]
    c.expect(len(rows) == 5 and kinds[:3] == [("static", "0"), ("static", "1"), ("dynamic", "1")]
             and kinds[3][0] == "dynamic" and kinds[4] == ("guided", "0"),
             "static, static,1, dynamic, dynamic,k and guided, in that order")
    for r in rows:
        where = f"{r['kind']},{r['chunk']}"
        c.expect(re.fullmatch(r"[0-9a-f]{16}", r["checksum"]), f"{where}: a 64-bit checksum")
        c.expect(r["checksum"] == rows[0]["checksum"], f"{where}: the same result as static")
        c.expect(r["checksum_stable"] == "1", f"{where}: the same result in every repetition")
        c.expect(ordered(r, "seconds") and float(r["gbs"]) > 0, f"{where}: positive times")
        c.expect(full_team(r["binding"], int(r["threads"])), f"{where}: every thread ran")
    c.expect(rows and float(rows[0]["ratio_to_static"]) == 1.0, "static's ratio to itself is 1")


def check_false_sharing(c, out, _):
    preamble(c, out, "false-sharing")
    rows = rows_of(out)
    by = {(r["variant"], int(r["distance_bytes"])): r for r in rows}
    for d in (8, 16, 32, 64, 128, 256):
        c.expect(("distance", d) in by, f"counters {d} bytes apart")
    for key in (("unpadded", 8), ("padded64", 64), ("padded128", 128)):
        c.expect(key in by, f"the {key[0]} state, {key[1]} bytes each")
    for r in rows:
        where = f"{r['variant']} {r['distance_bytes']} B"
        c.expect(r["counts_ok"] == "1", f"{where}: every counter reached its count")
        c.expect(ordered(r, "ns"), f"{where}: 0 < min <= median <= max ns")
    if ("padded128", 128) in by and ("unpadded", 8) in by:
        padded, unpadded = by[("padded128", 128)], by[("unpadded", 8)]
        c.expect(float(padded["ratio_to_padded"]) == 1.0, "alignas(128) is the reference")
        c.expect(float(padded["ns_min"]) <= 3 * float(unpadded["ns_min"]),
                 f"padded ({padded['ns_min']} ns) not 3x slower than unpadded ({unpadded['ns_min']} ns) at best")


def check_compute(c, out, _):
    preamble(c, out, "compute")
    rows = rows_of(out)
    c.expect(len(rows) >= 1, "a row per thread count")
    for r in rows:
        where = f"{r['threads']} threads"
        c.expect(r["checksum"] == rows[0]["checksum"], f"{where}: the same checksum as {rows[0]['threads']}")
        c.expect(ordered(r, "seconds") and float(r["speedup"]) > 0, f"{where}: positive times")
        c.expect(full_team(r["binding"], int(r["threads"])), f"{where}: every thread ran")
    c.expect(rows and float(rows[0]["speedup"]) == 1.0, "the first thread count is the baseline")


def check_script(c, out, out_dir):
    for title in ("Memory bandwidth per thread count", "3-row stencil per OpenMP schedule", "False sharing",
                  "Compute-bound kernel scaling", "Binding: threads spread over cores"):
        c.expect(f"## {title}" in out, f"the table '{title}'")
    c.expect(re.search(r"^# command: .*run_hybrid\.py", out, re.M), "the reproducing command")
    for name in ("bandwidth", "schedule", "false_sharing", "compute", "binding"):
        path = os.path.join(out_dir, f"{name}.csv")
        c.expect(os.path.exists(path) and len(list(csv.DictReader(open(path)))) >= 2, f"{name}.csv with rows")
    for name in ("hybrid.md", "environment.txt"):
        c.expect(os.path.exists(os.path.join(out_dir, name)), f"{name} written")
    binding = os.path.join(out_dir, "binding.csv")
    rows = list(csv.DictReader(open(binding))) if os.path.exists(binding) else []
    if len(os.sched_getaffinity(0)) >= 2:  # spread needs two CPUs to be spread over
        for r in rows:
            for mode in ("piled", "spread"):
                c.expect(r[f"{mode}_bound_as_asked"] == "1", f"binding {r['kernel']}: {mode} as asked "
                         f"(CPUs {r[mode + '_cpus']})")
    has_mpl = subprocess.run(["/usr/bin/python3", "-c", "import matplotlib"], capture_output=True).returncode == 0
    for name in ("bandwidth", "schedule", "false_sharing", "compute", "binding"):
        png = os.path.join(out_dir, f"{name}.png")
        c.expect(not has_mpl or (os.path.exists(png) and os.path.getsize(png) > 10000), f"{name}.png drawn")
    c.expect(has_mpl or "plots skipped" in out, "the missing matplotlib is reported")


KINDS = {"bandwidth": check_bandwidth, "schedule": check_schedule, "false-sharing": check_false_sharing,
         "compute": check_compute, "script": check_script}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--kind", choices=sorted(KINDS), required=True)
    p.add_argument("--out-dir", default="")
    p.add_argument("--max-seconds", type=float, default=60)
    p.add_argument("cmd", nargs=argparse.REMAINDER)
    a = p.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=a.max_seconds)
    except subprocess.TimeoutExpired:
        print(f"FAIL: still running after {a.max_seconds:.0f} s")
        return 1
    out, err = proc.stdout.decode(errors="replace"), proc.stderr.decode(errors="replace")
    print(out + err)
    c = Checks()
    c.expect(proc.returncode == 0, f"exit status {proc.returncode}, expected 0")
    try:
        KINDS[a.kind](c, out, a.out_dir)
    except (KeyError, ValueError) as e:  # a missing column or a malformed number
        c.expect(False, f"well-formed output ({type(e).__name__}: {e})")
    for problem in c.problems:
        print(f"EXPECTATION FAILED: {problem}")
    return 1 if c.problems else 0


if __name__ == "__main__":
    sys.exit(main())
