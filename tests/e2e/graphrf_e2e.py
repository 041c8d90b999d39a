"""Shared helpers of the end-to-end tests (tests/e2e/test_*.py).

ctest runs each test_*.py with Debian's /usr/bin/python3 (h5py, scipy, numpy) and sets
  GRAPHRF_BIN, GRAPHRF_PARTITION_BIN   the programs under test
  MPIEXEC, MPIEXEC_FLAGS               mpirun and its flags (a ';'-separated list)
  GRAPHRF_SOURCE_DIR, GRAPHRF_BUILD_DIR
Run by hand, the programs default to <source>/build.

This module gives: launching the programs under mpirun (or directly), parsing their output, temporary
directories, an independent pure-Python reader of the graph formats (it shares no code with graphrf's C++
loader and states the loader's rules itself), the HDF5 output read back as a scipy CSR matrix in ascending
original-id order, and a tiny test runner that ends with the line "N passed, M failed".
"""

import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

import h5py
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

SOURCE_DIR = os.environ.get("GRAPHRF_SOURCE_DIR") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD_DIR = os.environ.get("GRAPHRF_BUILD_DIR") or os.path.join(SOURCE_DIR, "build")
GRAPHRF = os.environ.get("GRAPHRF_BIN") or os.path.join(BUILD_DIR, "graphrf")
GRAPHRF_PARTITION = os.environ.get("GRAPHRF_PARTITION_BIN") or os.path.join(BUILD_DIR, "partition", "graphrf-partition")
MPIEXEC = os.environ.get("MPIEXEC") or shutil.which("mpirun") or "mpirun"
MPIEXEC_FLAGS = [f for f in os.environ.get("MPIEXEC_FLAGS", "--allow-run-as-root;--oversubscribe").split(";") if f]
DATA_DIR = os.path.join(SOURCE_DIR, "tests", "data")

# Open MPI as root and oversubscribed on small machines; ranks that busy-wait on 2 cores make runs 10x slower.
# When a rank exits non-zero, mpirun ends the job and waits odls_base_sigkill_timeout (1 s) between SIGTERM and
# SIGKILL: 0 makes each failing run ~1-2 s faster and changes nothing else (graphrf's ranks leave through
# MPI_Finalize, whose fence keeps any rank from exiting before rank 0 has printed the error).
# Values already in the environment win.
MPI_ENV = {
    "OMPI_ALLOW_RUN_AS_ROOT": "1",
    "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
    "OMPI_MCA_rmaps_base_oversubscribe": "1",
    "OMPI_MCA_mpi_yield_when_idle": "1",
    "OMPI_MCA_odls_base_sigkill_timeout": "0",
}
DEFAULT_TIMEOUT = 60
# Sanitizer builds run 5-10x slower: their ctest environment sets GRAPHRF_TIME_SCALE (10) and every per-command
# limit below is multiplied by it.
TIME_SCALE = float(os.environ.get("GRAPHRF_TIME_SCALE", "1"))


# ---------------------------------------------------------------------------------------------------------------
# Running the programs

class Run:
    """Outcome of one program run: args, returncode, stdout, stderr."""

    def __init__(self, args, returncode, stdout, stderr):
        self.args, self.returncode, self.stdout, self.stderr = args, returncode, stdout, stderr

    def describe(self):
        return "$ %s\nexit %s\n--- stdout\n%s--- stderr\n%s" % (" ".join(self.args), self.returncode, self.stdout, self.stderr)

    def graphrf_errors(self):
        """stderr lines written by graphrf itself (mpirun's own banner lines do not start with 'graphrf')."""
        return [line for line in self.stderr.splitlines() if line.startswith("graphrf")]

    def result(self):
        """The key=value fields of the 'RESULT ...' line (values as strings)."""
        # The command's own RESULT line; the closing "RESULT summary=run ..." line is the run summary.
        lines = [line for line in self.stdout.splitlines()
                 if line.startswith("RESULT ") and not line.startswith("RESULT summary=")]
        if len(lines) != 1:
            raise AssertionError("expected one RESULT line, got %d\n%s" % (len(lines), self.describe()))
        return dict(field.split("=", 1) for field in lines[0].split()[1:])

    def lines_starting(self, prefix):
        """The rest of every stdout line starting with `prefix` (e.g. 'loader'), stripped."""
        return [line[len(prefix):].strip() for line in self.stdout.splitlines() if line.startswith(prefix)]


