"""End-to-end: `graphrf pagerank` computes networkx.pagerank's PageRank of the file as given.

networkx's definition, solved densely here (networkx itself is not needed): x = p/N + (1-p) (P^T x + m/N), with
P = D_out^-1 A, A the arc weights (a self-loop an out-arc to its own node; an undirected edge both arcs), and m
the mass on dangling nodes (no out-arcs), spread uniformly.

  * /pagerank/exact equals the dense solve to 1e-8 on directed and undirected graphs, weighted and unweighted,
    with self-loops and dangling nodes, at 1 and 3 ranks; self-loops are kept by default and the log says so;
  * --drop-self-loops and --step uniform (networkx's weight=None) give the dense solve without self-loops and on
    the arc pattern;
  * RESULT walkers= is per node (walks= the walks, as in grf);
  * refused: --keep-self-loops (the default already), repelling couplings on a weighted graph with weighted steps.
"""

import os

import h5py
import numpy as np

import graphrf_e2e as e2e

P_HALT = 0.15
# Ids 0..7: 1 -> 1, 4 -> 4 and 6 -> 6 are self-loops; 5 and 7 have no out-arcs (dangling when directed).
ARCS = [(0, 1, 2.0), (0, 2, 1.0), (1, 1, 3.0), (1, 2, 0.5), (2, 0, 1.5), (2, 3, 1.0), (3, 4, 2.5), (4, 4, 1.0),
        (4, 5, 1.0), (3, 0, 0.25), (6, 6, 2.0), (6, 2, 1.0), (2, 7, 4.0)]


def dense_pagerank(arcs, directed, weighted, self_loops=True, p=P_HALT):
    """networkx.pagerank of the graph (alpha = 1 - p, uniform personalisation and dangling weights)."""
    ids = sorted({u for a in arcs for u in a[:2]})
    index = {v: i for i, v in enumerate(ids)}
    n = len(ids)
    a = np.zeros((n, n))
    for u, v, w in arcs:
        if u == v and not self_loops:
            continue
        w = w if weighted else 1.0
        a[index[u], index[v]] = w
        if not directed:
            a[index[v], index[u]] = w
    out = a.sum(axis=1)
    dangling = out == 0
    P = a / np.where(dangling, 1.0, out)[:, None]
    # x = p/N 1 + (1-p) (P^T x + (d^T x)/N 1): (I - (1-p)(P^T + 1 d^T / N)) x = p/N 1.
    m = np.eye(n) - (1 - p) * (P.T + np.outer(np.ones(n), dangling.astype(float)) / n)
    x = np.linalg.solve(m, np.full(n, p / n))
    return np.array(ids), x / x.sum()


def write_arcs(d, weighted):
    return e2e.write(d, "arcs-%s.txt" % ("w" if weighted else "u"),
                     "".join(("%d %d %r\n" % a) if weighted else ("%d %d\n" % a[:2]) for a in ARCS))


def run_pagerank(d, np_, graph, extra, name):
    out = os.path.join(d, name + ".h5")
    r = e2e.run(np_, ["pagerank", "--graph", graph, "--p-halt", P_HALT, "--walkers", 16, "--reference", "--out", out] + extra)
    with h5py.File(out, "r") as f:
        return r, f["nodes/id"][:], f["pagerank/exact"][:]


def check(ids, exact, want_ids, want):
    assert list(ids) == list(want_ids), ids
    assert np.max(np.abs(exact - want)) < 1e-8, (exact, want)


def test_exact_pagerank_is_networkx_pagerank():
    with e2e.TempDir() as d:
        for weighted in (False, True):
            graph = write_arcs(d, weighted)
            for directed in (True, False):
                want_ids, want = dense_pagerank(ARCS, directed, weighted)
                for np_ in (1, 3):
                    name = "w%d-d%d-np%d" % (weighted, directed, np_)
                    r, ids, exact = run_pagerank(d, np_, graph, ["--directed"] if directed else [], name)
                    check(ids, exact, want_ids, want)
                    assert "kept 3 self-loops" in r.lines_starting("loader"), r.stdout
                    res = r.result()
                    assert res["walkers"] == "16" and res["walks"] == str(16 * len(want_ids)), res


def test_drop_self_loops_and_uniform_steps():
    with e2e.TempDir() as d:
        graph = write_arcs(d, True)
        want_ids, want = dense_pagerank(ARCS, True, True, self_loops=False)
        r, ids, exact = run_pagerank(d, 2, graph, ["--directed", "--drop-self-loops"], "dropped")
        check(ids, exact, want_ids, want)
        assert "dropped 3 self-loops" in r.lines_starting("loader"), r.stdout
        want_ids, want = dense_pagerank(ARCS, True, False)
        _, ids, exact = run_pagerank(d, 2, graph, ["--directed", "--step", "uniform"], "uniform")
        check(ids, exact, want_ids, want)


def test_refused_options():
    with e2e.TempDir() as d:
        graph = write_arcs(d, True)
        e2e.expect_error(2, ["pagerank", "--graph", graph, "--keep-self-loops", "--out", "{out}"],
                         "--keep-self-loops", "--drop-self-loops", directory=d)
        e2e.expect_error(2, ["pagerank", "--graph", graph, "--coupling", "repelling", "--out", "{out}"],
                         "--coupling repelling", "--step uniform", directory=d)
        # Without weights the two step rules are one walk: repelling couplings run.
        e2e.run(2, ["pagerank", "--graph", write_arcs(d, False), "--coupling", "repelling", "--walkers", 4])
        e2e.expect_error(1, ["pagerank", "--graph", graph, "--step", "sideways", "--out", "{out}"], "--step", directory=d)


if __name__ == "__main__":
    e2e.main(globals())
