"""End-to-end: inputs a hostile or careless user gives, which were once accepted silently or ended badly.

Headers that disagree with the data, weight columns that appear after an unweighted first line, lines longer
than the format head, declared sizes far beyond memory (a 77-byte file declaring 10^9 nodes), INI files with
mistakes, stray arguments, negative seeds, more parts than nodes, outputs that cannot be created. Each must end
with the bad-input contract of test_bad_input.py (one error line naming FILE:LINE or the option, non-zero
exit, no output, no hang), at 1 and 3 ranks.
"""

import os

import graphrf_e2e as e2e

TIMEOUT = 30


def expect_error(np_, args, *needles, **kw):
    return e2e.expect_error(np_, args, *needles, timeout=TIMEOUT, **kw)


def both(args, *needles, **kw):
    for np_ in (1, 3):
        expect_error(np_, args, *needles, **kw)


def test_matrix_market_entry_count_disagrees():
    with e2e.TempDir() as d:
        more = e2e.write(d, "more.mtx", "%%MatrixMarket matrix coordinate pattern general\n4 4 5\n1 2\n2 3\n3 4\n")
        both(["info", "--graph", more, "--out", "{out}"], more + ":2:", "declares 5 entries but 3", directory=d)
        fewer = e2e.write(d, "fewer.mtx", "%%MatrixMarket matrix coordinate pattern general\n4 4 1\n1 2\n2 3\n3 4\n")
        both(["info", "--graph", fewer, "--out", "{out}"], fewer + ":2:", "declares 1 entries but 3", directory=d)


def test_metis_edge_count_disagrees():
    with e2e.TempDir() as d:
        metis = e2e.write(d, "m.graph", "% c\n3 5\n2\n1 3\n2\n")
        both(["info", "--graph", metis, "--out", "{out}"], metis + ":2:", "declares 5 edges", "4 neighbours",
             directory=d)


def test_dimacs_arc_count_disagrees():
    with e2e.TempDir() as d:
        gr = e2e.write(d, "g.gr", "p sp 3 3\na 1 2 1\na 2 3 1\n")
        both(["info", "--graph", gr, "--out", "{out}"], gr + ":1:", "declares 3 arcs but 2", directory=d)


def test_weight_column_after_unweighted_first_line():
    with e2e.TempDir() as d:
        later = e2e.write(d, "later.txt", "1 2\n2 3 5\n3 4\n")
        both(["info", "--graph", later, "--out", "{out}"], later + ":2:", "first edge line (line 1) has 2",
             "--weight-column 3", directory=d)
        junk = e2e.write(d, "junk.txt", "1 2\n2 3 1.0abc\n")
        both(["info", "--graph", junk, "--out", "{out}"], junk + ":2:", "3 or more columns", directory=d)
        # Told what to do, the same files load.
        e2e.run(1, ["info", "-q", "--graph", later, "--weight-column", "-1"], timeout=TIMEOUT)


def test_first_line_longer_than_the_format_head():
    with e2e.TempDir() as d:
        path = os.path.join(d, "long.txt")
        with open(path, "w") as f:
            f.write("1 2 " + "7" * (1 << 20) + "\n2 3 1\n")
        both(["info", "--graph", path, "--out", "{out}"], path + ":", "line 1 is longer than 1 MiB", directory=d)


def test_declared_sizes_beyond_memory():
    with e2e.TempDir() as d:
        # 10^12 nodes and more exceed any machine's memory (64 bytes per node: 64 TB) under the default limit;
        # 10^9 and 2^31 (64 GB and 137 GB in all) with a limit fixed so the test does not depend on the machine.
        for n, limit in (("1000000000", ["--memory-limit", "16G"]), ("2147483648", ["--memory-limit", "16G"]),
                         ("1000000000000", []), ("9223372036854775807", [])):
            mtx = e2e.write(d, "huge.mtx", "%%%%MatrixMarket matrix coordinate pattern general\n%s %s 1\n1 2\n" % (n, n))
            both(["info", "--graph", mtx, "--out", "{out}"] + limit, mtx + ":2:", "declares %s nodes" % n, "per rank",
                 "--memory-limit", directory=d)
            os.remove(mtx)
        # An explicit limit refuses what the machine could hold: 10^7 nodes need ~640 MB, more than 64M per rank.
        mtx = e2e.write(d, "big.mtx", "%%MatrixMarket matrix coordinate pattern general\n10000000 10000000 1\n1 2\n")
        expect_error(1, ["info", "--graph", mtx, "--memory-limit", "64M", "--out", "{out}"], "more than the 64 MiB",
                     directory=d)
        metis = e2e.write(d, "big.graph", "5000000000 1\n")
        expect_error(2, ["info", "--graph", metis, "--out", "{out}"], metis + ":1:", "declares 5000000000 nodes",
                     directory=d)
        expect_error(2, ["info", "--memory-limit", "lots", "--out", "{out}"], "--memory-limit", "'lots'", directory=d)


