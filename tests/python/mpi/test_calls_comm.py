"""graphrf.walk, pagerank, wavelet and gp with comm=MPI.COMM_WORLD under `mpirun -np P python3 -m pytest` (ctest
python_mpi_npP, P = 1, 2, 3): each rank gets its block of rows (DistributedRows, or Walks holding its rows) with
their canonical indices and node ids, equal to those rows of the one-process call, and gather() gives rank 0 the
whole result bitwise equal to it (computed here on every rank on its own). Verdicts are shared by all ranks."""
import numpy as np
import pytest

MPI = pytest.importorskip("mpi4py.MPI", reason="mpi4py (Debian: python3-mpi4py) is not installed")

import graphrf  # noqa: E402
from test_grf_comm import SHARING, agreed, csr_difference, graph  # noqa: E402

COMM = MPI.COMM_WORLD


def array_difference(actual, expected):
    if actual.shape != expected.shape:
        return f"shape {actual.shape} != {expected.shape}"
    same = np.array_equal(actual.view(np.uint8), expected.view(np.uint8)) if actual.dtype == expected.dtype else False
    return None if same else "values differ (bits)"


def difference(actual, expected):
    return csr_difference(actual, expected) if hasattr(expected, "indptr") else array_difference(actual, expected)


def rows_failure(part, expected, g, what):
    """None when part (DistributedRows) is rows row_index of expected with their ids and gather() gives expected on
    rank 0 (None elsewhere); else what failed, on every rank."""
    failure = None
    if not isinstance(part, graphrf.DistributedRows):
        failure = f"{what}: expected DistributedRows, got {type(part).__name__}"
    elif not np.array_equal(part.node_ids, g.node_ids[part.row_index]):
        failure = f"{what}: node_ids are not those of row_index"
    else:
        block = difference(part.rows, expected[part.row_index])
        failure = None if block is None else f"{what}: this rank's rows differ from the one-process rows: {block}"
    blocks = COMM.gather(None if failure else part.row_index, root=0)
    whole = part.gather() if isinstance(part, graphrf.DistributedRows) else None
    if COMM.Get_rank() == 0 and failure is None:
        if not np.array_equal(np.concatenate(blocks), np.arange(g.num_nodes)):
            failure = f"{what}: the blocks do not cover the rows 0 .. N-1 once, in order"
        else:
            whole_difference = difference(whole, expected)
            failure = None if whole_difference is None else f"{what}: gather() differs from np 1: {whole_difference}"
    elif COMM.Get_rank() != 0 and whole is not None:
        failure = f"{what}: gather() returned a result on a rank other than the root"
    return agreed(failure)


@pytest.mark.parametrize("sharing", [SHARING[0], SHARING[3]])
def test_walks_by_length_features_and_gather_equal_one_process(sharing):
    g = graph()
    options = dict(walkers=8, p_halt=0.2, seed=3, ensembles=2)
    expected = graphrf.walk(g, **options)
    part = graphrf.walk(g, comm=COMM, **options, **sharing)
    failure = agreed(None if part.max_length == expected.max_length else
                     f"max_length {part.max_length} != {expected.max_length}")
    assert failure is None, failure
    for ensemble in (0, 1):
        expected_terms, terms = expected.by_length(ensemble), part.by_length(ensemble)
        for t, (m_t, expected_m_t) in enumerate(zip(terms, expected_terms)):
            failure = rows_failure(m_t, expected_m_t, g, f"ensemble {ensemble} M_{t}")
            assert failure is None, failure
        f = [1.0, 0.5, -0.25, 0.125]
        failure = rows_failure(part.features(f, ensemble), expected.features(f, ensemble), g, f"ensemble {ensemble} Phi")
        assert failure is None, failure
    whole = part.gather()
    failure = None
    if COMM.Get_rank() == 0:
        for ensemble in (0, 1):
            for name, actual, wanted in zip("indptr indices length data".split(), whole.length_resolved(ensemble),
                                            expected.length_resolved(ensemble)):
                if array_difference(actual, wanted) is not None:
                    failure = f"gather(): ensemble {ensemble} {name} differs from np 1"
    elif whole is not None:
        failure = "Walks.gather() returned walks on a rank other than the root"
    failure = agreed(failure)
    assert failure is None, failure


