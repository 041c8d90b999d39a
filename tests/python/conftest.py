"""Shared by the pytest files of the Python package (tests/python/test_*.py, ctest python_NAME): the built
command line (GRAPHRF_BIN, default <build>/graphrf) run on inputs each test writes to its own temp dir, and
its HDF5 output read back with h5py. PYTHONPATH holds <build>/python, so `import graphrf` is the built package."""
import os
import subprocess

import h5py
import numpy as np
import pytest
import scipy.sparse

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GRAPHRF = os.environ.get("GRAPHRF_BIN") or os.path.join(SOURCE_DIR, "build", "graphrf")
MPIEXEC = os.environ.get("MPIEXEC", "mpirun")
MPIEXEC_FLAGS = [f for f in os.environ.get("MPIEXEC_FLAGS", "--allow-run-as-root;--oversubscribe").split(";") if f]
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_rmaps_base_oversubscribe": "1", "OMPI_MCA_mpi_yield_when_idle": "1"}


def run_cli(args, ranks=None, check=True):
    """`graphrf ARGS` (directly, or under mpirun with `ranks` ranks); returns the CompletedProcess."""
    command = [GRAPHRF, *args, "--quiet"]
    if ranks is not None:
        command = [MPIEXEC, "-n", str(ranks), *MPIEXEC_FLAGS, *command]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, env={**os.environ, **MPI_ENV})
    if check and done.returncode != 0:
        raise AssertionError(f"$ {' '.join(command)}\nexit {done.returncode}\n{done.stdout}\n{done.stderr}")
    return done


def cli_error(args):
    """The one error line `graphrf ARGS` prints (without its 'graphrf: error: ' prefix)."""
    done = run_cli(args, check=False)
    assert done.returncode != 0, f"graphrf {' '.join(args)} succeeded"
    lines = [line for line in done.stderr.splitlines() if line.startswith("graphrf")]
    assert len(lines) == 1, done.stderr
    return lines[0].split(": error: ", 1)[1]


def read_csr(path, group):
    """An anndata CSR group (/grf, /graph) as scipy CSR, arrays exactly as stored."""
    with h5py.File(path, "r") as f:
        g = f[group]
        n = int(g.attrs["shape"][0])
        return scipy.sparse.csr_matrix((g["data"][:], g["indices"][:], g["indptr"][:]), shape=(n, int(g.attrs["shape"][1])))


def read_arrays(path, group, names):
    with h5py.File(path, "r") as f:
        return [f[group][name][:] for name in names]


def assert_csr_identical(actual, expected):
    """Same shape, structure and bits (indices compared as integers whatever their width)."""
    assert actual.shape == expected.shape
    assert np.array_equal(actual.indptr, expected.indptr)
    assert np.array_equal(actual.indices, expected.indices)
    assert actual.data.dtype == np.float64 and expected.data.dtype == np.float64
    assert np.array_equal(actual.data.view(np.uint64), expected.data.view(np.uint64))


def write_edge_list(path, src, dst, weights=None):
    with open(path, "w") as out:
        for k in range(len(src)):
            out.write(f"{src[k]} {dst[k]}" + ("" if weights is None else f" {weights[k]!r}") + "\n")
    return str(path)


@pytest.fixture
def random_edges():
    """A small connected weighted graph with repeated, reversed and self-loop edges: (src, dst, weights, n)."""
    rng = np.random.default_rng(7)
    n = 30
    src = list(range(n - 1)) + list(rng.integers(0, n, 40))
    dst = list(range(1, n)) + list(rng.integers(0, n, 40))
    src += [3, 4, 5]  # a repeated edge, its reverse, and a self-loop
    dst += [4, 3, 5]
    weights = [float(w) for w in np.round(rng.uniform(0.5, 2.0, len(src)), 3)]
    return np.array(src), np.array(dst), np.array(weights), n