def test_ptscotch_beyond_a_rank_memory_is_refused_before_the_cut():
    # Cutting random:20000:10 (2 x 10^4 nodes, 2 x 10^5 arcs) between two ranks, PT-Scotch holds about 4 MiB + 48
    # bytes per arc of a rank's rows (10^5) + 400 per node of the other rank they reach (at most 10^4): 12.4 MiB, with
    # the rank's own share 14.1 MiB. Refused under 6M (where the block partition runs), run under 16M; graphrf-partition
    # is held to the same limit and writes nothing.
    graph = ["--graph", "random:20000:10"]
    with e2e.TempDir() as d:
        expect_error(2, ["info"] + graph + ["--partition", "ptscotch", "--host-size", "1", "--memory-limit", "6M",
                                            "--out", "{out}"],
                     "--partition ptscotch", "nodes they reach on other ranks", "14.1 MiB per rank", "more than the 6 MiB",
                     directory=d)
        expect_error(2, graph + ["--parts", "2", "--method", "ptscotch", "--memory-limit", "6M", "--out", "{out}"],
                     "--partition ptscotch", "more than the 6 MiB", directory=d, program=e2e.GRAPHRF_PARTITION,
                     prefix="graphrf-partition: error: ")
    for method, limit in (("block", "6M"), ("ptscotch", "16M")):
        e2e.run(2, ["info"] + graph + ["--partition", method, "--host-size", "1", "--memory-limit", limit],
                timeout=TIMEOUT)


def test_metis_beyond_rank_0_memory_is_refused_before_the_gather():
    # Cutting grid:100x100 (10^4 nodes, 39600 arcs) into two hosts, METIS holds about 3.5 MiB on rank 0 (16 bytes
    # per node, 88 per arc) beside rank 0's own share (0.4 MiB): refused under a 3M limit, run under 8M. One part (np
    # 1) and one host (np 2, the ranks share the machine) call no METIS and gather nothing: they run under 3M.
    # graphrf-partition cutting two parts is held to the same limit.
    cut = ["info", "--graph", "grid:100x100", "--partition", "metis"]
    with e2e.TempDir() as d:
        expect_error(2, cut + ["--host-size", "1", "--memory-limit", "3M", "--out", "{out}"], "--partition metis",
                     "whole graph on rank 0", "more than the 3 MiB", directory=d)
        # graphrf-partition runs the same cut (two parts at np 2) and refuses it alike.
        expect_error(2, ["--graph", "grid:100x100", "--parts", "2", "--method", "metis", "--memory-limit", "3M",
                         "--out", "{out}"], "--partition metis", "whole graph on rank 0", "more than the 3 MiB",
                     directory=d, program=e2e.GRAPHRF_PARTITION, prefix="graphrf-partition: error: ")
    for np_, extra in ((2, ["--host-size", "1", "--memory-limit", "8M"]), (1, ["--memory-limit", "3M"]),
                       (2, ["--memory-limit", "3M"])):
        e2e.run(np_, cut + extra, timeout=TIMEOUT)
    e2e.run(2, ["--graph", "grid:100x100", "--parts", "2", "--method", "metis", "--memory-limit", "8M"],
            program=e2e.GRAPHRF_PARTITION, timeout=TIMEOUT)


def test_walks_beyond_memory_are_refused_before_walking():
    with e2e.TempDir() as d:
        # 1024 nodes x 10^6 walkers x ~1000 deposits each: about 49 TB per rank.
        line = expect_error(2, ["grf", "--walkers", "1000000", "--p-halt", "0.001", "--max-length", "100000",
                                "--out", "{out}"], "walking (1000000 walkers per node", "per rank", directory=d)
        assert "TiB" in line or "PiB" in line, line


