#!/usr/bin/env python3
"""Unified shared memory under Ferry against the stock host plugin, per access pattern.

    bench/usm/run_usm.py BUILD_DIR OUT_DIR [--runs 3] [--reps 10]

Runs BUILD_DIR/bin/ferry_usm_sweep alternately with the stock plugin (in-process, the
host's memory is the kernel's) and under `ferry run -n 2` (a device of rank 1 pages rank
0's memory in, docs/user-guide.md "Unified shared memory"): with CMA and the default
FERRY_USM_FAULT_AROUND, with 4K (one page per fault), and with rank 1 on another virtual
node (FERRY_VIRTUAL_NODES=2: the pages travel over MPI). Prints a table, and writes
usm.csv, usm.md and usm.png (the plot needs matplotlib) into OUT_DIR. Each figure is the
median over the runs of a run's median kernel time."""
import argparse
import csv
import os
import statistics
import subprocess
import sys

VARIANTS = [  # name, under Ferry?, extra environment
    ("stock", False, {}),
    ("ferry", True, {}),
    ("ferry_4K", True, {"FERRY_USM_FAULT_AROUND": "4K"}),
    ("ferry_mpi", True, {"FERRY_VIRTUAL_NODES": "2"}),
]


def llvm_libdir(build):
    """FERRY_LLVM_LIBDIR of the build: where Debian's stock plugins live."""
    with open(os.path.join(build, "CMakeCache.txt")) as f:
        for line in f:
            if line.startswith("FERRY_LLVM_LIBDIR:"):
                return line.split("=", 1)[1].strip()
    return "/usr/lib/llvm-16/lib"


def run_once(build, ferry, extra, reps):
    program = os.path.join(build, "bin", "ferry_usm_sweep")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", **extra)
    if not ferry:
        # libomptarget finds the stock plugins only through this directory unless llvm-16-dev is
        # installed (docs/user-guide.md, "Troubleshooting").
        env["LD_LIBRARY_PATH"] = ":".join(p for p in [llvm_libdir(build), env.get("LD_LIBRARY_PATH", "")] if p)
    cmd = [os.path.join(build, "bin", "ferry"), "run", "-n", "2", program, str(reps)] if ferry else [program, str(reps)]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        sys.exit(f"run_usm: {' '.join(cmd)} failed ({out.returncode}):\n{out.stdout}{out.stderr}")
    rows = [r for r in csv.DictReader(line for line in out.stdout.splitlines() if "," in line)]
    return {r["pattern"]: r for r in rows}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("out")
    ap.add_argument("--runs", type=int, default=3, help="runs of each variant, interleaved (default 3)")
    ap.add_argument("--reps", type=int, default=10, help="kernels per pattern in each run (default 10)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    times = {}  # (variant, pattern) -> [median ms per run]
    info = {}
    for _ in range(a.runs):
        for name, ferry, extra in VARIANTS:
            for pattern, row in run_once(a.build, ferry, extra, a.reps).items():
                times.setdefault((name, pattern), []).append(float(row["median_ms"]))
                info[pattern] = row
    header = ["pattern", "bytes", "stride", "pages_touched", "stock_ms", "ferry_ms", "ferry_4K_ms",
              "ferry_over_stock", "ferry_us_per_page", "ferry_4K_us_per_page", "fault_around_speedup",
              "ferry_mpi_ms", "ferry_mpi_us_per_page"]
    rows = []
    for pattern, row in info.items():
        med = {name: statistics.median(times[(name, pattern)]) for name, _, _ in VARIANTS}
        pages = int(row["pages_touched"])
        per_page = lambda ms: (ms - med["stock"]) * 1e3 / pages
        rows.append([pattern, row["bytes"], row["stride"], pages, f"{med['stock']:.4f}", f"{med['ferry']:.4f}",
                     f"{med['ferry_4K']:.4f}", f"{med['ferry'] / med['stock']:.1f}", f"{per_page(med['ferry']):.2f}",
                     f"{per_page(med['ferry_4K']):.2f}", f"{med['ferry_4K'] / med['ferry']:.2f}",
                     f"{med['ferry_mpi']:.4f}", f"{per_page(med['ferry_mpi']):.2f}"])
    with open(os.path.join(a.out, "usm.csv"), "w", newline="") as f:
        csv.writer(f).writerows([header] + rows)
    md = ["| pattern | pages | stock [ms] | Ferry [ms] | Ferry, 4K fault-around [ms] | Ferry / stock | "
          "Ferry us/page | 4K us/page | fault-around speed-up | Ferry, other node (MPI) [ms] | MPI us/page |",
          "|" + "---|" * 11]
    md += [f"| `{r[0]}` | {r[3]} | {r[4]} | {r[5]} | {r[6]} | {r[7]} | {r[8]} | {r[9]} | {r[10]} | {r[11]} | {r[12]} |"
           for r in rows]
    with open(os.path.join(a.out, "usm.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))
    plot(rows, os.path.join(a.out, "usm.png"))


def plot(rows, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"run_usm: no matplotlib in {sys.executable}; {path} not drawn (run with /usr/bin/python3)")
        return
    fig, ax = plt.subplots(figsize=(8, 4))
    x = range(len(rows))
    bars = [(4, "stock"), (5, "Ferry"), (6, "Ferry, FERRY_USM_FAULT_AROUND=4K"), (11, "Ferry, other node (MPI)")]
    for k, (col, label) in enumerate(bars):
        ax.bar([i + (k - 1.5) * 0.2 for i in x], [float(r[col]) for r in rows], width=0.2, label=label)
    ax.set_xticks(list(x), [r[0] for r in rows], rotation=15)
    ax.set_yscale("log")
    ax.set_ylabel("kernel time [ms], median")
    ax.set_title("Unified shared memory: one kernel per pattern, device on another rank")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"run_usm: wrote {path}")


if __name__ == "__main__":
    main()
