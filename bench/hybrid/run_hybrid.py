#!/usr/bin/python3
"""The hybrid MPI+OpenMP micro-studies (docs/hybrid.md, "Micro-studies"): runs
BUILD/bin/hybrid_bench for each study and the binding study, prints a table per study, and
writes into OUT a CSV and a PNG per study, hybrid.md (the same tables in Markdown, for the
docs) and environment.txt.

    /usr/bin/python3 bench/hybrid/run_hybrid.py BUILD OUT [--reps 5] [--quick] [--studies ...]
        [--piled taskset|mpirun] [--launcher omp|mpirun|ferry] [--binding-threads T]

Studies: bandwidth (STREAM copy/triad per thread count, the saturation point), schedule (a
3-row stencil under five OpenMP schedules), false-sharing (per-thread counters 8..256 bytes
apart, padded and unpadded state), compute (a compute-bound kernel per thread count) and
binding (the compute kernel and the triad with T threads piled on one core against spread
over T cores). The first four run with OMP_PLACES=cores OMP_PROC_BIND=close (--bind).
Each figure is a median over repetitions; the binding study's ratio is the median over
--binding-runs interleaved runs of each run's spread/piled ratio. Uses Debian's
python3-matplotlib (hence /usr/bin/python3); without it the plots are skipped and said so."""
import argparse
import csv
import os
import platform
import shlex
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from build_cache import cache_value  # noqa: E402  (bench/build_cache.py)
import time

STUDIES = ["bandwidth", "schedule", "false-sharing", "compute", "binding"]


def program(a):
    return os.path.join(a.build, "bin", "hybrid_bench")


def base_env():
    """This process's environment without the OpenMP binding variables: each run sets its own."""
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "OMP_PLACES", "OMP_PROC_BIND")}
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    return env


def run(cmd, env, log):
    """Runs one hybrid_bench command: its '#' lines and its CSV rows (dicts)."""
    omp = [f"{k}={env[k]}" for k in ("OMP_NUM_THREADS", "OMP_PLACES", "OMP_PROC_BIND") if k in env]
    log.append("$ " + " ".join(omp + [shlex.join(cmd)]))
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=3600)
    except OSError as e:  # a launcher that is not there (taskset, mpirun, BUILD/bin/ferry)
        sys.exit(f"run_hybrid: cannot start {shlex.join(cmd)}: {e}")
    if proc.returncode != 0:
        sys.exit(f"run_hybrid: {shlex.join(cmd)} failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}")
    lines = proc.stdout.splitlines()
    comments = [line for line in lines if line.startswith("#")]
    rows = list(csv.DictReader(line for line in lines if line and not line.startswith("#")))
    return comments, rows


# ---- the binding study's launchers: THE one place that decides how a run is bound ----------

def mpi_flavour(a):
    launcher = cache_value(a.build, "MPIEXEC_EXECUTABLE", "mpirun")
    version = subprocess.run([launcher, "--version"], capture_output=True, text=True).stdout
    return launcher, ("openmpi" if "Open MPI" in version or "OpenRTE" in version else "mpich")


def launch(mode, threads, argv, a):
    """(command, environment) for one binding-study run of argv with `threads` OpenMP threads.

    piled:  the process bound to one core, its threads inherit that core (--piled):
            taskset -c FIRST_CPU, or mpirun --bind-to core -np 1 (Open MPI's default binding
            for np <= 2, which is how a hybrid job ends up piled without asking).
    spread: one core per thread (--launcher):
            omp     OMP_PLACES=cores OMP_PROC_BIND=spread, the process unbound;
            mpirun  the rank given T cores (Open MPI --map-by slot:PE=T, MPICH -bind-to core:T),
                    its threads spread over them by OMP_PLACES/OMP_PROC_BIND;
            ferry   `ferry run -n 1` (HOOK: when `ferry run` binds ranks and threads itself,
                    put its options in FERRY_SPREAD_ARGS and drop the OMP_* variables here)."""
    env = dict(base_env(), OMP_NUM_THREADS=str(threads))
    if mode == "piled":
        if a.piled == "taskset":
            return ["taskset", "-c", str(min(os.sched_getaffinity(0))), *argv], env
        launcher, flavour = mpi_flavour(a)
        bind = ["--bind-to", "core"] if flavour == "openmpi" else ["-bind-to", "core"]
        return [launcher, "-np", "1", *bind, *argv], env
    env.update(OMP_PLACES="cores", OMP_PROC_BIND="spread")
    if a.launcher == "omp":
        return list(argv), env
    if a.launcher == "mpirun":
        launcher, flavour = mpi_flavour(a)
        bind = (["--map-by", f"slot:PE={threads}", "--bind-to", "core"] if flavour == "openmpi"
                else ["-bind-to", f"core:{threads}"])
        return [launcher, "-np", "1", *bind, *argv], env
    return [os.path.join(a.build, "bin", "ferry"), "run", "-n", "1", *FERRY_SPREAD_ARGS, "--", *argv], env


