"""End to end under a real Slurm: the jobs/ batch scripts submitted with sbatch, as a user would.

Starts a throwaway single-node Slurm 22.05 (tests/slurm/slurm-up.sh: slurmctld + slurmd + munge on
localhost, its own state folder and ports), submits jobs/grf.sbatch and jobs/attention.sbatch at 2 and 4
tasks with `sbatch --wait`, the mpirun variant (LAUNCHER=mpirun), a sweep job array, and jobs with bad
inputs, then checks exit codes, log files named by job id, the HDF5 outputs, that the GRF matrix and the
attention output do not depend on the task count (same seed), and that bad inputs fail at once with a
one-line message; and that a job submitted from another folder finds jobs/lib/graphrf_jobs.sh (sbatch runs
a copy of the script from its spool folder) through GRAPHRF_HOME or the submit folder, and fails with one
line naming them otherwise. Always tears the cluster down. Skips (exit 0) when slurm-wlm is not installed.

Environment (set by ctest, see tests/CMakeLists.txt): GRAPHRF_BIN, GRAPHRF_SOURCE_DIR; optional
SLURM_CI_PORT (slurmctld port; slurmd uses the next one), GRAPHRF_KEEP_SLURM=1 (keep the work folder
and daemon logs for a look afterwards).
"""
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time

PROG = "test_slurm_jobs"
# Sanitizer builds run 5-10x slower; their ctest environment sets GRAPHRF_TIME_SCALE (see graphrf_e2e.py).
TIME_SCALE = float(os.environ.get("GRAPHRF_TIME_SCALE", "1"))
results = {"passed": 0, "failed": 0}


def check(ok, what, detail=""):
    if ok:
        results["passed"] += 1
        print(f"ok      {what}")
    else:
        results["failed"] += 1
        print(f"FAILED  {what}" + (f": {detail}" if detail else ""))
    return ok


def finish():
    print(f"{results['passed']} passed, {results['failed']} failed")
    sys.exit(1 if results["failed"] else 0)


def slurm_missing():
    path = os.environ.get("PATH", "") + ":/usr/sbin:/sbin"
    missing = [p for p in ("sbatch", "srun", "scontrol", "sinfo", "slurmctld", "slurmd") if not shutil.which(p, path=path)]
    if missing:
        return "slurm-wlm not installed (no " + ", ".join(missing) + "; apt-get install slurm-wlm munge)"
    if not shutil.which("munged", path=path):
        return "slurm-wlm not installed (munge missing; apt-get install slurm-wlm munge)"
    if os.geteuid() != 0:
        return "slurm-wlm present but the throwaway cluster needs root (slurmd runs jobs as root)"
    return None


def free_port_pair():
    """SLURM_CI_PORT, else a random port p with p and p + 1 free on this machine."""
    if os.environ.get("SLURM_CI_PORT"):
        return int(os.environ["SLURM_CI_PORT"])
    rng = random.Random(os.getpid() ^ int(time.time()))
    for _ in range(50):
        p = rng.randrange(20000, 40000, 2)
        try:
            for q in (p, p + 1):
                with socket.socket() as s:
                    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                    s.bind(("0.0.0.0", q))
            return p
        except OSError:
            continue
    raise RuntimeError("no free port pair found for slurmctld/slurmd")


def munge_running():
    try:
        enc = subprocess.run(["munge", "-n"], capture_output=True, timeout=5, stdin=subprocess.DEVNULL)
        dec = subprocess.run(["unmunge"], input=enc.stdout, capture_output=True, timeout=5)
        return enc.returncode == 0 and dec.returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


