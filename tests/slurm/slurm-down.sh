#!/bin/bash
# Part of the project's own throwaway Slurm for tests/e2e/test_slurm_jobs.py (usable by hand too).
# Tear down the throwaway cluster started by slurm-up.sh. Kills only the daemons named in its pid files.
BASE=${1:?usage: slurm-down.sh BASE_DIR (the one given to slurm-up.sh)}
export SLURM_CONF="$BASE/slurm.conf"
pids=$(cat "$BASE/slurmctld.pid" "$BASE/slurmd.pid" 2>/dev/null)
scancel --quiet --user=root 2>/dev/null || true
timeout 10 scontrol shutdown >/dev/null 2>&1 || true        # stops slurmctld and every slurmd (~1.5 s)
for pid in $pids; do
  for i in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
done
if [ "${STOP_MUNGE:-1}" = 1 ] && [ -s /run/munge/munged.pid ]; then
  pid=$(cat /run/munge/munged.pid); kill -TERM "$pid" 2>/dev/null
  for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
fi
[ "${KEEP_LOGS:-0}" = 1 ] || rm -rf "$BASE"
