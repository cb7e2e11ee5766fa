#!/usr/bin/python3
"""Plots of `ferry bench offload` from its offload.csv (the medians; shaded: min-max of the
Ferry figure over repetitions). Needs matplotlib: /usr/bin/python3 with python3-matplotlib.

plot_offload.py --csv DIR/offload.csv --out-dir DIR [--title TEXT]"""
import argparse
import csv
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    rows = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            rows.setdefault(r["test"], []).append(r)
    for test in rows:
        rows[test].sort(key=lambda r: int(r["size_bytes"]))
    return rows


def col(rows, name):
    return [float(r[name]) if r[name] != "" else math.nan for r in rows]


def size_axis(ax):
    ax.set_xscale("log", base=2)
    ax.set_xticks([1, 32, 1 << 10, 1 << 15, 1 << 20, 1 << 26])
    ax.set_xticklabels(["1 B", "32 B", "1 KiB", "32 KiB", "1 MiB", "64 MiB"])
    ax.set_xlabel("message size")
    ax.grid(True, which="both", alpha=0.3)


def series_panel(ax, rows, title, ylabel, with_floor):
    x = [int(r["size_bytes"]) for r in rows]
    ax.plot(x, col(rows, "ferry_median"), "o-", label="Ferry")
    ax.fill_between(x, col(rows, "ferry_min"), col(rows, "ferry_max"), alpha=0.2)
    ax.plot(x, col(rows, "mpi_median"), "s--", label="raw MPI, same ranks")
    ax.plot(x, col(rows, "stock_median"), "^:", label="stock plugin, in-process")
    if with_floor:
        ax.plot(x, col(rows, "floor_median"), "k-.", lw=1, label="floor = stock + MPI")
    size_axis(ax)
    ax.set_yscale("log")
    ax.set_title(title, fontsize=10)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=7)


def figure(data, tests, titles, ylabel, with_floor, path, suptitle):
    present = [(t, n) for t, n in zip(tests, titles) if t in data]
    if not present:
        return
    fig, axes = plt.subplots(1, len(present), figsize=(5 * len(present), 4), squeeze=False)
    for ax, (test, name) in zip(axes[0], present):
        series_panel(ax, data[test], name, ylabel, with_floor)
    fig.suptitle(suptitle, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def ratios(data, path, suptitle):
    fig, (lat, bw) = plt.subplots(1, 2, figsize=(11, 4))
    for test, label in [("map_to_lat", "map(to)"), ("map_from_lat", "map(from)"), ("map_tofrom_lat", "map(tofrom)")]:
        if test in data:
            x = [int(r["size_bytes"]) for r in data[test]]
            lat.plot(x, col(data[test], "ratio_floor_median"), "o-", label=label)
    if "empty" in data:
        lat.axhline(float(data["empty"][0]["ratio_floor_median"]), color="gray", ls=":", label="empty region")
    lat.axhline(1.5, color="red", lw=0.8, label="goal 1.5 (small regions)")
    lat.set_title("region latency: Ferry / floor (lower is better)", fontsize=10)
    size_axis(lat)
    lat.legend(fontsize=7)
    for test, label in [("map_to_bw", "map(to)"), ("map_from_bw", "map(from)"), ("map_tofrom_bw", "map(tofrom)"),
                        ("d2d_cross_bw", "device to device, cross-node"),
                        ("d2d_same_bw", "device to device, same node"),
                        ("map_node_bw", "one array to a node's 2 devices")]:
        if test in data:
            x = [int(r["size_bytes"]) for r in data[test]]
            bw.plot(x, col(data[test], "ratio_mpi_median"), "o-", label=label)
    bw.axhline(0.9, color="red", lw=0.8, label="target 0.9 (>= 1 MiB)")
    bw.set_title("bandwidth: Ferry / raw MPI (higher is better)", fontsize=10)
    size_axis(bw)
    bw.legend(fontsize=7)
    fig.suptitle(suptitle, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--csv", required=True)
    p.add_argument("--out-dir", required=True)
    p.add_argument("--title", default="ferry bench offload")
    a = p.parse_args()
    data = load(a.csv)
    if not data:
        sys.exit(f"plot_offload.py: {a.csv} has no rows")
    out = lambda name: os.path.join(a.out_dir, name)  # noqa: E731
    figure(data, ["map_to_lat", "map_from_lat", "map_tofrom_lat"], ["map(to) region", "map(from) region",
           "map(tofrom) region"], "latency [us]", True, out("offload_latency.png"), a.title)
    figure(data, ["map_to_bw", "map_from_bw", "map_tofrom_bw"], ["map(always, to)", "map(always, from)",
           "map(always, tofrom), both ways"], "bandwidth [MB/s]", False, out("offload_bandwidth.png"), a.title)
    figure(data, ["d2d_cross_bw", "d2d_same_bw", "map_node_bw"], ["device to device, different nodes",
           "device to device, same node", "one array to a node's 2 devices (both counted)"], "bandwidth [MB/s]",
           False, out("offload_d2d.png"), a.title)
    ratios(data, out("offload_ratios.png"), a.title)


if __name__ == "__main__":
    main()
