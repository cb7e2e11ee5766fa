#!/bin/sh
# Sends a signal to one process only, as a batch system or `kill PID` does, and says what
# was left: signal_alone.sh SIGNAL MARKER COUNT -- CMD...
# Starts CMD and waits (up to 60 s) until COUNT processes whose command line matches MARKER,
# a regex for pgrep -f, are running ("running: N"); a second later it sends SIGNAL to CMD's
# process alone, waits for it ("ended: STATUS"), and a second after that counts the
# processes still matching MARKER ("left: N"), which it then kills, so that none outlives
# the test. Anchor MARKER ("^/path/prog"), or it matches this script's own command line.
set -u
sig=$1 marker=$2 count=$3
shift 4
# An asynchronous command of a non-interactive shell starts ignoring SIGINT, and CMD would
# keep it ignored (as it should); the signals are meant to reach it as from a process.
env --default-signal=INT "$@" &
pid=$!
tries=0
while [ "$(pgrep -f -- "$marker" | wc -l)" -lt "$count" ] && [ "$tries" -lt 600 ]; do
  sleep 0.1
  tries=$((tries + 1))
done
echo "running: $(pgrep -f -- "$marker" | wc -l)"
sleep 1
kill -s "$sig" "$pid"
wait "$pid"
echo "ended: $?"
sleep 1
left=$(pgrep -f -- "$marker" | wc -l)
echo "left: $left"
[ "$left" -eq 0 ] || pkill -KILL -f -- "$marker"