def run(np_, args, program=None, timeout=DEFAULT_TIMEOUT, env=None, cwd=None, check=True):
    """Runs `program` (default graphrf) with `args` under mpirun with np_ ranks, or directly when np_ is None.
    env adds variables (None removes one). With check=True a non-zero exit raises AssertionError showing the
    output; a run longer than `timeout` seconds is killed (its own process group only) and raises too."""
    program = program or GRAPHRF
    full_env = dict(MPI_ENV)
    full_env.update(os.environ)
    for k, v in (env or {}).items():  # a value of None removes the variable
        if v is None:
            full_env.pop(k, None)
        else:
            full_env[k] = v
    if np_ is None:
        cmd = [program] + [str(a) for a in args]
    else:
        cmd = [MPIEXEC, "-np", str(np_)] + MPIEXEC_FLAGS + [program] + [str(a) for a in args]
    # A session of its own, so that a hang is ended by killing exactly this run's process group (mpirun and
    # its ranks), nothing else.
    timeout = timeout * TIME_SCALE
    # Bytes, decoded here: text mode would turn a carriage return into a newline and hide in-place progress
    # lines written into a pipe.
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=full_env, cwd=cwd,
                         stdin=subprocess.DEVNULL, start_new_session=True)
    decode = lambda b: b.decode("utf-8", errors="replace")  # noqa: E731
    try:
        stdout, stderr = map(decode, p.communicate(timeout=timeout))
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        stdout, stderr = map(decode, p.communicate())
        raise AssertionError("timed out after %s s (a hang?): %s\nstdout so far:\n%s\nstderr so far:\n%s"
                             % (timeout, " ".join(cmd), stdout, stderr))
    r = Run(cmd, p.returncode, stdout, stderr)
    if check and r.returncode != 0:
        raise AssertionError("command failed\n" + r.describe())
    return r