FERRY_SPREAD_ARGS = []  # `ferry run`'s own binding options, once it has them (see launch)


def study_env(a):
    return dict(base_env(), OMP_PLACES="cores", OMP_PROC_BIND=a.bind)


# ---- the four studies -------------------------------------------------------------------

def fmt(v, digits=3):
    v = float(v)
    return f"{v:.0f}" if abs(v) >= 10 ** digits else f"{v:.{digits}g}"


def span(lo, hi):
    return f"{fmt(lo)}–{fmt(hi)}"


def ms(seconds):
    return 1e3 * float(seconds)


def bandwidth(a, log):
    args = ["bandwidth", "--reps", str(a.reps)] + (["--threads", a.threads] if a.threads else []) \
        + (["--size", a.size] if a.size else [])
    comments, rows = run([program(a), *args], study_env(a), log)
    by = {(r["kernel"], int(r["threads"])): r for r in rows}
    counts = sorted({int(r["threads"]) for r in rows})
    one = float(by[("triad", counts[0])]["gbs_median"])
    table = [[t, fmt(by[("copy", t)]["gbs_median"]), span(by[("copy", t)]["gbs_min"], by[("copy", t)]["gbs_max"]),
              fmt(by[("triad", t)]["gbs_median"]), span(by[("triad", t)]["gbs_min"], by[("triad", t)]["gbs_max"]),
              fmt(float(by[("triad", t)]["gbs_median"]) / one), by[("triad", t)]["binding"]] for t in counts]
    notes = [c.lstrip("# ") for c in comments if c.startswith("# saturation") or "NOT 4x" in c]
    head = ["threads", "copy GB/s", "min–max", "triad GB/s", "min–max", f"triad / {counts[0]} thr", "CPUs"]
    return rows, head, table, notes


def schedule(a, log):
    args = ["schedule", "--reps", str(a.reps), "--rows", str(a.rows), "--cols", str(a.cols), "--sweeps", str(a.sweeps),
            "--chunk", str(a.chunk)] + (["--threads", a.threads.split(",")[-1].split("-")[-1]] if a.threads else [])
    _, rows = run([program(a), *args], study_env(a), log)
    ref = rows[0]["checksum"]
    table = [[label(r), fmt(ms(r["seconds_median"])), span(ms(r["seconds_min"]), ms(r["seconds_max"])), fmt(r["ratio_to_static"]),
              span(r["ratio_min"], r["ratio_max"]), fmt(r["gbs"]), "yes" if r["checksum"] == ref else "NO"]
             for r in rows]
    notes = [f"{rows[0]['threads']} threads, {rows[0]['rows']}x{rows[0]['cols']} doubles, {rows[0]['sweeps']} sweeps "
             "per measurement; GB/s counts each row read once and written once"]
    return rows, ["schedule", "ms", "min–max", "/ static", "min–max", "GB/s", "same result"], table, notes


def label(r):
    if r["kind"] == "static":
        return "static" if r["chunk"] == "0" else f"static,{r['chunk']}"
    if r["kind"] == "guided":
        return "guided"
    return "dynamic" if r["chunk"] == "1" else f"dynamic,{r['chunk']}"


