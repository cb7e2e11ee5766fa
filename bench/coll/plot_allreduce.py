#!/usr/bin/python3
"""Plots one CSV of osu_allreduce_ferry: latency of the MPI library, Ferry (auto) and Ferry's
algorithm forced, and the speed-up over the library (with the library against itself below
the crossover, the run's noise), against message size (log scale).

    /usr/bin/python3 plot_allreduce.py RESULT.csv RESULT.png "title"

Uses Debian's python3-matplotlib, hence /usr/bin/python3.
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    src, dst, title = sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else ""
    with open(src) as f:
        rows = list(csv.DictReader(f))
    size = [int(r["bytes"]) for r in rows]
    fig, (lat, ratio) = plt.subplots(2, 1, figsize=(8, 8), sharex=True, gridspec_kw={"height_ratios": [3, 2]})
    for name, label, style in [("mpi", "MPI library (MPI_Allreduce)", "k-o"),
                               ("ferry", "Ferry, auto (what --pmpi gives)", "b-s"),
                               ("forced", "Ferry's algorithm at every size", "r:^")]:
        lat.plot(size, [float(r[f"{name}_avg_us"]) for r in rows], style, label=label, markersize=4)
    lat.set_xscale("log", base=2)
    lat.set_yscale("log")
    lat.set_ylabel("latency, us (median of repetitions)")
    lat.set_title(title)
    lat.grid(True, which="both", alpha=0.3)
    lat.legend()
    for name, style in [("ferry", "b-s"), ("forced", "r:^")]:
        ratio.plot(size, [float(r[f"speedup_{name}"]) for r in rows], style, label=f"MPI / {name}", markersize=4)
    # The library timed twice where auto mode hands the calls over: the spread of identical variants.
    again = [(s, float(r["speedup_again"])) for s, r in zip(size, rows) if r.get("speedup_again")]
    if again:
        ratio.plot(*zip(*again), "k:.", label="MPI / MPI again (noise)", markersize=4)
    ratio.axhline(1.3, color="g", linestyle="--", linewidth=1, label="target 1.3x (>= 256 KiB)")
    ratio.axhline(0.95, color="m", linestyle="--", linewidth=1, label="floor 0.95x (5% slower)")
    ratio.axvline(256 * 1024, color="g", linestyle=":", linewidth=1)
    ratio.set_ylabel("speed-up over the library")
    ratio.set_xlabel("message size, bytes")
    ratio.grid(True, which="both", alpha=0.3)
    ratio.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(dst, dpi=110)


if __name__ == "__main__":
    main()
