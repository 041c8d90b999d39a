"""End-to-end: bad input ends graphrf cleanly.

Every case, run under mpirun (2 ranks; a few at 3 so the offending line lies in the last rank's share of the
file), must give
  * a non-zero exit, well within the timeout (no rank left hanging),
  * exactly one line on stderr from graphrf itself ("graphrf: error: ..."; mpirun's own banner lines, which
    do not start with "graphrf", are ignored), naming the problem (checked by substrings / FILE:LINE),
  * no output file and no .partial file.
"""

import os

import graphrf_e2e as e2e

TIMEOUT = 30  # each case takes well under a second; a hang shows up as a timeout failure


def good_lines(n):
    return "".join("%d %d\n" % (i, i + 1) for i in range(n))


def expect_error(np_, args, *needles, **kw):
    """Runs one failing case and checks the common contract (graphrf_e2e.expect_error); returns the error line."""
    return e2e.expect_error(np_, args, *needles, timeout=TIMEOUT, **kw)


def test_missing_file():
    with e2e.TempDir() as d:
        missing = os.path.join(d, "no-such-graph.txt")
        expect_error(2, ["info", "--graph", missing, "--out", "{out}"], missing, "cannot open",
                     "No such file or directory", directory=d)


def test_unreadable_file():
    if os.geteuid() == 0:
        raise e2e.Skip("running as root, which reads a chmod 000 file anyway")
    with e2e.TempDir() as d:
        path = e2e.write(d, "secret.txt", good_lines(5))
        os.chmod(path, 0)
        try:
            expect_error(2, ["info", "--graph", path, "--out", "{out}"], path, "cannot open", "Permission denied",
                         directory=d)
        finally:
            os.chmod(path, 0o644)


def test_directory_as_graph():
    with e2e.TempDir() as d:
        sub = os.path.join(d, "adir")
        os.mkdir(sub)
        expect_error(2, ["info", "--graph", sub, "--out", "{out}"], sub, directory=d)


def test_unknown_format():
    with e2e.TempDir() as d:
        path = e2e.write(d, "g.txt", good_lines(5))
        expect_error(2, ["info", "--graph", path, "--format", "foo", "--out", "{out}"],
                     "--format", "unknown format 'foo'", directory=d)


def test_compressed_input():
    with e2e.TempDir() as d:
        path = os.path.join(d, "g.txt")
        with open(path, "wb") as f:
            f.write(b"\x1f\x8b\x08\x00" + bytes(60))
        expect_error(2, ["info", "--graph", path, "--out", "{out}"], "gzip", directory=d)


def test_malformed_line_names_file_and_line():
    with e2e.TempDir() as d:
        # Line 251 of 300: at 3 ranks it falls in the last rank's share of the file. With --ids integer a name
        # is an error (with the default --ids auto the file would be read as names).
        text = "# header comment\n" + good_lines(249) + "17 x18\n" + good_lines(49)
        path = e2e.write(d, "bad.txt", text)
        for np_ in (2, 3):
            expect_error(np_, ["info", "--graph", path, "--ids", "integer", "--out", "{out}"], path + ":251:",
                         "node id 'x18' is not an integer", directory=d)
        short = e2e.write(d, "short.txt", good_lines(249) + "17\n" + good_lines(49))
        expect_error(3, ["info", "--graph", short, "--out", "{out}"], short + ":250:", "too few columns", directory=d)


def test_malformed_metis_and_mtx_lines():
    with e2e.TempDir() as d:
        mtx = e2e.write(d, "bad.mtx", "%%MatrixMarket matrix coordinate real general\n% c\n3 3 2\n1 2 1.0\n2 3\n")
        expect_error(2, ["info", "--graph", mtx, "--out", "{out}"], mtx + ":5:", "too few columns", directory=d)
        gr = e2e.write(d, "bad.gr", "c x\np sp 3 2\na 1 2 5\nx 2 3 1\n")
        expect_error(2, ["info", "--graph", gr, "--out", "{out}"], gr + ":4:", directory=d)


