#!/usr/bin/env python3
"""Runs one `ferry bench` command and checks what it wrote (no timing is asserted).

check_bench_run.py --kind offload|xs|copy|allreduce --out-dir DIR [--max-seconds S] -- CMD...

offload: the terminal table has every column and section; offload.csv has a row per test
         and size with positive figures and ratios that equal their parts (one repetition);
         no byte of a device-to-device copy passed through rank 0; every data check passed;
         the plots exist when /usr/bin/python3 has matplotlib (otherwise the skip is reported).
xs:      the scaling table covers 1..N devices with one checksum for every strong-scaling
         run, and every checksum check passed.
copy:    copy.csv has a row per size and distance (0, 16, 64 bytes) with positive bandwidths,
         each speed-up equals its two bandwidths' ratio (one repetition), and the table,
         the command and the plot are there.
allreduce: osu_allreduce_ferry printed its preamble with the machine's copy speeds, its table
         and its data path; osu_allreduce.csv has a row per size with positive latencies and
         speed-ups equal to their latencies' ratios (one repetition), the library timed again
         below the crossover and only there (2 ranks on one node: auto mode hands over nowhere
         else); Ferry ran calls."""
import argparse
import csv
import math
import os
import re
import subprocess
import sys

OFFLOAD_TESTS = ["empty", "empty_after_work", "map_to_lat", "map_from_lat", "map_tofrom_lat", "map_to_bw",
                 "map_from_bw", "map_tofrom_bw", "map_to_bw_at16", "map_from_bw_at16", "map_to_bw_at1001",
                 "map_from_bw_at1001", "d2d_cross_bw", "d2d_same_bw", "nowait_rate",
                 "map_node_bw"]
COLUMNS = r"size +Ferry +min-max +MPI +Ferry/MPI +min-max +stock +Ferry/stock +floor +Ferry/floor"


class Checks:
    def __init__(self):
        self.problems = []

    def expect(self, ok, what):
        if not ok:
            self.problems.append(what)


def has_matplotlib():
    try:
        return subprocess.run(["/usr/bin/python3", "-c", "import matplotlib"], capture_output=True).returncode == 0
    except OSError:
        return False


def number(text):
    return float(text) if text not in ("", None) else math.nan


def read_rows(c, out_dir, name):
    """The rows of out_dir/name, or None (and a failed expectation) when it was not written."""
    path = os.path.join(out_dir, name)
    c.expect(os.path.exists(path), f"{path} written")
    if not os.path.exists(path):
        return None
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def check_offload(c, out, out_dir):
    c.expect(len(re.findall(COLUMNS, out)) == len(OFFLOAD_TESTS), "every section prints the same columns")
    c.expect(re.search(r"d2d_cross_bw: bytes through rank 0 during the timed copies: 0 ", out),
             "zero bytes through rank 0 (cross-node copies)")
    c.expect(re.search(r"d2d_same_bw: bytes through rank 0 during the timed copies: 0 ", out),
             "zero bytes through rank 0 (same-node copies)")
    m = re.search(r"map_node_bw: bytes over the network per byte mapped to the node \(>= 1 MiB\): ([0-9.]+)", out)
    c.expect(m and float(m.group(1)) <= 0.5 + 1e-9, "one transfer per node (network bytes per byte mapped <= 0.5)")
    c.expect(re.search(r"Validation: [1-9]\d* data checks in \d+ runs, all passed", out), "validation summary")
    c.expect(re.search(r"^command: |  command: .*ferry bench offload", out, re.M), "the reproducing command")
    c.expect(re.search(r"Targets \(issues 3 and 31", out), "the targets")
    rows = read_rows(c, out_dir, "offload.csv")
    if rows is None:
        return
    tests = {r["test"] for r in rows}
    for t in OFFLOAD_TESTS:
        c.expect(t in tests, f"offload.csv has {t}")
    for r in rows:
        where = f"{r['test']} at {r['size_bytes']} B"
        ferry, mpi, stock = number(r["ferry_median"]), number(r["mpi_median"]), number(r["stock_median"])
        c.expect(ferry > 0 and mpi > 0 and stock > 0, f"{where}: positive figures")
        if r["reps"] == "1":
            c.expect(math.isclose(number(r["ratio_mpi_median"]), ferry / mpi, rel_tol=1e-3), f"{where}: Ferry/MPI")
            c.expect(math.isclose(number(r["ratio_stock_median"]), ferry / stock, rel_tol=1e-3), f"{where}: Ferry/stock")
    for name in ["offload_raw.csv", "offload_targets.csv", "environment.txt"]:
        c.expect(os.path.exists(os.path.join(out_dir, name)), f"{name} written")
    check_plots(c, out, ["offload_latency.png", "offload_bandwidth.png", "offload_d2d.png", "offload_ratios.png"],
                out_dir)


def check_xs(c, out, out_dir):
    c.expect(re.search(r"Verification: [1-9]\d* checksum checks passed", out), "verification summary")
    rows = read_rows(c, out_dir, "xs_scaling.csv")
    if rows is None:
        return
    c.expect([int(r["devices"]) for r in rows] == list(range(1, len(rows) + 1)) and len(rows) >= 2,
             "one row per device count, from 1")
    c.expect(len({r["strong_checksum"] for r in rows}) == 1 and re.fullmatch(r"[0-9a-f]{16}", rows[0]["strong_checksum"]),
             "one strong-scaling checksum for every device count")
    c.expect(all(number(r["strong_s_median"]) > 0 and number(r["weak_s_median"]) > 0 for r in rows), "positive times")
    check_plots(c, out, ["xs_scaling.png"], out_dir)


