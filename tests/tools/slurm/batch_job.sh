#!/bin/sh
# The batch script of slurm.sbatch (sbatch -N 2 -n 3): the offload demo started as a batch
# script would start it, with srun and with `ferry run`, whose launcher (Open MPI's mpiexec,
# MPICH's Hydra) starts its daemons on the allocation's nodes through srun.
#   batch_job.sh BIN_DIR PMI_PLUGIN
set -e
bin=$1 pmi=$2
eval "$("$bin/ferry" env)"
echo "== srun --mpi=$pmi on $SLURM_JOB_NODELIST"
srun --mpi="$pmi" "$bin/heat_demo" 128 20
echo "== ferry run"
"$bin/ferry" run -n 3 "$bin/heat_demo" 128 20
echo "== batch job done"
