"""Every option a command lists acts or is refused: the machinery of the test_options_*.py files.

For a command, the options are read from `graphrf COMMAND --help`; the test file gives a table with one entry
per option: arguments that set it to a non-default value (replacing the baseline's value of the same option,
or removing one with DROP), and what must happen:
  * changes(...): the run succeeds and something observable differs from the baseline run: a RESULT field
    (timings and memory left out), a line of the log (numbers masked, so timings do not count), or the
    output file (datasets and attributes, provenance and timings left out);
    (changes(..., logs=TEXT): a number the log prints, such as a batch size that changes no result);
  * fails(..., needle=...): the run stops with one graphrf error line containing the needle (the option's name
    unless given): the option acts by refusing the input, or is refused;
  * either(...): changes, or fails naming the option (an option for an optional library, refused without it);
  * noop(reason, ...): the command has nothing for the option to act on (said in the reason): nothing changes.
A listed option without an entry fails the test, so a new option needs one. Runs are single-rank and tiny.
"""

import hashlib
import os
import re
from concurrent.futures import ThreadPoolExecutor

import h5py
import numpy as np

import graphrf_e2e as e2e

DROP = object()  # an entry's value that removes the option from the baseline
VOLATILE_RESULT = re.compile(r"seconds|per_s|_ms|_mib|peak|memory|rate|time|sent|bytes|baseline|_vs_|_over_|share|speedup|_ns_|idle|wait|queue")
NUMBER = re.compile(r"\d+(\.\d+)?([eE][-+]?\d+)?")
# Provenance and timing, not results.
SKIPPED_H5 = ("config", "launch")
SKIPPED_ROOT_ATTRIBUTES = ("command", "created")


class Entry:
    def __init__(self, expect, options, base=None, needle=None):
        self.expect, self.options, self.base, self.needle = expect, options, base or {}, needle


def changes(base=None, logs=None, **options):
    """Sets options (name with _ for -, value None for a switch, DROP to remove); the run must differ. With
    logs, the change is a number in the log: the run's log must contain that text and the baseline's not."""
    return Entry("changes", options, base, logs)


def fails(needle=None, base=None, **options):
    return Entry("fails", options, base, needle)


def either(base=None, **options):
    """An option that acts in builds with an optional library and is refused in the others."""
    return Entry("either", options, base)


def noop(reason, **options):
    """An option that has nothing to act on in this command (reason says why): the output stays the same."""
    return Entry("noop", options, None, reason)


def listed_options(command):
    """The long names `graphrf COMMAND --help` lists."""
    text = e2e.run(None, [command, "--help"]).stdout
    return [m.group(2) for m in re.finditer(r"^  (-\w \[ )?--([a-z0-9-]+)", text, re.M)]


def _args(command, pairs):
    out = [command]
    for name, value in pairs.items():
        if value is DROP:
            continue
        out.append("--" + name)
        if value is not None:
            out.append(str(value))
    return out


def _merge(*dicts):
    merged = {}
    for d in dicts:
        for name, value in d.items():
            merged[name.replace("_", "-")] = value
    return merged


def _h5_signature(path):
    if not path or not os.path.exists(path):
        return None
    if not h5py.is_hdf5(path):  # a text output (couple's sigma): its lines but the comments
        return [line for line in open(path) if not line.startswith("#")]
    items = []
    with h5py.File(path, "r") as f:
        items.extend(("/@" + k, repr(v)) for k, v in sorted(f.attrs.items()) if k not in SKIPPED_ROOT_ATTRIBUTES)

        def visit(name, obj):
            if name.split("/")[0] in SKIPPED_H5:
                return
            items.extend((name + "@" + k, repr(v)) for k, v in sorted(obj.attrs.items()))
            if isinstance(obj, h5py.Dataset):
                data = obj[()]
                raw = np.asarray(data).tobytes() if not isinstance(data, bytes) else data
                items.append((name, str(obj.dtype), obj.shape, hashlib.sha1(raw).hexdigest()))
        f.visititems(visit)
    return sorted(items, key=repr)


