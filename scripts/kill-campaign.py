#!/usr/bin/env python3
"""kill-campaign.py: SIGKILLs a rank of a running Ferry job at a random moment, many times,
and checks how each job ends (docs/robustness.md, "Kill campaign").

  scripts/kill-campaign.py [-b BUILD]... [-n RUNS] [--timeout S] [--margin S] [--seed N]
                           [--scenarios a,b,...] [--launch ferry-run|mpiexec] [-o OUT]

Scenarios (all by default):
  offload-server     an offload job (tests/offload/soak) loses a serving rank
  offload-rank0      the same job loses rank 0, which runs main
  allreduce-rank     an allreduce loop (tests/coll/programs/soak_allreduce, interposer
                     preloaded) loses its last rank
  allreduce-rank0    the same loop loses rank 0

Jobs start through `ferry run` (--pmpi for the allreduce), as the user guide says, or with
--launch mpiexec through the MPI library's own launcher after `ferry env`. Each run starts
the job with FERRY_TIMEOUT=S, waits until every rank runs, sleeps a random
0.5-5 s (the program is then anywhere in its loop), and SIGKILLs the rank. It passes when
  - the job ends within S + margin seconds of the kill (a hang is killed and counted),
  - the output names the lost rank ("rank N", or its pid). Under MPICH this is counted, not
    required: Hydra SIGKILLs every rank within milliseconds of one dying, before any can say
    which it lost, and names the pid of the lowest rank it reaped (docs/robustness.md),
  - no process of the job is left (each carries a marker in its environment),
  - nothing of Ferry's is left in /dev/shm: no entry made by a process of the job. Entries
    of libomp (the OpenMP runtime) that a SIGKILLed process could not remove are counted
    apart, and removed.
Prints a table per build and scenario, writes OUT/kill-campaign.csv and the output of every
failed run; exits 1 if any run failed. -b may be given more than once (build, build-mpich).
"""
import argparse
import csv
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

SCENARIOS = ["offload-server", "offload-rank0", "allreduce-rank", "allreduce-rank0"]
RANK_VARS = ("OMPI_COMM_WORLD_RANK", "PMI_RANK")


