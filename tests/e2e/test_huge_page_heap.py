"""End-to-end: the executable's heap is in transparent huge pages where the kernel gives them only on request.

In THP mode `madvise` graphrf starts itself again, before MPI starts, with GLIBC_TUNABLES=glibc.malloc.hugetlb=1
(reuse_freed_memory.hpp says why). The test watches the ranks of a running job through /proc: each rank's
environment holds that setting and its memory holds huge pages; a user's own GLIBC_TUNABLES is kept as given,
and the run's file is bitwise that of a run without the restart. Skipped, saying so, where THP is not in mode
madvise (then the executable does not restart).
"""

import os
import subprocess
import time

import graphrf_e2e as e2e

THP_ENABLED = "/sys/kernel/mm/transparent_hugepage/enabled"
TUNABLE = "glibc.malloc.hugetlb=1"
# Long enough (about 2 s) to be watched, small enough for the suite.
COMMAND = ["grf", "--graph", "random:300000:10", "--walkers", "16", "--p-halt", "0.2", "--seed", "3", "-q"]


def thp_mode():
    try:
        with open(THP_ENABLED) as f:
            text = f.read()
    except OSError:
        return None
    return text[text.index("[") + 1:text.index("]")] if "[" in text else None


def environment(pid):
    with open("/proc/%d/environ" % pid, "rb") as f:
        return dict(item.split(b"=", 1) for item in f.read().split(b"\0") if b"=" in item)


def huge_kib(pid):
    with open("/proc/%d/smaps_rollup" % pid) as f:
        return sum(int(line.split()[1]) for line in f if line.startswith("AnonHugePages:"))


def watch(out, extra_env):
    """Runs COMMAND at np 2 and reads each rank's GLIBC_TUNABLES and most huge-page memory while it runs."""
    env = dict(e2e.MPI_ENV)
    env.update(os.environ)
    env.pop("GLIBC_TUNABLES", None)
    env.update(extra_env)
    cmd = [e2e.MPIEXEC, "-np", "2"] + e2e.MPIEXEC_FLAGS + [e2e.GRAPHRF] + COMMAND + ["--out", out]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    seen = {}  # pid -> (GLIBC_TUNABLES, most AnonHugePages seen in KiB, process name)
    deadline = time.monotonic() + 120 * e2e.TIME_SCALE
    while p.poll() is None and time.monotonic() < deadline:
        for pid in e2e.rank_pids(p.pid):
            try:
                tunables = environment(pid).get(b"GLIBC_TUNABLES", b"").decode()
                huge = huge_kib(pid)
                with open("/proc/%d/comm" % pid) as f:
                    name = f.read().strip()
            except (OSError, ValueError):
                continue
            # /proc/PID/environ is the environment the current image started with: read again after a restart.
            seen[pid] = (tunables, max(huge, seen.get(pid, ("", 0, ""))[1]), name)
        time.sleep(0.02)
    output = p.communicate(timeout=60)[0].decode()
    assert p.returncode == 0, output
    assert len(seen) == 2, "expected to watch 2 ranks, saw %s\n%s" % (seen, output)
    return seen


def test_ranks_start_again_with_huge_pages_in_their_heap():
    if thp_mode() != "madvise":
        raise e2e.Skip("transparent huge pages in mode %s, not madvise: graphrf does not restart" % thp_mode())
    with e2e.TempDir() as d:
        restarted = watch(os.path.join(d, "restarted.h5"), {})
        for pid, (tunables, _, name) in restarted.items():
            assert tunables == TUNABLE, (pid, tunables)
            # ps and top still show the program's name, not that of the link it started again through.
            assert name == os.path.basename(e2e.GRAPHRF)[:15], (pid, name)
        # A user's own tunables stay as given, and so the heap keeps 4 KiB pages: only the walk table (mapped on
        # its own, huge_pages.hpp) is in huge pages there.
        kept = watch(os.path.join(d, "kept.h5"), {"GLIBC_TUNABLES": "glibc.malloc.check=0"})
        for pid, (tunables, _, _) in kept.items():
            assert tunables == "glibc.malloc.check=0", (pid, tunables)
        # Loading alone puts 100+ MB per rank in the heap (the arc records, 32 bytes each, three arrays of them):
        # at least 64 MiB more huge pages in every restarted rank than in any rank that kept its tunables.
        least_restarted = min(huge for _, huge, _ in restarted.values())
        most_kept = max(huge for _, huge, _ in kept.values())
        assert least_restarted >= most_kept + 64 * 1024, (restarted, kept)
        diff = subprocess.run(["h5diff", "-r", "--exclude-attribute", "/", "--exclude-path", "/config",
                               "--exclude-path", "/launch", os.path.join(d, "restarted.h5"), os.path.join(d, "kept.h5")],
                              capture_output=True, text=True)
        assert diff.returncode == 0, diff.stdout + diff.stderr


if __name__ == "__main__":
    e2e.main(globals())
