"""End-to-end fault injection at 2 ranks: killed ranks, signals to the launcher, full disks.

For each fault, in the walk phase and in the write phase:
  * SIGKILL to one rank, SIGTERM and SIGINT to mpirun (what a user, a scheduler's time limit or a crashing node
    does);
  * the job ends non-zero and no rank is left running 5 s later;
  * no file appears at --out unless the run finished, and an existing file there is left byte for byte as it
    was; after a signal the temporary file (OUT.<host>.<pid>.<random>.partial) is removed too.
The write phase is caught with GRAPHRF_FAULT_PAUSE_BEFORE_COMMIT (graphrf/core/fault_injection.hpp): the writer
pauses after writing its data and before deciding to publish, and says so on stderr. Disk full: a small tmpfs
(needs permission to mount; skipped, saying so, where the test cannot mount one), for graphrf and
graphrf-partition: one error line naming the output and the cause, non-zero exit, nothing left behind.
Signals are delivered as Open MPI does by default: mpirun forwards SIGTERM and SIGKILLs 1 s later.
"""

import os
import signal
import subprocess
import threading
import time

import graphrf_e2e as e2e

SURVIVAL_LIMIT = 5 * e2e.TIME_SCALE  # seconds after the fault by which every process must be gone
PHASE_TIMEOUT = 120 * e2e.TIME_SCALE  # seconds to reach the phase in which the fault is injected
SENTINEL = b"a previous result that an interrupted run must not replace\n"

# A walk long enough to be interrupted: 5000 nodes, 32 walkers each, p_halt 0.002 (500 hops per walk on average,
# 8 10^7 hops: 2.6 s on 2 ranks of a 2-core machine, 260 MiB per rank). Shorter walks (4 10^7 hops on 20000 nodes,
# 1.0-1.2 s) were sometimes over before a loaded machine delivered the signal, which then landed in the write of
# a big output instead: when that write outlasts mpirun's 1 s between SIGTERM and SIGKILL, its temporary file stays.
WALK_ARGS = ["grf", "--graph", "random:5000:8:3", "--walkers", "32", "--p-halt", "0.002", "--max-length", "100000"]
WRITE_ARGS = ["grf", "--graph", "grid:16x16", "--walkers", "4"]


