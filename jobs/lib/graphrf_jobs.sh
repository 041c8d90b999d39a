# shellcheck shell=bash
# The helpers every jobs/ script sources once it has set NAME (its name in messages): strict mode, one-line
# errors, the input checks, the launcher and RUN_ID. The scripts look for this file under $GRAPHRF_HOME/jobs,
# then $SLURM_SUBMIT_DIR/jobs, then their own folder (sbatch runs a copy of them from its spool folder).
set -uo pipefail
CHECK_ONLY=${CHECK_ONLY:-0}   # 1: run every check, then stop before launching (e.g. on a login node before sbatch)
die() { echo "$NAME: error: $*" >&2; exit 2; }
# checks_done: every check passed; with CHECK_ONLY=1 say so and stop before anything is launched.
checks_done() {
  [ "$CHECK_ONLY" = 1 ] || return 0
  echo "$NAME: inputs OK (CHECK_ONLY=1: nothing launched)"; exit 0
}
# resolve_bin VAR NAME FALLBACK... [-- PROBE_ARG]: VAR's value, else NAME on PATH, else the first FALLBACK
# that exists; it must run `PROG PROBE_ARG` (default --version) without error. Made absolute.
resolve_bin() {
  local var=$1 name=$2 probe=--version bin cand; shift 2
  local fallbacks=()
  while [ $# -gt 0 ]; do
    if [ "$1" = -- ]; then probe=$2; break; fi
    fallbacks+=("$1"); shift
  done
  bin=${!var:-}
  if [ -z "$bin" ]; then
    bin=$(command -v "$name" || true)
    for cand in "${fallbacks[@]}"; do [ -n "$bin" ] && break; [ -x "$cand" ] && bin=$cand; done
    [ -n "$bin" ] || die "$name not found: put it on PATH or set $var (tried $name, ${fallbacks[*]} from $PWD)"
  fi
  case "$bin" in */*) ;; *) bin=$(command -v "$bin" || echo "$bin") ;; esac
  [ -f "$bin" ] && [ -x "$bin" ] || die "$var=$bin: no such executable (from $PWD)"
  bin=$(realpath "$bin")
  "$bin" "$probe" >/dev/null 2>&1 || die "$var=$bin does not run (\`$bin $probe\` failed)"
  printf -v "$var" '%s' "$bin"
}
# setup_launcher: LAUNCHER (srun in a Slurm job or with CHECK_ONLY=1, mpirun outside) and NTASKS (the job's
# tasks, else 2).
setup_launcher() {
  local plugins
  [ -n "${SLURM_CPUS_PER_TASK:-}" ] && export SRUN_CPUS_PER_TASK=$SLURM_CPUS_PER_TASK  # srun >= 22.05 does not inherit it
  [[ "$CHECK_ONLY" =~ ^[01]$ ]] || die "CHECK_ONLY must be 0 or 1 (got '$CHECK_ONLY')"
  [ -n "${LAUNCHER:-}" ] || LAUNCHER=$( { [ -n "${SLURM_JOB_ID:-}" ] || [ "$CHECK_ONLY" = 1 ]; } && echo srun || echo mpirun)
  NTASKS=${NTASKS:-${SLURM_NTASKS:-2}}
  [[ "$NTASKS" =~ ^[1-9][0-9]*$ ]] || die "NTASKS must be a positive integer (got '$NTASKS')"
  case "$LAUNCHER" in
    srun)   [ -n "${SLURM_JOB_ID:-}" ] || [ "$CHECK_ONLY" = 1 ] ||
              die "LAUNCHER=srun needs a Slurm job: submit with sbatch, or set LAUNCHER=mpirun"
            command -v srun >/dev/null || die "srun not found on PATH (without Slurm, set LAUNCHER=mpirun)"
            plugins=$(srun --mpi=list 2>&1) ||
              die "srun --mpi=list failed (no Slurm configuration here? without Slurm, set LAUNCHER=mpirun): $(printf '%s\n' "$plugins" | tail -1)"
            printf '%s\n' "$plugins" | grep -qw pmix || die "this srun has no pmix plugin (srun --mpi=list): set LAUNCHER=mpirun" ;;
    mpirun) command -v mpirun >/dev/null || die "mpirun not found on PATH" ;;
    *)      die "LAUNCHER must be srun or mpirun (got '$LAUNCHER')" ;;
  esac
}
# launch N PROGRAM ARGS...: N MPI tasks, with srun --mpi=pmix or mpirun -np N $MPIRUN_FLAGS.
launch() {
  local n=$1; shift
  if [ "$LAUNCHER" = srun ]; then srun --mpi=pmix --ntasks="$n" "$@"
  else mpirun -np "$n" ${MPIRUN_FLAGS:-} "$@"; fi
}
# check_out_dir: OUT_DIR exists (created if need be) and a file can be written there.
check_out_dir() {
  local probe
  mkdir -p "$OUT_DIR" 2>/dev/null || die "OUT_DIR=$OUT_DIR cannot be created (from $PWD)"
  probe=$(mktemp "$OUT_DIR/.write-test.XXXXXX" 2>/dev/null) || die "OUT_DIR=$OUT_DIR is not writable"
  rm -f "$probe"
}
# check_graph G: a generator (grid:RxC, random:N:DEG) or a readable file.
check_graph() {
  [ -n "$1" ] || die "no graph: set GRAPH (a file, grid:RxC or random:N:MEAN_DEGREE) or 'graph =' in CONFIG"
  case "$1" in
    grid:*|random:*) ;;
    *) [ -f "$1" ] && [ -r "$1" ] || die "graph file '$1' not found or unreadable (from $PWD)" ;;
  esac
}
# check_options COMMAND ARGS...: `graphrf COMMAND [--config CONFIG] ARGS --dump-config` parses the options
# without starting a job; then the files the effective configuration names must exist. Sets EFFECTIVE_CONFIG.
check_options() {
  local command=$1 err msg part qkv; shift
  if [ -n "${CONFIG:-}" ]; then [ -f "$CONFIG" ] && [ -r "$CONFIG" ] || die "CONFIG=$CONFIG not found or unreadable (from $PWD)"; fi
  err=$(mktemp)
  if ! EFFECTIVE_CONFIG=$("$GRAPHRF_BIN" "$command" ${CONFIG:+--config "$CONFIG"} "$@" --dump-config 2>"$err"); then
    msg=$(grep -m1 . "$err"); rm -f "$err"
    die "invalid options for graphrf $command: ${msg#graphrf: error: }"
  fi
  rm -f "$err"
  check_graph "$(config_value graph)"
  part=$(config_value partition); qkv=$(config_value qkv)
  case "$part" in file:*) check_partition_file "${part#file:}" ;; esac
  if [ -n "$qkv" ]; then [ -r "$qkv" ] || die "qkv file '$qkv' not found or unreadable"; fi
}
# check_partition_file FILE: readable, part ids below NTASKS (one part per task) and, with CHECK_ONLY=1, one
# line per node of the graph (counted by a serial `graphrf info` with the configuration's graph options).
check_partition_file() {
  local file=$1 counts lines top nodes keep
  [ -r "$file" ] || die "partition file '$file' not found or unreadable"
  counts=$(awk '!/^[[:space:]]*(#|$)/ { n++; if ($1 + 0 > top) top = $1 + 0 } END { print n + 0, top + 0 }' "$file")
  lines=${counts% *}; top=${counts#* }
  [ "$top" -lt "$NTASKS" ] ||
    die "partition file '$file' has part ids up to $top but the job has $NTASKS tasks (make it with graphrf-partition --parts $NTASKS)"
  [ "$CHECK_ONLY" = 1 ] || return 0
  keep=$([ "$(config_value keep-self-loops)" = true ] && echo --keep-self-loops)
  nodes=$("$GRAPHRF_BIN" info -q --graph "$(config_value graph)" --format "$(config_value format)" \
            --duplicates "$(config_value duplicates)" --weight-column "$(config_value weight-column)" $keep 2>/dev/null |
          sed -n 's/^RESULT nodes=\([0-9]*\).*/\1/p')
  [ -n "$nodes" ] || die "could not count the graph's nodes to check partition file '$file' (graphrf info failed)"
  [ "$lines" = "$nodes" ] || die "partition file '$file' has $lines part ids but the graph has $nodes nodes (one line per node)"
}
config_value() { printf '%s\n' "$EFFECTIVE_CONFIG" | sed -n "s/^$1 = //p" | head -1; }
# RUN_ID names the outputs: <job name>-<job id>, <job name>-<array job id>_<task id> in a job array,
# <script>-local-<time>-<pid> outside Slurm.
if [ -n "${SLURM_ARRAY_JOB_ID:-}" ]; then RUN_ID=${SLURM_JOB_NAME}-${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}
elif [ -n "${SLURM_JOB_ID:-}" ]; then RUN_ID=${SLURM_JOB_NAME}-${SLURM_JOB_ID}
else RUN_ID=${NAME%%.*}-local-$(date +%Y%m%d-%H%M%S)-$$; fi
