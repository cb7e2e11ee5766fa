#!/bin/bash
# Compares `ferry bench offload --quick` of two builds, side by side, for changes that must
# not make the MPI mode slower (docs/performance.md, "Before and after a change"). The runs
# alternate (A, B, A, B, ...) so that the machine's drift falls on both alike; the table is
# the median over the runs of each build's per-run medians.
#
#   scripts/bench-ab.sh BEFORE_DIR AFTER_DIR [RUNS] [OUT_DIR]
#
# BEFORE_DIR and AFTER_DIR are source trees with a build/ that has the `ferry` and
# `ferry_offload_bench` targets (a `git worktree add` of the old commit works).
set -euo pipefail
before=$(realpath "$1") after=$(realpath "$2") runs=${3:-4} out=${4:-out/bench-ab}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1} OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
for i in $(seq 1 "$runs"); do
  for side in before after; do
    dir=$([ $side = before ] && echo "$before" || echo "$after")
    (cd "$dir" && build/bin/ferry bench offload --quick -r 3 --no-plots -o "$(realpath "$out")/$side$i" \
       > "$(realpath "$out")/$side$i.txt" 2>&1) || { echo "bench-ab: run $side$i failed, see $out/$side$i.txt" >&2; exit 1; }
    echo "bench-ab: $side $i/$runs done" >&2
  done
done
python3 - "$out" <<'PY'
import csv, glob, statistics as st, sys
out = sys.argv[1]
def load(side):
    d = {}
    for f in sorted(glob.glob(f"{out}/{side}[0-9]*/offload.csv")):
        for row in csv.DictReader(open(f)):
            d.setdefault((row["test"], int(row["size_bytes"]), row["unit"]), []).append(
                (float(row["ferry_median"]), float(row["ratio_mpi_median"])))
    return d
b, a = load("before"), load("after")
rows = [("test", "size", "unit", "before", "after", "after/before", "Ferry/MPI before", "Ferry/MPI after")]
for k in b:
    if k not in a: continue
    bv, av = st.median(x[0] for x in b[k]), st.median(x[0] for x in a[k])
    rows.append((k[0], str(k[1]), k[2], f"{bv:.4g}", f"{av:.4g}", f"{av / bv:.2f}",
                 f"{st.median(x[1] for x in b[k]):.3g}", f"{st.median(x[1] for x in a[k]):.3g}"))
with open(f"{out}/ab.csv", "w", newline="") as f:
    csv.writer(f).writerows(rows)
for r in rows:
    print(f"{r[0]:15} {r[1]:>8} {r[2]:5} {r[3]:>10} {r[4]:>10} {r[5]:>12} {r[6]:>16} {r[7]:>15}")
print(f"\nus: lower is better; MB/s and 1/s: higher is better. Wrote {out}/ab.csv")
PY