class Job:
    """mpirun -np 2 PROGRAM ARGS in a session of its own, its output collected by threads."""

    def __init__(self, args, program=None, env=None):
        full_env = dict(e2e.MPI_ENV)
        full_env.update(os.environ)
        full_env.pop("OMPI_MCA_odls_base_sigkill_timeout", None)  # Open MPI's default (1 s), as users have it
        full_env.update(env or {})
        cmd = [e2e.MPIEXEC, "-np", "2"] + e2e.MPIEXEC_FLAGS + [program or e2e.GRAPHRF] + [str(a) for a in args]
        self.p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=full_env,
                                  stdin=subprocess.DEVNULL, start_new_session=True)
        self.cmd, self.stdout, self.stderr = cmd, [], []
        self.threads = [threading.Thread(target=self._drain, args=(s, into), daemon=True)
                        for s, into in ((self.p.stdout, self.stdout), (self.p.stderr, self.stderr))]
        for t in self.threads:
            t.start()

    @staticmethod
    def _drain(stream, into):
        for line in stream:
            into.append(line)

    def describe(self):
        return "$ %s\nexit %s\n--- stdout\n%s--- stderr\n%s" % (" ".join(self.cmd), self.p.returncode,
                                                               "".join(self.stdout), "".join(self.stderr))

    def wait_for(self, lines, text):
        deadline = time.monotonic() + PHASE_TIMEOUT
        while time.monotonic() < deadline:
            if any(text in line for line in lines):
                return
            if self.p.poll() is not None:
                raise AssertionError("ended before %r appeared\n%s" % (text, self.describe()))
            time.sleep(0.05)
        self.kill()
        raise AssertionError("%r did not appear within %s s\n%s" % (text, PHASE_TIMEOUT, self.describe()))

    def ranks(self):
        """Process ids of the ranks: mpirun's children running the program."""
        return e2e.rank_pids(self.p.pid)

    def kill(self):
        try:
            os.killpg(self.p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def expect_ended(self, ranks):
        """Non-zero exit and no rank alive within SURVIVAL_LIMIT seconds of the fault."""
        try:
            self.p.wait(timeout=SURVIVAL_LIMIT)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError("mpirun still running %s s after the fault\n%s" % (SURVIVAL_LIMIT, self.describe()))
        deadline = time.monotonic() + SURVIVAL_LIMIT
        alive = ranks
        while alive and time.monotonic() < deadline:
            alive = [pid for pid in alive if is_alive(pid)]
            time.sleep(0.05)
        for t in self.threads:
            t.join(timeout=5)
        assert not alive, "ranks %s survived\n%s" % (alive, self.describe())
        assert self.p.returncode != 0, "exit 0 after a fault\n" + self.describe()


def is_alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def check_out(out, existed, signalled, job):
    if existed:
        with open(out, "rb") as f:
            assert f.read() == SENTINEL, "the existing --out file was changed\n" + job.describe()
    else:
        assert not os.path.exists(out), "a file appeared at --out\n" + job.describe()
    if signalled:
        assert not e2e.temporaries(out), "temporary file left after a signal\n" + job.describe()


def inject(fault, phase, existing):
    with e2e.TempDir() as d:
        out = os.path.join(d, "out.h5")
        if existing:
            with open(out, "wb") as f:
                f.write(SENTINEL)
        if phase == "walk":
            job = Job(WALK_ARGS + ["--out", out])
            job.wait_for(job.stdout, "memory      estimate")  # printed as the walks start
        else:
            job = Job(WRITE_ARGS + ["--out", out], env={"GRAPHRF_FAULT_PAUSE_BEFORE_COMMIT": "60"})
            job.wait_for(job.stderr, "fault injection: pausing")
        ranks = job.ranks()
        assert len(ranks) == 2, "expected 2 ranks, found %s\n%s" % (ranks, job.describe())
        start = time.monotonic()
        if fault == "SIGKILL rank":
            os.kill(max(ranks), signal.SIGKILL)
        else:
            os.kill(job.p.pid, getattr(signal, fault.split()[0]))
        job.expect_ended(ranks)
        check_out(out, existing, fault != "SIGKILL rank", job)
        print("      %-14s in the %-5s phase: exit %d after %.2f s, %s" % (
            fault, phase, job.p.returncode, time.monotonic() - start,
            "existing file unchanged" if existing else "no file"), flush=True)


def test_faults_in_walk_phase():
    for fault in ("SIGKILL rank", "SIGTERM mpirun", "SIGINT mpirun"):
        inject(fault, "walk", existing=True)


def test_faults_in_write_phase():
    for fault in ("SIGKILL rank", "SIGTERM mpirun", "SIGINT mpirun"):
        inject(fault, "write", existing=True)
    inject("SIGTERM mpirun", "write", existing=False)


def test_interrupted_write_says_so():
    """After SIGTERM in the write phase the ranks decide together not to publish, and say why in one line."""
    with e2e.TempDir() as d:
        out = os.path.join(d, "out.h5")
        job = Job(WRITE_ARGS + ["--out", out], env={"GRAPHRF_FAULT_PAUSE_BEFORE_COMMIT": "60"})
        job.wait_for(job.stderr, "fault injection: pausing")
        ranks = job.ranks()
        for pid in ranks:  # as mpirun forwards it, to every rank at once
            os.kill(pid, signal.SIGTERM)
        job.expect_ended(ranks)
        errors = [l for l in "".join(job.stderr).splitlines() if l.startswith("graphrf:")]
        assert len(errors) == 1 and "interrupted by SIGTERM" in errors[0] and out in errors[0], job.describe()
        check_out(out, False, True, job)


def test_partition_tool_interrupted_in_write_phase():
    with e2e.TempDir() as d:
        out = os.path.join(d, "parts.txt")
        with open(out, "wb") as f:
            f.write(SENTINEL)
        job = Job(["--graph", "grid:16x16", "--parts", "2", "--out", out], program=e2e.GRAPHRF_PARTITION,
                  env={"GRAPHRF_FAULT_PAUSE_BEFORE_COMMIT": "60"})
        job.wait_for(job.stderr, "fault injection: pausing")
        ranks = job.ranks()
        os.kill(job.p.pid, signal.SIGTERM)
        job.expect_ended(ranks)
        check_out(out, True, True, job)


class SmallTmpfs:
    """A tmpfs of `kib` KiB mounted on a fresh folder, unmounted afterwards."""

    def __init__(self, parent, kib):
        self.path = os.path.join(parent, "small-disk")
        os.mkdir(self.path)
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%dk" % kib, "tmpfs", self.path],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise e2e.Skip("cannot mount a small tmpfs here (needs root or CAP_SYS_ADMIN): " + r.stderr.strip())

    def __enter__(self):
        return self.path

    def __exit__(self, *exc):
        subprocess.run(["umount", self.path], capture_output=True)
        return False


def expect_disk_full(args, program, out, prefix):
    r = e2e.run(2, args, program=program, timeout=120, check=False)
    errors = r.graphrf_errors()
    assert r.returncode != 0, "exit 0 on a full disk\n" + r.describe()
    assert len(errors) == 1 and errors[0].startswith(prefix), r.describe()
    assert "--out " + out in errors[0] and ("no space left" in errors[0].lower() or "disk full" in errors[0]), \
        r.describe()
    assert "wrote" not in r.stdout, r.describe()
    with open(out, "rb") as f:
        assert f.read() == SENTINEL, "the existing --out file was changed\n" + r.describe()
    assert not e2e.temporaries(out), r.describe()
    print("      %s" % errors[0], flush=True)


def test_disk_full():
    with e2e.TempDir() as d, SmallTmpfs(d, 256) as disk:
        grf_out, parts_out = os.path.join(disk, "grf.h5"), os.path.join(disk, "parts.txt")
        for path in (grf_out, parts_out):
            with open(path, "wb") as f:
                f.write(SENTINEL)
        # /grf_by_length alone is several MB here; the partition file is 320 KB.
        expect_disk_full(["grf", "--graph", "grid:64x64", "--walkers", "16", "--by-length", "--out", grf_out], None, grf_out,
                         "graphrf: error: ")
        expect_disk_full(["--graph", "grid:400x400", "--parts", "2", "--method", "block", "--out", parts_out],
                         e2e.GRAPHRF_PARTITION, parts_out, "graphrf-partition: error: ")


if __name__ == "__main__":
    e2e.main(globals())
