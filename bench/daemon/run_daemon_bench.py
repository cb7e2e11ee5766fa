#!/usr/bin/python3
"""The device daemon's figures (docs/daemon.md, "Figures"): starts a native `ferry serve` on a
Unix socket and on TCP loopback, runs daemon_bench on two ranks with FERRY_REMOTE naming it (a
rank's device, then the daemon's), and writes DIR/daemon-<channel>.csv, DIR/daemon.png and a
Markdown table of the ratios to the raw transport of the same run.

  run_daemon_bench.py --build BUILD_DIR [--out-dir DIR] [--quick] [--channels unix,tcp] [--report-only]

--report-only redraws the plot and the table from the CSVs already in DIR.

Run it where the suite is not running: the figures are timings of a 2-core machine."""
import argparse
import csv
import os
import socket
import subprocess
import sys
import tempfile

from daemon_common import daemon, ferry_env, mpiexec_args, write_token


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_channel(a, channel, tmp, token):
    address = "unix:" + os.path.join(tmp, "sock") if channel == "unix" else f"127.0.0.1:{free_port()}"
    ferry = os.path.join(a.build, "bin", "ferry")
    csv_path = os.path.join(a.out_dir, f"daemon-{channel}.csv")
    with open(os.path.join(a.out_dir, f"daemon-{channel}.log"), "w") as log, daemon(ferry, address, token, log):
        env = ferry_env(ferry)
        env.update(FERRY_REMOTE=address, FERRY_REMOTE_TOKEN_FILE=token, FERRY_GPUS_PER_RANK="0",
                   OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        cmd = [a.mpiexec, "-n", "2"] + mpiexec_args(a.mpiexec)
        cmd += [os.path.join(a.build, "bin", "daemon_bench"), "--out", csv_path] + (["--quick"] if a.quick else [])
        print(f"== {channel}: {' '.join(cmd)}", flush=True)
        subprocess.run(cmd, env=env, check=True, timeout=1800)
    with open(csv_path, newline="") as f:
        return [dict(r, channel=channel) for r in csv.DictReader(f)]


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (lat, bw) = plt.subplots(1, 2, figsize=(12, 4.5))
    labels, ferry, raw = [], [], []
    for r in rows:
        if r["kind"] == "rank" and r["channel"] != rows[0]["channel"]:
            continue  # the rank's device does not depend on the daemon's channel
        if r["metric"] == "latency_us":
            labels.append(f"{r['kind']}\n({r['channel'] if r['kind'] == 'daemon' else 'MPI'})")
            ferry.append(float(r["ferry"]))
            raw.append(float(r["baseline"]))
    x = range(len(labels))
    lat.bar([i - 0.2 for i in x], ferry, 0.4, label="empty target region")
    lat.bar([i + 0.2 for i in x], raw, 0.4, label="raw 1 B round trip, same transport")
    lat.set_xticks(list(x), labels)
    lat.set_ylabel("µs")
    lat.set_title("region latency")
    lat.legend()
    for channel in sorted({r["channel"] for r in rows}):
        for kind, style in (("daemon", "-"), ("rank", ":")):
            if kind == "rank" and channel != sorted({r["channel"] for r in rows})[0]:
                continue  # the rank's device does not depend on the daemon's channel
            sel = [r for r in rows if r["channel"] == channel and r["kind"] == kind and r["metric"] == "to_GBps"]
            if not sel:
                continue
            name = f"daemon ({channel})" if kind == "daemon" else "rank (MPI)"
            sizes = [int(r["size"]) for r in sel]
            bw.plot(sizes, [float(r["ferry"]) for r in sel], style, marker="o", label=f"{name}: update to")
            bw.plot(sizes, [float(r["baseline"]) for r in sel], style, marker="x", label=f"{name}: raw transport")
    bw.set_xscale("log", base=2)
    bw.set_xlabel("bytes")
    bw.set_ylabel("GB/s")
    bw.set_title("map bandwidth")
    bw.grid(True, alpha=0.3)
    bw.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def table(rows):
    lines = ["| channel | device | metric | bytes | Ferry | raw transport | ratio |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["kind"] == "rank" and r["channel"] != rows[0]["channel"]:
            continue
        unit = "µs" if r["metric"] == "latency_us" else "GB/s"
        channel = r["channel"] if r["kind"] == "daemon" else "MPI"
        metric = r["metric"].replace("_us", "").replace("_GBps", "")
        lines.append(f"| {channel} | {r['kind']} | {metric} | {r['size'] if r['size'] != '0' else '-'} | "
                     f"{float(r['ferry']):.2f} {unit} | {float(r['baseline']):.2f} {unit} | {float(r['ratio']):.2f} |")
    return "\n".join(lines)


def measure(a):
    rows = []
    with tempfile.TemporaryDirectory(prefix="ferry-daemon-bench-") as tmp:
        token = os.path.join(tmp, "token")
        write_token(token)
        for channel in a.channels.split(","):
            rows += run_channel(a, channel, tmp, token)
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--out-dir", default="ferry-bench-daemon")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--channels", default="unix,tcp")
    ap.add_argument("--mpiexec", default="mpiexec")
    ap.add_argument("--report-only", action="store_true")
    a = ap.parse_args()
    a.build = os.path.abspath(a.build)
    os.makedirs(a.out_dir, exist_ok=True)
    if a.report_only:
        rows = []
        for channel in a.channels.split(","):
            with open(os.path.join(a.out_dir, f"daemon-{channel}.csv"), newline="") as f:
                rows += [dict(r, channel=channel) for r in csv.DictReader(f)]
    else:
        rows = measure(a)
    bad = [r for r in rows if not (float(r["ferry"]) > 0 and float(r["baseline"]) > 0)]
    if bad:
        sys.exit(f"run_daemon_bench: measurements without a value (failed baselines?): {bad}")
    plot(rows, os.path.join(a.out_dir, "daemon.png"))
    md = table(rows)
    with open(os.path.join(a.out_dir, "daemon.md"), "w") as f:
        f.write(md + "\n")
    print(md)
    print(f"run_daemon_bench: CSV, daemon.png and daemon.md in {a.out_dir}")


if __name__ == "__main__":
    main()