def rank_pids(mpirun_pid):
    """Process ids of the ranks of a running mpirun: its children running graphrf (by argv[0])."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open("/proc/%s/cmdline" % entry, "rb") as f:
                argv0 = f.read().split(b"\0")[0].decode(errors="replace")
        except OSError:  # gone meanwhile
            continue
        if int(fields[1]) == mpirun_pid and os.path.basename(argv0).startswith("graphrf"):
            pids.append(int(entry))
    return pids


def partition_tool(np_, args, **kw):
    return run(np_, args, program=GRAPHRF_PARTITION, **kw)


class TempDir:
    """with TempDir() as d: a fresh directory removed afterwards (kept when GRAPHRF_E2E_KEEP=1)."""

    def __enter__(self):
        self.path = tempfile.mkdtemp(prefix="graphrf-e2e-")
        return self.path

    def __exit__(self, *exc):
        if os.environ.get("GRAPHRF_E2E_KEEP") == "1":
            print("kept " + self.path)
        else:
            shutil.rmtree(self.path, ignore_errors=True)
        return False


def write(directory, name, text):
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write(text)
    return path


# ---------------------------------------------------------------------------------------------------------------
# An independent reader of the graph formats
#
# The loader's rules, as this reader applies them:
#  * Edge lists: one edge "u v [w ...]" per line, separated by blanks or commas; blank lines and lines starting
#    with '#' or '%' are skipped; a first non-comment line whose first two columns are not numbers is a column
#    header and is skipped. Weights: the column a header names "weight", "w" or "value" (column >= 3), else
#    column 3 if the first edge line has >= 3 columns, else 1. Ids are the file's non-negative 64-bit ids (sparse
#    is fine); the nodes are every id the file mentions, rows ordered by ascending id.
#  * Matrix Market (coordinate; real, integer or pattern; general or symmetric), METIS (n m [fmt [ncon]]) and
#    DIMACS (p sp N M, a u v w) declare N: ids are 1..N and nodes no edge mentions are kept as isolated nodes.
#    OBJ: every 'v' line is a node 1..N; faces give the arcs around the polygon, 'l' lines between neighbours.
#  * Self-loops are dropped (kept with --keep-self-loops).
#  * Repeated arcs u->v are combined by --duplicates: max (default) or sum. Then the graph is made undirected:
#    an edge listed as u->v and as v->u keeps the larger of the two (combined) weights.
#  * --weights raw writes A; the default writes D^-1/2 A D^-1/2 with d_i the weighted degree (row sum of A).


class RefGraph:
    """ids: ascending node ids; edges: {(i, j): w} over canonical indices with i <= j; counts: loader figures."""

    def __init__(self, ids, edges, counts):
        self.ids, self.edges, self.counts = ids, edges, counts

    @property
    def n(self):
        return len(self.ids)

    def matrix(self, normalized):
        rows, cols, vals = [], [], []
        for (i, j), w in self.edges.items():
            rows.append(i)
            cols.append(j)
            vals.append(w)
            if i != j:
                rows.append(j)
                cols.append(i)
                vals.append(w)
        a = sp.csr_matrix((np.array(vals, dtype=float), (rows, cols)), shape=(self.n, self.n))
        a.sort_indices()
        if not normalized:
            return a
        d = np.asarray(a.sum(axis=1)).ravel()
        s = np.zeros_like(d)
        s[d > 0] = 1.0 / np.sqrt(d[d > 0])
        w = sp.diags(s) @ a @ sp.diags(s)
        w = sp.csr_matrix(w)
        w.sort_indices()
        return w

    def components(self):
        return connected_components(self.matrix(False), directed=False)[0]

    def isolated(self):
        return int(np.sum(np.diff(self.matrix(False).indptr) == 0))


def _tokens(line, commas):
    return [t for t in re.split(r"[\s,]+" if commas else r"\s+", line.strip()) if t]


def _is_number(token):
    try:
        float(token)
        return True
    except ValueError:
        return False


def _weight(token):
    w = float(token)
    if not (math.isfinite(w) and w > 0):
        raise ValueError("bad weight %r" % token)
    return w


def _read_edge_list(text, weight_column):
    arcs, header_line, first_columns, named = [], 0, None, 0
    data_lines = []
    for number, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if not s or s[0] in "#%":
            continue
        t = _tokens(s, True)
        if first_columns is None and header_line == 0 and not _is_number(t[0]) and (len(t) < 2 or not _is_number(t[1])):
            header_line = number
            for column, name in enumerate(t, 1):
                if column >= 3 and name.strip("\"'").lower() in ("weight", "w", "value"):
                    named = column
                    break
            continue
        if first_columns is None:
            first_columns = len(t)
        data_lines.append(t)
    if weight_column == 0:
        weight_column = named or (3 if first_columns and first_columns >= 3 else 0)
    elif weight_column < 0:
        weight_column = 0
    for t in data_lines:
        u, v = int(t[0]), int(t[1])
        assert u >= 0 and v >= 0
        arcs.append((u, v, _weight(t[weight_column - 1]) if weight_column else 1.0))
    return arcs, None, {"skipped_header_line": header_line, "weighted": weight_column > 0}


def _read_matrix_market(text, weight_column):
    lines = text.splitlines()
    banner = lines[0].split()
    assert banner[0].lower() == "%%matrixmarket" and banner[2].lower() == "coordinate"
    pattern = banner[3].lower() == "pattern"
    weighted = not pattern and weight_column != -1
    arcs, n = [], None
    for line in lines[1:]:
        s = line.strip()
        if not s or s.startswith("%"):
            continue
        t = s.split()
        if n is None:
            assert t[0] == t[1], "square"
            n = int(t[0])
            continue
        i, j = int(t[0]), int(t[1])
        assert 1 <= i <= n and 1 <= j <= n
        arcs.append((i, j, _weight(t[2]) if weighted else 1.0))
    return arcs, list(range(1, n + 1)), {"skipped_header_line": 0, "weighted": weighted}


def _read_metis(text, weight_column):
    arcs, n, vertex = [], None, 0
    for line in text.splitlines():
        if line.strip().startswith("%"):
            continue
        t = line.split()
        if n is None:
            if not t:
                continue
            n = int(t[0])
            fmt = (t[2] if len(t) > 2 else "0").rjust(3, "0")
            ncon = int(t[3]) if len(t) > 3 else (1 if fmt[1] == "1" else 0)
            skip = (1 if fmt[0] == "1" else 0) + (ncon if fmt[1] == "1" else 0)
            edge_weights = fmt[2] == "1"
            continue
        vertex += 1
        t = t[skip:]
        step = 2 if edge_weights else 1
        for k in range(0, len(t), step):
            w = _weight(t[k + 1]) if edge_weights and weight_column != -1 else 1.0
            arcs.append((vertex, int(t[k]), w))
    return arcs, list(range(1, n + 1)), {"skipped_header_line": 0, "weighted": edge_weights and weight_column != -1}


def _read_dimacs(text, weight_column):
    arcs, n = [], None
    for line in text.splitlines():
        t = line.split()
        if not t or t[0] == "c":
            continue
        if t[0] == "p":
            n = int(t[2])
            continue
        assert t[0] == "a"
        arcs.append((int(t[1]), int(t[2]), _weight(t[3]) if weight_column != -1 else 1.0))
    return arcs, list(range(1, n + 1)), {"skipped_header_line": 0, "weighted": weight_column != -1}


def _read_obj(text, weight_column):
    arcs, seen = [], 0
    for line in text.splitlines():
        t = line.split()
        if not t or t[0].startswith("#"):
            continue
        if t[0] == "v":
            seen += 1
        elif t[0] in ("f", "l"):
            refs = []
            for token in t[1:]:
                k = int(token.split("/")[0])
                refs.append(k if k > 0 else seen + 1 + k)
            pairs = list(zip(refs, refs[1:]))
            if t[0] == "f":
                pairs.append((refs[-1], refs[0]))
            arcs.extend((a, b, 1.0) for a, b in pairs)
    return arcs, list(range(1, seen + 1)), {"skipped_header_line": 0, "weighted": False}


READERS = {"edgelist": _read_edge_list, "mtx": _read_matrix_market, "metis": _read_metis, "dimacs": _read_dimacs,
           "obj": _read_obj}
EXTENSIONS = {".mtx": "mtx", ".graph": "metis", ".gr": "dimacs", ".obj": "obj"}


def read_graph(path, fmt=None, duplicates="max", keep_self_loops=False, weight_column=0):
    """Reads a graph file the way the loader's rules (above) say, without graphrf."""
    fmt = fmt or EXTENSIONS.get(os.path.splitext(path)[1].lower(), "edgelist")
    with open(path) as f:
        text = f.read()
    arcs, declared_ids, counts = READERS[fmt](text, weight_column)
    counts["arcs_read"] = len(arcs)
    counts["self_loops_dropped"] = 0 if keep_self_loops else sum(1 for u, v, _ in arcs if u == v)
    ids = declared_ids if declared_ids is not None else sorted({x for u, v, _ in arcs for x in (u, v)})
    index = {x: k for k, x in enumerate(ids)}
    directed, merged = {}, 0
    for u, v, w in arcs:
        if u == v and not keep_self_loops:
            continue
        key = (index[u], index[v])
        if key in directed:
            merged += 1
            directed[key] = directed[key] + w if duplicates == "sum" else max(directed[key], w)
        else:
            directed[key] = w
    edges, reciprocal, conflicts = {}, 0, 0
    for (i, j), w in directed.items():
        key = (min(i, j), max(i, j))
        if key in edges:
            continue
        back = directed.get((j, i))
        if back is not None and i != j:
            reciprocal += 1
            conflicts += back != w
            w = max(w, back)
        edges[key] = w
    counts.update(duplicate_arcs_merged=merged, reciprocal_pairs=reciprocal, reciprocal_weight_conflicts=conflicts,
                  self_loops_kept=sum(1 for (i, j) in edges if i == j))
    return RefGraph(ids, edges, counts)


