#!/usr/bin/python3
"""The OpenSHMEM proxy apps' scaling (docs/shmem.md, "Proxy apps"): runs BUILD/bin/pgas_stencil2d
and BUILD/bin/pgas_bfs for strong scaling (one problem, 1, 2, 4 ... PEs) and weak scaling (the
problem grows with the PEs), on one node and, where PEs >= 2, across two virtual nodes
(FERRY_VIRTUAL_NODES=2), REPS times each. Reports the median time and rate of each point,
the speed-up and efficiency relative to 1 PE on one node, and fails (status 1) when any run
fails or does not print verified=yes. Writes into OUT pgas_apps.csv, pgas_apps.md (the table,
for the docs), pgas_apps_strong.png, pgas_apps_weak.png and environment.txt.

    /usr/bin/python3 bench/pgas_apps/run_pgas_apps.py BUILD OUT [--reps 3] [--quick] [--max-pes 4]
        [--launcher-args='--bind-to none']

PE counts are the powers of two up to --max-pes. Weak scaling keeps the work per PE: the
stencil's N grows as sqrt(PEs) (N x N points, row blocks), the BFS's scale by log2(PEs).
Where PEs exceed the cores the run is oversubscribed: it is marked in the table and said in
the output, since such a figure measures time-sharing rather than scaling. With MPICH keep
--max-pes within the cores (it busy-polls). Uses Debian's python3-matplotlib (hence
/usr/bin/python3); without it the plots are skipped and said so."""
import argparse
import csv
import math
import os
import platform
import re
import shlex
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from build_cache import launcher, mpi_flavour  # noqa: E402  (bench/build_cache.py)

LAYOUTS = {"one_node": {}, "vnodes2": {"FERRY_VIRTUAL_NODES": "2"}}

# Problem sizes: (full, --quick). Stencil: (N, iterations); BFS: (scale, edge factor, roots).
STRONG = {"stencil2d": ((1536, 200), (512, 50)), "bfs": ((16, 16, 4), (14, 16, 2))}
WEAK = {"stencil2d": ((1024, 200), (512, 50)), "bfs": ((15, 16, 4), (13, 16, 2))}
RATE = {"stencil2d": ("mlups", "MLUP/s"), "bfs": ("teps", "TEPS")}


def flavour(a):
    return mpi_flavour(a.build, "run_pgas_apps")


def cores():
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def problem(app, scaling, pes, quick):
    """The program's arguments and a short label of the problem for `pes` PEs."""
    base = (STRONG if scaling == "strong" else WEAK)[app][1 if quick else 0]
    grow = scaling == "weak"
    if app == "stencil2d":
        n = round(base[0] * math.sqrt(pes)) if grow else base[0]
        return [str(n), str(base[1])], f"N={n}, {base[1]} iterations"
    scale = base[0] + (int(math.log2(pes)) if grow else 0)
    return [str(scale), str(base[1]), str(base[2])], f"scale {scale}, edge factor {base[1]}, {base[2]} roots"