def false_sharing(a, log):
    args = ["false-sharing", "--reps", str(a.reps), "--iters", str(a.iters), "--threads", str(a.fs_threads),
            "--access", a.access]
    _, rows = run([program(a), *args], study_env(a), log)
    names = {"distance": "counters {} B apart", "unpadded": "struct array, unpadded ({} B)",
             "padded64": "struct array, alignas(64)", "padded128": "struct array, alignas(128)"}
    table = [[names[r["variant"]].format(r["distance_bytes"]), fmt(r["ns_median"]), span(r["ns_min"], r["ns_max"]),
              fmt(r["ratio_to_padded"]), span(r["ratio_min"], r["ratio_max"])] for r in rows]
    notes = [f"{rows[0]['threads']} threads on CPUs {rows[0]['binding']}, {rows[0]['iters']} {rows[0]['access']} "
             "increments each; ratio to the alignas(128) state"]
    return rows, ["layout", "ns / increment", "min–max", "/ padded", "min–max"], table, notes


def compute(a, log):
    args = ["compute", "--reps", str(a.reps), "--elements", str(a.elements), "--work", str(a.work)] \
        + (["--threads", a.threads] if a.threads else [])
    _, rows = run([program(a), *args], study_env(a), log)
    table = [[r["threads"], fmt(ms(r["seconds_median"])), span(ms(r["seconds_min"]), ms(r["seconds_max"])), fmt(r["speedup"]),
              fmt(r["efficiency"]), r["binding"]] for r in rows]
    return rows, ["threads", "ms", "min–max", "speed-up", "efficiency", "CPUs"], table, []


# ---- the binding study --------------------------------------------------------------------

def cpu_set(mask):
    """hybrid_bench's "0-3+8" -> {0, 1, 2, 3, 8}."""
    out = set()
    for part in mask.split("+"):
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out


def core_of(cpu):
    """(package, core) of a CPU: SMT siblings share it (OMP_PLACES=cores gives a thread both)."""
    topo = f"/sys/devices/system/cpu/cpu{cpu}/topology"
    try:
        return tuple(open(f"{topo}/{name}").read().strip() for name in ("physical_package_id", "core_id"))
    except OSError:
        return ("?", str(cpu))


def bound_as_asked(mode, cpus):
    """piled: every thread allowed the same one core; spread: no two threads share a core."""
    try:
        cores = [{core_of(c) for c in cpu_set(m)} for m in cpus.split(";")]
    except ValueError:  # "-" or "?": a thread missing, or its mask unknown
        return False
    if mode == "piled":
        return all(c == cores[0] for c in cores) and len(cores[0]) == 1
    return all(len(c) == 1 for c in cores) and len(set().union(*cores)) == len(cores)


def binding_kernel(a, log, name, args, column, higher_is_better):
    """Interleaved runs of one kernel piled and spread; its binding.csv row."""
    t = a.binding_threads
    figures, ratios, cpus = {"piled": [], "spread": []}, [], {}
    for _ in range(a.binding_runs):
        got = {}
        for mode in ("piled", "spread"):
            cmd, env = launch(mode, t, [program(a), *args], a)
            _, out = run(cmd, env, log)
            # compute prints one row (no kernel column); bandwidth a copy and a triad row.
            row = next(r for r in out if r.get("kernel", "triad") == "triad")
            # Times in ms (the unit column says which); GB/s as they are.
            got[mode], cpus[mode] = float(row[column]) * (1 if higher_is_better else 1e3), row["binding"]
            figures[mode].append(got[mode])
        ratios.append(got["spread"] / got["piled"] if higher_is_better else got["piled"] / got["spread"])
    row = {"kernel": name, "threads": t, "unit": "GB/s" if higher_is_better else "ms"}
    for mode in ("piled", "spread"):
        row.update({f"{mode}_median": statistics.median(figures[mode]), f"{mode}_min": min(figures[mode]),
                    f"{mode}_max": max(figures[mode]), f"{mode}_cpus": cpus[mode],
                    f"{mode}_bound_as_asked": int(bound_as_asked(mode, cpus[mode]))})
    row.update({"speedup_median": statistics.median(ratios), "speedup_min": min(ratios), "speedup_max": max(ratios),
                # The target: spread >= 0.9 x threads times the piled speed for a
                # compute-bound kernel (1.8 at 2 threads); memory-bound kernels have none.
                "target": 0.9 * t if name == "compute" else "", "runs": a.binding_runs,
                "piled_launcher": a.piled, "spread_launcher": a.launcher})
    return row