# ---------------------------------------------------------------------------------------------------------------
# Reading graphrf's HDF5 output

class Output:
    """An output file: ids (/nodes/id), partition (/nodes/partition), graph (CSR in graphrf's row order),
    by_id (the same matrix with rows and columns permuted into ascending original-id order), attrs."""

    def __init__(self, path):
        with h5py.File(path, "r") as f:
            self.attrs = {k: _plain(v) for k, v in f.attrs.items()}
            self.names = set()
            f.visit(self.names.add)
            self.ids = f["nodes/id"][:]
            self.partition = f["nodes/partition"][:]
            g = f["graph"]
            self.graph_attrs = {k: _plain(v) for k, v in g.attrs.items()}
            shape = tuple(int(x) for x in g.attrs["shape"])
            self.indptr, self.indices, self.data = g["indptr"][:], g["indices"][:], g["data"][:]
            self.graph = sp.csr_matrix((self.data, self.indices, self.indptr), shape=shape)
            self.config = f["config"][()]
            if isinstance(self.config, bytes):
                self.config = self.config.decode()
        order = np.argsort(self.ids, kind="stable")
        self.sorted_ids = self.ids[order]
        self.by_id = sp.csr_matrix(self.graph[order][:, order])
        self.by_id.sort_indices()
        self.order = order  # row order[k] of the file holds the k-th smallest id


