"""End-to-end: runs that write the same --out, and temporary files of runs that died.

  * Two runs to the same --out at once (graphrf grf with seeds 1 and 2 at np 2; graphrf-partition --parts 3 and
    --parts 7), repeated: both exit 0 and the file left is exactly one of the two runs' own outputs (compared with
    each run's output written alone), never a mix; no temporary file is left. Each run writes a temporary file of
    its own and publishes it by rename; GRAPHRF_FAULT_PAUSE_BEFORE_COMMIT makes their write phases overlap.
  * SIGUSR1 (Slurm's warning before a time limit) in the write phase, to mpirun and to the ranks: the run does
    not publish, says so in one line, leaves no temporary file and no --out.
  * The temporary file of a SIGKILLed job is removed by the next run to the same --out, while the temporary file
    of a run still writing is left alone.
"""

import os
import signal
import threading

import h5py
import numpy as np

import graphrf_e2e as e2e
from test_faults import Job

GRF = ["grf", "--graph", "grid:20x20", "--walkers", "8"]
TRIALS = 3


def h5_content(path):
    """Every dataset and attribute of an HDF5 file, except the creation time and the run's measurements under
    /launch (times and message counts, which differ from run to run)."""
    content = {}

    def visit(name, obj):
        if name.startswith("launch"):
            return
        for key, value in obj.attrs.items():
            if key != "created":
                content[name + "@" + key] = np.asarray(value).tobytes() if not isinstance(value, str) else value
        if isinstance(obj, h5py.Dataset):
            content[name] = obj[()].tobytes() if obj.dtype.kind != "O" else str(obj[()])

    with h5py.File(path, "r") as f:
        visit("/", f)
        f.visititems(visit)
    return content


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def race(runs, out, content, alone):
    """Starts every (np, args, program) in `runs` at once, each writing `out`; checks both succeed and that `out`
    is exactly one of `alone` (the runs' outputs written alone). Returns the index of the winner."""
    results = [None] * len(runs)

    def start(i, np_, args, program):
        results[i] = e2e.run(np_, args, program=program, check=False,
                             env={"GRAPHRF_FAULT_PAUSE_BEFORE_COMMIT": "0.5"})

    threads = [threading.Thread(target=start, args=(i,) + r) for i, r in enumerate(runs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results:
        assert r.returncode == 0, r.describe()
    got = content(out)
    winners = [i for i, a in enumerate(alone) if got == a]
    assert len(winners) == 1, "the file matches none of the runs' own outputs (a mix)\n" + \
        "\n".join(r.describe() for r in results)
    assert not e2e.temporaries(out), e2e.temporaries(out)
    return winners[0]


def test_two_grf_runs_to_one_output():
    with e2e.TempDir() as d:
        out = os.path.join(d, "out.h5")
        alone = []
        for seed in (1, 2):
            e2e.run(2, GRF + ["--seed", str(seed), "--out", out])
            alone.append(h5_content(out))
            os.remove(out)
        assert alone[0] != alone[1]
        winners = [race([(2, GRF + ["--seed", str(seed), "--out", out], None) for seed in (1, 2)], out, h5_content, alone)
                   for _ in range(TRIALS)]
        print("      grf seeds 1 and 2, %d trials: the file was seed %s's each time, whole" % (
            TRIALS, ", ".join(str(w + 1) for w in winners)), flush=True)
        assert sorted(os.listdir(d)) == ["out.h5"], os.listdir(d)


def test_two_partition_runs_to_one_output():
    with e2e.TempDir() as d:
        out = os.path.join(d, "parts.txt")
        args = lambda k: (2, ["--graph", "grid:30x30", "--parts", str(k), "--method", "block", "--out", out],  # noqa: E731
                          e2e.GRAPHRF_PARTITION)
        alone = []
        for k in (3, 7):
            e2e.run(*args(k)[:2], program=e2e.GRAPHRF_PARTITION)
            alone.append(read_bytes(out))
            os.remove(out)
        for _ in range(TRIALS):
            race([args(3), args(7)], out, read_bytes, alone)
        assert sorted(os.listdir(d)) == ["parts.txt"], os.listdir(d)


def test_sigusr1_in_write_phase():
    for to_ranks in (False, True):
        with e2e.TempDir() as d:
            out = os.path.join(d, "out.h5")
            job = Job(GRF + ["--out", out], env={"GRAPHRF_FAULT_PAUSE_BEFORE_COMMIT": "60"})
            job.wait_for(job.stderr, "fault injection: pausing")
            ranks = job.ranks()
            for pid in (ranks if to_ranks else [job.p.pid]):
                os.kill(pid, signal.SIGUSR1)
            job.expect_ended(ranks)
            errors = [l for l in "".join(job.stderr).splitlines() if l.startswith("graphrf:")]
            assert len(errors) == 1 and "interrupted by SIGUSR1" in errors[0] and out in errors[0], job.describe()
            assert os.listdir(d) == [], "left behind: %s\n%s" % (os.listdir(d), job.describe())
            print("      SIGUSR1 to %s: %s" % ("the ranks" if to_ranks else "mpirun", errors[0]), flush=True)


def test_stale_temporary_of_a_killed_run_is_removed():
    with e2e.TempDir() as d:
        out = os.path.join(d, "out.h5")
        dead = Job(GRF + ["--out", out], env={"GRAPHRF_FAULT_PAUSE_BEFORE_COMMIT": "60"})
        dead.wait_for(dead.stderr, "fault injection: pausing")
        ranks = dead.ranks()
        dead.kill()  # SIGKILL to mpirun and the ranks: nobody cleans up
        dead.expect_ended(ranks)
        stale = e2e.temporaries(out)
        assert len(stale) == 1, stale
        live = Job(GRF + ["--seed", "2", "--out", out], env={"GRAPHRF_FAULT_PAUSE_BEFORE_COMMIT": "60"})
        try:
            live.wait_for(live.stderr, "fault injection: pausing")
            writing = [f for f in e2e.temporaries(out) if f not in stale]
            assert len(writing) == 1, e2e.temporaries(out)
            e2e.run(2, GRF + ["--out", out])
            assert e2e.temporaries(out) == writing, "expected only the live run's %s, found %s" % (
                writing, e2e.temporaries(out))
            live_ranks = live.ranks()
            os.kill(live.p.pid, signal.SIGTERM)
            live.expect_ended(live_ranks)
        finally:
            live.kill()
        assert sorted(os.listdir(d)) == ["out.h5"], os.listdir(d)
        assert h5_content(out)["/@seed"] == np.asarray(np.uint64(1)).tobytes()


if __name__ == "__main__":
    e2e.main(globals())
