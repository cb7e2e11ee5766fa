#!/usr/bin/env bash
# Runs copy_bench and saves its table (.txt), CSV and plot (.png) in OUT.
#   bench/copy/run_copy.sh BUILD_DIR OUT [copy_bench options, e.g. -r 7 -b 0.05]
set -euo pipefail
build="$1" out="$2"
shift 2
mkdir -p "$out"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
{
  echo "# command: $build/bin/copy_bench $* --csv $out/copy.csv"
  echo "# host: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(ldd --version | head -1)"
  echo "# commit: $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown); $(date '+%Y-%m-%d %H:%M')"
  "$build/bin/copy_bench" "$@" --csv "$out/copy.csv"
} | tee "$out/copy.txt"
if /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
  /usr/bin/python3 "$here/plot_copy.py" "$out/copy.csv" "$out/copy.png" "copyBytes against memcpy, $(nproc) cores"
  echo "plot: $out/copy.png"
else
  echo "plot skipped: /usr/bin/python3 has no matplotlib (apt-get install python3-matplotlib)"
fi
