#!/bin/sh
# with_log_dir.sh PATTERN CMD...
# Runs CMD with FERRY_LOG_FILE=<fresh directory>/PATTERN, then prints every file the run
# left there, each line prefixed with the file's name, so that a test can check which file
# a line went to (and that no stray file appeared). Exits with CMD's status.
pattern=$1
shift
dir=$(mktemp -d) || exit 1
FERRY_LOG_FILE="$dir/$pattern" "$@"
status=$?
for f in "$dir"/*; do
  [ -e "$f" ] || continue
  name=$(basename "$f")
  echo "log file $name"
  sed "s|^|$name: |" "$f"
done
rm -rf "$dir"
exit $status
