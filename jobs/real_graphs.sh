#!/bin/bash
# GRFs and GRF-masked attention on real graphs in their original formats, as a user would run them:
# for each graph `graphrf info` (what the loader did), `graphrf grf` and `graphrf attention`, with the
# dense references (kernel error, attention error) where the graph has at most REFERENCE_MAX_NODES nodes.
#
#   DATA_DIR=~/graphs jobs/real_graphs.sh                    # workstation: mpirun -np ${NTASKS:-2}
#   DATA_DIR=~/graphs NTASKS=4 REFERENCE_MAX_NODES=5000 jobs/real_graphs.sh
#   DATA_DIR=$PWD/data sbatch jobs/real_graphs.sh            # also a Slurm batch script (srun --mpi=pmix)
#   GRAPHS="cora/cora.cites meshes/bunny.obj" DATA_DIR=~/graphs jobs/real_graphs.sh --walkers 32
#
# DATA_DIR holds the files under the names in GRAPHS (the layout of the project's shared data folder):
#   cora/cora.cites                citation graph, LINQS `cited citing` ids      (tkipf/pygcn, data/cora)
#   road/rome99.gr                 Rome road network, DIMACS-9 shortest-path     (9th DIMACS challenge)
#   power-grid/USPowerGrid.txt     US western power grid, 1-based pairs          (Watts & Strogatz 1998)
#   email-eu-core/email-Eu-core.line1-fixed.txt   SNAP email-Eu-core, directed   (snap.stanford.edu)
#   meshes/ico4.obj, meshes/bunny.obj, meshes/fandisk.obj   triangle meshes (trimesh, GeometricKernels)
#   karate/karate.edges, lesmis/out.moreno_lesmis, pems-sanjose/pems_edges.csv   small classics
# jobs/README.md says where to download each. Missing files are skipped with a note.
# Writes $OUT_DIR/<run id>/<graph>-grf.h5 and <graph>-attention.h5, and a summary table
# $OUT_DIR/<run id>.csv (graph,nodes,edges,components,kernel_error,attention_error,grf_s,attention_s).
#SBATCH --job-name=real-graphs
#SBATCH --nodes=1
#SBATCH --ntasks-per-node=4
#SBATCH --time=01:00:00
#SBATCH --output=%x-%j.out

# ---- edit these, or set them in the environment ------------------------------------------------------
GRAPHRF_BIN=${GRAPHRF_BIN:-}      # empty: graphrf on PATH, else ./build/graphrf
DATA_DIR=${DATA_DIR:-data}        # the folder with the graphs (relative paths: from the current folder)
GRAPHS=${GRAPHS:-karate/karate.edges lesmis/out.moreno_lesmis meshes/ico4.obj email-eu-core/email-Eu-core.line1-fixed.txt pems-sanjose/pems_edges.csv meshes/bunny.obj cora/cora.cites meshes/fandisk.obj road/rome99.gr power-grid/USPowerGrid.txt}
REFERENCE_MAX_NODES=${REFERENCE_MAX_NODES:-3000}  # dense references cost O(N^3) time, O(N^2) memory per rank
WALKERS=${WALKERS:-}              # walkers per node (empty: 16)
SEED=${SEED:-}                    # random seed (empty: 1)
ATTENTION=${ATTENTION:-1}         # 0: GRFs only
OUT_DIR=${OUT_DIR:-results}       # output folder
LAUNCHER=${LAUNCHER:-}            # srun (srun --mpi=pmix; the default in a Slurm job) | mpirun (the default outside)
MPIRUN_FLAGS=${MPIRUN_FLAGS:-}    # extra mpirun flags, e.g. "--oversubscribe"
NAME=real_graphs.sh
# ------------------------------------------------------------------------------------------------------

# ---- common block: the same in every jobs/ script (tests/e2e/test_jobs_scripts.py checks) ----------
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
            command -v srun >/dev/null || die "srun not found on PATH"
            plugins=$(srun --mpi=list 2>&1) || die "srun --mpi=list failed (no Slurm configuration here?): $(printf '%s\n' "$plugins" | tail -1)"
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
  case "$part" in file:*) [ -r "${part#file:}" ] || die "partition file '${part#file:}' not found or unreadable" ;; esac
  if [ -n "$qkv" ]; then [ -r "$qkv" ] || die "qkv file '$qkv' not found or unreadable"; fi
}
config_value() { printf '%s\n' "$EFFECTIVE_CONFIG" | sed -n "s/^$1 = //p" | head -1; }
# RUN_ID names the outputs: <job name>-<job id>, <job name>-<array job id>_<task id> in a job array,
# <script>-local-<time>-<pid> outside Slurm.
if [ -n "${SLURM_ARRAY_JOB_ID:-}" ]; then RUN_ID=${SLURM_JOB_NAME}-${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}
elif [ -n "${SLURM_JOB_ID:-}" ]; then RUN_ID=${SLURM_JOB_NAME}-${SLURM_JOB_ID}
else RUN_ID=${NAME%%.*}-local-$(date +%Y%m%d-%H%M%S)-$$; fi
# ---- end of the common block -------------------------------------------------------------------------