def observe(r, out_path):
    results = []
    for line in r.stdout.splitlines():
        if line.startswith("RESULT ") and not line.startswith("RESULT summary="):
            # A volatile field counts by its presence, not its value.
            results.append(sorted(f.split("=")[0] + "=?" if VOLATILE_RESULT.search(f.split("=")[0]) else f
                                  for f in line.split()[1:]))
    log = [NUMBER.sub("#", line) for line in r.stdout.splitlines() if not line.startswith("RESULT")]
    return results, log, _h5_signature(out_path), r.stdout


def check_command(command, table, base, directory, workers=3):
    """Runs every entry of table (option -> Entry) against the baseline options `base`; fails when an option
    the command lists has no entry, or an entry's expectation does not hold."""
    listed = listed_options(command)
    missing = [o for o in listed if o not in table]
    assert not missing, "%s: options without an entry in the test's table: %s" % (command, missing)
    unknown = [o for o in table if o not in listed]
    assert not unknown, "%s: table entries for options it does not list: %s" % (command, unknown)
    counter = iter(range(10 ** 6))

    def run(pairs):
        pairs = dict(pairs)
        if "out" in pairs and pairs["out"] is not DROP:
            pairs["out"] = os.path.join(directory, "%s-%d.h5" % (command, next(counter)))
        r = e2e.run(None, _args(command, pairs), check=False)
        return r, pairs["out"] if pairs.get("out") not in (None, DROP) else None

    baselines = {}

    def baseline(extra):
        key = repr(sorted(extra.items(), key=lambda kv: kv[0]))
        if key not in baselines:
            pairs = _merge(base, extra)
            r, out = run(pairs)
            assert r.returncode == 0, "baseline failed\n" + r.describe()
            again, out2 = run(pairs)
            first, second = observe(r, out), observe(again, out2)
            assert first[:3] == second[:3], "%s: the baseline is not reproducible: %s" % (command, r.args)
            baselines[key] = first
        return baselines[key]

    def check(item):
        try:
            check_entry(*item)
        except AssertionError as e:
            return str(e).splitlines()[0]
        return None

    def check_entry(option, entry):
        pairs = _merge(base, entry.base, entry.options)
        r, out = run(pairs)
        where = "%s --%s (%s)" % (command, option, " ".join(r.args[1:]))
        if entry.expect == "either" and r.returncode != 0:
            assert len(r.graphrf_errors()) == 1 and "--" + option in r.graphrf_errors()[0], where + "\n" + r.describe()
            return
        if entry.expect == "noop":
            assert r.returncode == 0 and observe(r, out)[:3] == baseline({})[:3], where + ": " + entry.needle
            return
        if entry.expect == "fails":
            errors = r.graphrf_errors()
            assert r.returncode != 0 and len(errors) == 1, where + ": expected one error line\n" + r.describe()
            needle = entry.needle or "--" + option
            assert needle in errors[0], where + ": %r not in %r" % (needle, errors[0])
            return
        assert r.returncode == 0, where + ": failed\n" + r.describe()
        before = baseline(_merge(entry.base))
        if entry.expect == "changes" and entry.needle:
            assert entry.needle in r.stdout and entry.needle not in before[3], where + ": no %r in the log" % entry.needle
        else:
            assert observe(r, out)[:3] != before[:3], where + ": changed nothing observable"

    # Baselines first (each once), then the entries, a few at a time (most of a tiny run is MPI start-up).
    for entry in table.values():
        if entry.expect != "fails":
            baseline(_merge(entry.base))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        failures = [f for f in pool.map(check, sorted(table.items())) if f]
    assert not failures, "\n".join(failures)
    print("      %s: %d options act or are refused" % (command, len(table)), flush=True)


# ---------------------------------------------------------------------------------------------------------------
# Inputs and the entries of the option groups several commands share.

GRAPH_TEXT = "0 1 1.0\n1 2 2.0\n2 3 1.0\n3 0 1.5\n1 2 0.5\n2 2 1.0\n3 4 1\n4 10 1\n10 0 2\n"  # a duplicate, a loop, id 10