class Cluster:
    def __init__(self, src, base, env):
        self.src, self.base, self.env = src, base, env
        self.munge_was_running = munge_running()

    def up(self):
        r = subprocess.run(["bash", os.path.join(self.src, "tests/slurm/slurm-up.sh"), self.base, "munge", "4"],
                           env=self.env, capture_output=True, text=True, timeout=90)
        if r.returncode != 0:
            raise RuntimeError(f"slurm-up.sh failed ({r.returncode}): {r.stderr.strip()[-2000:]}")
        self.env["SLURM_CONF"] = os.path.join(self.base, "slurm.conf")

    def logs(self):
        for name in ("slurmctld.log", "slurmd.log"):
            path = os.path.join(self.base, "log", name)
            if os.path.exists(path):
                with open(path, errors="replace") as fh:
                    tail = fh.readlines()[-15:]
                print(f"--- tail of {path}\n" + "".join(tail), end="")

    def down(self, keep_logs):
        env = dict(self.env, STOP_MUNGE="0" if self.munge_was_running else "1", KEEP_LOGS="1" if keep_logs else "0")
        subprocess.run(["bash", os.path.join(self.src, "tests/slurm/slurm-down.sh"), self.base], env=env,
                       capture_output=True, timeout=60)


class Job:
    """One sbatch --wait submission: exit code, job id, elapsed time and the log file."""

    def __init__(self, script, sbatch_args, env, cwd, timeout=120):
        self.script = script
        t0 = time.monotonic()
        cmd = ["sbatch", "--wait", "--parsable", *sbatch_args, script]
        try:
            r = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout * TIME_SCALE)
            self.rc, self.stdout, self.stderr = r.returncode, r.stdout, r.stderr
        except subprocess.TimeoutExpired as e:
            self.rc, self.stdout, self.stderr = None, (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or ""), "timeout"
        self.seconds = time.monotonic() - t0
        first = self.stdout.strip().splitlines()[0] if self.stdout.strip() else ""
        self.job_id = first.split(";")[0] if first.split(";")[0].isdigit() else None
        if self.rc is None and self.job_id:
            subprocess.run(["scancel", self.job_id], env=env, capture_output=True, timeout=30)

    def describe(self):
        return f"rc={self.rc} after {self.seconds:.1f} s, stderr: {self.stderr.strip()[-500:]}"


def read_text(path):
    try:
        with open(path, errors="replace") as fh:
            return fh.read()
    except OSError:
        return None


