"""The jobs/ scripts and plot_report.py without Slurm (they fall back on mpirun outside a job).

Checks: every script parses (bash -n) and is executable; each finds the shared helper
jobs/lib/graphrf_jobs.sh when copied elsewhere (as sbatch copies it to its spool folder) through
GRAPHRF_HOME or SLURM_SUBMIT_DIR, and stops with one line naming them when neither leads to it; every
example config parses with --dump-config; grf, attention, partition (then grf on that partition file), sweep,
scaling, mpirun_attention and real_graphs (on small generated files laid out like the real-graph
folder) run and write what they say; bad inputs stop them with exit code 2 and one line before any
launch; plot_report.py draws a PNG from their outputs and rejects a missing file with one line.

Environment (set by ctest): GRAPHRF_BIN, GRAPHRF_PARTITION_BIN, GRAPHRF_SOURCE_DIR, MPIEXEC_FLAGS.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

results = {"passed": 0, "failed": 0}
# Sanitizer builds run 5-10x slower; their ctest environment sets GRAPHRF_TIME_SCALE (see graphrf_e2e.py).
TIME_SCALE = float(os.environ.get("GRAPHRF_TIME_SCALE", "1"))


def check(ok, what, detail=""):
    results["passed" if ok else "failed"] += 1
    print(("ok      " if ok else "FAILED  ") + what + ("" if ok or not detail else f": {detail}"))
    return ok


def main():
    src = os.environ.get("GRAPHRF_SOURCE_DIR") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    graphrf = os.environ.get("GRAPHRF_BIN") or os.path.join(src, "build/graphrf")
    partition_bin = os.environ.get("GRAPHRF_PARTITION_BIN") or os.path.join(src, "build/partition/graphrf-partition")
    jobs = os.path.join(src, "jobs")
    work = tempfile.mkdtemp(prefix="graphrf-jobs-scripts-")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
    for k in ("GRAPH", "CONFIG", "WALKERS", "SEED", "PARTITION", "REFERENCE", "OUT_DIR", "LAUNCHER", "NTASKS", "NP",
              "QKV", "FEATURE", "SAVE_GRF", "SWEEP", "VALUES", "SWEEP_COMMAND", "DATA_DIR", "GRAPHS", "GRAPHRF_HOME",
              "CHECK_ONLY"):
        env.pop(k, None)
    env.update({"GRAPHRF_BIN": graphrf, "PARTITION_BIN": partition_bin, "OUT_DIR": os.path.join(work, "out"),
                "MPIRUN_FLAGS": " ".join(f for f in os.environ.get("MPIEXEC_FLAGS", "").split(";") if f),
                "OMPI_MCA_mpi_yield_when_idle": "1", "OMPI_MCA_rmaps_base_oversubscribe": "1",
                "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"})

    def run(script, extra=None, args=(), timeout=120):
        r = subprocess.run(["bash", os.path.join(jobs, script), *args], env=dict(env, **(extra or {})), cwd=work,
                           capture_output=True, text=True, timeout=timeout * TIME_SCALE)
        return r.returncode, r.stdout, r.stderr

    def wrote(stdout, suffix):
        m = re.findall(r"(?:wrote|and) (\S+" + re.escape(suffix) + ")", stdout)
        return [p for p in m if os.path.isfile(p)]

    try:
        # --- the scripts themselves
        scripts = sorted(glob.glob(os.path.join(jobs, "*.sbatch")) + glob.glob(os.path.join(jobs, "*.sh")))
        check(len(scripts) >= 7, f"jobs/ has the batch scripts ({len(scripts)})")
        for s in scripts:
            name = os.path.basename(s)
            r = subprocess.run(["bash", "-n", s], capture_output=True, text=True)
            check(r.returncode == 0 and os.access(s, os.X_OK), f"{name}: bash -n passes, executable", r.stderr)
            text = open(s).read()
            if name.endswith(".sbatch"):
                sb = re.findall(r"^#SBATCH (\S+)", text, re.M)
                check(all(any(x.startswith(k) for x in sb) for k in ("--job-name", "--nodes", "--ntasks-per-node", "--time", "--output")),
                      f"{name}: #SBATCH job-name, nodes, ntasks-per-node, time, output", str(sb))
        lib = os.path.join(jobs, "lib", "graphrf_jobs.sh")
        r = subprocess.run(["bash", "-n", lib], capture_output=True, text=True)
        check(r.returncode == 0, "lib/graphrf_jobs.sh: bash -n passes", r.stderr)

        # --- example configs
        for ini in sorted(glob.glob(os.path.join(jobs, "configs", "*.ini"))):
            command = "attention" if os.path.basename(ini).startswith("attention") else "grf"
            r = subprocess.run([graphrf, command, "--config", ini, "--dump-config"], capture_output=True, text=True, env=env)
            check(r.returncode == 0 and "graph = " in r.stdout, f"configs/{os.path.basename(ini)} parses (graphrf {command})",
                  r.stderr.strip())

        # --- runs outside Slurm (mpirun)
        rc, out, err = run("grf.sbatch", {"GRAPH": "grid:12x12", "REFERENCE": "1"}, ["--beta", "0.5"])
        h5 = wrote(out, ".h5")
        check(rc == 0 and h5 and "kernel_error=" in out, "grf.sbatch outside Slurm: mpirun, RESULT, .h5", err[-500:])
        grf_h5 = h5
        rc, out, err = run("attention.sbatch", {"GRAPH": "grid:10x10", "SAVE_GRF": "1", "NTASKS": "3"})
        check(rc == 0 and wrote(out, ".h5") and "3 tasks via mpirun" in out, "attention.sbatch outside Slurm at NTASKS=3", err[-500:])
        rc, out, err = run("mpirun_attention.sh", {"NP": "2", "CONFIG": os.path.join(jobs, "configs", "attention-relu.ini")},
                           ["--graph", "grid:8x8"])
        check(rc == 0 and wrote(out, ".h5"), "mpirun_attention.sh with a config and extra arguments", err[-500:])
        rc, out, err = run("partition.sbatch", {"GRAPH": "grid:16x16", "PARTS": "3", "NTASKS": "2"})
        parts = wrote(out, ".parts")
        check(rc == 0 and parts, "partition.sbatch writes a .parts file", err[-500:])
        if parts:
            rc, out, err = run("grf.sbatch", {"GRAPH": "grid:16x16", "PARTITION": "file:" + parts[0], "NTASKS": "3"})
            check(rc == 0 and wrote(out, ".h5"), "grf.sbatch on partition.sbatch's file", err[-500:])
        rc, out, err = run("sweep.sbatch", {"GRAPH": "grid:10x10", "VALUES": "4 16"})
        sweep_h5, sweep_csv = wrote(out, ".h5"), wrote(out, ".csv")
        check(rc == 0 and len(sweep_h5) == 2 and len(sweep_csv) == 2, "sweep.sbatch outside an array runs every value", err[-500:])
        rc, out, err = run("scaling.sbatch", {"STRONG_GRAPH": "grid:32x32", "WEAK_ROWS": "16", "WEAK_COLS_PER_TASK": "32"})
        scaling_csv = wrote(out, ".csv")
        rows = open(scaling_csv[0]).read().splitlines() if scaling_csv else []
        check(rc == 0 and len(rows) == 5 and rows[0].startswith("series,ntasks,graph,repeat,wall_seconds"),
              "scaling.sbatch: strong and weak at 1 and 2 tasks in a CSV", err[-500:] + str(rows))

        data = os.path.join(work, "data")
        os.makedirs(os.path.join(data, "karate"))
        os.makedirs(os.path.join(data, "meshes"))
        with open(os.path.join(data, "karate", "karate.edges"), "w") as fh:
            fh.write("".join(f"{i} {(i + 1) % 20}\n{i} {(i + 7) % 20}\n" for i in range(20)))
        with open(os.path.join(data, "meshes", "ico4.obj"), "w") as fh:
            fh.write("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\nf 2 4 3\n")
        rc, out, err = run("real_graphs.sh", {"DATA_DIR": data, "REFERENCE_MAX_NODES": "10"})
        check(rc == 0 and re.search(r"^karate\s+20\s+40\s+-", out, re.M) and re.search(r"^ico4\s+4\s+5\s+0\.\d+\s+0\.\d+", out, re.M)
              and "cora/cora.cites not found, skipped" in out,
              "real_graphs.sh: summary with references under REFERENCE_MAX_NODES, missing graphs skipped", out[-1500:] + err[-500:])

        # --- a copy of each script elsewhere, as sbatch runs it from its spool folder, finds the helper
        # through GRAPHRF_HOME or the submit folder, and otherwise stops with one line naming both
        spool = os.path.join(work, "spool")
        os.makedirs(spool)
        for s in scripts:
            name = os.path.basename(s)
            copy = shutil.copy(s, spool)
            checks = {"CHECK_ONLY": "1", "LAUNCHER": "mpirun", "DATA_DIR": data}
            for var in ("GRAPHRF_HOME", "SLURM_SUBMIT_DIR"):
                rc, out, err = run(copy, dict(checks, **{var: src}))  # copy is absolute: run() takes it as is
                check(rc == 0 and f"{name}: inputs OK" in out, f"{name} copied elsewhere finds jobs/lib/graphrf_jobs.sh through {var}",
                      f"rc={rc} {err[-500:]}")
            rc, out, err = run(copy, dict(checks, GRAPHRF_HOME=work))
            lines = (out + err).strip().splitlines()
            check(rc == 2 and len(lines) == 1 and lines[0].startswith(
                      f"{name}: error: jobs/lib/graphrf_jobs.sh not found under GRAPHRF_HOME={work}, SLURM_SUBMIT_DIR=(unset) or {spool}")
                  and lines[0].endswith("set GRAPHRF_HOME to the graphrf source folder"),
                  f"{name} copied elsewhere without the helper: one-line error naming GRAPHRF_HOME and SLURM_SUBMIT_DIR", f"rc={rc} {lines}")

        # --- bad inputs: exit 2, one line, before any launch
        too_many_parts = os.path.join(work, "four.parts")
        with open(too_many_parts, "w") as fh:
            fh.write("# 4 parts\n" + "".join(f"{i % 4}\n" for i in range(36)))
        too_few_nodes = os.path.join(work, "ten.parts")
        with open(too_few_nodes, "w") as fh:
            fh.write("".join(f"{i % 2}\n" for i in range(10)))
        bad_ini = os.path.join(work, "bad.ini")
        with open(bad_ini, "w") as fh:
            fh.write("graph = grid:4x4\nwalkrs = 2\n")
        for script, extra, expect in (
                ("grf.sbatch", {"GRAPH": "/no/such/graph.txt"}, "graph file '/no/such/graph.txt' not found"),
                ("grf.sbatch", {"GRAPHRF_BIN": "/no/such/graphrf"}, "no such executable"),
                ("grf.sbatch", {"LAUNCHER": "srun"}, "LAUNCHER=srun needs a Slurm job"),
                ("attention.sbatch", {"CONFIG": bad_ini}, "bad.ini:2: unknown option 'walkrs'"),
                ("attention.sbatch", {"WALKERS": "many"}, "invalid options for graphrf attention"),
                ("grf.sbatch", {"PARTITION": "file:/no/parts"}, "partition file '/no/parts' not found"),
                ("grf.sbatch", {"GRAPH": "grid:6x6", "PARTITION": "file:" + too_many_parts},
                 "has part ids up to 3 but the job has 2 tasks"),
                ("grf.sbatch", {"GRAPH": "grid:6x6", "PARTITION": "file:" + too_few_nodes, "CHECK_ONLY": "1", "LAUNCHER": "mpirun"},
                 "has 10 part ids but the graph has 36 nodes"),
                ("grf.sbatch", {"CHECK_ONLY": "1", "PATH": "/usr/bin:/bin"} if not shutil.which("srun") else
                 {"CHECK_ONLY": "1", "SLURM_CONF": "/no/slurm.conf"}, "set LAUNCHER=mpirun"),
                ("grf.sbatch", {"OUT_DIR": "/proc/graphrf-out"}, "OUT_DIR=/proc/graphrf-out cannot be created"),
                ("sweep.sbatch", {"VALUES": "4 x"}, "VALUES must be non-negative integers"),
                ("scaling.sbatch", {"TASK_COUNTS": "1 64"}, "TASK_COUNTS has 64 but the job has 2 tasks"),
                ("partition.sbatch", {"METHOD": "kahip"}, "METHOD must be metis, ptscotch or block"),
                ("real_graphs.sh", {"DATA_DIR": os.path.join(work, "nowhere")}, "is not a folder")):
            rc, out, err = run(script, extra)
            lines = (out + err).strip().splitlines()
            check(rc == 2 and len(lines) == 1 and expect in lines[0] and lines[0].startswith(script + ": error: "),
                  f"{script} with {extra}: one-line error", f"rc={rc} {lines}")

        rc, out, err = run("grf.sbatch", {"CHECK_ONLY": "1", "LAUNCHER": "mpirun", "GRAPH": "grid:6x6", "OUT_DIR": os.path.join(work, "check-only")})
        check(rc == 0 and out.strip() == "grf.sbatch: inputs OK (CHECK_ONLY=1: nothing launched)"
              and not glob.glob(os.path.join(work, "check-only", "*")), "CHECK_ONLY=1: checks pass, nothing launched or written",
              f"rc={rc} {out!r} {err!r}")

        # --- plots
        png = os.path.join(work, "report.png")
        r = subprocess.run([sys.executable, os.path.join(jobs, "plot_report.py"), *grf_h5, *sweep_h5, *sweep_csv,
                            "--scaling", *scaling_csv, "--out", png], capture_output=True, text=True, env=env)
        ok = r.returncode == 0 and os.path.isfile(png) and open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
        check(ok and "5 panels" in r.stdout, "plot_report.py draws the five panels into a PNG", r.stdout + r.stderr)
        # multi-head attention output (/attention/stats/nnz_per_row is N x H) and more files than --max-files
        att = os.path.join(work, "heads.h5")
        mpiexec = os.environ.get("MPIEXEC") or "mpirun"
        flags = [f for f in os.environ.get("MPIEXEC_FLAGS", "").split(";") if f]
        subprocess.run([mpiexec, "-np", "1", *flags, graphrf, "attention", "--heads", "3", "--walkers", "4", "--reference",
                        "--out", att], env=env, capture_output=True, check=True)
        r = subprocess.run([sys.executable, os.path.join(jobs, "plot_report.py"), att, *grf_h5, *sweep_h5, "--max-files", "1",
                            "--out", png], capture_output=True, text=True, env=env)
        check(r.returncode == 0 and "left out:" in r.stderr and "attention error" not in r.stderr,
              "plot_report.py: multi-head attention output plots, and files beyond --max-files are named", r.stdout + r.stderr)
        r = subprocess.run([sys.executable, os.path.join(jobs, "plot_report.py"), "/no/such.h5", "--out", png],
                           capture_output=True, text=True, env=env)
        check(r.returncode != 0 and r.stderr.strip() == "plot_report.py: error: /no/such.h5: no such file",
              "plot_report.py: missing input gives one line", r.stderr)
    except Exception as e:  # noqa: BLE001
        check(False, "unexpected error", f"{type(e).__name__}: {e}")
    finally:
        if results["failed"]:
            print(f"kept {work} for a look")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"{results['passed']} passed, {results['failed']} failed")
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
