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
# DATA_DIR holds the files under the names in GRAPHS (download them into a folder of your own):
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

# The shared helpers (jobs/lib/graphrf_jobs.sh). sbatch runs a copy of this script from its spool folder, so
# look under GRAPHRF_HOME (the graphrf source folder), then the submit folder, then beside this script.
for JOBS_DIR in ${GRAPHRF_HOME:+"$GRAPHRF_HOME/jobs"} ${SLURM_SUBMIT_DIR:+"$SLURM_SUBMIT_DIR/jobs"} "$(dirname "$0")"; do
  [ -f "$JOBS_DIR/lib/graphrf_jobs.sh" ] && break; done
[ -f "$JOBS_DIR/lib/graphrf_jobs.sh" ] || { echo "$NAME: error: jobs/lib/graphrf_jobs.sh not found under GRAPHRF_HOME=${GRAPHRF_HOME:-(unset)}," \
  "SLURM_SUBMIT_DIR=${SLURM_SUBMIT_DIR:-(unset)} or $(dirname "$0"): set GRAPHRF_HOME to the graphrf source folder" >&2; exit 2; }
. "$JOBS_DIR/lib/graphrf_jobs.sh"

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