resolve_bin GRAPHRF_BIN graphrf ./build/graphrf
setup_launcher
[ -d "$DATA_DIR" ] || die "DATA_DIR=$DATA_DIR is not a folder (from $PWD): point it at the real graphs (see jobs/README.md)"
[[ "$REFERENCE_MAX_NODES" =~ ^[0-9]+$ ]] || die "REFERENCE_MAX_NODES must be a non-negative integer (got '$REFERENCE_MAX_NODES')"
[[ "$ATTENTION" =~ ^[01]$ ]] || die "ATTENTION must be 0 or 1 (got '$ATTENTION')"
found=()
for g in $GRAPHS; do
  if [ -f "$DATA_DIR/$g" ] && [ -r "$DATA_DIR/$g" ]; then found+=("$g"); else echo "$NAME: note: $DATA_DIR/$g not found, skipped"; fi
done
[ ${#found[@]} -gt 0 ] || die "none of the graphs in GRAPHS is in DATA_DIR=$DATA_DIR (see jobs/README.md for where to get them)"
OPTS=(${WALKERS:+--walkers "$WALKERS"} ${SEED:+--seed "$SEED"} "$@")
check_options grf --graph "$DATA_DIR/${found[0]}" "${OPTS[@]}"
[ "$ATTENTION" = 0 ] || check_options attention --graph "$DATA_DIR/${found[0]}" "${OPTS[@]}"
check_out_dir
checks_done
RUN_DIR=$OUT_DIR/$RUN_ID
mkdir -p "$RUN_DIR" || die "cannot create $RUN_DIR"
CSV=$OUT_DIR/$RUN_ID.csv
echo "graph,nodes,edges,components,kernel_error,attention_error,grf_seconds,attention_seconds" > "$CSV"

# run_step LABEL ARGS...: launch graphrf, show its output, keep its RESULT line in $result.
run_step() {
  local label=$1 log rc; shift
  log=$(mktemp)
  launch "$NTASKS" "$GRAPHRF_BIN" "$@" > "$log" 2>&1
  rc=$?
  sed 's/^/    /' "$log"
  result=$(sed -n 's/^RESULT //p' "$log" | head -1)
  rm -f "$log"
  [ $rc -eq 0 ] || echo "$NAME: $label failed (exit code $rc)" >&2
  return $rc
}
field() { printf '%s\n' "$result" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -1; }
seconds_of() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }

status=0
summary=()
for g in "${found[@]}"; do
  path=$DATA_DIR/$g
  name=$(basename "$(dirname "$g")"); { [ "$name" = meshes ] || [ "$name" = . ]; } && name=$(basename "${g%.*}")
  echo "== $name: $path"
  run_step "graphrf info $path" info --graph "$path" || { status=1; summary+=("$name failed"); continue; }
  nodes=$(field nodes); edges=$(field edges); components=$(field components)
  ref=(); refnote="no reference: $nodes nodes > REFERENCE_MAX_NODES=$REFERENCE_MAX_NODES"
  if [ "$nodes" -le "$REFERENCE_MAX_NODES" ]; then ref=(--reference); refnote="with --reference"; fi
  echo "-- grf ($refnote)"
  t0=$(date +%s.%N)
  run_step "graphrf grf $path" grf --graph "$path" "${ref[@]}" --out "$RUN_DIR/$name-grf.h5" -q "${OPTS[@]}" || status=1
  grf_s=$(seconds_of "$t0"); kerr=$(field kernel_error)
  aerr=""; att_s=""
  if [ "$ATTENTION" = 1 ]; then
    echo "-- attention ($refnote)"
    t0=$(date +%s.%N)
    run_step "graphrf attention $path" attention --graph "$path" "${ref[@]}" --out "$RUN_DIR/$name-attention.h5" -q "${OPTS[@]}" || status=1
    att_s=$(seconds_of "$t0"); aerr=$(field head0_error_vs_masked_linear)
  fi
  echo "$name,$nodes,$edges,$components,$kerr,$aerr,$grf_s,$att_s" >> "$CSV"
  summary+=("$(printf '%-28s %8s %8s %12s %16s %8s %8s' "$name" "$nodes" "$edges" "${kerr:--}" "${aerr:--}" "$grf_s" "${att_s:--}")")
done

echo
echo "kernel error = ||estimate - K||_F / ||K||_F (GRF estimate vs the exact kernel); attention error = GRF-masked vs exactly"
echo "kernel-masked linear attention (relative Frobenius). '-' = no reference (graph above REFERENCE_MAX_NODES)."
printf '%-28s %8s %8s %12s %16s %8s %8s\n' graph nodes edges kernel_error attention_error grf_s att_s
printf '%s\n' "${summary[@]}"
echo "$NAME: wrote $RUN_DIR/*.h5 and $CSV"
exit $status