def binding(a, log):
    t = str(a.binding_threads)
    rows = [binding_kernel(a, log, "compute", ["compute", "--threads", t, "--reps", str(a.reps), "--elements",
                                                str(a.elements), "--work", str(a.work)], "seconds_median", False),
            binding_kernel(a, log, "triad", ["bandwidth", "--threads", t, "--reps", str(a.reps)]
                           + (["--size", a.size] if a.size else []), "gbs_median", True)]
    table = [[r["kernel"], r["threads"], f"{fmt(r['piled_median'])} {r['unit']}", r["piled_cpus"],
              f"{fmt(r['spread_median'])} {r['unit']}", r["spread_cpus"], fmt(r["speedup_median"]),
              span(r["speedup_min"], r["speedup_max"]),
              "-" if r["target"] == "" else f"{fmt(r['target'])} ({'met' if r['speedup_median'] >= r['target'] else 'NOT met'})"]
             for r in rows]
    notes = [f"piled: {a.piled}; spread: {a.launcher}; {a.binding_runs} interleaved runs, each the median of "
             f"{a.reps} repetitions; spread/piled is the speed ratio (piled time / spread time, spread GB/s / piled GB/s)"]
    notes += [f"WARNING: {r['kernel']} {m} ran on CPUs {r[m + '_cpus']}, not {m} as asked"
              for r in rows for m in ("piled", "spread") if not r[f"{m}_bound_as_asked"]]
    head = ["kernel", "threads", "piled", "CPUs", "spread", "CPUs", "spread/piled", "min–max", "target"]
    return rows, head, table, notes


# ---- tables and plots ------------------------------------------------------------------------

def text_table(head, table):
    widths = [max(len(str(x)) for x in col) for col in zip(head, *table)]
    return "\n".join("  ".join(str(x).rjust(w) for x, w in zip(line, widths)) for line in [head, *table])


def markdown_table(head, table):
    return "\n".join(["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
                     + ["| " + " | ".join(str(x) for x in line) + " |" for line in table])


def plot_all(results, out, host):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"plots skipped: {sys.executable} has no matplotlib (apt-get install python3-matplotlib)")
        return
    for study, (rows, _, _, _) in results.items():
        fig, ax = plt.subplots(figsize=(8, 5))
        PLOTS[study](ax, rows)
        ax.set_title(f"{TITLES[study]}, {host}")
        ax.grid(True, which="both", alpha=0.3)
        fig.tight_layout()
        path = os.path.join(out, f"{study.replace('-', '_')}.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        print(f"plot: {path}")


def errbar(ax, x, rows, key, style, name):
    mid = [float(r[f"{key}_median"]) for r in rows]
    err = [[m - float(r[f"{key}_min"]) for m, r in zip(mid, rows)], [float(r[f"{key}_max"]) - m for m, r in zip(mid, rows)]]
    ax.errorbar(x, mid, yerr=err, fmt=style, capsize=3, markersize=4, label=name)


def plot_bandwidth(ax, rows):
    for kernel, style in (("copy", "b-o"), ("triad", "r-s")):
        mine = [r for r in rows if r["kernel"] == kernel]
        errbar(ax, [int(r["threads"]) for r in mine], mine, "gbs", style, kernel)
    triad = [r for r in rows if r["kernel"] == "triad"]
    best = max(float(r["gbs_median"]) for r in triad)
    sat = next(int(r["threads"]) for r in triad if float(r["gbs_median"]) >= 0.9 * best)
    ax.axvline(sat, color="gray", linestyle="--", label=f"saturation (90% of best triad): {sat} threads")
    ax.set_xticks(sorted({int(r["threads"]) for r in rows}))
    ax.set_xlabel("threads (OMP_PLACES=cores, one per core)")
    ax.set_ylabel("GB/s (median, min-max)")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)