def test_ids_out_of_declared_range():
    with e2e.TempDir() as d:
        mtx = e2e.write(d, "range.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 4\n")
        expect_error(2, ["info", "--graph", mtx, "--out", "{out}"], mtx + ":4:", "4 out of range 1..3", directory=d)
        metis = e2e.write(d, "range.graph", "3 2\n2\n1 3\n2 7\n")
        expect_error(3, ["info", "--graph", metis, "--out", "{out}"], metis + ":4:", "7 out of range 1..3", directory=d)
        gr = e2e.write(d, "range.gr", "p sp 3 1\na 0 2 1\n")
        expect_error(2, ["info", "--graph", gr, "--out", "{out}"], gr + ":2:", "0 out of range 1..3", directory=d)


def test_bad_weights():
    with e2e.TempDir() as d:
        for token, what in (("nan", "is NaN"), ("inf", "is infinite"), ("0", "is zero"), ("-2.5", "is negative")):
            path = e2e.write(d, "w.txt", "1 2 1.0\n2 3 %s\n3 1 1.0\n" % token)
            expect_error(2, ["info", "--graph", path, "--out", "{out}"], path + ":2:", "weight '%s'" % token, what,
                         directory=d)
            os.remove(path)
        # At 3 ranks, in the last rank's share, in a METIS file.
        metis = e2e.write(d, "w.graph", "4 4 001\n2 1 4 1\n1 1 3 1\n2 1 4 nan\n1 1 3 1\n")
        expect_error(3, ["info", "--graph", metis, "--out", "{out}"], metis + ":4:", "is NaN", directory=d)


def test_empty_graph():
    with e2e.TempDir() as d:
        only_comments = e2e.write(d, "comments.txt", "# nothing here\n% nor here\n\n")
        expect_error(2, ["info", "--graph", only_comments, "--out", "{out}"], "empty graph", directory=d)
        zero_bytes = e2e.write(d, "zero.txt", "")
        expect_error(2, ["info", "--graph", zero_bytes, "--out", "{out}"], "empty graph", directory=d)
        only_loops = e2e.write(d, "loops.txt", "1 1\n2 2\n")
        expect_error(2, ["info", "--graph", only_loops, "--out", "{out}"], "empty graph (no edges)", directory=d)
        no_entries = e2e.write(d, "none.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n4 4 0\n")
        expect_error(3, ["info", "--graph", no_entries, "--out", "{out}"], "empty graph (no edges)", directory=d)


def test_partition_file_wrong_length_and_bad_part():
    with e2e.TempDir() as d:
        graph = e2e.write(d, "g.txt", good_lines(9))  # nodes 0..9
        short = e2e.write(d, "short.parts", "0\n1\n0\n")
        expect_error(2, ["info", "--graph", graph, "--partition", "file:" + short, "--out", "{out}"],
                     short, "has 3 part ids but the graph has 10 nodes", directory=d)
        long_ = e2e.write(d, "long.parts", "0\n" * 11)
        expect_error(2, ["info", "--graph", graph, "--partition", "file:" + long_, "--out", "{out}"],
                     "has 11 part ids but the graph has 10 nodes", directory=d)
        bad = e2e.write(d, "bad.parts", "# parts\n" + "0\n" * 8 + "5\n1\n")
        expect_error(2, ["info", "--graph", graph, "--partition", "file:" + bad, "--out", "{out}"],
                     bad + ":10:", "part id 5 out of range 0..1", directory=d)
        # Three parts in the file but run on 2 ranks: part 2 has no rank; at 3 ranks it is fine (checked in test_info).
        three = e2e.write(d, "three.parts", "0\n0\n0\n1\n1\n1\n2\n2\n2\n2\n")
        expect_error(2, ["info", "--graph", graph, "--partition", "file:" + three, "--out", "{out}"],
                     three + ":7:", "part id 2 out of range 0..1", directory=d)
        negative = e2e.write(d, "neg.parts", "0\n" * 9 + "-1\n")
        expect_error(3, ["info", "--graph", graph, "--partition", "file:" + negative, "--out", "{out}"],
                     negative + ":10:", "part id -1 out of range 0..2", directory=d)
        missing = os.path.join(d, "missing.parts")
        expect_error(2, ["info", "--graph", graph, "--partition", "file:" + missing, "--out", "{out}"],
                     missing, "cannot open", directory=d)


