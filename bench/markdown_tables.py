#!/usr/bin/env python3
"""Markdown tables for docs/performance.md from the CSV files of `ferry bench offload` and
`ferry bench xs` (the doc's tables are this script's output, not typed by hand).

markdown_tables.py offload DIR/offload.csv [--sizes 1,64,1024,...]
markdown_tables.py targets DIR/offload_targets.csv
markdown_tables.py xs DIR/xs_scaling.csv
markdown_tables.py coll DIR   (the per-layout CSVs of bench/coll/run_allreduce.sh)"""
import argparse
import csv
import glob
import math
import os

DEFAULT_SIZES = [1, 64, 1024, 8192, 65536, 262144, 1 << 20, 4 << 20, 16 << 20, 64 << 20]


def size_label(n):
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n} B" if n else "-"


def num(text, digits=3):
    if text in ("", None):
        return "-"
    v = float(text)
    if math.isnan(v):
        return "-"
    return f"{v:.0f}" if abs(v) >= 10 ** digits else f"{v:.{digits}g}"


def spread(lo, hi):
    return "-" if lo in ("", None) else f"{num(lo)}–{num(hi)}"


def offload(path, sizes):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    tests = []
    for r in rows:
        if r["test"] not in tests:
            tests.append(r["test"])
    for test in tests:
        mine = [r for r in rows if r["test"] == test and (int(r["size_bytes"]) in sizes or r["size_bytes"] == "0")]
        if not mine:
            continue
        unit = mine[0]["unit"]
        latency = unit == "us"
        print(f"\n**{mine[0]['title']}** [{unit}], median of {mine[0]['reps']} repetitions\n")
        head = ["size", "Ferry", "min–max", "MPI", "Ferry/MPI", "min–max", "stock", "Ferry/stock"]
        if latency:
            head += ["floor", "Ferry/floor"]
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for r in mine:
            cells = [size_label(int(r["size_bytes"])), num(r["ferry_median"]), spread(r["ferry_min"], r["ferry_max"]),
                     num(r["mpi_median"]), num(r["ratio_mpi_median"]), spread(r["ratio_mpi_min"], r["ratio_mpi_max"]),
                     num(r["stock_median"]), num(r["ratio_stock_median"])]
            if latency:
                cells += [num(r["floor_median"]), num(r["ratio_floor_median"])]
            print("| " + " | ".join(cells) + " |")


def targets(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    print("| target | status | measured |\n|---|---|---|")
    for r in rows:
        status = r["status"]
        # "met" plain, a miss in bold, "-" where this layout could not measure it
        shown = "met" if status == "met" else f"**{status}**" if status else "-"
        print(f"| {r['target']} | {shown} | {r['measured']} |")


def xs(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    print("| devices | strong: time s (min–max) | lookups/s | speed-up | efficiency | weak: lookups | time s (min–max) "
          "| lookups/s | efficiency |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['devices']} | {num(r['strong_s_median'])} ({spread(r['strong_s_min'], r['strong_s_max'])}) "
              f"| {num(r['strong_lookups_per_s'])} | {num(r['strong_speedup'])} | {num(r['strong_efficiency'])} "
              f"| {r['weak_lookups']} | {num(r['weak_s_median'])} ({spread(r['weak_s_min'], r['weak_s_max'])}) "
              f"| {num(r['weak_lookups_per_s'])} | {num(r['weak_efficiency'])} |")
    print(f"\nChecksums: strong {rows[0]['strong_checksum']} on every device count; "
          f"weak {', '.join(r['weak_checksum'] for r in rows)}.")


def coll(directory, sizes):
    """Speed-up (library / Ferry in auto mode) per size and layout, then the issue's targets."""
    layouts = {}
    for path in sorted(glob.glob(os.path.join(directory, "*.csv"))):
        with open(path) as f:
            layouts[os.path.basename(path)[:-4]] = {int(r["bytes"]): r for r in csv.DictReader(f)}
    names = list(layouts)
    print("| size | " + " | ".join(f"`{n}`" for n in names) + " |")
    print("|---" * (len(names) + 1) + "|")
    all_sizes = sorted({b for rows in layouts.values() for b in rows})
    for b in all_sizes:
        if b not in sizes:
            continue
        cells = [num(layouts[n][b]["speedup_ferry"]) if b in layouts[n] else "-" for n in names]
        print(f"| {size_label(b)} | " + " | ".join(cells) + " |")
    print()
    print("| layout | worst speed-up at >= 256 KiB (target >= 1.3) | worst speed-up at any size (target >= 0.95) "
          "| library against itself where auto hands over |")
    print("|---|---|---|---|")
    for n in names:
        rows = layouts[n]
        big = min(((float(r["speedup_ferry"]), b) for b, r in rows.items() if b >= 262144), default=None)
        low = min(((float(r["speedup_ferry"]), b) for b, r in rows.items()), default=None)
        fmt = lambda m: "-" if m is None else f"{m[0]:.2f} at {size_label(m[1])}"
        # The `again` column (the library timed twice; CSVs from before it lack it): how far
        # two identical variants' ratios spread in the same run.
        again = [float(r["speedup_again"]) for r in rows.values() if r.get("speedup_again")]
        spread = f"{min(again):.2f}-{max(again):.2f}" if again else "-"
        print(f"| `{n}` | {fmt(big)} | {fmt(low)} | {spread} |")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("kind", choices=["offload", "targets", "xs", "coll"])
    p.add_argument("csv")
    p.add_argument("--sizes", default=",".join(str(s) for s in DEFAULT_SIZES))
    a = p.parse_args()
    if a.kind == "offload":
        offload(a.csv, {int(s) for s in a.sizes.split(",")})
    elif a.kind == "coll":
        coll(a.csv, {int(s) for s in a.sizes.split(",")})
    elif a.kind == "targets":
        targets(a.csv)
    else:
        xs(a.csv)


if __name__ == "__main__":
    main()
