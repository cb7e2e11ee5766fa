#!/usr/bin/env bash
# A private one-machine Slurm cluster for Ferry's Slurm tests (tests/tools/slurm): munged,
# slurmctld and two slurmd, for the node names n1 and n2, all on this host.
#
#   scripts/slurm-cluster.sh start  DIR   write DIR/slurm.conf etc., start the daemons, wait
#                                         until both nodes are idle
#   scripts/slurm-cluster.sh stop   DIR   cancel its jobs, stop the daemons it started
#   scripts/slurm-cluster.sh status DIR   sinfo of the cluster; exit 1 if it is not up
#   scripts/slurm-cluster.sh env    DIR   print `export SLURM_CONF=...` for srun/sbatch
#
# Everything lives under DIR (config, munge key and socket, state, spool, logs, pid files),
# so a system munge or Slurm is left alone and two clusters (the Open MPI and the MPICH
# build's) can run at once: the ports are derived from DIR. Debian's packages (slurm-wlm,
# munge; scripts/setup.sh installs them) are used as they are; this script installs nothing.
#
# Two test runs in one build directory share its cluster: start reuses a running one, and
# stop leaves it to the runs still using it (DIR/users holds one file per user: the process
# that ran this script, CTest for the fixture).
#
# Exit status: 0 done; 77 this machine cannot run the cluster (not root, Slurm or munge
# missing), with the reason on stderr and in DIR/unavailable, so that tests can skip; 1 a
# daemon failed, named with the tail of its log.
set -euo pipefail
umask 022  # munged refuses group- or world-writable directories and keys

readonly SKIP=77
readonly NODES=(n1 n2)
readonly CPUS_PER_NODE=2       # 4 slots on the 2-core test machine: 3-4 ranks fit
readonly WAIT_SECONDS=60       # for each daemon to come up
readonly SBIN_CANDIDATES=(/usr/sbin /sbin /usr/local/sbin)

die() { echo "slurm-cluster: $*" >&2; exit 1; }
say() { echo "slurm-cluster: $*" >&2; }

# Records why this machine cannot run the cluster and exits with the skip status.
unavailable() {
  mkdir -p "$DIR"
  echo "$*" > "$DIR/unavailable"
  say "cannot run a Slurm cluster here: $*"
  exit "$SKIP"
}

# The full path of a command, also where sbin is not on PATH (a plain user's shell).
find_tool() {
  local name=$1 dir
  if command -v "$name" > /dev/null 2>&1; then command -v "$name"; return; fi
  for dir in "${SBIN_CANDIDATES[@]}"; do
    [[ -x $dir/$name ]] && { echo "$dir/$name"; return; }
  done
  return 1
}

# Ports from a checksum of DIR: the same directory keeps its ports, two directories (the
# two builds) almost surely differ. slurmctld gets BASE, node k gets BASE+k.
port_base() {
  local sum
  sum=$(printf '%s' "$DIR" | cksum | cut -d' ' -f1)
  echo $((20000 + (sum % 4000) * 4))
}

port_in_use() {
  command -v ss > /dev/null 2>&1 || return 1
  ss -Hltn "sport = :$1" 2> /dev/null | grep -q .
}

