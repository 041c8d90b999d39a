"""End-to-end: a disk that fills up while graphrf writes, at 2, 3 and 4 ranks.

A 4 MiB tmpfs (mounted by the test; skipped, saying so, where it cannot mount one) is filled with a dummy file
so that about 100 KiB, 450 KiB or 1.5 MiB stay free, and `graphrf grf` writes a larger result there (so the
disk fills during the data, or only when HDF5 writes its metadata at the end); graphrf-partition too. Every run must end within the time
limit (a run that hangs is killed and fails the test), exit non-zero with one error line naming --out and "no
space left on device", leave no process and no temporary file behind, and leave the file already at --out byte
for byte as it was.
"""

import os
import time

import graphrf_e2e as e2e
from test_faults import SENTINEL, SmallTmpfs

# (KiB left free, run): a 465 KB result with 100 and 450 KiB free (the second fails only when HDF5 writes its
# metadata at the end: the case that hung two ranks), and a 2.4 MB one with 1.5 MiB free.
SMALL = ["grf", "--graph", "grid:60x60", "--walkers", "16"]
LARGE = ["grf", "--graph", "grid:80x80", "--walkers", "16", "--by-length"]
PARTITION = ["--graph", "grid:400x400", "--parts", "2", "--method", "block"]  # a 640 KB part file
CASES = ((100, SMALL, None), (450, SMALL, None), (1536, LARGE, None), (100, PARTITION, e2e.GRAPHRF_PARTITION))


def fill(disk, free_kib):
    """Replaces the dummy file so that about free_kib KiB of the disk stay free."""
    dummy = os.path.join(disk, "dummy")
    if os.path.exists(dummy):
        os.remove(dummy)
    st = os.statvfs(disk)
    free = st.f_bavail * st.f_frsize
    with open(dummy, "wb") as f:
        f.write(b"\0" * max(0, free - free_kib * 1024))


def processes_writing(path):
    """Process ids whose command line names `path`."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open("/proc/%s/cmdline" % entry, "rb") as f:
                    if path.encode() in f.read():
                        pids.append(int(entry))
            except OSError:
                pass
    return pids


def test_disk_full_at_several_rank_counts():
    with e2e.TempDir() as d, SmallTmpfs(d, 4096) as disk:
        out = os.path.join(disk, "out.h5")
        for np_ in (2, 3, 4):
            for free_kib, args, program in CASES:
                with open(out, "wb") as f:
                    f.write(SENTINEL)
                fill(disk, free_kib)
                start = time.monotonic()
                r = e2e.run(np_, args + ["--out", out], program=program, timeout=60, check=False)
                errors = r.graphrf_errors()
                assert r.returncode != 0, "exit 0 on a full disk\n" + r.describe()
                assert len(errors) == 1 and "--out " + out in errors[0], r.describe()
                # graphrf-partition sees short writes and says "disk full?", as in e2e_faults.
                assert "no space left on device" in errors[0].lower() or (program and "disk full" in errors[0]), \
                    r.describe()
                with open(out, "rb") as f:
                    assert f.read() == SENTINEL, "the existing --out file was changed\n" + r.describe()
                assert not e2e.temporaries(out), "%s\n%s" % (e2e.temporaries(out), r.describe())
                deadline = time.monotonic() + 5 * e2e.TIME_SCALE
                while processes_writing(out) and time.monotonic() < deadline:
                    time.sleep(0.05)
                assert not processes_writing(out), "ranks survived\n" + r.describe()
                print("      np=%d, %4d KiB free: exit %d after %.1f s: %s" % (
                    np_, free_kib, r.returncode, time.monotonic() - start, errors[0].replace(disk, "DISK")), flush=True)


if __name__ == "__main__":
    e2e.main(globals())
