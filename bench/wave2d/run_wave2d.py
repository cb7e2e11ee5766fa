#!/usr/bin/env python3
"""The figures of the wave-equation proxy app (bench/wave2d, docs/hybrid.md).

    bench/wave2d/run_wave2d.py BUILD_DIR OUT_DIR [--runs 5] [--reps 3] [--cores N]
        [--small NXxNY] [--large NXxNY] [--figures a,b,c,d] [--bind core|none] [--quick]

(a) cores    MPI-only against MPI+OpenMP at equal cores: C ranks x 1 thread (the baseline),
             C/2 x 2, ..., 1 x C, on a grid that fits the last-level cache and one that is
             far larger.
(b) schedule the MPI+OpenMP loop on 1 rank x C threads under each schedule kind; baseline
             static.
(c) blocking temporal blocking, depth 1..8 (tb: wavefront, one pass over memory per k steps;
             ghost: ghost-zone expansion alone), against the naive sweep of the same layout,
             on both grids.
(d) offload  wave2d_offload under `ferry run` on K remote devices against the same program
             on LLVM's stock plugin in-process (K devices in rank 0's process).

Every configuration is started --runs times, the configurations of a figure taking turns (so
that a disturbance hits them alike), each start timing --reps repetitions of its own; the
figure is the median over the starts of each start's median, with the min-max of those, and
the ratio to the figure's baseline in the same run (docs/benchmarking.md). Runs on the small
grid are checked against the serial reference (PASS needed; the same code runs on the large
grid, whose reference would take longer than the runs). Prints each table and writes, in
OUT_DIR: wave2d_<figure>.csv and .png, wave2d_summary.csv (all rows), wave2d.md (the
tables), wave2d_raw.csv (every start) and environment.txt.
"""
import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import time

ROW_FIELDS = ["figure", "grid", "config", "ranks", "threads", "variant", "schedule", "depth", "devices",
              "runs", "median_s", "min_s", "max_s", "mlups", "baseline", "ratio", "verified", "maxdiff"]


# ---- the machine and the build ----

def cache_value(build, key, default=""):
    with open(os.path.join(build, "CMakeCache.txt")) as f:
        for line in f:
            if line.startswith(key + ":"):
                return line.split("=", 1)[1].strip()
    return default


def llc_bytes():
    """Total size of the last-level cache (all instances), from lscpu; 32 MiB if unknown."""
    try:
        out = subprocess.run(["lscpu", "-B"], capture_output=True, text=True, check=True).stdout
        sizes = [int(m.group(2)) for m in re.finditer(r"^L(\d) cache:\s+(\d+)", out, re.M)]
        return max(sizes) if sizes else 32 << 20
    except (OSError, subprocess.CalledProcessError):
        return 32 << 20


def version_line(cmd):
    """The line of `cmd --version` that names the version (Open MPI's first, MPICH's "Version:")."""
    try:
        lines = subprocess.run(cmd, capture_output=True, text=True).stdout.splitlines()
    except OSError:
        return "?"
    line = next((x for x in lines if re.search(r"version|open mpi|openrte", x, re.I)), lines[0] if lines else "?")
    return " ".join(line.split())


def mpi_flavour(mpiexec):
    out = subprocess.run([mpiexec, "--version"], capture_output=True, text=True).stdout
    return "openmpi" if "Open MPI" in out or "OpenRTE" in out else "mpich"


# ---- starting programs ----

def launcher(ctx, ranks, threads):
    """The launcher command and environment for `ranks` x `threads`. The one place that knows
    the launcher's binding options (`ferry run` will take them over): each rank gets
    `threads` cores of its own, its threads one core each (OMP_PLACES=cores, close)."""
    env = {"OMP_NUM_THREADS": str(threads)}
    if ctx.flavour == "openmpi":
        cmd = [ctx.mpiexec, "-n", str(ranks)]
        if ctx.bind == "core" and ranks * threads <= ctx.cores:
            cmd += ["--bind-to", "core", "--map-by", f"slot:PE={threads}"]
            env.update(OMP_PLACES="cores", OMP_PROC_BIND="close")
        else:  # unbound: with OMP_PLACES every rank's threads would pile onto the first cores
            cmd += ["--bind-to", "none"]
        if ranks * threads > ctx.cores:
            cmd += ["--oversubscribe"]
    else:
        cmd = [ctx.mpiexec, "-n", str(ranks)]
        if ctx.bind == "core" and ranks * threads <= ctx.cores:
            cmd += ["-bind-to", f"core:{threads}"]
            env.update(OMP_PLACES="cores", OMP_PROC_BIND="close")
    return cmd, env