def mpi_flavor(mpiexec: str) -> str:
    """The launcher's MPI: Hydra (MPICH) names itself in --version; Open MPI's does not."""
    try:
        out = subprocess.run([mpiexec, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        out = ""
    return "mpich" if re.search(r"HYDRA|MPICH", out, re.I) else "openmpi"


def cmake_cache(build: Path) -> dict:
    cache = {}
    for line in (build / "CMakeCache.txt").read_text().splitlines():
        m = re.match(r"^([A-Za-z_0-9]+):[A-Z]+=(.*)$", line)
        if m:
            cache[m.group(1)] = m.group(2)
    return cache


def job_command(build: Path, scenario: str, mpiexec: str, launch: str):
    """The command line and extra environment of a scenario's job, its size and its lost rank."""
    np = 3 if scenario.startswith("offload") else 4
    lost = 0 if scenario.endswith("rank0") else (1 if scenario == "offload-server" else np - 1)
    offload = scenario.startswith("offload")
    if offload:
        prog = [str(build / "tests/integration/soak"), "100000000", "10000000"]
    else:
        prog = [str(build / "bin/coll_soak_allreduce"), "1000000000"]
    env = {"FERRY_GPUS_PER_RANK": "0"}
    if launch == "ferry-run":
        return [str(build / "bin/ferry"), "run"] + ([] if offload else ["--pmpi"]) + ["-n", str(np)] + prog, env, np, lost
    if offload:
        env["LD_LIBRARY_PATH"] = f"{build}/lib/ferry/offload:" + os.environ.get("LD_LIBRARY_PATH", "")
    else:
        env["LD_PRELOAD"] = str(build / "lib/libferry-pmpi.so")
    return [mpiexec, "-n", str(np)] + prog, env, np, lost


def job_processes(marker: str) -> dict:
    """pid -> rank of every live process whose environment carries the run's marker."""
    found = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            env = (d / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if f"KILL_CAMPAIGN_MARK={marker}".encode() not in env:
            continue
        rank = None
        for e in env:
            k, _, v = e.decode(errors="replace").partition("=")
            if k in RANK_VARS:
                rank = int(v)
        found[int(d.name)] = rank
    return found


def shm_left(pids, before) -> list:
    """/dev/shm entries made during the run (not in `before`: a stale entry of an earlier
    process may carry a pid that is reused now) that name one of `pids` on its own: Ferry's
    "ferry-<what>-<pid>-<n>", libomp's "__KMP_REGISTERED_LIB_<pid>_<uid>"."""
    left = []
    for name in set(os.listdir("/dev/shm")) - before:
        if any(re.search(rf"(^|[^0-9]){pid}([^0-9]|$)", name) for pid in pids):
            left.append(name)
    return left


def wait_for_ranks(marker: str, np: int, proc, limit: float) -> dict:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and proc.poll() is None:
        ranks = {p: r for p, r in job_processes(marker).items() if r is not None}
        if len(set(ranks.values())) == np:
            return ranks
        time.sleep(0.05)
    return {}


def one_run(build: Path, scenario: str, mpiexec: str, flavor: str, a, rng) -> dict:
    cmd, extra, np, lost = job_command(build, scenario, mpiexec, a.launch)
    marker = uuid.uuid4().hex
    # The marker is no FERRY_ name: the settings registry would warn about one it does not know.
    env = dict(os.environ, **extra, FERRY_TIMEOUT=f"{a.timeout}s", KILL_CAMPAIGN_MARK=marker,
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_hwloc_base_binding_policy="none")
    if flavor == "mpich":
        env["MPIR_CVAR_POLLS_BEFORE_YIELD"] = "1"
    shm_before = set(os.listdir("/dev/shm"))
    out_file = open(a.out / "current.log", "w+b")
    proc = subprocess.Popen(cmd, env=env, stdout=out_file, stderr=subprocess.STDOUT, start_new_session=True)
    row = {"build": build.name, "scenario": scenario, "lost_rank": lost}
    ranks = wait_for_ranks(marker, np, proc, 60)
    pids = set(ranks)
    if not ranks:
        row["problem"] = "the job's ranks did not all start (or it ended first)"
    else:
        delay = rng.uniform(0.5, 5.0)
        time.sleep(delay)
        victim = next(p for p, r in ranks.items() if r == lost)
        row.update(delay_s=round(delay, 2), victim_pid=victim)
        t0 = time.monotonic()
        os.kill(victim, signal.SIGKILL)
        limit = a.timeout + a.margin
        try:
            proc.wait(timeout=limit + 60)
        except subprocess.TimeoutExpired:
            pass
        ended = time.monotonic() - t0
        row["end_s"] = round(ended, 2)
        if proc.poll() is None:
            row["problem"] = f"still running {ended:.0f} s after the kill: it hung"
        elif ended > limit:
            row["problem"] = f"ended {ended:.1f} s after the kill, beyond FERRY_TIMEOUT + margin ({limit:.0f} s)"
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    time.sleep(1.0)  # the launcher's children are reaped after it returns
    left = job_processes(marker)
    pids |= set(left)
    for p in left:
        os.kill(p, signal.SIGKILL)
    out_file.seek(0)
    text = out_file.read().decode(errors="replace")
    out_file.close()
    row["named"] = bool(ranks) and bool(re.search(rf"rank {lost}\b|\b{row.get('victim_pid', -1)}\b", text))
    if ranks and not row["named"] and flavor != "mpich":
        row.setdefault("problem", f"the output names neither rank {lost} nor its pid")
    if left:
        row.setdefault("problem", f"{len(left)} process(es) of the job left behind: {sorted(left)}")
    shm = shm_left(pids, shm_before)
    ferrys = [n for n in shm if n.startswith("ferry-")]
    row["libomp_left"] = sum(1 for n in shm if n.startswith("__KMP_REGISTERED_LIB_"))
    if ferrys:
        row.setdefault("problem", f"Ferry's left in /dev/shm: {', '.join(ferrys)}")
    for name in shm:
        os.unlink(f"/dev/shm/{name}")
    row["exit"] = proc.returncode
    row["output"] = text
    return row


def summarize(rows, a):
    print(f"\n{'build':<12} {'scenario':<16} {'runs':>4} {'ok':>4} {'named':>5} {'end median s':>12} {'end max s':>9} "
          f"{'libomp left':>11}  bound")
    for key in sorted({(r["build"], r["scenario"]) for r in rows}):
        rs = [r for r in rows if (r["build"], r["scenario"]) == key]
        ends = [r["end_s"] for r in rs if "end_s" in r]
        ok = sum(1 for r in rs if "problem" not in r)
        med = f"{statistics.median(ends):.1f}" if ends else "-"
        mx = f"{max(ends):.1f}" if ends else "-"
        omp = sum(r.get("libomp_left", 0) for r in rs)
        named = sum(1 for r in rs if r.get("named"))
        print(f"{key[0]:<12} {key[1]:<16} {len(rs):>4} {ok:>4} {named:>5} {med:>12} {mx:>9} {omp:>11}  "
              f"{a.timeout + a.margin:.0f} s")
    bad = [r for r in rows if "problem" in r]
    for r in bad:
        print(f"FAILED {r['build']} {r['scenario']}: {r['problem']}")
    return not bad


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-b", "--build", action="append", type=Path)
    p.add_argument("-n", "--runs", type=int, default=20, help="runs per scenario and build (20)")
    p.add_argument("--timeout", type=float, default=5.0, help="FERRY_TIMEOUT of the jobs, s (5)")
    p.add_argument("--margin", type=float, default=10.0, help="allowed beyond it, s (10)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--scenarios", default=",".join(SCENARIOS))
    p.add_argument("--launch", choices=["ferry-run", "mpiexec"], default="ferry-run")
    p.add_argument("-o", "--out", type=Path, default=Path("kill-campaign"))
    a = p.parse_args()
    builds = a.build or [Path("build")]
    scenarios = a.scenarios.split(",")
    if set(scenarios) - set(SCENARIOS):
        p.error(f"unknown scenario(s) {set(scenarios) - set(SCENARIOS)}; known: {', '.join(SCENARIOS)}")
    a.out.mkdir(parents=True, exist_ok=True)
    seed = a.seed if a.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    print(f"kill campaign: seed {seed}, launched by {a.launch}, FERRY_TIMEOUT={a.timeout:g}s, margin {a.margin:g} s")
    rows = []
    for build in builds:
        build = build.resolve()
        cache = cmake_cache(build)
        mpiexec = cache["MPIEXEC_EXECUTABLE"]
        # MPI_C_LIBRARIES is no cache entry (FindMPI sets it per configure): the launcher says.
        flavor = mpi_flavor(mpiexec)
        for scenario in scenarios:
            for i in range(a.runs):
                row = one_run(build, scenario, mpiexec, flavor, a, rng)
                status = row.get("problem", "ok")
                print(f"{build.name} {scenario} {i + 1}/{a.runs}: killed after {row.get('delay_s', '-')} s, "
                      f"ended {row.get('end_s', '-')} s later, exit {row['exit']}: {status}", flush=True)
                if "problem" in row:
                    (a.out / f"failed-{build.name}-{scenario}-{i + 1}.log").write_text(row["output"])
                rows.append(row)
    with open(a.out / "kill-campaign.csv", "w", newline="") as f:
        w = csv.DictWriter(f, ["build", "scenario", "lost_rank", "victim_pid", "delay_s", "end_s", "exit", "named",
                               "libomp_left", "problem"],
                           extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    return 0 if summarize(rows, a) else 1


if __name__ == "__main__":
    sys.exit(main())
