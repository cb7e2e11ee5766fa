#!/usr/bin/python3
"""One figure of run_wave2d.py: the ratio to the baseline per configuration, a panel per
grid, from its wave2d_<figure>.csv. Needs matplotlib.

plot_wave2d.py --csv OUT/wave2d_blocking.csv --png OUT/wave2d_blocking.png [--title TEXT]"""
import argparse
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--csv", required=True)
    p.add_argument("--png", required=True)
    p.add_argument("--title", default="bench/wave2d")
    a = p.parse_args()
    with open(a.csv, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"plot_wave2d.py: {a.csv} has no rows")
    grids = list(dict.fromkeys(r["grid"] for r in rows))
    fig, axes = plt.subplots(1, len(grids), figsize=(5 * len(grids), 3.6), squeeze=False)
    for ax, grid in zip(axes[0], grids):
        sel = [r for r in rows if r["grid"] == grid]
        ax.bar(range(len(sel)), [float(r["ratio"]) for r in sel], color="tab:blue")
        ax.axhline(1.0, color="k", lw=1, ls="--")
        if sel[0]["figure"] == "blocking":  # the target: tb >= 1.5x the naive sweep out of cache
            ax.axhline(1.5, color="r", lw=1, ls=":", label="target 1.5x")
            ax.legend(fontsize=7)
        ax.set_xticks(range(len(sel)))
        ax.set_xticklabels([r["config"] for r in sel], rotation=45, ha="right", fontsize=7)
        ax.set_ylabel(f"speed-up vs {sel[0]['baseline']} (higher is faster)", fontsize=8)
        ax.set_title(f"{sel[0]['figure']}, grid {grid}", fontsize=9)
        ax.grid(True, axis="y", alpha=0.3)
    fig.suptitle(a.title, fontsize=8)
    fig.tight_layout()
    fig.savefig(a.png, dpi=110)


if __name__ == "__main__":
    main()