def run_program(cmd, env, timeout):
    full_env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", **env)
    out = subprocess.run(cmd, env=full_env, capture_output=True, text=True, timeout=timeout)
    # printf writes a NaN or infinite difference as nan/inf, which JSON spells NaN/Infinity.
    results = [json.loads(re.sub(r":(-?)inf\b", r":\1Infinity", line[len("RESULT "):]).replace(":nan", ":NaN"))
               for line in out.stdout.splitlines() if line.startswith("RESULT ")]
    if out.returncode != 0 or not results or not results[-1]["pass"]:
        sys.exit(f"run_wave2d: FAIL: {' '.join(cmd)} exited {out.returncode}:\n{out.stdout}{out.stderr}")
    return results[-1]


def start(ctx, cfg):
    """One start of a configuration; returns its RESULT record."""
    args = ["--grid", cfg["grid"], "--steps", str(cfg["steps"]), "--reps", str(ctx.reps)]
    if not cfg["verify"]:
        args.append("--no-verify")
    if cfg["variant"] == "offload":
        program = [os.path.join(ctx.build, "bin", "wave2d_offload"), "--devices", str(cfg["devices"])] + args
        if cfg["plugin"] == "ferry":
            return run_program([ctx.ferry, "run", "-n", str(cfg["devices"] + 1)] + program, {}, ctx.timeout)
        # The stock plugins are found through LLVM's directory (docs/user-guide.md, "Troubleshooting").
        path = ":".join(p for p in [ctx.llvm_libdir, os.environ.get("LD_LIBRARY_PATH", "")] if p)
        return run_program(program, {"LD_LIBRARY_PATH": path}, ctx.timeout)
    cmd, env = launcher(ctx, cfg["ranks"], cfg["threads"])
    cmd += [os.path.join(ctx.build, "bin", "wave2d"), "--variant", cfg["variant"], "--schedule", cfg["schedule"],
            "--depth", str(cfg["depth"])] + args
    return run_program(cmd, env, ctx.timeout)


def measure(ctx, figure, configs, raw):
    """Every configuration --runs times, taking turns; one summary row per configuration."""
    per = {c["config"] + c["grid"]: [] for c in configs}
    for run in range(ctx.runs):
        for c in configs:
            t0 = time.monotonic()
            r = start(ctx, c)
            per[c["config"] + c["grid"]].append(r)
            raw.append({"figure": figure, "run": run, "grid": c["grid"], "config": c["config"],
                        "median_s": r["median_s"], "min_s": r["min_s"], "max_s": r["max_s"],
                        "maxdiff": r["maxdiff"], "wall_s": round(time.monotonic() - t0, 2),
                        "load1": round(os.getloadavg()[0], 2)})
    rows = [summarize(figure, c, per[c["config"] + c["grid"]]) for c in configs]
    for row in rows:  # ratio: the baseline's time over this one's (> 1: faster than the baseline)
        base = next(r for r in rows if r["grid"] == row["grid"] and r["config"] == row["baseline"])
        row["ratio"] = round(base["median_s"] / row["median_s"], 3)
    return rows


def summarize(figure, cfg, results):
    medians = [r["median_s"] for r in results]
    nx, ny = (int(v) for v in cfg["grid"].split("x"))
    med = statistics.median(medians)
    return {"figure": figure, "grid": cfg["grid"], "config": cfg["config"], "ranks": cfg.get("ranks", ""),
            "threads": cfg.get("threads", ""), "variant": cfg["variant"], "schedule": cfg.get("schedule", ""),
            "depth": cfg.get("depth", ""), "devices": cfg.get("devices", ""), "runs": len(results),
            "median_s": med, "min_s": min(medians), "max_s": max(medians),
            "mlups": round(nx * ny * cfg["steps"] / med / 1e6, 1), "baseline": cfg["baseline"], "ratio": "",
            "verified": "yes" if cfg["verify"] else "no (small grid checks the code)",
            "maxdiff": max(r["maxdiff"] for r in results) if cfg["verify"] else ""}


# ---- the figures ----

def cfg(config, grid, steps, verify, baseline, variant, ranks=1, threads=1, schedule="static", depth=1, **extra):
    return dict(config=config, grid=grid, steps=steps, verify=verify, baseline=baseline, variant=variant,
                ranks=ranks, threads=threads, schedule=schedule, depth=depth, **extra)


