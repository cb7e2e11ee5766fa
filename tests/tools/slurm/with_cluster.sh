#!/bin/sh
# with_cluster.sh DIR CMD...: runs CMD against the private Slurm cluster in DIR (started by
# scripts/slurm-cluster.sh, the slurm.cluster.start fixture): srun, sbatch, sinfo then use its
# slurm.conf. Where this machine cannot run the cluster (DIR/unavailable says why), exits 77
# so that CTest reports the test as skipped, with the reason, instead of passed.
#
# Each test's jobs carry a name of its own (SLURM_JOB_NAME for srun, SBATCH_JOB_NAME for
# sbatch), and a job of that name still in the cluster when CMD ends is cancelled, and said
# so: left by an srun that was killed (a hang the check ended), it would hold the nodes and
# make every later test queue behind it.
dir=$1
shift
if [ -f "$dir/unavailable" ]; then
  echo "SKIP: no Slurm cluster on this machine: $(cat "$dir/unavailable")"
  exit 77
fi
if [ ! -f "$dir/slurm.conf" ]; then
  echo "FAIL: no cluster in $dir: the slurm.cluster.start test has not run (ctest -L slurm runs it)"
  exit 1
fi
export SLURM_CONF="$dir/slurm.conf"
name="ferry-test-$$"
export SLURM_JOB_NAME="$name" SBATCH_JOB_NAME="$name"
"$@"
status=$?
# Pending, running, suspended or starting: a job that is only completing has ended.
left=$(squeue -h -n "$name" -t PD,R,S,CF -o %i 2> /dev/null)
if [ -n "$left" ]; then
  echo "with_cluster.sh: job(s) $left of this test still in the cluster after it: cancelling them"
  squeue -n "$name" -t PD,R,S,CF -o '%i %j %T %M %N' || true
  scancel -n "$name"
fi
exit "$status"
