#!/usr/bin/python3
"""Plots the CSV of copy_bench: memcpy's and copyBytes' bandwidth at each distance between
destination and source (modulo 4 KiB), and copyBytes' speed-up over memcpy.

    /usr/bin/python3 plot_copy.py copy.csv copy.png "title"

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
    distances = sorted({int(r["distance"]) for r in rows})
    colours = ["k", "r", "b", "g", "m"]
    fig, (bw, ratio) = plt.subplots(2, 1, figsize=(8, 8), sharex=True, gridspec_kw={"height_ratios": [3, 2]})
    for colour, d in zip(colours, distances):
        mine = [r for r in rows if int(r["distance"]) == d]
        size = [int(r["bytes"]) for r in mine]
        bw.plot(size, [float(r["memcpy_gbs"]) for r in mine], f"{colour}:o", markersize=3, label=f"memcpy, +{d} B")
        bw.plot(size, [float(r["ferry_gbs"]) for r in mine], f"{colour}-s", markersize=3, label=f"copyBytes, +{d} B")
        ratio.plot(size, [float(r["speedup"]) for r in mine], f"{colour}-s", markersize=3, label=f"+{d} B")
    bw.set_xscale("log", base=2)
    bw.set_yscale("log")
    bw.set_ylabel("GB/s (median of repetitions)")
    bw.set_title(title)
    bw.grid(True, which="both", alpha=0.3)
    bw.legend(fontsize=8)
    ratio.set_yscale("log")
    ratio.axhline(1.0, color="gray", linewidth=1)
    ratio.set_ylabel("speed-up over memcpy")
    ratio.set_xlabel("bytes copied (destination this far past the source, modulo 4 KiB)")
    ratio.grid(True, which="both", alpha=0.3)
    ratio.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(dst, dpi=110)


if __name__ == "__main__":
    main()