def check_copy(c, out, out_dir):
    c.expect(re.search(r"^# command: .*copy_bench", out, re.M), "the reproducing command")
    c.expect(re.search(r"bytes +distance +memcpy GB/s +Ferry GB/s +speed-up", out), "the table's columns")
    rows = read_rows(c, out_dir, "copy.csv")
    if rows is None:
        return
    sizes = sorted({int(r["bytes"]) for r in rows})
    c.expect(len(sizes) >= 2 and len(rows) == 3 * len(sizes), "a row per size and distance")
    c.expect({int(r["distance"]) for r in rows} == {0, 16, 64}, "distances 0, 16 and 64 bytes")
    for r in rows:
        where = f"{r['bytes']} B at +{r['distance']} B"
        memcpy_gbs, ferry_gbs, speedup = number(r["memcpy_gbs"]), number(r["ferry_gbs"]), number(r["speedup"])
        c.expect(memcpy_gbs > 0 and ferry_gbs > 0, f"{where}: positive bandwidths")
        c.expect(math.isclose(speedup, ferry_gbs / memcpy_gbs, rel_tol=2e-3), f"{where}: speed-up = Ferry / memcpy")
    check_plots(c, out, ["copy.png"], out_dir)


def check_allreduce(c, out, out_dir):
    c.expect(re.search(r"^# command: .*osu_allreduce_ferry", out, re.M), "the reproducing command")
    c.expect(re.search(r"^# copies of 256 KiB by rank 0 \(best of \d+\): memcpy [\d.]+ GB/s .*process_vm_readv",
                       out, re.M), "the machine's copy speeds")
    c.expect(re.search(r"bytes +mpi +ferry +xferry +forced +xforced +again +xagain +iters", out),
             "the table's columns")
    c.expect(re.search(r"^# data path: ", out, re.M), "the data path")
    crossover = re.search(r"^# Ferry: FERRY_COLL=\w+, crossover (\d+) B", out, re.M)
    c.expect(crossover, "the crossover")
    calls = re.search(r"calls ferry=(\d+) library=(\d+)", out)
    c.expect(calls and int(calls.group(1)) > 0, "Ferry ran calls (the forced variant always does)")
    rows = read_rows(c, out_dir, "osu_allreduce.csv")
    if rows is None:
        return
    c.expect(len(rows) >= 2, "a row per size")
    for r in rows:
        where = f"{r['bytes']} B"
        mpi, ferry, forced = number(r["mpi_avg_us"]), number(r["ferry_avg_us"]), number(r["forced_avg_us"])
        c.expect(mpi > 0 and ferry > 0 and forced > 0, f"{where}: positive latencies")
        c.expect(math.isclose(number(r["speedup_ferry"]), mpi / ferry, rel_tol=5e-3), f"{where}: mpi / ferry")
        c.expect(math.isclose(number(r["speedup_forced"]), mpi / forced, rel_tol=5e-3), f"{where}: mpi / forced")
        # The library timed again, only below the crossover (FERRY_COLL_MIN_SIZE; unset, 4 KiB,
        # or 0 with MPICH).
        below = crossover is not None and int(r["bytes"]) < int(crossover.group(1))
        c.expect(bool(r["again_avg_us"]) == below, f"{where}: the library timed again {'' if below else 'not '}here")
        if below:
            c.expect(math.isclose(number(r["speedup_again"]), mpi / number(r["again_avg_us"]), rel_tol=5e-3),
                     f"{where}: mpi / again")


def check_plots(c, out, names, out_dir):
    """With matplotlib the plots exist and no plot was skipped; without it the skip is reported."""
    if has_matplotlib():
        c.expect("skipped" not in out, "no plot skipped")
        for png in names:
            path = os.path.join(out_dir, png)
            c.expect(os.path.exists(path) and os.path.getsize(path) > 10000, f"{png} drawn")
    else:
        c.expect("skipped" in out, "the missing matplotlib is reported")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--kind", choices=["offload", "xs", "copy", "allreduce"], required=True)
    p.add_argument("--out-dir", required=True)
    p.add_argument("--max-seconds", type=float, default=100)
    p.add_argument("cmd", nargs=argparse.REMAINDER)
    a = p.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=a.max_seconds)
    except subprocess.TimeoutExpired:
        print(f"FAIL: still running after {a.max_seconds:.0f} s")
        return 1
    out = proc.stdout.decode(errors="replace")
    print(out)
    c = Checks()
    c.expect(proc.returncode == 0, f"exit status {proc.returncode}, expected 0")
    {"offload": check_offload, "xs": check_xs, "copy": check_copy, "allreduce": check_allreduce}[a.kind](
        c, out, a.out_dir)
    for problem in c.problems:
        print(f"EXPECTATION FAILED: {problem}")
    return 1 if c.problems else 0


if __name__ == "__main__":
    sys.exit(main())