check_prerequisites() {
  [[ $(id -u) -eq 0 ]] || unavailable "not root (uid $(id -u)): slurmd must run as root to start job steps"
  local t missing=()
  for t in munged munge unmunge slurmctld slurmd sinfo squeue srun sbatch scontrol scancel; do
    find_tool "$t" > /dev/null || missing+=("$t")
  done
  ((${#missing[@]} == 0)) || unavailable "${missing[*]} not installed (apt-get install slurm-wlm munge; scripts/setup.sh does)"
  MUNGED=$(find_tool munged)
  SLURMCTLD=$(find_tool slurmctld)
  SLURMD=$(find_tool slurmd)
}

# munged with its own key, socket, pid and log under DIR; the socket's directory must be
# searchable by all, the key's private.
write_munge() {
  mkdir -p "$DIR/munge" "$DIR/munge-key" "$DIR/log" "$DIR/run"
  chmod 755 "$DIR/munge"
  chmod 700 "$DIR/munge-key"
  if [[ ! -s $DIR/munge-key/munge.key ]]; then
    head -c 1024 /dev/urandom > "$DIR/munge-key/munge.key"
  fi
  chmod 600 "$DIR/munge-key/munge.key"
}

# TaskProlog: each "node" is this same host, so what Open MPI keys by host name alone would
# be shared by the two nodes' ranks. Its shared-memory BTL names its segments
# vader_segment.<host>.<job>.<local rank>: rank 0 of n1 and rank 0 of n2 mapped the same
# file and crashed (SIGSEGV in mca_btl_vader_poll_handle_frag). Each node gets its own
# directory for them, and for TMPDIR, as separate machines would have.
write_task_prolog() {
  cat > "$DIR/task_prolog.sh" << EOF
#!/bin/sh
# Written by scripts/slurm-cluster.sh: per-node temporary directories (see there).
dir=$SHM_DIR/\$SLURMD_NODENAME
mkdir -p "\$dir"
echo "export TMPDIR=\$dir"
echo "export OMPI_MCA_btl_vader_backing_directory=\$dir"
EOF
  chmod 755 "$DIR/task_prolog.sh"
}

# The nodes share this host: NodeAddr 127.0.0.1 with a port each (slurmd -N picks its
# name; Debian's Slurm is built with multiple-slurmd support). Plugins that need nothing of
# the container: no cgroups (linuxproc tracks the processes, task/none binds nothing), no
# accounting. TmpFS per node: the PMIx plugin makes spmix_appdir_<uid>_<job>.<step> there,
# and the two nodes' slurmstepd would collide in one /tmp ("File exists").
write_slurm_conf() {
  local base=$1 k=1 node
  mkdir -p "$DIR/state" "$DIR/log"
  {
    echo "# Written by scripts/slurm-cluster.sh for Ferry's tests; rewritten at each start."
    echo "ClusterName=ferry$base"
    echo "SlurmctldHost=$(hostname -s)(127.0.0.1)"
    echo "SlurmctldPort=$base"
    echo "SlurmUser=root"
    echo "SlurmdUser=root"
    echo "AuthType=auth/munge"
    echo "CredType=cred/munge"
    echo "AuthInfo=socket=$DIR/munge/munge.socket"
    echo "StateSaveLocation=$DIR/state"
    echo "SlurmdSpoolDir=$DIR/spool/%n"
    echo "TmpFS=$DIR/tmp/%n"
    echo "SlurmctldPidFile=$DIR/run/slurmctld.pid"
    echo "SlurmdPidFile=$DIR/run/slurmd.%n.pid"
    echo "SlurmctldLogFile=$DIR/log/slurmctld.log"
    echo "SlurmdLogFile=$DIR/log/slurmd.%n.log"
    echo "TaskProlog=$DIR/task_prolog.sh"
    echo "ProctrackType=proctrack/linuxproc"
    echo "TaskPlugin=task/none"
    echo "JobAcctGatherType=jobacct_gather/none"
    echo "AccountingStorageType=accounting_storage/none"
    echo "JobCompType=jobcomp/none"
    echo "SwitchType=switch/none"
    echo "MpiDefault=none"
    echo "SelectType=select/cons_tres"
    echo "SelectTypeParameters=CR_CPU"
    # The configured CPUs count, whatever the host has (2 per node on a 1-core host too).
    echo "SlurmdParameters=config_overrides"
    echo "ReturnToService=2"
    echo "SlurmdTimeout=60"
    echo "InactiveLimit=0"
    echo "KillWait=5"
    echo "MinJobAge=30"
    for node in "${NODES[@]}"; do
      echo "NodeName=$node NodeHostname=$(hostname -s) NodeAddr=127.0.0.1 Port=$((base + k)) CPUs=$CPUS_PER_NODE State=UNKNOWN"
      mkdir -p "$DIR/spool/$node" "$DIR/tmp/$node"
      k=$((k + 1))
    done
    echo "PartitionName=ferry Nodes=$(IFS=,; echo "${NODES[*]}") Default=YES MaxTime=30 State=UP"
  } > "$DIR/slurm.conf"
}

# Waits up to WAIT_SECONDS for `test_cmd` to succeed; on timeout names the daemon and its log.
wait_for() {
  local what=$1 log=$2
  shift 2
  local deadline=$((SECONDS + WAIT_SECONDS))
  until "$@" > /dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      say "$what did not come up within $WAIT_SECONDS s; its log, $log, ends:"
      tail -n 20 "$log" >&2 2> /dev/null || say "(no log was written)"
      exit 1
    fi
    sleep 0.5
  done
}

# Starts a daemon that forks into the background; a non-zero status is its failure to start.
start_daemon() {
  local what=$1 log=$2
  shift 2
  # fd 9 is the lock (with_lock): a daemon that kept it would hold the lock for its life.
  if ! "$@" >> "$DIR/log/start.log" 2>&1 9>&-; then
    say "$what failed to start: $*; its log, $log, ends:"
    tail -n 20 "$log" >&2 2> /dev/null || tail -n 20 "$DIR/log/start.log" >&2
    exit 1
  fi
}

munge_works() { munge -n -S "$DIR/munge/munge.socket" | unmunge -S "$DIR/munge/munge.socket"; }
controller_up() { scontrol ping | grep -q "is UP"; }

# Both nodes idle (not down, drained or unknown).
nodes_idle() {
  local states
  states=$(sinfo -h -N -o '%N %T' 2> /dev/null) || return 1
  local node
  for node in "${NODES[@]}"; do
    grep -qx "$node idle" <<< "$states" || return 1
  done
}

# Runs a command holding DIR's lock, so that two runs never start or stop the cluster at once.
with_lock() {
  exec 9> "$DIR/lock"
  flock -w 120 9 || die "another run has held $DIR/lock for 120 s"
  "$@"
  exec 9>&-
}

# The users other than our caller ($PPID) that still live; dead ones' files are removed.
other_users() {
  local f pid
  for f in "$DIR"/users/*; do
    [[ -e $f ]] || continue
    pid=${f##*/}
    if [[ $pid == "$PPID" ]]; then continue; fi
    if [[ -e /proc/$pid ]]; then echo "$pid"; else rm -f "$f"; fi
  done
}

add_user() { mkdir -p "$DIR/users" && touch "$DIR/users/$PPID"; }

cluster_running() {
  local node
  live_pid "$DIR/run/munged.pid" munged > /dev/null && live_pid "$DIR/run/slurmctld.pid" slurmctld > /dev/null || return 1
  for node in "${NODES[@]}"; do live_pid "$DIR/run/slurmd.$node.pid" slurmd > /dev/null || return 1; done
  SLURM_CONF=$DIR/slurm.conf controller_up
}

start() {
  check_prerequisites
  if [[ -n $(other_users) ]] && cluster_running; then
    add_user
    say "the cluster in $DIR is up, started by pid(s) $(other_users | xargs): using it too"
    return
  fi
  stop_quietly
  rm -rf "$DIR/state" "$DIR/spool" "$DIR/tmp" "$DIR/log" "$DIR/run" "$DIR/unavailable" "$DIR/users"
  local base node p
  base=$(port_base)
  for ((p = base; p <= base + ${#NODES[@]}; ++p)); do
    port_in_use "$p" && die "port $p, which $DIR's cluster uses, is taken by another process (ss -ltnp)"
  done
  # AF_UNIX paths are limited to 108 bytes; the PMIx plugin's sockets sit deepest.
  ((${#DIR} <= 60)) || die "$DIR is too long a path for the daemons' sockets (60 characters at most)"
  write_munge
  write_task_prolog
  write_slurm_conf "$base"
  export SLURM_CONF=$DIR/slurm.conf

  start_daemon munged "$DIR/log/munged.log" "$MUNGED" --socket="$DIR/munge/munge.socket" \
    --key-file="$DIR/munge-key/munge.key" --seed-file="$DIR/munge-key/munged.seed" \
    --pid-file="$DIR/run/munged.pid" --log-file="$DIR/log/munged.log"
  wait_for munged "$DIR/log/munged.log" munge_works
  start_daemon slurmctld "$DIR/log/slurmctld.log" "$SLURMCTLD" -f "$SLURM_CONF"
  wait_for slurmctld "$DIR/log/slurmctld.log" controller_up
  for node in "${NODES[@]}"; do
    start_daemon "slurmd -N $node" "$DIR/log/slurmd.$node.log" "$SLURMD" -f "$SLURM_CONF" -N "$node"
  done
  local deadline=$((SECONDS + WAIT_SECONDS))
  until nodes_idle; do
    if ((SECONDS >= deadline)); then
      say "the nodes are not idle after $WAIT_SECONDS s:"
      sinfo -N -o '%N %T %E' >&2 || true
      for node in "${NODES[@]}"; do
        say "slurmd -N $node's log, $DIR/log/slurmd.$node.log, ends:"
        tail -n 10 "$DIR/log/slurmd.$node.log" >&2 || true
      done
      exit 1
    fi
    sleep 0.5
  done
  add_user
  say "cluster ferry$base up: nodes ${NODES[*]} idle; export SLURM_CONF=$SLURM_CONF"
}

# The pid in a pid file, if that process still runs the program named (a pid file left by
# a crashed run may name another process by now).
live_pid() {
  local file=$1 prog=$2 pid
  [[ -s $file ]] || return 1
  pid=$(< "$file")
  [[ $pid =~ ^[0-9]+$ ]] && [[ -r /proc/$pid/comm ]] || return 1
  grep -q "$prog" "/proc/$pid/comm" || return 1
  echo "$pid"
}

# Whether a process has ended: gone, or a zombie that nobody has reaped yet (a daemon's
# parent is init, which in some containers reaps late).
ended() {
  [[ ! -r /proc/$1/stat ]] || [[ $(cut -d' ' -f3 "/proc/$1/stat" 2> /dev/null) == Z ]]
}

# Sends SIGTERM to the daemons we started (named by pid files), waits up to 10 s for them
# to end, then sends SIGKILL to those left.
stop_daemons() {
  local pids=() entry file prog pid
  for entry in "$@"; do
    file=${entry%%:*} prog=${entry#*:}
    pid=$(live_pid "$file" "$prog") || continue
    kill -TERM "$pid" 2> /dev/null && pids+=("$pid")
  done
  for _ in $(seq 1 40); do
    local left=()
    for pid in "${pids[@]}"; do ended "$pid" || left+=("$pid"); done
    ((${#left[@]} == 0)) && return 0
    sleep 0.25
  done
  say "pids ${left[*]} ignored SIGTERM for 10 s: killing them"
  kill -KILL "${left[@]}" 2> /dev/null || true
}

# Cancels the cluster's jobs (their steps end with them), then stops every daemon in
# reverse order of start. Only processes named by DIR's pid files are signalled.
stop_quietly() {
  [[ -d $DIR/run ]] || return 0
  export SLURM_CONF=$DIR/slurm.conf
  if live_pid "$DIR/run/slurmctld.pid" slurmctld > /dev/null && command -v squeue > /dev/null; then
    local jobs
    jobs=$(squeue -h -o %i 2> /dev/null || true)
    if [[ -n $jobs ]]; then
      # shellcheck disable=SC2086  # one job id per word
      scancel $jobs 2> /dev/null || true
      for _ in $(seq 1 40); do
        [[ -z $(squeue -h -o %i 2> /dev/null) ]] && break
        sleep 0.25
      done
    fi
  fi
  local node daemons=()
  for node in "${NODES[@]}"; do daemons+=("$DIR/run/slurmd.$node.pid:slurmd"); done
  stop_daemons "${daemons[@]}" "$DIR/run/slurmctld.pid:slurmctld"
  # munged last: the others authenticate their last messages through it.
  stop_daemons "$DIR/run/munged.pid:munged"
  rm -rf "$SHM_DIR"
}

stop() {
  rm -f "$DIR/users/$PPID"
  local others
  others=$(other_users | xargs)
  if [[ -n $others ]]; then
    say "the cluster in $DIR is still used by pid(s) $others: left running"
    return
  fi
  stop_quietly
  say "stopped the cluster in $DIR (logs kept in $DIR/log)"
}

status() {
  [[ -f $DIR/slurm.conf ]] || die "no cluster in $DIR (start it first)"
  export SLURM_CONF=$DIR/slurm.conf
  controller_up || die "the controller of $DIR/slurm.conf does not answer (scontrol ping)"
  sinfo -N -o '%N %T %c %E'
}

main() {
  local cmd=${1:-} dir=${2:-}
  [[ -n $cmd && -n $dir ]] || die "usage: $0 start|stop|status|env DIR"
  mkdir -p "$dir"
  DIR=$(cd "$dir" && pwd)
  SHM_DIR=/dev/shm/ferry-slurm-$(port_base)
  case $cmd in
    start) with_lock start ;;
    stop) with_lock stop ;;
    status) status ;;
    env) echo "export SLURM_CONF='$DIR/slurm.conf'" ;;
    *) die "unknown command '$cmd' (start, stop, status or env)" ;;
  esac
}

main "$@"