def plot_schedule(ax, rows):
    x = range(len(rows))
    mid = [float(r["ratio_to_static"]) for r in rows]
    err = [[m - float(r["ratio_min"]) for m, r in zip(mid, rows)], [float(r["ratio_max"]) - m for m, r in zip(mid, rows)]]
    ax.bar(x, mid, yerr=err, capsize=4, color=["k", "r", "b", "g", "m"][: len(rows)])
    ax.set_xticks(list(x), [label(r) for r in rows])
    ax.axhline(1.0, color="gray", linewidth=1)
    ax.set_ylabel("time / static's time (median of repetitions)")


def plot_false_sharing(ax, rows):
    dist = [r for r in rows if r["variant"] == "distance"]
    errbar(ax, [int(r["distance_bytes"]) for r in dist], dist, "ns", "k-o", "counters d bytes apart")
    for variant, colour in (("unpadded", "r"), ("padded64", "b"), ("padded128", "g")):
        r = next(r for r in rows if r["variant"] == variant)
        ax.axhline(float(r["ns_median"]), color=colour, linestyle=":", label=f"struct array, {variant}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.axvline(64, color="gray", linewidth=1)
    ax.set_xlabel("bytes between the threads' counters (64: one cache line)")
    ax.set_ylabel("ns per increment per thread (median, min-max)")
    ax.legend(fontsize=8)


def plot_compute(ax, rows):
    t = [int(r["threads"]) for r in rows]
    ax.plot(t, [float(r["speedup"]) for r in rows], "b-o", label="measured")
    ax.plot(t, [x / t[0] for x in t], "k:", label="ideal")
    ax.set_xticks(t)
    ax.set_xlabel("threads (OMP_PLACES=cores)")
    ax.set_ylabel(f"speed-up over {t[0]} thread(s), medians")
    ax.legend(fontsize=8)


def plot_binding(ax, rows):
    x = range(len(rows))
    mid = [float(r["speedup_median"]) for r in rows]
    err = [[m - float(r["speedup_min"]) for m, r in zip(mid, rows)], [float(r["speedup_max"]) - m for m, r in zip(mid, rows)]]
    ax.bar(x, mid, yerr=err, capsize=4, color=["b", "r"][: len(rows)])
    for i, r in enumerate(rows):
        if r["target"] != "":
            ax.plot([i - 0.4, i + 0.4], [float(r["target"])] * 2, "k--", label=f"target {fmt(r['target'])}")
    ax.set_xticks(list(x), [f"{r['kernel']}, {r['threads']} threads" for r in rows])
    ax.axhline(1.0, color="gray", linewidth=1)
    ax.set_ylabel("spread / piled speed (median of runs)")
    ax.legend(fontsize=8)


STUDY_FUNCS = {"bandwidth": bandwidth, "schedule": schedule, "false-sharing": false_sharing, "compute": compute,
               "binding": binding}
PLOTS = {"bandwidth": plot_bandwidth, "schedule": plot_schedule, "false-sharing": plot_false_sharing,
         "compute": plot_compute, "binding": plot_binding}
TITLES = {"bandwidth": "Memory bandwidth per thread count", "schedule": "3-row stencil per OpenMP schedule",
          "false-sharing": "False sharing: per-thread counters", "compute": "Compute-bound kernel scaling",
          "binding": "Binding: threads spread over cores against piled on one"}


# ---- main ----------------------------------------------------------------------------------

def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build", help="the build directory (BUILD/bin/hybrid_bench)")
    ap.add_argument("out", help="where the CSVs, PNGs, hybrid.md and environment.txt go")
    ap.add_argument("--studies", default=",".join(STUDIES), help=f"comma-separated subset of {','.join(STUDIES)}")
    ap.add_argument("--reps", type=int, default=5, help="repetitions per measurement, median reported (default 5)")
    ap.add_argument("--quick", action="store_true", help="tiny sizes and 1 repetition: checks that it all runs")
    ap.add_argument("--bind", default="close", choices=["close", "spread"], help="OMP_PROC_BIND of the 4 studies")
    ap.add_argument("--threads", help="thread counts of bandwidth and compute (default 1..cores); schedule uses the last")
    ap.add_argument("--size", help="bytes per bandwidth array (default: hybrid_bench's, 4x the last-level cache)")
    ap.add_argument("--rows", type=int, default=4096)
    ap.add_argument("--cols", type=int, default=4096)
    ap.add_argument("--sweeps", type=int, default=4)
    ap.add_argument("--chunk", type=int, default=16, help="k of dynamic,k")
    ap.add_argument("--iters", type=int, default=10_000_000, help="false sharing: increments per thread")
    ap.add_argument("--fs-threads", type=int, default=2, help="false sharing: threads (default 2)")
    ap.add_argument("--access", default="volatile", choices=["volatile", "atomic"])
    ap.add_argument("--elements", type=int, default=1 << 18, help="compute kernel: elements")
    ap.add_argument("--work", type=int, default=256, help="compute kernel: dependent steps per element")
    ap.add_argument("--binding-threads", type=int, default=2, help="threads per rank in the binding study (default 2)")
    ap.add_argument("--binding-runs", type=int, default=3, help="interleaved piled/spread runs (default 3)")
    ap.add_argument("--piled", default="taskset", choices=["taskset", "mpirun"], help="how to pile (see launch())")
    ap.add_argument("--launcher", default="omp", choices=["omp", "mpirun", "ferry"], help="how to spread (see launch())")
    a = ap.parse_args()
    if a.quick:  # every path once, in seconds; the figures mean nothing
        a.reps, a.binding_runs = 1, 1
        a.size, a.rows, a.cols, a.sweeps = a.size or "2M", 64, 256, 1
        a.iters, a.elements, a.work = 20000, 4096, 16
    a.studies = [s.strip() for s in a.studies.split(",") if s.strip()]
    unknown = [s for s in a.studies if s not in STUDIES]
    if unknown:
        ap.error(f"--studies: unknown {', '.join(unknown)} (choose from {', '.join(STUDIES)})")
    return a


def environment(a):
    here = os.path.dirname(os.path.abspath(__file__))
    commit = subprocess.run(["git", "-C", here, "describe", "--always", "--dirty"], capture_output=True, text=True)
    model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    cxx = cache_value(a.build, "CMAKE_CXX_COMPILER", "c++")
    version = subprocess.run([cxx, "--version"], capture_output=True, text=True).stdout.splitlines()[:1]
    return [f"command: {shlex.join([sys.executable, *sys.argv])}",
            f"host: {platform.node()}, {os.cpu_count()} CPUs ({len(os.sched_getaffinity(0))} usable), {model}; "
            f"load average {os.getloadavg()[0]:.1f}",
            f"compiler: {' '.join(version) or cxx} -fopenmp (libgomp)",
            f"commit: {commit.stdout.strip() or 'unknown'}; {time.strftime('%Y-%m-%d %H:%M')}"]


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)


def main():
    a = parse_args()
    if not os.access(program(a), os.X_OK):
        sys.exit(f"run_hybrid: {program(a)} not found: build it (ninja -C {a.build} hybrid_bench)")
    os.makedirs(a.out, exist_ok=True)
    env_lines = environment(a)
    print("\n".join(f"# {line}" for line in env_lines))
    results, log, md = {}, [], [f"<!-- {line} -->" for line in env_lines]
    for study in a.studies:
        results[study] = rows, head, table, notes = STUDY_FUNCS[study](a, log)
        write_csv(os.path.join(a.out, f"{study.replace('-', '_')}.csv"), rows)
        print(f"\n## {TITLES[study]} ({study})\n{text_table(head, table)}")
        for n in notes:
            print(f"  {n}")
        md += [f"\n**{TITLES[study]}** (`{study}`)\n", markdown_table(head, table)] + [f"\n{n}" for n in notes]
    with open(os.path.join(a.out, "hybrid.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    with open(os.path.join(a.out, "environment.txt"), "w") as f:
        f.write("\n".join(env_lines + ["", "runs:"] + log) + "\n")
    print(f"\nCSV, hybrid.md and environment.txt (every command run) in {a.out}")
    plot_all(results, a.out, f"{os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
