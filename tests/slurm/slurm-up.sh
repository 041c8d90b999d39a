#!/bin/bash
# Part of the project's own throwaway Slurm for tests/e2e/test_slurm_jobs.py (usable by hand too).
# Bring up a throwaway single-node Slurm 22.05 cluster (Debian 12) on localhost, as root, without systemd,
# so that tests can submit real sbatch/srun jobs.  Needs: apt-get install slurm-wlm munge.
# Usage: eval "$(slurm-up.sh [BASE_DIR] [AUTH: munge|none] [CPUS])"   -> exports SLURM_CONF
# Tear down with slurm-down.sh BASE_DIR.  All paths are absolute (the daemons chdir to /).
set -euo pipefail
BASE=$(realpath -m "${1:?usage: slurm-up.sh BASE_DIR [munge|none] [CPUS]}")   # must be absolute: the daemons chdir to /
AUTH=${2:-munge}
CPUS=${3:-$(nproc)}
HOST=$(hostname -s)
MEM=$(( $(awk '/MemTotal/{print $2}' /proc/meminfo) / 1024 - 1024 ))
mkdir -p "$BASE"/{state,spool,log}
cat > "$BASE/slurm.conf" <<CONF
ClusterName=ci
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/$AUTH
CredType=cred/$AUTH
SlurmctldPort=$(( ${SLURM_CI_PORT:-16817} ))
SlurmdPort=$(( ${SLURM_CI_PORT:-16817} + 1 ))
StateSaveLocation=$BASE/state
SlurmdSpoolDir=$BASE/spool
SlurmctldPidFile=$BASE/slurmctld.pid
SlurmdPidFile=$BASE/slurmd.pid
SlurmctldLogFile=$BASE/log/slurmctld.log
SlurmdLogFile=$BASE/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=${SLURM_CI_MPI:-pmix}
MailProg=/bin/true
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmdParameters=config_overrides
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
MinJobAge=${SLURM_CI_MINJOBAGE:-5}
Waittime=0
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$CPUS Sockets=1 CoresPerSocket=$CPUS ThreadsPerCore=1 RealMemory=$MEM State=UNKNOWN
PartitionName=ci Nodes=$HOST Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
[ "${CONF_ONLY:-0}" = 1 ] && exit 0
if [ "$AUTH" = munge ]; then
  if ! munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then
    [ -s /etc/munge/munge.key ] || { dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null; chown munge:munge /etc/munge/munge.key; chmod 0400 /etc/munge/munge.key; }
    install -d -o munge -g munge -m 0755 /run/munge
    runuser -u munge -- /usr/sbin/munged
    for i in $(seq 1 50); do munge -n </dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
  fi
fi
export SLURM_CONF="$BASE/slurm.conf"
slurmctld -f "$SLURM_CONF"          # daemonizes; -i would ignore state; state dir is fresh anyway
slurmd -f "$SLURM_CONF" -N "$HOST"
# wait until the node is schedulable
for i in $(seq 1 300); do
  st=$(sinfo -h -n "$HOST" -o %t 2>/dev/null || true)
  case "$st" in idle|mix|alloc) break;; esac
  sleep 0.1
done
sinfo -h -n "$HOST" -o %t | grep -qxE 'idle|mix|alloc' || { echo "slurm did not come up (state='$st')" >&2; tail -20 "$BASE/log/slurmctld.log" "$BASE/log/slurmd.log" >&2; exit 1; }
echo "export SLURM_CONF=$SLURM_CONF"