class Inputs:
    def __init__(self, d):
        self.dir = d
        self.graph = e2e.write(d, "g.txt", GRAPH_TEXT)
        self.other_graph = e2e.write(d, "h.txt", GRAPH_TEXT + "5 10 1\n")
        # A header that declares a million nodes: --memory-limit refuses it before reading.
        self.big_mtx = e2e.write(d, "big.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n"
                                 "1000000 1000000 1\n1 2\n")
        rng = np.random.default_rng(1)
        self.points = e2e.write(d, "p.xyz", "".join("%r %r %r\n" % tuple(p) for p in rng.random((24, 3))))
        self.sigma = e2e.write(d, "sigma1.txt", "1 2 3 4\n")
        self.other_sigma = e2e.write(d, "sigma2.txt", "4 3 2 1\n")
        self.config = e2e.write(d, "quiet.ini", "quiet = true\n")
        self.seed_config = e2e.write(d, "seed.ini", "seed = 2\n")


def run_entries(inputs, only_result_lines=False):
    """only_result_lines: the command prints RESULT lines alone, which --quiet keeps; its --config test sets
    the seed instead."""
    entries = {
        "help": changes(help=None),
        "version": changes(version=None),
        "config": changes(config=inputs.config),
        "dump-config": changes(dump_config=None),
        "quiet": changes(quiet=None),
    }
    if only_result_lines:
        entries["quiet"] = noop("the command prints only RESULT lines, which --quiet keeps", quiet=None)
        entries["config"] = changes(config=inputs.seed_config)
    return entries


def graph_entries(inputs):
    points = {"graph": DROP, "points": inputs.points, "knn": 3}
    return {
        "graph": changes(graph=inputs.other_graph),
        "format": changes(format="edgelist"),
        "partition": changes(partition="metis"),
        "host-size": noop("one rank is one host whatever K (test_host_size.py runs hosts of 1 and 2 at np 1-4)",
                          host_size=2),
        "replicate-graph": noop("one rank holds the whole graph already (test_replicate_graph.py runs it at np 2-4)",
                                replicate_graph=None),
        "duplicates": changes(duplicates="sum"),
        "keep-self-loops": changes(keep_self_loops=None),
        "weight-column": changes(weight_column=-1),
        "ids": changes(ids="string"),
        "memory-limit": fails(graph=inputs.big_mtx, memory_limit="1K"),
        "points": changes(graph=DROP, points=inputs.points, knn=3),
        "points-format": fails(base=points, points_format="ply", needle="ply"),
        "knn": changes(base=points, knn=4),
        "knn-mode": changes(base=points, knn_mode="mutual"),
        "radius": changes(base=points, knn=DROP, radius=0.4),
        "edge-weight": changes(base=points, edge_weight="gaussian"),
        "edge-sigma": changes(base=dict(points, edge_weight="gaussian"), edge_sigma=0.5),
    }


def kernel_entries():
    return {
        "kernel": changes(kernel="regularized-laplacian"),
        "beta": changes(beta=2),
        "power": changes(base={"kernel": "regularized-laplacian"}, power=2),
        "shift": changes(base={"kernel": "p-step"}, shift=3),
        "alpha": changes(alpha="1,0.5,0.25"),
        "f": changes(f="1,0.5"),
    }


def coupling_entries(inputs):
    return {
        "coupling": changes(coupling="antithetic"),
        "sigma": changes(base={"coupling": "sigma", "sigma": inputs.sigma}, sigma=inputs.other_sigma),
    }


def walk_entries(inputs):
    entries = {
        "walkers": changes(walkers=6),
        "p-halt": changes(p_halt=0.3),
        "max-length": changes(max_length=2),
        "fixed-length": changes(fixed_length=3),
        "seed": changes(seed=2),
        "step": changes(step="weighted"),
        "weights": changes(weights="combinatorial"),
        "scale": changes(base={"weights": "raw", "scale": 0.5}, scale=0.25),
    }
    entries.update(coupling_entries(inputs))
    return entries


def reference_entries():
    return {
        "reference": changes(reference=None),
        "dense-reference-max": changes(base={"reference": None}, dense_reference_max=2),
        "reference-samples": changes(base={"reference": None, "dense_reference_max": 2}, reference_samples=3),
    }