def test_distributed_walks_are_refused_by_masked_attention():
    torch = pytest.importorskip("graphrf.torch", reason="PyTorch (Debian: python3-torch) is not installed")
    walks = graphrf.walk(graph(), walkers=2, comm=COMM)
    with pytest.raises(ValueError, match="gather"):
        torch.MaskedLinearAttention(walks, [1.0, 0.5])


@pytest.mark.parametrize("sharing", [SHARING[0], SHARING[2]])
@pytest.mark.parametrize("directed", [False, True])
def test_pagerank_equals_one_process(directed, sharing):
    if directed:  # arcs as given, a self-loop kept, node 7 without out-arcs
        g = graphrf.Graph.from_edges([0, 1, 2, 2, 3, 4, 4, 5, 6, 1], [1, 2, 0, 3, 4, 4, 1, 6, 2, 7],
                                     weights=[1.0, 2.0, 0.5, 1.5, 1.0, 3.0, 1.0, 2.0, 1.0, 0.25], directed=True,
                                     keep_self_loops=True)
    else:
        g = graph()
    options = dict(walkers=16, p_halt=0.2, seed=4, reference=True)
    estimate, exact = graphrf.pagerank(g, **options)
    part_estimate, part_exact = graphrf.pagerank(g, comm=COMM, **options, **sharing)
    for what, part, expected in (("estimate", part_estimate, estimate), ("exact", part_exact, exact)):
        failure = rows_failure(part, expected, g, what)
        assert failure is None, failure


def test_wavelet_equals_one_process():
    g = graph()
    expected = graphrf.wavelet(g, 5, beta=2.0, seed=7)
    failure = rows_failure(graphrf.wavelet(g, 5, beta=2.0, seed=7, comm=COMM), expected, g, "embedding")
    assert failure is None, failure


def test_gp_equals_one_process():
    g = graphrf.Graph.load("grid:6x7")
    options = dict(synthetic=0.6, synthetic_theta=(1, 2, 0.1), walkers=8, p_halt=0.2, seed=5, iterations=5, samples=4)
    expected = graphrf.gp(g, **options)
    result = graphrf.gp(g, comm=COMM, **options)
    for name in ("mean", "variance", "y", "split", "samples"):
        failure = rows_failure(result[name], expected[name], g, name)
        assert failure is None, failure
    scalars = ("sigma_f", "beta", "sigma_n", "y_mean", "y_scale", "n_test", "rmse", "nlpd", "coverage")
    failure = next((name for name in scalars if not np.array_equal(result[name], expected[name])), None)
    failure = agreed(None if failure is None and np.array_equal(result["f"], expected["f"]) else
                     f"gp: {failure or 'f'} differs from np 1")
    assert failure is None, failure


def test_gp_files_need_canonical_ids(tmp_path):
    edges = tmp_path / "edges.txt"
    edges.write_text("1 3\n3 5\n5 1\n")  # node ids 1, 3, 5
    observations = tmp_path / "obs.csv"
    observations.write_text("1,0.5\n3,1.5\n")
    with pytest.raises(ValueError, match="node ids are 0 .. N-1"):
        graphrf.gp(graphrf.Graph.load(str(edges)), observations, comm=COMM)


def test_a_missing_file_is_an_os_error_on_every_rank(tmp_path):
    missing = str(tmp_path / "missing.csv")
    with pytest.raises(OSError, match="cannot open"):
        graphrf.gp(graphrf.Graph.load("grid:4x4"), missing, comm=COMM)