def _plain(v):
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, np.generic):
        return v.item()
    return v


def csr_equal(a, b):
    """Exact equality of two CSR matrices with sorted indices (same pattern, bitwise same values)."""
    return (a.shape == b.shape and np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)
            and np.array_equal(a.data, b.data))


def csr_close(a, b, rtol=1e-13):
    if a.shape != b.shape or not np.array_equal(a.indptr, b.indptr) or not np.array_equal(a.indices, b.indices):
        return False
    return np.allclose(a.data, b.data, rtol=rtol, atol=0)


def block_partition(graph_matrix_by_id, n_parts):
    """graphrf's 'block' partitioner: contiguous id ranges balanced by (degree + 1); a node goes to the part
    holding the midpoint of its work interval."""
    degree = np.diff(graph_matrix_by_id.indptr)
    work = degree + 1
    total = int(work.sum())
    parts, prefix = [], 0
    for w in work:
        parts.append(min(n_parts - 1, ((2 * prefix + int(w)) * n_parts) // (2 * total)))
        prefix += int(w)
    return np.array(parts)


def edge_cut(matrix, part):
    """Undirected edges whose ends lie in different parts (matrix and part in the same node order)."""
    coo = sp.triu(matrix, k=1).tocoo()
    return int(np.sum(part[coo.row] != part[coo.col]))


# ---------------------------------------------------------------------------------------------------------------
# Commands that compute (grf, attention, wavelet): their files in ascending original-id order, inputs made here

def read_csr(group):
    """An anndata CSR group (indptr, indices, data, attrs shape) of an open h5py file, in the file's order."""
    shape = tuple(int(x) for x in group.attrs["shape"])
    return sp.csr_matrix((group["data"][:], group["indices"][:], group["indptr"][:]), shape=shape)


def id_order(ids):
    """The permutation that puts a file's rows (with /nodes/id `ids`) into ascending id order: row order[k] of
    the file holds the k-th smallest id."""
    return np.argsort(np.asarray(ids), kind="stable")


def permute_by_id(matrix, ids):
    """A square matrix over graphrf's global indices (rows and columns in /nodes/id order), rows and columns
    permuted into ascending original-id order; sparse in, CSR with sorted indices out; dense in, dense out."""
    order = id_order(ids)
    if sp.issparse(matrix):
        m = sp.csr_matrix(sp.csr_matrix(matrix)[order][:, order])
        m.sort_indices()
        return m
    return np.asarray(matrix)[order][:, order]


def relative_max_error(got, expected):
    """max |got - expected| / max |expected| (0 when both are zero)."""
    got, expected = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    assert got.shape == expected.shape, "shapes %s and %s differ" % (got.shape, expected.shape)
    scale = np.max(np.abs(expected)) if expected.size else 0.0
    diff = np.max(np.abs(got - expected)) if got.size else 0.0
    return diff / scale if scale > 0 else diff


def grid_edge_list(rows, cols, seed=0, id_base=1000, id_step=7):
    """A rows x cols grid as an edge-list text whose ids are not 0..N-1 and are not in grid order: cell
    (r, c) gets id id_base + id_step * perm[r * cols + c] for a seeded permutation; the edges are listed in a
    shuffled order, each in a random direction, after a comment line. Returns (text, ids ascending,
    id_of_cell as an array of shape (rows, cols))."""
    rng = np.random.default_rng(seed)
    n = rows * cols
    id_of_cell = (id_base + id_step * rng.permutation(n)).reshape(rows, cols)
    edges = []
    for r in range(rows):
        for c in range(cols):
            if c + 1 < cols:
                edges.append((id_of_cell[r, c], id_of_cell[r, c + 1]))
            if r + 1 < rows:
                edges.append((id_of_cell[r, c], id_of_cell[r + 1, c]))
    lines = ["# %dx%d grid, ids shuffled" % (rows, cols)]
    for k in rng.permutation(len(edges)):
        u, v = edges[k]
        if rng.random() < 0.5:
            u, v = v, u
        lines.append("%d %d" % (u, v))
    return "\n".join(lines) + "\n", np.sort(id_of_cell.ravel()), id_of_cell


def write_qkv(path, q, k, v, ids=None):
    """A Q/K/V input of `graphrf attention --qkv`: /q, /k (N x d or N x H x d), /v (N x dv or N x H x dv) and,
    when ids is given, /nodes/id naming the node of each row."""
    with h5py.File(path, "w") as f:
        f["q"], f["k"], f["v"] = q, k, v
        if ids is not None:
            f["nodes/id"] = np.asarray(ids, dtype=np.int64)
    return path


def temporaries(out):
    """Temporary files of writers of `out` in its folder: OUT.<host>.<pid>.<random>.partial (and OUT.partial,
    the name older versions used)."""
    folder, name = os.path.split(out)
    return sorted(f for f in os.listdir(folder or ".") if f.startswith(name + ".") and f.endswith(".partial"))


def expect_error(np_, args, *needles, directory, program=None, env=None, regex=None, prefix="graphrf: error: ",
                 timeout=30):
    """Runs one failing case and checks the bad-input contract: non-zero exit within `timeout` (no rank left
    hanging), exactly one line from graphrf on stderr, starting with `prefix` and containing every needle
    (and matching regex), no RESULT line, and no file left in `directory` ("{out}" in args is replaced by
    DIRECTORY/out.h5, which must not exist afterwards, nor its temporary files). Returns the error line."""
    out = os.path.join(directory, "out.h5")
    before = set(os.listdir(directory))
    r = run(np_, [a.replace("{out}", out) if isinstance(a, str) else a for a in args], program=program, env=env,
            timeout=timeout, check=False)
    ctx = "\n" + r.describe()
    assert r.returncode != 0, "exit 0 on bad input" + ctx
    errors = r.graphrf_errors()
    assert len(errors) == 1, "expected exactly one graphrf error line, got %d" % len(errors) + ctx
    line = errors[0]
    assert line.startswith(prefix), line
    for needle in needles:
        assert needle in line, "%r not in %r" % (needle, line)
    if regex:
        assert re.search(regex, line), "%r does not match %r" % (line, regex)
    assert "RESULT" not in r.stdout, ctx
    assert not os.path.exists(out) and not temporaries(out), "output left behind" + ctx
    left = set(os.listdir(directory)) - before
    assert not left, "files left behind: %s%s" % (left, ctx)
    print("      np=%s: %s" % (np_, line.replace(directory, "DIR")), flush=True)
    return line


# ---------------------------------------------------------------------------------------------------------------
# A minimal test runner: every test is a function; AssertionError or any exception fails it; Skip skips it.

class Skip(Exception):
    pass


def main(tests):
    """Runs the tests: a list of functions, or a module's globals() (its test_* functions in definition order).
    Prints one line per test and then "N passed, M failed[, K skipped]"; exits 1 if any failed."""
    if isinstance(tests, dict):
        tests = [f for name, f in tests.items() if name.startswith("test_") and callable(f)]
    passed = failed = skipped = 0
    for test in tests:
        name = test.__name__
        start = time.monotonic()
        try:
            test()
        except Skip as e:
            skipped += 1
            print("SKIP  %s: %s" % (name, e), flush=True)
        except Exception:  # noqa: BLE001 - every failure is reported the same way
            failed += 1
            print("FAIL  %s\n%s" % (name, traceback.format_exc()), flush=True)
        else:
            passed += 1
            print("ok    %s (%.1f s)" % (name, time.monotonic() - start), flush=True)
    summary = "%d passed, %d failed" % (passed, failed)
    if skipped:
        summary += ", %d skipped" % skipped
    print(summary, flush=True)
    sys.exit(1 if failed else 0)