def main():
    why = slurm_missing()
    if why:
        print(f"skipped: {why}")
        print("0 passed, 0 failed")
        return 0
    import h5py
    import numpy as np
    import scipy.sparse as sp

    src = os.environ.get("GRAPHRF_SOURCE_DIR") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    graphrf = os.environ.get("GRAPHRF_BIN") or os.path.join(src, "build/graphrf")
    if not os.access(graphrf, os.X_OK):
        check(False, "GRAPHRF_BIN is an executable", graphrf)
        finish()
    jobs_dir = os.path.join(src, "jobs")
    work = tempfile.mkdtemp(prefix="graphrf-slurm-jobs-")
    base = os.path.join(work, "slurm")
    env = dict(os.environ)
    env["PATH"] = env.get("PATH", "") + ":/usr/sbin:/sbin"
    # Neither an enclosing allocation's SLURM_* nor the jobs/ scripts' own settings may leak into the jobs.
    script_vars = {"GRAPH", "CONFIG", "WALKERS", "SEED", "PARTITION", "REFERENCE", "OUT_DIR", "LAUNCHER", "MPIRUN_FLAGS",
                   "NTASKS", "NP", "QKV", "FEATURE", "SAVE_GRF", "SWEEP", "VALUES", "SWEEP_COMMAND", "PARTITION_BIN",
                   "GRAPHRF_HOME", "CHECK_ONLY"}
    for key in [k for k in env if (k.startswith("SLURM_") and not k.startswith("SLURM_CI_")) or k in script_vars]:
        del env[key]
    env["SLURM_CI_PORT"] = str(free_port_pair())
    # What the jobs see (sbatch passes the environment on): the binary, where the scripts find their helper
    # (jobs are submitted from the work folder, not the source folder), and Open MPI as root on few cores.
    env.update({"GRAPHRF_BIN": graphrf, "GRAPHRF_HOME": src,
                "OMPI_MCA_mpi_yield_when_idle": "1", "OMPI_MCA_rmaps_base_oversubscribe": "1",
                "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"})
    cluster = Cluster(src, base, env)
    t_start = time.monotonic()
    keep = os.environ.get("GRAPHRF_KEEP_SLURM") == "1"
    try:
        cluster.up()
        check(True, f"throwaway Slurm up in {time.monotonic() - t_start:.1f} s (port {env['SLURM_CI_PORT']}, {base})")

        def submit(script, ntasks, extra_env=None, sbatch_args=(), cwd=work, base_env=env):
            job_env = dict(base_env, **(extra_env or {}))
            args = [f"--ntasks={ntasks}", f"--ntasks-per-node={ntasks}", *sbatch_args]
            return Job(os.path.join(jobs_dir, script), args, job_env, cwd)

        def h5_path(name, job, folder=work):
            return os.path.join(folder, "results", f"{name}-{job.job_id}.h5")

        def good_job(label, name, job, datasets, folder=work):
            """Exit code 0, the log named <name>-<id>.out, the HDF5 output with its datasets (in the submit folder)."""
            if not check(job.rc == 0 and job.job_id, f"{label}: sbatch --wait exit code 0", job.describe()):
                log = read_text(os.path.join(folder, f"{name}-{job.job_id}.out")) if job.job_id else None
                if log:
                    print("--- job log\n" + log[-3000:])
                return None
            log = read_text(os.path.join(folder, f"{name}-{job.job_id}.out"))
            check(log is not None and f"wrote {os.path.join('results', name)}-{job.job_id}.h5" in log,
                  f"{label}: log {name}-{job.job_id}.out names its output", (log or "no log")[-300:])
            path = h5_path(name, job, folder)
            if not check(os.path.isfile(path), f"{label}: wrote results/{name}-{job.job_id}.h5 ({job.seconds:.1f} s)"):
                return None
            with h5py.File(path, "r") as f:
                missing = [d for d in datasets if d not in f]
                check(not missing, f"{label}: has {', '.join(datasets)}", f"missing {missing}")
            return path

        # --- GRFs at 2 and 4 tasks (METIS: row order differs between the two), srun --mpi=pmix
        grf_env = {"GRAPH": "grid:20x24", "WALKERS": "8", "SEED": "7", "PARTITION": "metis", "REFERENCE": "1"}
        grf_files = {}
        for n in (2, 4):
            job = submit("grf.sbatch", n, grf_env)
            path = good_job(f"grf.sbatch --ntasks={n}", "grf", job,
                            ["grf/data", "grf/indices", "grf/indptr", "nodes/id", "walks/length_histogram"])
            if path:
                with h5py.File(path, "r") as f:
                    check(int(f.attrs["n_ranks"]) == n, f"grf.sbatch --ntasks={n}: ran on {n} ranks (srun --mpi=pmix)",
                          f"n_ranks={f.attrs['n_ranks']}")
                    check("kernel_relative_frobenius_error" in f.attrs, f"grf.sbatch --ntasks={n}: REFERENCE=1 gave the kernel error")
                # The tasks of one node form one host under srun --mpi=pmix: MPI-3 shared windows work there too.
                log = read_text(os.path.join(work, f"grf-{job.job_id}.out")) or ""
                check(f"1 host of {n} ranks, shared graph" in log,
                      f"grf.sbatch --ntasks={n}: srun --mpi=pmix tasks share one host's graph (MPI-3 shared windows)",
                      "\n".join(line for line in log.splitlines() if line.startswith("hosts")) or log[-300:])
                grf_files[n] = path

        def ordered_grf(path):
            with h5py.File(path, "r") as f:
                ids = f["nodes/id"][()]
                g = f["grf"]
                n = int(g.attrs["shape"][0])
                m = sp.csr_matrix((g["data"][()], g["indices"][()], g["indptr"][()]), shape=(n, n))
            order = np.argsort(ids, kind="stable")
            # rows follow /nodes/id; column indices are row positions of the same file
            return ids[order], m[order][:, order].tocsr()

        if len(grf_files) == 2:
            ids2, m2 = ordered_grf(grf_files[2])
            ids4, m4 = ordered_grf(grf_files[4])
            with h5py.File(grf_files[2]) as f2, h5py.File(grf_files[4]) as f4:
                reordered = not np.array_equal(f2["nodes/id"][()], f4["nodes/id"][()])
            same = np.array_equal(ids2, ids4) and (m2 != m4).nnz == 0
            check(same, "grf: 2- and 4-task /grf identical after ordering rows and columns by /nodes/id"
                  + (" (row orders differed)" if reordered else ""),
                  f"max |diff| {abs(m2 - m4).max() if np.array_equal(ids2, ids4) else 'node ids differ'}")

        # --- attention at 2 and 4 tasks with srun, and 4 tasks with the mpirun variant
        att_env = {"GRAPH": "grid:16x20", "WALKERS": "8", "SEED": "3", "PARTITION": "metis"}
        att_files = {}
        for n, launcher in ((2, "srun"), (4, "srun"), (4, "mpirun")):
            job = submit("attention.sbatch", n, dict(att_env, LAUNCHER=launcher))
            label = f"attention.sbatch --ntasks={n} LAUNCHER={launcher}"
            path = good_job(label, "attention", job, ["attention/output", "nodes/id"])
            if path:
                att_files[(n, launcher)] = path

        def ordered_output(path):
            with h5py.File(path, "r") as f:
                ids, out = f["nodes/id"][()], f["attention/output"][()]
            order = np.argsort(ids, kind="stable")
            return ids[order], out[order]

        if (2, "srun") in att_files:
            ids_ref, out_ref = ordered_output(att_files[(2, "srun")])
            for key in [k for k in att_files if k != (2, "srun")]:
                ids, out = ordered_output(att_files[key])
                ok = np.array_equal(ids, ids_ref) and out.shape == out_ref.shape and np.allclose(out, out_ref, rtol=1e-10, atol=1e-13)
                diff = np.abs(out - out_ref).max() if ok or out.shape == out_ref.shape else "shapes differ"
                check(ok, f"attention: {key[0]} tasks ({key[1]}) matches 2 tasks (srun) row by row, max |diff| {diff}")

        # --- a job array: walkers 4 and 8, outputs named <name>-<array job id>_<task id>
        job = submit("sweep.sbatch", 2, {"GRAPH": "grid:16x16", "VALUES": "4 8"}, ["--array=0-1"])
        if check(job.rc == 0 and job.job_id, "sweep.sbatch --array=0-1: exit code 0", job.describe()):
            errors = []
            for i in (0, 1):
                stem = os.path.join(work, "results", f"sweep-{job.job_id}_{i}")
                log = read_text(os.path.join(work, f"sweep-{job.job_id}_{i}.out"))
                csv_text = read_text(stem + ".csv") or ""
                ok = os.path.isfile(stem + ".h5") and log is not None and "kernel_error" in csv_text
                check(ok, f"sweep.sbatch: array task {i} wrote sweep-{job.job_id}_{i}.h5/.csv and its log sweep-{job.job_id}_{i}.out")
                if os.path.isfile(stem + ".h5"):
                    with h5py.File(stem + ".h5") as f:
                        errors.append((f["walks"].attrs["walkers_per_node"],
                                       f.attrs.get("kernel_relative_frobenius_error")))
            check([e[0] for e in errors] == [4, 8] and all(e[1] is not None for e in errors),
                  f"sweep.sbatch: array tasks ran walkers 4 and 8 with reference errors {[e[1] for e in errors]}")

        # --- bad inputs: the job fails at once, with one line in its log and no output
        bad_config = os.path.join(work, "typo.ini")
        with open(bad_config, "w") as fh:
            fh.write("graph = grid:8x8\nwalkrs = 8\n")
        for label, script, name, extra, expect in (
                ("missing graph file", "grf.sbatch", "grf", {"GRAPH": os.path.join(work, "no-such-graph.txt")},
                 "grf.sbatch: error: graph file"),
                ("config with a misspelt key", "attention.sbatch", "attention", {"CONFIG": bad_config},
                 "attention.sbatch: error: invalid options for graphrf attention: " + bad_config +
                 ":2: unknown option 'walkrs'")):
            job = submit(script, 2, extra)
            log = read_text(os.path.join(work, f"{name}-{job.job_id}.out")) if job.job_id else None
            lines = (log or "").strip().splitlines()
            check(job.rc not in (0, None), f"bad input ({label}): {script} exits non-zero (rc={job.rc}, {job.seconds:.1f} s)")
            check(len(lines) == 1 and lines[0].startswith(expect),
                  f"bad input ({label}): one-line message in {name}-{job.job_id}.out", repr(log))
            check(not os.path.exists(os.path.join(work, "results", f"{name}-{job.job_id}.h5")),
                  f"bad input ({label}): nothing launched, no output file")

        # --- submitted from other folders: GRAPHRF_HOME leads to the helper, so does a submit folder with jobs/
        # in it (here a link to the source's), and without either the job stops with one line naming both
        small = {"GRAPH": "grid:8x8", "WALKERS": "4"}
        no_home = {k: v for k, v in env.items() if k != "GRAPHRF_HOME"}
        elsewhere, checkout = os.path.join(work, "elsewhere"), os.path.join(work, "checkout")
        os.makedirs(elsewhere)
        os.makedirs(checkout)
        os.symlink(jobs_dir, os.path.join(checkout, "jobs"))
        job = submit("grf.sbatch", 2, small, cwd=elsewhere)
        good_job("grf.sbatch from another folder with GRAPHRF_HOME", "grf", job, ["grf/data", "nodes/id"], elsewhere)
        job = submit("grf.sbatch", 2, small, cwd=checkout, base_env=no_home)
        good_job("grf.sbatch from a folder with jobs/, no GRAPHRF_HOME", "grf", job, ["grf/data", "nodes/id"], checkout)
        job = submit("grf.sbatch", 2, small, cwd=elsewhere, base_env=no_home)
        log = read_text(os.path.join(elsewhere, f"grf-{job.job_id}.out")) if job.job_id else None
        lines = (log or "").strip().splitlines()
        check(job.rc not in (0, None) and len(lines) == 1 and lines[0].startswith(
                  f"grf.sbatch: error: jobs/lib/graphrf_jobs.sh not found under GRAPHRF_HOME=(unset), SLURM_SUBMIT_DIR={elsewhere} or ")
              and lines[0].endswith("set GRAPHRF_HOME to the graphrf source folder"),
              f"grf.sbatch from another folder without GRAPHRF_HOME: exits non-zero (rc={job.rc}) with one line naming "
              "GRAPHRF_HOME and SLURM_SUBMIT_DIR", repr(log))
    except Exception as e:  # noqa: BLE001 - any failure is reported as a failed check, then teardown
        check(False, "unexpected error", f"{type(e).__name__}: {e}")
    finally:
        failed = results["failed"] > 0
        if failed:
            cluster.logs()
        cluster.down(keep_logs=failed or keep)
        if failed or keep:
            print(f"kept {work} for a look")
        else:
            shutil.rmtree(work, ignore_errors=True)
        print(f"{PROG}: {time.monotonic() - t_start:.1f} s with the cluster up and torn down")
    finish()


if __name__ == "__main__":
    sys.exit(main())
