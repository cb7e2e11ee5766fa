#!/usr/bin/python3
"""OpenSHMEM figures (docs/shmem.md, "Figures"): runs BUILD/bin/shmem_bench on 2 PEs, on one
node (baseline: memcpy and CPU atomics through shmem_ptr) and across two virtual nodes
(FERRY_VIRTUAL_NODES=2; baseline: raw MPI-3 RMA on a window over the same symmetric
buffer), REPS times each, and reports the median of each figure and of its baseline from
the same runs, their ratio, and whether each target of the OpenSHMEM issue is met. Writes
into OUT shmem.csv, shmem.md (the tables, for the docs), shmem_<layout>.png and
environment.txt.

    /usr/bin/python3 bench/shmem/run_shmem.py BUILD OUT [--reps 5] [--quick] [--layouts one_node,vnodes2]

Uses Debian's python3-matplotlib (hence /usr/bin/python3); without it the plots are
skipped and said so."""
import argparse
import csv
import os
import platform
import shlex
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from build_cache import launcher, mpi_flavour  # noqa: E402  (bench/build_cache.py)

LAYOUTS = {"one_node": {}, "vnodes2": {"FERRY_VIRTUAL_NODES": "2"}}
# (test, layout kind, bound, what): latency-like bounds on ferry/baseline time, bandwidth-like
# on baseline/ferry time (= ferry's rate as a share of the baseline's), absolute in µs.
TARGETS = [
    ("put_latency", "intra-node", ("abs_us", 8, 0.2), "8-byte put ≤ 0.2 µs"),
    ("put_bandwidth", "intra-node", ("share_min", 1 << 20, 0.8), "put bandwidth ≥ 0.8× memcpy (≥ 1 MiB)"),
    ("put_latency", "inter-node", ("ratio_max", 8, 1.1), "8-byte put ≤ 1.1× MPI_Put+flush"),
    ("get_latency", "inter-node", ("ratio_max", 8, 1.1), "8-byte get ≤ 1.1× MPI_Get+flush"),
    ("atomic_fetch_add_latency", "inter-node", ("ratio_max", 8, 1.1), "fetch-add ≤ 1.1× MPI_Fetch_and_op"),
    ("put_bandwidth", "inter-node", ("share_min", 1 << 20, 0.9), "put bandwidth ≥ 0.9× MPI (≥ 1 MiB)"),
]


def flavour(a):
    return mpi_flavour(a.build, "run_shmem")


def command(a):
    cmd = [launcher(a.build), "-n", "2"]
    if flavour(a) != "mpich":
        cmd.append("--oversubscribe")
    cmd.append(os.path.join(a.build, "bin", "shmem_bench"))
    if a.quick:
        cmd.append("--quick")
    cmd.append("--validate")
    return cmd


def run_once(a, layout, log):
    # The caller's FERRY_VIRTUAL_NODES would turn the one-node layout into another.
    env = {k: v for k, v in os.environ.items() if k != "FERRY_VIRTUAL_NODES"}
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", MPIR_CVAR_POLLS_BEFORE_YIELD="1",
               **LAYOUTS[layout])
    cmd = command(a)
    log.append(" ".join(f"{k}={v}" for k, v in LAYOUTS[layout].items()) + " $ " + shlex.join(cmd))
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        sys.exit(f"run_shmem: {shlex.join(cmd)} ({layout}) failed with status {proc.returncode}:\n"
                 f"{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    lines = [l for l in proc.stdout.splitlines() if l.count(",") == 6]
    return list(csv.DictReader(lines))


def medians(runs):
    """One row per (test, bytes): the medians of ferry_us and baseline_us over the runs."""
    keyed = {}
    for rows in runs:
        for r in rows:
            keyed.setdefault((r["test"], int(r["bytes"])), []).append(r)
    out = []
    for (test, size), rs in keyed.items():
        f = statistics.median(float(r["ferry_us"]) for r in rs)
        b = statistics.median(float(r["baseline_us"]) for r in rs)
        out.append({"test": test, "bytes": size, "ferry_us": f, "baseline_us": b, "ratio": f / b if b else 0,
                    "baseline": rs[0]["baseline"], "layout": rs[0]["layout"], "runs": len(rs)})
    return out


def verdicts(rows):
    out = []
    for test, kind, (how, size, bound), what in TARGETS:
        rs = [r for r in rows if r["test"] == test and r["layout"] == kind and r["bytes"] >= size]
        if not rs:
            continue
        if how == "abs_us":
            value = min(rs, key=lambda r: r["bytes"])["ferry_us"]
            out.append((what, f"{value:.3f} µs", value <= bound))
        elif how == "ratio_max":
            value = min(rs, key=lambda r: r["bytes"])["ratio"]
            out.append((what, f"{value:.2f}×", value <= bound))
        else:
            value = min(r["baseline_us"] / r["ferry_us"] for r in rs)
            out.append((what, f"{value:.2f}× (worst ≥ {size >> 20} MiB)", value >= bound))
    return out


def table(rows):
    lines = ["| layout | test | bytes | Ferry µs | baseline µs | Ferry / baseline | baseline |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['layout']} | {r['test']} | {r['bytes']} | {r['ferry_us']:.3f} | {r['baseline_us']:.3f} | "
                     f"{r['ratio']:.2f} | {r['baseline']} |")
    return lines


def plot(rows, out):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("run_shmem: python3-matplotlib is missing; no plots")
        return
    for kind in sorted({r["layout"] for r in rows}):
        fig, ax = plt.subplots(figsize=(7, 4))
        for test in ("put_latency", "get_latency", "put_bandwidth", "get_bandwidth", "broadcast", "sum_reduce"):
            rs = sorted((r for r in rows if r["layout"] == kind and r["test"] == test), key=lambda r: r["bytes"])
            if rs:
                ax.plot([r["bytes"] for r in rs], [r["ratio"] for r in rs], marker="o", label=test)
        ax.axhline(1.0, color="gray", linewidth=0.8)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("bytes")
        ax.set_ylabel("Ferry time / baseline time")
        ax.set_title(f"OpenSHMEM, 2 PEs, {kind} (baseline: {'memcpy' if kind == 'intra-node' else 'MPI-3 RMA'})")
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(out, f"shmem_{kind}.png"), dpi=110)
        plt.close(fig)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("build")
    p.add_argument("out")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--layouts", default="one_node,vnodes2")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    log, rows = [], []
    for layout in a.layouts.split(","):
        if layout not in LAYOUTS:
            sys.exit(f"run_shmem: unknown layout {layout!r} (known: {', '.join(LAYOUTS)})")
        rows += medians([run_once(a, layout, log) for _ in range(a.reps)])
    lines = table(rows)
    lines += ["", "| target | measured | met |", "|---|---|---|"]
    lines += [f"| {w} | {v} | {'yes' if ok else 'no'} |" for w, v, ok in verdicts(rows)]
    print("\n".join(lines))
    with open(os.path.join(a.out, "shmem.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(a.out, "shmem.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(a.out, "environment.txt"), "w") as f:
        f.write(f"{platform.node()} {platform.machine()} {os.cpu_count()} cores; MPI: "
                f"{flavour(a)}; reps {a.reps}{' (quick)' if a.quick else ''}\n")
        f.write("\n".join(log) + "\n")
    plot(rows, a.out)


if __name__ == "__main__":
    main()
