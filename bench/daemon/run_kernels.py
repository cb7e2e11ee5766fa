#!/usr/bin/python3
"""The seed's kernels on a co-processor, two ways (docs/daemon.md, "The seed's kernels"): each
of a stencil, an embarrassingly parallel kernel and a lattice-Boltzmann sweep as OpenMP offload
to a daemon's device (kernels/*_offload.c, one process with FERRY_REMOTE) and as an MPI
program where the co-processor runs rank 1 (kernels/*_mpi.c). Both listings check their result
against the serial reference; this script times them (median of --reps runs, the time each
program reports from sending the data to having the result back; the MPI listing with one
thread on rank 1 and with --threads, the faster counting), counts their lines of code
(non-blank lines that are not only a comment; the shared headers are not counted) and writes
DIR/kernels.csv, DIR/kernels.png and DIR/kernels.md.

  run_kernels.py --build BUILD_DIR [--reps 3] [--threads 2] [--out-dir DIR] [--mpiexec mpiexec]"""
import argparse
import csv
import os
import re
import statistics
import subprocess
import sys
import tempfile

from daemon_common import daemon, ferry_env, mpiexec_args, write_token

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = ["stencil", "ep", "lbm"]


def lines_of_code(path):
    n, in_block = 0, False
    for line in open(path):
        s = line.strip()
        if in_block:
            in_block = "*/" not in s
            continue
        if s.startswith("/*"):
            in_block = "*/" not in s
            continue
        if s and not s.startswith("//"):
            n += 1
    return n


def run(cmd, env):
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    m = re.search(r"seconds=([0-9.]+) .* verified=(\d)", p.stdout)
    if p.returncode != 0 or not m or m.group(2) != "1":
        sys.exit(f"run_kernels: {' '.join(cmd)} failed (exit {p.returncode}):\n{p.stdout}{p.stderr}")
    return float(m.group(1))


def measure(a, tmp):
    ferry = os.path.join(a.build, "bin", "ferry")
    token, sock = os.path.join(tmp, "token"), os.path.join(tmp, "sock")
    write_token(token)
    env = ferry_env(ferry)
    env.update(OMP_NUM_THREADS=str(a.threads), OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    offload_env = dict(env, FERRY_REMOTE="unix:" + sock, FERRY_REMOTE_TOKEN_FILE=token, FERRY_GPUS_PER_RANK="0")
    mpi = [a.mpiexec, "-n", "2"] + mpiexec_args(a.mpiexec) + (["-x", "OMP_NUM_THREADS"] if a.mpiexec.endswith("mpiexec") else [])
    rows = []
    with daemon(ferry, "unix:" + sock, token, subprocess.DEVNULL, env):
        for k in KERNELS:
            t_off = [run([os.path.join(a.build, "bin", f"{k}_offload")], offload_env) for _ in range(a.reps)]
            # The co-processor's rank with one thread, and with --threads: on one machine, rank 0's
            # MPI wait polls a core that the rank's threads would otherwise have.
            t_mpi = {n: statistics.median([run(mpi + [os.path.join(a.build, "bin", f"{k}_mpi")],
                                               dict(env, OMP_NUM_THREADS=str(n))) for _ in range(a.reps)])
                     for n in sorted({1, a.threads})}
            rows.append({"kernel": k, "offload_s": statistics.median(t_off), "mpi_s": min(t_mpi.values()),
                         "mpi_threads": min(t_mpi, key=t_mpi.get),
                         "mpi_all": " ".join(f"{n}t:{t:.4f}" for n, t in t_mpi.items()),
                         "offload_loc": lines_of_code(os.path.join(HERE, "kernels", f"{k}_offload.c")),
                         "mpi_loc": lines_of_code(os.path.join(HERE, "kernels", f"{k}_mpi.c"))})
            rows[-1]["time_ratio"] = rows[-1]["offload_s"] / rows[-1]["mpi_s"]
            print(f"{k}: offload {rows[-1]['offload_s']:.4f} s, MPI {rows[-1]['mpi_all']} s", flush=True)
    return rows


def report(rows, out_dir):
    with open(os.path.join(out_dir, "kernels.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    md = ["| kernel | offload to the daemon | MPI, co-processor as rank 1 (its best thread count) | MPI, each "
          "thread count | time ratio (offload / MPI) | lines: offload | lines: MPI |",
          "|---|---|---|---|---|---|---|"]
    for r in rows:
        md.append(f"| {r['kernel']} | {r['offload_s'] * 1e3:.1f} ms | {r['mpi_s'] * 1e3:.1f} ms ({r['mpi_threads']} "
                  f"thread(s)) | {r['mpi_all']} s | {r['time_ratio']:.2f} | {r['offload_loc']} | {r['mpi_loc']} |")
    with open(os.path.join(out_dir, "kernels.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (t, loc) = plt.subplots(1, 2, figsize=(10, 4))
    x = range(len(rows))
    for ax, key, unit, title in ((t, "_s", "ms", "time"), (loc, "_loc", "lines", "lines of code")):
        scale = 1e3 if key == "_s" else 1
        ax.bar([i - 0.2 for i in x], [r["offload" + key] * scale for r in rows], 0.4, label="OpenMP offload to the daemon")
        ax.bar([i + 0.2 for i in x], [r["mpi" + key] * scale for r in rows], 0.4, label="MPI, co-processor as rank 1")
        ax.set_xticks(list(x), [r["kernel"] for r in rows])
        ax.set_ylabel(unit)
        ax.set_title(title)
    t.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, "kernels.png"), dpi=110)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2, help="OpenMP threads of the co-processor's rank (MPI)")
    ap.add_argument("--out-dir", default="ferry-bench-kernels")
    ap.add_argument("--mpiexec", default="mpiexec")
    a = ap.parse_args()
    a.build = os.path.abspath(a.build)
    os.makedirs(a.out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="ferry-kernels-") as tmp:
        rows = measure(a, tmp)
    report(rows, a.out_dir)


if __name__ == "__main__":
    main()