def test_unknown_partitioner():
    with e2e.TempDir() as d:
        graph = e2e.write(d, "g.txt", good_lines(5))
        expect_error(2, ["info", "--graph", graph, "--partition", "bogus", "--out", "{out}"],
                     "--partition", "bogus", directory=d)


def test_unwritable_output():
    with e2e.TempDir() as d:
        graph = e2e.write(d, "g.txt", good_lines(5))
        r_line = expect_error(2, ["info", "--graph", graph, "--out", "/proc/x/out.h5"], "--out /proc/x/out.h5",
                              "cannot create file", directory=d)
        assert "No such file or directory" in r_line, r_line
        expect_error(2, ["info", "--graph", graph, "--out", d], "--out " + d, "cannot create file", directory=d)


def test_unknown_option():
    with e2e.TempDir() as d:
        graph = e2e.write(d, "g.txt", good_lines(5))
        expect_error(2, ["info", "--graph", graph, "--bogus", "--out", "{out}"], "'--bogus'", "graphrf info --help",
                     directory=d)


def test_bad_option_values():
    with e2e.TempDir() as d:
        graph = e2e.write(d, "g.txt", good_lines(5))
        expect_error(2, ["grf", "--graph", graph, "--walkers", "abc", "--out", "{out}"], "--walkers", "abc", directory=d)
        expect_error(2, ["info", "--graph", graph, "--weights", "cubic", "--out", "{out}"], "--weights", "cubic",
                     directory=d)
        expect_error(2, ["info", "--graph", graph, "--duplicates", "first", "--out", "{out}"], "--duplicates", "first",
                     directory=d)
        expect_error(3, ["info", "--graph", "", "--out", "{out}"], "--graph", directory=d)


def test_bad_generated_graph_spec():
    with e2e.TempDir() as d:
        expect_error(2, ["info", "--graph", "grid:0x5", "--out", "{out}"], "grid:0x5", "ROWS and COLS", directory=d)
        expect_error(3, ["info", "--graph", "random:5:9", "--out", "{out}"], "random:5:9", "MEAN_DEGREE", directory=d)
        expect_error(2, ["info", "--graph", "grid:1x1", "--out", "{out}"], "empty graph (no edges)", directory=d)


def test_unknown_command():
    with e2e.TempDir() as d:
        expect_error(2, ["frobnicate", "--out", "{out}"], "unknown command 'frobnicate'", "info", "grf", directory=d)


def test_partition_tool_errors():
    with e2e.TempDir() as d:
        graph = e2e.write(d, "g.txt", good_lines(5))
        expect_error(2, ["--graph", graph, "--parts", "2", "--method", "magic", "--out", "{out}"], "--method", "magic",
                     directory=d, program=e2e.GRAPHRF_PARTITION, prefix="graphrf-partition: error: ")
        expect_error(2, ["--graph", graph, "--parts", "0", "--out", "{out}"], "--parts", directory=d,
                     program=e2e.GRAPHRF_PARTITION, prefix="graphrf-partition: error: ")


def test_slurm_tasks_without_pmix():
    """Started by Slurm as N tasks that MPI cannot join (srun without PMIx): each would run alone, so graphrf
    refuses with one line that says how to launch (srun --mpi=pmix or mpirun)."""
    with e2e.TempDir() as d:
        graph = e2e.write(d, "g.txt", good_lines(5))
        env = {"SLURM_NTASKS": "2", "SLURM_STEP_NUM_TASKS": "2", "OMPI_COMM_WORLD_SIZE": None}  # as srun sets them
        line = expect_error(None, ["info", "--graph", graph, "--out", "{out}"], "Slurm", "PMIx", directory=d, env=env)
        assert "--mpi=pmix" in line, line
        # The same environment with one task is fine.
        env["SLURM_NTASKS"] = env["SLURM_STEP_NUM_TASKS"] = "1"
        e2e.run(None, ["info", "-q", "--graph", graph], env=env, timeout=TIMEOUT)


if __name__ == "__main__":
    e2e.main(globals())
