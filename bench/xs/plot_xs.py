#!/usr/bin/python3
"""Scaling plot of `ferry bench xs` from its xs_scaling.csv. Needs matplotlib.

plot_xs.py --csv DIR/xs_scaling.csv --out-dir DIR [--title TEXT] [--cores N]"""
import argparse
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--csv", required=True)
    p.add_argument("--out-dir", required=True)
    p.add_argument("--title", default="ferry bench xs")
    p.add_argument("--cores", type=int, default=0, help="cores of the machine: the devices share them")
    a = p.parse_args()
    with open(a.csv, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"plot_xs.py: {a.csv} has no rows")
    k = [int(r["devices"]) for r in rows]
    fig, (strong, weak) = plt.subplots(1, 2, figsize=(10, 4))
    strong.plot(k, [float(r["strong_speedup"]) for r in rows], "o-", label="measured")
    strong.plot(k, k, "k--", lw=1, label="ideal")
    if a.cores:
        strong.plot(k, [min(n, a.cores) for n in k], "r:", lw=1, label=f"ideal on {a.cores} cores")
    strong.set_title("strong scaling: speed-up t(1)/t(k)", fontsize=10)
    weak.plot(k, [float(r["weak_efficiency"]) for r in rows], "o-", label="measured")
    weak.plot(k, [1.0] * len(k), "k--", lw=1, label="ideal")
    if a.cores:
        weak.plot(k, [min(1.0, a.cores / n) for n in k], "r:", lw=1, label=f"ideal on {a.cores} cores")
    weak.set_ylim(0, 1.2)
    weak.set_title("weak scaling: efficiency t(1)/t(k)", fontsize=10)
    for ax in (strong, weak):
        ax.set_xlabel("remote devices")
        ax.set_xticks(k)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(a.title, fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(a.out_dir, "xs_scaling.png"), dpi=110)


if __name__ == "__main__":
    main()
