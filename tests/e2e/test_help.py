#!/usr/bin/env python3
"""What a user reads about the options.

  * `graphrf COMMAND --help` lists every option in a named group: the command's own groups first, then the
    shared ones in one order (graph, kernel, walks, reference, run); no group is empty, and the walk options
    (--coupling, --step, --weights, --scale) sit in `walks` wherever it appears.
  * Defaults print as written: 0.15, 1e-6, not their binary expansions (0.14999999999999999).
  * A mistyped option, INI key or command gets one error line with the closest name ("did you mean
    --walkers?"), a non-zero exit and no output file; a name close to nothing gets the pointer to --help.
"""

import re

import graphrf_e2e as e2e

SHARED = ["graph", "kernel", "walks", "reference", "run"]
OPTION = re.compile(r"^  (-\w \[ )?--([a-z0-9-]+)")


def commands():
    usage = e2e.run(None, ["--help"]).stdout
    names = re.findall(r"^  ([a-z][a-z-]+)  ", usage.split("commands:")[1], re.M)
    assert len(names) >= 13, usage
    return names


def groups(command):
    """[(caption, [option names])] of `graphrf COMMAND --help`, in order."""
    text = e2e.run(None, [command, "--help"]).stdout
    lines = text.splitlines()
    assert lines[0] == "usage: graphrf %s [options]" % command, text
    out = []
    for line in lines[2:]:
        m = OPTION.match(line)
        if line and not line.startswith(" "):
            assert line.endswith(":"), "%s --help: %r is neither a caption nor an option line" % (command, line)
            out.append((line[:-1], []))
        elif m:
            assert out, "%s --help: option --%s before any group caption\n%s" % (command, m.group(2), text)
            out[-1][1].append(m.group(2))
    return out


def significant_digits(number_text):
    mantissa = re.split(r"[eE]", number_text)[0].replace("-", "").replace(".", "")
    return len(mantissa.lstrip("0").rstrip("0")) if mantissa.strip("0") else 1


def test_every_option_in_a_named_group_own_first():
    for command in commands():
        found = groups(command)
        captions = [c for c, _ in found]
        where = "%s --help groups %s" % (command, captions)
        assert len(set(captions)) == len(captions), where
        assert all(options for _, options in found), "an empty group: " + where
        assert not any(c.startswith("graphrf") for c in captions), "an unnamed block: " + where
        assert captions[0] not in SHARED, "the command's own group must come first: " + where
        shared = [c for c in captions if c in SHARED]
        own = [c for c in captions if c not in SHARED]
        assert captions == own + shared, "own groups, then the shared ones: " + where
        assert shared == [c for c in SHARED if c in shared], "shared groups out of order: " + where
        assert captions[-1] == "run", where
        walks = dict(found).get("walks")
        if walks is not None:
            for name in ("walkers", "p-halt", "coupling", "sigma", "step", "weights", "scale"):
                assert name in walks, "--%s outside the walks group: %s %s" % (name, where, walks)
        print("      %-16s %s" % (command, ", ".join("%s (%d)" % (c, len(o)) for c, o in found)), flush=True)


def test_defaults_as_written():
    checked = 0
    for command in commands():
        text = e2e.run(None, [command, "--help"]).stdout
        for name, value in re.findall(r"--([a-z0-9-]+) \]? ?arg \(=([^)]*)\)", text):
            if not re.fullmatch(r"-?[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?", value) or not re.search(r"[.eE]", value):
                continue  # not a number, or an integer
            number = float(value)
            checked += 1
            shortest = repr(number)  # Python's repr is the shortest text that reads back to the same double
            assert significant_digits(value) <= significant_digits(shortest), \
                "%s --%s: default printed as %s (written %s)" % (command, name, value, shortest)
    assert checked >= 15, checked
    gp = e2e.run(None, ["gp", "--help"]).stdout
    for expected in ("--test-fraction arg (=0.2)", "--sigma-n arg (=0.1)", "--learning-rate arg (=0.05)",
                     "--cg-tolerance arg (=1e-6)"):
        assert expected in gp, expected + "\n" + gp
    assert "--p-halt arg (=0.15)" in e2e.run(None, ["pagerank", "--help"]).stdout


def test_did_you_mean():
    with e2e.TempDir() as d:
        graph = e2e.write(d, "g.txt", "1 2\n2 3\n3 1\n")
        e2e.expect_error(2, ["grf", "--graph", graph, "--walker", 4, "--out", "{out}"],
                         "unknown option '--walker' (did you mean --walkers?)", directory=d)
        e2e.expect_error(None, ["gp", "--graph", graph, "--p-hlat", 0.3, "--out", "{out}"],
                         "unknown option '--p-hlat' (did you mean --p-halt?)", directory=d)
        # Abbreviations are refused, and named: --walk is not taken for --walkers.
        e2e.expect_error(None, ["grf", "--graph", graph, "--walk", 4, "--out", "{out}"],
                         "unknown option '--walk' (did you mean --walkers?)", directory=d)
        line = e2e.expect_error(None, ["grf", "--graph", graph, "--frobnicate", 4, "--out", "{out}"],
                                "unknown option '--frobnicate' (graphrf grf --help lists the options)", directory=d)
        assert "did you mean" not in line, line
        e2e.expect_error(3, ["grff", "--graph", graph, "--out", "{out}"],
                         "unknown command 'grff' (did you mean grf? expected one of: info, grf,", directory=d)
        ini = e2e.write(d, "typo.ini", "walkers = 4\nwalkrs = 5\n")
        e2e.expect_error(None, ["grf", "--graph", graph, "--config", ini, "--out", "{out}"],
                         ini + ":2: unknown option 'walkrs' (did you mean walkers?)", directory=d)
        e2e.expect_error(None, ["--graph", graph, "--prts", 2, "--out", "{out}"],
                         "unknown option '--prts' (did you mean --parts?)", directory=d,
                         program=e2e.GRAPHRF_PARTITION, prefix="graphrf-partition: error: ")


if __name__ == "__main__":
    e2e.main(globals())