def layouts(cores):
    """R x T with R * T = cores, most ranks first: 16x1, 8x2, 4x4, 2x8, 1x16."""
    return [(r, cores // r) for r in range(cores, 0, -1) if cores % r == 0]


def figure_cores(ctx, grids):
    out = []
    for grid, steps, verify in grids:
        base = f"{ctx.cores}x1"
        for r, t in layouts(ctx.cores):
            out.append(cfg(f"{r}x{t}", grid, steps, verify, base, "mpi" if t == 1 else "hybrid", r, t))
    return out


def figure_schedule(ctx, grids):
    kinds = ["static", "static,1", "dynamic", "guided"]
    grid, steps, verify = grids[-1]
    return [cfg(k, grid, steps, verify, "static", "hybrid", 1, ctx.cores, schedule=k) for k in kinds]


def figure_blocking(ctx, grids):
    r, t = ctx.tb_layout
    out = []
    for grid, steps, verify in grids:
        out.append(cfg("naive", grid, steps, verify, "naive", "mpi" if t == 1 else "hybrid", r, t))
        out += [cfg(f"tb{k}", grid, steps, verify, "naive", "tb", r, t, depth=k) for k in ctx.depths]
        out += [cfg(f"ghost{k}", grid, steps, verify, "naive", "ghost", r, t, depth=k) for k in ctx.ghost_depths]
    return out


def figure_offload(ctx, grids):
    grid, steps, verify = ctx.offload_grid, ctx.offload_steps, True
    out = []
    for k in range(1, ctx.devices + 1):
        for plugin in ("stock", "ferry"):
            out.append(cfg(f"{plugin}{k}", grid, steps, verify, f"stock{k}", "offload", plugin=plugin, devices=k,
                           ranks=k + 1 if plugin == "ferry" else 1, threads="", schedule="", depth=""))
    return out


FIGURES = {"a": ("cores", figure_cores), "b": ("schedule", figure_schedule),
           "c": ("blocking", figure_blocking), "d": ("offload", figure_offload)}


# ---- output ----

def fmt(v):
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def table(rows, title):
    cols = ["grid", "config", "ranks", "threads", "variant", "schedule", "depth", "devices", "median_s", "min_s",
            "max_s", "mlups", "ratio", "verified", "maxdiff"]
    cols = [c for c in cols if any(str(r[c]) != "" for r in rows)]
    cells = [[fmt(r[c]) for c in cols] for r in rows]
    widths = [max(len(c), *(len(x[i]) for x in cells)) for i, c in enumerate(cols)]
    lines = [f"## {title}", "| " + " | ".join(c.ljust(w) for c, w in zip(cols, widths)) + " |",
             "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    lines += ["| " + " | ".join(x.ljust(w) for x, w in zip(line, widths)) + " |" for line in cells]
    return "\n".join(lines)


def write_csv(path, rows, fields):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)


def plot(ctx, csv_path, png_path, title):
    """The figure's PNG, drawn by plot_wave2d.py in --python (which needs matplotlib)."""
    if subprocess.run([ctx.python, "-c", "import matplotlib"], capture_output=True).returncode != 0:
        return f"plot skipped: {ctx.python} has no matplotlib (apt-get install python3-matplotlib, or --python)"
    here = os.path.dirname(os.path.abspath(__file__))
    done = subprocess.run([ctx.python, os.path.join(here, "plot_wave2d.py"), "--csv", csv_path, "--png", png_path,
                           "--title", title], capture_output=True, text=True)
    return f"plot: {png_path}" if done.returncode == 0 else f"plot failed: {done.stderr.strip()}"


# ---- main ----

def environment(ctx, argv):
    here = os.path.dirname(os.path.abspath(__file__))
    commit = subprocess.run(["git", "-C", here, "describe", "--always", "--dirty"], capture_output=True,
                            text=True).stdout.strip() or "unknown"
    mpi = version_line([ctx.mpiexec, "--version"])
    compilers = [version_line([cache_value(ctx.build, key, "cc"), "--version"]) for key in ("CMAKE_C_COMPILER",
                                                                                          "FERRY_OFFLOAD_CC")]
    model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
                 "unknown")
    return "\n".join([
        f"command: {' '.join(argv)}", f"commit: {commit}", f"date: {time.strftime('%Y-%m-%d %H:%M')}",
        f"machine: {os.cpu_count()} cores, {model}, last-level cache {ctx.llc >> 20} MiB",
        f"cores used: {ctx.cores}; binding: {ctx.bind}; launcher: {ctx.mpiexec} ({ctx.flavour}, {mpi})",
        f"compilers: wave2d {compilers[0]}; wave2d_offload {compilers[1]}; WAVE2D_ARCH "
        f"{cache_value(ctx.build, 'WAVE2D_ARCH') or '(default)'}",
        f"grids: small {ctx.small} (fits the cache), large {ctx.large} "
        f"({ctx.large_bytes >> 20} MiB of arrays, {ctx.large_bytes / ctx.llc:.0f}x the cache)",
        f"runs {ctx.runs} x reps {ctx.reps}; load average at start {os.getloadavg()[0]:.2f}"])


def default_grids(llc, quick):
    """Small: its 4 arrays (u^{n-1}, u^n, p, g) take a quarter of the cache. Large: 16 times
    the cache, so that every naive sweep streams from memory."""
    if quick:
        return "96x80", "256x192"
    small = max(64, int((llc / 4 / 32) ** 0.5) // 64 * 64)
    large = max(2048, int((16 * llc / 32) ** 0.5) // 256 * 256)
    return f"{small}x{small}", f"{large}x{large}"


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("build")
    p.add_argument("out")
    p.add_argument("--runs", type=int, default=5, help="starts of each configuration (the median is over them)")
    p.add_argument("--reps", type=int, default=3, help="timed repetitions inside each start")
    p.add_argument("--cores", type=int, default=os.cpu_count(), help="total cores of figures (a)-(c)")
    p.add_argument("--small", help="NXxNY of the in-cache grid (default: from the last-level cache)")
    p.add_argument("--large", help="NXxNY of the out-of-cache grid (default: 16x the last-level cache)")
    p.add_argument("--small-steps", type=int, default=200)
    p.add_argument("--large-steps", type=int, default=32)
    p.add_argument("--depths", default="1,2,3,4,5,6,7,8", help="tb depths of figure (c)")
    p.add_argument("--ghost-depths", default="2,4,8", help="ghost depths of figure (c)")
    p.add_argument("--tb-layout", default=None, help="RxT of figure (c) (default: cores x 1)")
    p.add_argument("--devices", type=int, default=2, help="figure (d) on 1..K devices")
    p.add_argument("--offload-grid", default="1024x1024")
    p.add_argument("--offload-steps", type=int, default=50)
    p.add_argument("--figures", default="a,b,c,d")
    p.add_argument("--bind", choices=["core", "none"], default="core")
    p.add_argument("--timeout", type=float, default=600, help="seconds one start may take")
    p.add_argument("--python", default="/usr/bin/python3", help="the python with matplotlib that draws the plots")
    p.add_argument("--quick", action="store_true",
                   help="tiny grids, 1 start of 1 rep, depths 1 and 3, 1 device: checks the script end to end")
    return p.parse_args(argv)


def context(a):
    a.build = os.path.abspath(a.build)
    a.mpiexec = cache_value(a.build, "MPIEXEC_EXECUTABLE", "mpiexec")
    a.flavour = mpi_flavour(a.mpiexec)
    a.ferry = os.path.join(a.build, "bin", "ferry")
    a.llvm_libdir = cache_value(a.build, "FERRY_LLVM_LIBDIR", "/usr/lib/llvm-16/lib")
    a.llc = llc_bytes()
    if a.quick:
        a.runs, a.reps, a.cores, a.depths, a.ghost_depths, a.devices = 1, 1, min(2, a.cores), "1,3", "2", 1
        a.small_steps, a.large_steps, a.offload_grid, a.offload_steps = 16, 8, "128x96", 8
    small, large = default_grids(a.llc, a.quick)
    a.small, a.large = a.small or small, a.large or large
    nx, ny = (int(v) for v in a.large.split("x"))
    a.large_bytes = 4 * 8 * nx * ny
    a.depths = [int(d) for d in a.depths.split(",")]
    a.ghost_depths = [int(d) for d in a.ghost_depths.split(",") if d]
    a.tb_layout = tuple(int(v) for v in a.tb_layout.split("x")) if a.tb_layout else (a.cores, 1)
    return a


def main(argv):
    ctx = context(parse_args(argv[1:]))
    os.makedirs(ctx.out, exist_ok=True)
    env_text = environment(ctx, argv)
    print(env_text)
    with open(os.path.join(ctx.out, "environment.txt"), "w") as f:
        f.write(env_text + "\n")
    grids = [(ctx.small, ctx.small_steps, True), (ctx.large, ctx.large_steps, False)]
    raw, every, tables = [], [], []
    for key in ctx.figures.split(","):
        name, make = FIGURES[key]
        rows = measure(ctx, name, make(ctx, grids), raw)
        title = f"({key}) {name}: median of {ctx.runs} starts x {ctx.reps} reps; ratio = baseline time / time"
        tables.append(table(rows, title))
        print("\n" + tables[-1])
        write_csv(os.path.join(ctx.out, f"wave2d_{name}.csv"), rows, ROW_FIELDS)
        print(plot(ctx, os.path.join(ctx.out, f"wave2d_{name}.csv"), os.path.join(ctx.out, f"wave2d_{name}.png"),
                   title))
        every += rows
    write_csv(os.path.join(ctx.out, "wave2d_summary.csv"), every, ROW_FIELDS)
    write_csv(os.path.join(ctx.out, "wave2d_raw.csv"), raw, list(raw[0].keys()) if raw else ["figure"])
    with open(os.path.join(ctx.out, "wave2d.md"), "w") as f:
        f.write("\n\n".join(tables) + "\n")
    print(f"\nwritten: {os.path.join(ctx.out, 'wave2d_summary.csv')}, wave2d_raw.csv, wave2d.md, environment.txt, "
          f"per figure wave2d_<figure>.csv/.png")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