def run_once(a, app, pes, layout, args, log):
    """One run: the fields of the program's result line (key=value), checked."""
    cmd = [launcher(a.build), "-n", str(pes)]
    if a.flavour != "mpich":
        cmd.append("--oversubscribe")
    cmd += shlex.split(a.launcher_args) + [os.path.join(a.build, "bin", "pgas_" + app)] + args
    # The layout alone decides the virtual nodes: a FERRY_VIRTUAL_NODES of the caller's would
    # turn the one-node runs into cross-node ones.
    env = {k: v for k, v in os.environ.items() if k != "FERRY_VIRTUAL_NODES"}
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", MPIR_CVAR_POLLS_BEFORE_YIELD="1",
               **LAYOUTS[layout])
    if a.flavour == "openmpi":
        env.setdefault("OMPI_MCA_osc", "ucx")  # what oshrun sets (docs/shmem.md, "Open MPI and MPICH")
    log.append(" ".join(f"{k}={v}" for k, v in LAYOUTS[layout].items()) + " $ " + shlex.join(cmd))
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        sys.exit(f"run_pgas_apps: {shlex.join(cmd)} ({layout}) did not finish in 600 s")
    line = next((l for l in proc.stdout.splitlines() if l.startswith(app + " ")), "")
    fields = dict(re.findall(r"(\w+)=(\S+)", line))
    if proc.returncode != 0 or fields.get("verified") != "yes":
        sys.exit(f"run_pgas_apps: {shlex.join(cmd)} ({layout}) failed (status {proc.returncode}, "
                 f"verified={fields.get('verified', 'missing')}):\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    log.append("  " + line)
    return fields


def measure(a, app, scaling, layout, pes, log):
    args, label = problem(app, scaling, pes, a.quick)
    runs = [run_once(a, app, pes, layout, args, log) for _ in range(a.reps)]
    key, unit = RATE[app]
    return {"app": app, "scaling": scaling, "layout": layout, "pes": pes, "problem": label,
            "seconds": statistics.median(float(r["seconds"]) for r in runs),
            "rate": statistics.median(float(r[key]) for r in runs), "unit": unit, "runs": len(runs),
            "oversubscribed": pes > cores()}


def ratio(num, den):
    return num / den if den > 0 else float("nan")  # a run too short for the clock's resolution


def relate(rows):
    """Speed-up and efficiency against the same app and scaling on 1 PE, one node. Strong: the
    same problem, so speed-up = T1 / Tp, efficiency = speed-up / p. Weak: the problem grows,
    so both come from the rates: speed-up = rate_p / rate_1, efficiency = speed-up / p."""
    for r in rows:
        one = next(b for b in rows if (b["app"], b["scaling"], b["pes"], b["layout"]) ==
                   (r["app"], r["scaling"], 1, "one_node"))
        if r["scaling"] == "strong":
            r["speedup"] = ratio(one["seconds"], r["seconds"])
        else:
            r["speedup"] = ratio(r["rate"], one["rate"])
        r["efficiency"] = r["speedup"] / r["pes"]


def table(rows):
    lines = ["| app | scaling | layout | PEs | problem | seconds | rate | speed-up | efficiency |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        star = " *" if r["oversubscribed"] else ""
        lines.append(f"| {r['app']} | {r['scaling']} | {r['layout']} | {r['pes']}{star} | {r['problem']} | "
                     f"{r['seconds']:.4f} | {r['rate']:.4g} {r['unit']} | {r['speedup']:.2f} | "
                     f"{r['efficiency']:.2f} |")
    if any(r["oversubscribed"] for r in rows):
        lines += ["", f"\\* more PEs than the {cores()} cores of this machine: oversubscribed, the PEs "
                  "time-share the cores, so these figures measure oversubscription, not scaling."]
    return lines


def plot(rows, out):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("run_pgas_apps: python3-matplotlib is missing; no plots")
        return
    for scaling, what in (("strong", "speed-up"), ("weak", "efficiency")):
        fig, axes = plt.subplots(1, 2, figsize=(10, 4))
        for ax, app in zip(axes, ("stencil2d", "bfs")):
            for layout in LAYOUTS:
                rs = sorted((r for r in rows if (r["app"], r["scaling"]) == (app, scaling) and
                             (r["layout"] == layout or r["pes"] == 1)), key=lambda r: r["pes"])
                key = "speedup" if scaling == "strong" else "efficiency"
                ax.plot([r["pes"] for r in rs], [r[key] for r in rs], marker="o", label=layout)
            pes = sorted({r["pes"] for r in rows})
            ax.plot(pes, pes if scaling == "strong" else [1.0] * len(pes), color="gray", linewidth=0.8,
                    linestyle="--", label="ideal")
            ax.axvline(cores(), color="red", linewidth=0.6, linestyle=":", label=f"{cores()} cores")
            ax.set_xscale("log", base=2)
            ax.set_xticks(pes, [str(n) for n in pes])
            ax.set_xlabel("PEs")
            ax.set_ylabel(what + " (against 1 PE)")
            ax.set_title(f"{app}, {scaling} scaling")
            ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(out, f"pgas_apps_{scaling}.png"), dpi=110)
        plt.close(fig)


def write(rows, lines, log, a):
    with open(os.path.join(a.out, "pgas_apps.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(a.out, "pgas_apps.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(a.out, "environment.txt"), "w") as f:
        f.write(f"{platform.node()} {platform.machine()} {cores()} cores; load average (1 min) at the start "
                f"{a.load_before:.2f}, at the end {os.getloadavg()[0]:.2f}; MPI: {a.flavour} ({launcher(a.build)}); reps {a.reps}"
                f"{' (quick)' if a.quick else ''}; PEs up to {a.max_pes}\n")
        f.write("\n".join(log) + "\n")


def check_build(a):
    for app in ("stencil2d", "bfs"):
        path = os.path.join(a.build, "bin", "pgas_" + app)
        if not os.access(path, os.X_OK):
            sys.exit(f"run_pgas_apps: {path} is missing: build the targets pgas_stencil2d and pgas_bfs")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("build")
    p.add_argument("out")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--quick", action="store_true", help="small problems (a check that all runs)")
    p.add_argument("--max-pes", type=int, default=4)
    p.add_argument("--launcher-args", default="", help="extra launcher options, one string "
                   "(write --launcher-args='--bind-to none')")
    a = p.parse_args()
    if a.reps < 1 or a.max_pes < 1:
        p.error("--reps and --max-pes must be at least 1")
    check_build(a)
    a.load_before = os.getloadavg()[0]  # other work on the machine skews the figures: say how much
    a.flavour = flavour(a)
    os.makedirs(a.out, exist_ok=True)
    pes = [1 << k for k in range(a.max_pes.bit_length()) if 1 << k <= a.max_pes]
    over = [n for n in pes if n > cores()]
    if over:
        print(f"run_pgas_apps: note: {cores()} cores here, so the runs on {', '.join(map(str, over))} PEs are "
              "oversubscribed (marked *)" + (" and MPICH busy-polls: expect them slow" if a.flavour == "mpich" else ""))
    log, rows = [], []
    for app in ("stencil2d", "bfs"):
        for scaling in ("strong", "weak"):
            for layout in LAYOUTS:
                for n in pes:
                    if n >= 2 or layout == "one_node":
                        rows.append(measure(a, app, scaling, layout, n, log))
    relate(rows)
    lines = table(rows)
    print("\n".join(lines))
    write(rows, lines, log, a)
    plot(rows, a.out)


if __name__ == "__main__":
    main()
