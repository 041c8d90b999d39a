#!/bin/bash
# GRF-masked linear attention on a workstation (no Slurm): `mpirun -np NP graphrf attention`.
#
#   jobs/mpirun_attention.sh                                 # grid:64x64, synthetic Q/K/V, 4 ranks
#   NP=8 GRAPH=data/meshes/bunny.obj REFERENCE=1 jobs/mpirun_attention.sh
#   CONFIG=jobs/configs/attention-relu.ini jobs/mpirun_attention.sh --walkers 32   # extra arguments go to graphrf
#   MPIRUN_FLAGS="--oversubscribe" NP=8 jobs/mpirun_attention.sh                  # more ranks than cores
#
# The same job as attention.sbatch, launched with mpirun. Writes $OUT_DIR/mpirun_attention-local-<time>-<pid>.h5.
# As root, Open MPI also wants OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; with more
# ranks than cores, OMPI_MCA_mpi_yield_when_idle=1 keeps idle ranks from spinning.

# ---- edit these, or set them in the environment ------------------------------------------------------
GRAPHRF_BIN=${GRAPHRF_BIN:-}      # empty: graphrf on PATH, else ./build/graphrf
NP=${NP:-4}                       # MPI ranks
GRAPH=${GRAPH:-}                  # a file, grid:RxC or random:N:MEAN_DEGREE[:SEED]; empty: CONFIG's, else grid:64x64
CONFIG=${CONFIG:-}                # optional INI file (keys = long option names); the variables here win over it
QKV=${QKV:-}                      # HDF5 with /q, /k, /v (empty: CONFIG's, else seeded synthetic 8,8)
WALKERS=${WALKERS:-}              # walkers per node (empty: CONFIG's, else graphrf's default 16)
SEED=${SEED:-}                    # random seed (empty: CONFIG's, else 1)
REFERENCE=${REFERENCE:-0}         # 1: also the dense references (small graphs only) and the errors
OUT_DIR=${OUT_DIR:-results}       # output folder
MPIRUN_FLAGS=${MPIRUN_FLAGS:-}    # extra mpirun flags, e.g. "--oversubscribe --bind-to core"
NAME=mpirun_attention.sh
# ------------------------------------------------------------------------------------------------------

# The shared helpers (jobs/lib/graphrf_jobs.sh). sbatch runs a copy of this script from its spool folder, so
# look under GRAPHRF_HOME (the graphrf source folder), then the submit folder, then beside this script.
for JOBS_DIR in ${GRAPHRF_HOME:+"$GRAPHRF_HOME/jobs"} ${SLURM_SUBMIT_DIR:+"$SLURM_SUBMIT_DIR/jobs"} "$(dirname "$0")"; do
  [ -f "$JOBS_DIR/lib/graphrf_jobs.sh" ] && break; done
[ -f "$JOBS_DIR/lib/graphrf_jobs.sh" ] || { echo "$NAME: error: jobs/lib/graphrf_jobs.sh not found under GRAPHRF_HOME=${GRAPHRF_HOME:-(unset)}," \
  "SLURM_SUBMIT_DIR=${SLURM_SUBMIT_DIR:-(unset)} or $(dirname "$0"): set GRAPHRF_HOME to the graphrf source folder" >&2; exit 2; }
. "$JOBS_DIR/lib/graphrf_jobs.sh"

LAUNCHER=mpirun NTASKS=$NP
resolve_bin GRAPHRF_BIN graphrf ./build/graphrf
setup_launcher
[ -n "$GRAPH$CONFIG" ] || GRAPH=grid:64x64
[[ "$REFERENCE" =~ ^[01]$ ]] || die "REFERENCE must be 0 or 1 (got '$REFERENCE')"
OUT=$OUT_DIR/$RUN_ID.h5
ARGS=(${GRAPH:+--graph "$GRAPH"} ${QKV:+--qkv "$QKV"} ${WALKERS:+--walkers "$WALKERS"} ${SEED:+--seed "$SEED"}
      --out "$OUT" "$@")
[ "$REFERENCE" = 1 ] && ARGS+=(--reference)
check_options attention "${ARGS[@]}"
check_out_dir
checks_done

echo "$NAME: mpirun -np $NP ${MPIRUN_FLAGS:+$MPIRUN_FLAGS }graphrf attention ${CONFIG:+--config $CONFIG }${ARGS[*]}"
mpirun -np "$NP" $MPIRUN_FLAGS "$GRAPHRF_BIN" attention ${CONFIG:+--config "$CONFIG"} "${ARGS[@]}"
status=$?
if [ $status -eq 0 ]; then echo "$NAME: wrote $OUT"; else echo "$NAME: graphrf attention failed (exit code $status)" >&2; fi
exit $status
