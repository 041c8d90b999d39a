"""graphrf.grf(..., comm=MPI.COMM_WORLD) under `mpirun -np P python3 -m pytest` (ctest python_mpi_npP, P = 1, 2, 3):
each rank gets its block of rows with their canonical indices and node ids, the blocks cover every row once, and
gather() gives rank 0 a matrix bitwise equal to the one-process grf() of the same graph and options (computed
here on every rank on its own), whatever host_size and replicate_graph say; those two reach the distributed
graph. Every rank's verdict is shared with all, so all ranks pass or fail together (no rank waits for another
that stopped)."""
import numpy as np
import pytest

MPI = pytest.importorskip("mpi4py.MPI", reason="mpi4py (Debian: python3-mpi4py) is not installed")

import graphrf  # noqa: E402

COMM = MPI.COMM_WORLD


def agreed(failure):
    """The first failure of any rank (None: every rank passed), on every rank."""
    return next((f for f in COMM.allgather(failure) if f is not None), None)


def csr_difference(actual, expected):
    if actual.shape != expected.shape:
        return f"shape {actual.shape} != {expected.shape}"
    for name in ("indptr", "indices"):
        if not np.array_equal(getattr(actual, name), getattr(expected, name)):
            return f"{name} differ"
    if not np.array_equal(actual.data.view(np.uint64), expected.data.view(np.uint64)):
        return "data differ (bits)"
    return None


def graph():
    """A 7 x 9 grid with shuffled ids (0 .. 62 and 100 .. 162 interleaved: ids are not row numbers) and weights."""
    rng = np.random.default_rng(5)
    rows, cols = 7, 9
    ids = rng.permutation(rows * cols) * 2 + 1
    src, dst = [], []
    for r in range(rows):
        for c in range(cols):
            if c + 1 < cols:
                src.append(ids[r * cols + c]), dst.append(ids[r * cols + c + 1])
            if r + 1 < rows:
                src.append(ids[r * cols + c]), dst.append(ids[(r + 1) * cols + c])
    weights = rng.uniform(0.5, 2.0, len(src))
    return graphrf.Graph.from_edges(src, dst, weights=weights)


# How the ranks share the graph: hosts as MPI reports them (one here), every rank its own host (walkers cross as
# messages), and hosts of one or two ranks each holding the whole walk table (np 3: hosts of 2 + 1).
SHARING = [dict(), dict(host_size=1), dict(host_size=1, replicate_graph=True), dict(host_size=2, replicate_graph=True)]


@pytest.mark.parametrize("sharing", SHARING)
@pytest.mark.parametrize("options", [dict(kernel="diffusion", beta=0.8, walkers=8, p_halt=0.2, seed=3),
                                     dict(kernel="regularized-laplacian", walkers=4, p_halt=0.3, seed=9,
                                          coupling="antithetic")])
def test_gather_equals_one_process(options, sharing):
    g = graph()
    expected = graphrf.grf(g, **options)
    part = graphrf.grf(g, comm=COMM, **options, **sharing)
    assert isinstance(part, graphrf.DistributedRows)
    block_ok = (part.rows.shape == (len(part.row_index), g.num_nodes)
                and np.array_equal(part.node_ids, g.node_ids[part.row_index])
                and csr_difference(part.rows, expected[part.row_index]) is None)
    blocks = COMM.gather(part.row_index, root=0)
    checks = COMM.gather(block_ok, root=0)
    whole = part.gather()
    failure = None
    if COMM.Get_rank() == 0:
        if not all(checks):
            failure = f"rank blocks differ from the one-process rows or their ids: {checks}"
        elif not np.array_equal(np.concatenate(blocks), np.arange(g.num_nodes)):
            failure = "the blocks do not cover the rows 0 .. N-1 once, in order"
        else:
            difference = csr_difference(whole, expected)
            failure = None if difference is None else f"gather() differs from np 1: {difference}"
    else:
        failure = None if whole is None else "gather() returned a matrix on a rank other than the root"
    failure = agreed(failure)
    assert failure is None, failure


@pytest.mark.parametrize("sharing", SHARING[1:])
def test_host_size_and_replication_reach_the_graph(sharing):
    distributed = graphrf._over(graph(), COMM, **sharing)._handle
    size = COMM.Get_size()
    hosts = -(-size // sharing["host_size"])  # hosts of host_size ranks, the last one smaller
    replicated = sharing.get("replicate_graph", False) and hosts > 1
    failure = agreed(None if (distributed.hosts, distributed.replicates_walks) == (hosts, replicated) else
                     f"{sharing} at np {size}: {distributed.hosts} hosts, replicated {distributed.replicates_walks}; "
                     f"expected {hosts}, {replicated}")
    assert failure is None, failure


@pytest.mark.parametrize("sharing, message", [(dict(host_size=0), "host_size"), (dict(host_size=1.5), "host_size"),
                                              (dict(host_size=True), "host_size")])
def test_bad_host_size_is_a_value_error(sharing, message):
    with pytest.raises(ValueError, match=message):
        graphrf.grf(graph(), comm=COMM, **sharing)


def test_sharing_without_a_communicator_is_a_value_error():
    with pytest.raises(ValueError, match="comm="):
        graphrf.grf(graph(), host_size=1)
    with pytest.raises(ValueError, match="comm="):
        graphrf.pagerank(graph(), replicate_graph=True)


def test_bad_comm_is_a_value_error():
    with pytest.raises(ValueError, match="comm"):
        graphrf.grf(graph(), comm="world")