def test_config_file_mistakes():
    with e2e.TempDir() as d:
        both(["grf", "--config", d, "--out", "{out}"], "--config " + d, "is a directory", directory=d)
        cases = [  # file name, contents, line, what the error says
            ("bad-value.ini", "# walks\nwalkers = 4\np-halt = lots\n", 3, "p-halt"),
            ("unknown.ini", "walkers = 4\n\nwalkerz = 5\n", 3, "unknown option 'walkerz'"),
            ("section.ini", "[walks]\nwalkers = 4\n", 1, "sections"),
            ("no-equals.ini", "walkers 4\n", 1, "name = value"),
            ("twice.ini", "walkers = 4\nwalkers = 8\n", 2, "twice (first on line 1)"),
            ("negative.ini", "seed = -3\n", 1, "--seed: must be >= 0"),
        ]
        for name, text, line, what in cases:
            ini = e2e.write(d, name, text)
            both(["grf", "--config", ini, "--out", "{out}"], "%s:%d:" % (ini, line), what, directory=d)
        # A good INI still works, and the command line wins over it.
        good = e2e.write(d, "good.ini", "# ok\nwalkers = 2\n; comment\nseed = 5\n")
        r = e2e.run(1, ["grf", "--config", good, "--walkers", "3", "--dump-config"], timeout=TIMEOUT)
        assert "walkers = 3" in r.stdout and "seed = 5" in r.stdout, r.describe()


def test_stray_arguments_and_negative_seed():
    with e2e.TempDir() as d:
        both(["grf", "extra", "--out", "{out}"], "unexpected argument 'extra'", directory=d)
        both(["grf", "--seed", "-1", "--out", "{out}"], "--seed: must be >= 0", "'-1'", directory=d)
        expect_error(2, ["--graph", "grid:4x4", "stray", "--out", "{out}"], "unexpected argument 'stray'",
                     directory=d, program=e2e.GRAPHRF_PARTITION, prefix="graphrf-partition: error: ")


def test_partition_tool_refuses_before_work():
    with e2e.TempDir() as d:
        expect_error(2, ["--graph", "grid:4x5", "--parts", "100", "--out", "{out}"], "--parts 100", "20 nodes",
                     directory=d, program=e2e.GRAPHRF_PARTITION, prefix="graphrf-partition: error: ")
        target = os.path.join(d, "a-directory")
        os.mkdir(target)
        r = e2e.run(2, ["--graph", "grid:4x5", "--parts", "2", "--out", target], program=e2e.GRAPHRF_PARTITION,
                    timeout=TIMEOUT, check=False)
        assert r.returncode != 0 and len(r.graphrf_errors()) == 1, r.describe()
        assert "Is a directory" in r.graphrf_errors()[0] and "partition " not in r.stdout, r.describe()
        assert not e2e.temporaries(target), r.describe()


def test_qkv_datasets_that_are_not_numbers():
    import h5py
    import numpy as np
    with e2e.TempDir() as d:
        n = 16
        numbers = np.ones((n, 2))
        strings = os.path.join(d, "strings.h5")
        with h5py.File(strings, "w") as f:
            f["q"] = np.array([b"x"] * n)
            f["k"], f["v"] = numbers, numbers
        both(["attention", "--graph", "grid:4x4", "--qkv", strings, "--out", "{out}"], strings + ": /q holds string",
             directory=d)
        group = os.path.join(d, "group.h5")
        with h5py.File(group, "w") as f:
            f.create_group("q")
            f["k"], f["v"] = numbers, numbers
        both(["attention", "--graph", "grid:4x4", "--qkv", group, "--out", "{out}"], group + ": /q is not a dataset",
             directory=d)


def test_output_that_cannot_be_created():
    with e2e.TempDir() as d:
        line = expect_error(2, ["info", "--out", "/proc/version"], "--out /proc/version",
                            "creating /proc/version.", ".partial, the temporary file written first", directory=d)
        assert "No such file" in line or "Permission denied" in line, line


if __name__ == "__main__":
    e2e.main(globals())
