"""graphrf in Python: graphs and graph random features (GRFs) in memory, over the graphrf library.

    import graphrf
    g = graphrf.Graph.from_edge_index(edge_index)            # or Graph.from_edges(src, dst), Graph.load(path)
    K = graphrf.grf(g, kernel="diffusion", beta=1.0)         # scipy CSR, rows and columns in canonical node order
    walks = graphrf.walk(g, walkers=16, p_halt=0.1)          # M_0 .. M_T: walks.by_length(), walks.features(f)

Every call runs in this process (one MPI rank; MPI is initialised on import unless mpi4py did it), or, given
comm=MPI.COMM_WORLD (mpi4py), over the ranks of a communicator: each rank gets its rows (DistributedRows) and
gather() the whole result, equal to one process's. With comm, host_size=K and replicate_graph=True are the
command line's --host-size and --replicate-graph (how ranks share the graph; results do not depend on them).
Results are the numbers `graphrf grf` writes with the same options (/grf, /grf_by_length). Bad input raises
ValueError, a file that cannot be opened or read OSError, each with the command line's one-line message; the
library's warnings are GraphrfWarning. GRF-masked linear attention with a learnable f is
graphrf.torch.MaskedLinearAttention (needs PyTorch).
"""
import numpy as np
import scipy.sparse

from . import _graphrf

__all__ = ["DistributedRows", "Graph", "GraphrfWarning", "Walks", "gp", "grf", "pagerank", "walk", "wavelet"]

# The library's warnings (a UserWarning; what `graphrf` prints as "graphrf: warning: ..."). Filter them with the
# warnings module, e.g. warnings.simplefilter("error", graphrf.GraphrfWarning).
GraphrfWarning = _graphrf.GraphrfWarning

# Defaults of the Python calls (the CLI's --p-halt default is 0.5: pass p_halt to compare with it).
_P_HALT = 0.1
_MAX_LENGTH = 32


def _integer_array(values, name):
    """A 1-D int64 numpy array from numpy or torch integer arrays (or sequences)."""
    if hasattr(values, "detach"):  # torch.Tensor, without importing torch
        values = values.detach().cpu().numpy()
    a = np.asarray(values)
    if a.size and not np.issubdtype(a.dtype, np.integer):
        raise ValueError(f"edges: {name} must hold integer node ids (got dtype {a.dtype})")
    return np.ascontiguousarray(a, dtype=np.int64).reshape(-1) if a.ndim <= 1 else a


def _csr(n, indptr, indices, data):
    return scipy.sparse.csr_matrix((data, indices, indptr), shape=(n, n))


class Graph:
    """An undirected weighted graph, cleaned as the loader cleans files (symmetrised, repeated edges merged by
    `duplicates`, self-loops dropped unless kept), nodes in canonical order (ascending id)."""

    def __init__(self, handle):
        self._handle = handle

    @classmethod
    def from_edges(cls, src, dst, num_nodes=None, weights=None, duplicates="max", keep_self_loops=False, directed=False):
        """Edges src[k] - dst[k] (numpy or torch integer arrays) between nodes 0 .. num_nodes - 1 (default: the
        largest id + 1); weights: one finite value > 0 per edge (default 1). directed: arcs src -> dst kept as
        given (for pagerank) instead of symmetrised."""
        src = _integer_array(src, "src")
        dst = _integer_array(dst, "dst")
        if weights is not None:
            if hasattr(weights, "detach"):
                weights = weights.detach().cpu().numpy()
            weights = np.ascontiguousarray(weights, dtype=np.float64)
        n = -1 if num_nodes is None else int(num_nodes)
        if n < -1 or (num_nodes is not None and n < 0):
            raise ValueError(f"edges: num_nodes must be >= 0 (got {num_nodes})")
        return cls(_graphrf.graph_from_edges(src, dst, n, weights, duplicates, bool(keep_self_loops), bool(directed)))

    @classmethod
    def from_edge_index(cls, edge_index, num_nodes=None, weights=None, **options):
        """A PyG-style 2 x E edge_index (numpy or torch); both directions of an edge may be listed."""
        if hasattr(edge_index, "detach"):
            edge_index = edge_index.detach().cpu().numpy()
        edge_index = np.asarray(edge_index)
        if edge_index.ndim != 2 or edge_index.shape[0] != 2:
            raise ValueError(f"edge_index must be 2 x E (got shape {edge_index.shape})")
        return cls.from_edges(edge_index[0], edge_index[1], num_nodes, weights, **options)

    @classmethod
    def load(cls, path, format="auto", duplicates="max", keep_self_loops=False, weight_column=0, ids="auto",
             partition="block", directed=False, memory_limit=None):
        """A graph file or generator (grid:RxC, random:N:MEAN_DEGREE[:SEED]) with the options of --graph
        (--format, --duplicates, --keep-self-loops, --weight-column, --ids, --partition, --directed,
        --memory-limit)."""
        return cls(_graphrf.load_graph(str(path), format, duplicates, bool(keep_self_loops), int(weight_column), ids,
                                       partition, bool(directed), memory_limit))

    @property
    def num_nodes(self):
        return self._handle.num_nodes

    @property
    def num_edges(self):
        """Undirected edges (kept self-loops included); arcs when directed."""
        return self._handle.num_edges

    @property
    def directed(self):
        return self._handle.directed

    @property
    def node_ids(self):
        """The id of each node in canonical order (string ids: 0 .. N-1 in byte order of the names)."""
        return self._handle.node_ids()

    def adjacency(self, weights="normalized"):
        """scipy CSR N x N as `graphrf info --out` writes /graph: D^-1/2 A D^-1/2 (normalized) or A (raw)."""
        indptr, indices, data = self._handle.adjacency(weights)
        return _csr(self.num_nodes, indptr, indices, data)

    def __repr__(self):
        return f"graphrf.Graph({self.num_nodes} nodes, {self.num_edges} edges, from {self._handle.source})"


def _walk_options(walkers, p_halt, max_length, fixed_length, seed, coupling, sigma, step, weights, scale):
    return {
        "walkers": int(walkers), "p_halt": float(_P_HALT if p_halt is None else p_halt),
        "max_length": int(_MAX_LENGTH if max_length is None else max_length),
        "p_halt_default": p_halt is None, "max_length_default": max_length is None,
        "fixed_length": None if fixed_length is None else int(fixed_length), "seed": int(seed),
        "coupling": coupling, "sigma": sigma, "step": step, "weights": weights, "scale": float(scale),
    }


def _kernel_options(kernel, beta, power, shift, alpha, f):
    return {"kernel": kernel, "beta": float(beta), "power": float(power), "shift": float(shift),
            "alpha": None if alpha is None else [float(a) for a in alpha],
            "f": None if f is None else [float(x) for x in f]}


class DistributedRows:
    """One rank's rows of a per-node result computed over an mpi4py communicator: `rows` (one row per entry of
    `row_index`: a scipy CSR with N columns in canonical order, or a numpy array), `row_index` (their canonical
    indices, a contiguous block) and `node_ids` (their node ids). gather(root=0): the whole result on root (None on
    the other ranks), equal to the result of the same call on one process."""

    def __init__(self, comm, rows, row_index, node_ids):
        self.comm, self.rows, self.row_index, self.node_ids = comm, rows, row_index, node_ids

    def gather(self, root=0):
        blocks = self.comm.gather(self.rows, root=root)
        if self.comm.Get_rank() != root:
            return None
        return scipy.sparse.vstack(blocks, format="csr") if scipy.sparse.issparse(self.rows) else np.concatenate(blocks)


def _comm_address(comm):
    """The address of comm's MPI handle (mpi4py's MPI._addressof), for the C++ module."""
    from mpi4py import MPI
    if not isinstance(comm, MPI.Comm) or comm == MPI.COMM_NULL:
        raise ValueError(f"comm: expected an mpi4py communicator such as MPI.COMM_WORLD (got {comm!r})")
    return MPI._addressof(comm)


def _over(graph, comm, host_size=None, replicate_graph=False):
    """graph distributed over comm's ranks: every rank holds the whole graph and passes its block of rows of A (node
    ids become the canonical indices 0 .. N-1; directed graphs stay directed). host_size and replicate_graph are
    the command line's --host-size and --replicate-graph."""
    if comm is None:
        if host_size is not None or replicate_graph:
            raise ValueError("host_size and replicate_graph apply to calls over a communicator (comm=...)")
        return graph
    if host_size is not None and (isinstance(host_size, bool) or not isinstance(host_size, (int, np.integer))
                                  or host_size < 1):
        raise ValueError(f"host_size: must be a whole number of ranks >= 1, or None for each machine as MPI reports "
                         f"it (got {host_size!r})")
    address = _comm_address(comm)
    n, rank, size = graph.num_nodes, comm.Get_rank(), comm.Get_size()
    first, last = n * rank // size, n * (rank + 1) // size
    block = graph.adjacency("raw")[first:last].tocoo()
    return Graph(_graphrf.graph_from_edges(block.row.astype(np.int64) + first, block.col.astype(np.int64), n,
                                           np.ascontiguousarray(block.data), "max", True, graph.directed, address,
                                           0 if host_size is None else int(host_size), bool(replicate_graph)))


def _rows(graph, comm, first_row, rows):
    """This rank's block of a per-node result (rows: a numpy array, or a CSR triple (indptr, indices, data))."""
    if isinstance(rows, tuple):
        indptr, indices, data = rows
        rows = scipy.sparse.csr_matrix((data, indices, indptr), shape=(len(indptr) - 1, graph.num_nodes))
    count = rows.shape[0]
    row_index = np.arange(first_row, first_row + count, dtype=np.int64)
    return DistributedRows(comm, rows, row_index, graph.node_ids[first_row:first_row + count])


def grf(graph, kernel="diffusion", beta=1.0, walkers=16, p_halt=None, seed=1, *, power=1.0, shift=2.0, alpha=None,
        f=None, estimator="symmetric", max_length=None, fixed_length=None, coupling="iid", sigma=None, step="uniform",
        weights="normalized", scale=1.0, memory_limit=None, comm=None, host_size=None, replicate_graph=False):
    """Graph random features Phi (scipy CSR N x N, canonical order), bitwise /grf of `graphrf grf` with the same
    options. p_halt defaults to 0.1 and max_length to 32; fixed_length=T replaces both. alpha or f: the series
    itself instead of a named kernel. estimator two-ensembles gives (Phi1, Phi2). comm (mpi4py, e.g.
    MPI.COMM_WORLD; every rank calls with the same graph and options): the walks run over its ranks and each rank
    gets a DistributedRows of its rows, whose gather() equals the one-process result."""
    kernel_options = _kernel_options(kernel, beta, power, shift, alpha, f)
    walk = _walk_options(walkers, p_halt, max_length, fixed_length, seed, coupling, sigma, step, weights, scale)
    on = _over(graph, comm, host_size, replicate_graph)
    result = _graphrf.grf(on._handle, kernel_options, walk, estimator, False, memory_limit)
    phi = [_csr(graph.num_nodes, *rows) if comm is None else _rows(graph, comm, result["first_row"], rows)
           for rows in result["phi"]]
    return phi[0] if len(phi) == 1 else tuple(phi)


class Walks:
    """Halting random walks from every node, kept by length: M_t[i, q] = (1/n) sum of the loads of the walks from i
    that are at q after t hops (rows and columns in canonical order). Phi = sum_t f_t M_t for any f without
    walking again. `ensembles` independent ensembles (two for asymmetric masks).

    Walks over an mpi4py communicator (walk(..., comm=...)) hold this rank's rows only (`row_index`, `node_ids`):
    by_length() and features() give DistributedRows, and gather() the whole Walks on the root."""

    def __init__(self, graph, resolved, comm=None, first_row=0, max_length=None):
        self.graph = graph
        self._resolved = resolved  # per ensemble: (indptr, indices, length, data), sorted by column, then length
        self.comm = comm
        count = len(resolved[0][0]) - 1
        self.row_index = np.arange(first_row, first_row + count, dtype=np.int64)
        self.node_ids = graph.node_ids[first_row:first_row + count]
        # Over a communicator, the longest walk of any rank (so that every rank's by_length() has T + 1 terms).
        self._max_length = max(int(r[2].max(initial=0)) for r in resolved) if max_length is None else max_length

    @property
    def num_nodes(self):
        return self.graph.num_nodes

    @property
    def ensembles(self):
        return len(self._resolved)

    @property
    def max_length(self):
        """The longest walk length that occurred (the last M_t of by_length())."""
        return self._max_length

    def length_resolved(self, ensemble=0):
        """(indptr, indices, length, data): the arrays of /grf_by_length (this rank's rows over a communicator)."""
        return self._resolved[ensemble]

    def _rows(self, matrix):
        return matrix if self.comm is None else DistributedRows(self.comm, matrix, self.row_index, self.node_ids)

    def by_length(self, ensemble=0):
        """[M_0, ..., M_T] as scipy CSR matrices (T the longest walk length)."""
        indptr, indices, length, data = self._resolved[ensemble]
        count = len(indptr) - 1
        rows = np.repeat(np.arange(count, dtype=np.int64), np.diff(indptr))
        out = []
        for t in range(self.max_length + 1):
            keep = length == t
            t_indptr = np.concatenate(([0], np.cumsum(np.bincount(rows[keep], minlength=count)))).astype(np.int64)
            matrix = scipy.sparse.csr_matrix((data[keep], indices[keep], t_indptr), shape=(count, self.num_nodes))
            out.append(self._rows(matrix))
        return out

    def features(self, f, ensemble=0):
        """Phi = sum_t f_t M_t (scipy CSR; terms beyond f count as 0): bitwise /grf of `graphrf grf --f ...`."""
        f = [float(x) for x in np.asarray(f, dtype=np.float64).reshape(-1)]
        indptr, indices, data = _graphrf.combine_lengths(*self._resolved[ensemble], f)
        return self._rows(scipy.sparse.csr_matrix((data, indices, indptr), shape=(len(indptr) - 1, self.num_nodes)))

    def gather(self, root=0):
        """Over a communicator: the Walks of every node on root (equal to walk() on one process), None elsewhere."""
        if self.comm is None:
            raise ValueError("Walks.gather: these walks were not run over a communicator (walk(..., comm=...))")
        parts = self.comm.gather(self._resolved, root=root)
        if self.comm.Get_rank() != root:
            return None
        resolved = []
        for ensemble in range(self.ensembles):
            blocks = [part[ensemble] for part in parts]
            offsets = np.cumsum([0] + [b[0][-1] for b in blocks[:-1]])
            indptr = np.concatenate([[0]] + [b[0][1:] + offset for b, offset in zip(blocks, offsets)]).astype(np.int64)
            resolved.append((indptr, *(np.concatenate([b[k] for b in blocks]) for k in (1, 2, 3))))
        return Walks(self.graph, resolved)


def walk(graph, walkers=16, p_halt=None, max_length=None, seed=1, coupling="iid", *, fixed_length=None, sigma=None,
         step="uniform", weights="normalized", scale=1.0, ensembles=1, memory_limit=None, comm=None, host_size=None,
         replicate_graph=False):
    """Walks from every node (Walks): the walks of `graphrf grf` with the same options (/grf_by_length; ensembles=2:
    also /grf2_by_length of --estimator two-ensembles). p_halt defaults to 0.1, max_length to 32. comm (mpi4py;
    every rank calls with the same graph and options): the walks run over its ranks and each rank keeps its rows."""
    if ensembles not in (1, 2):
        raise ValueError(f"walk: ensembles must be 1 or 2 (got {ensembles})")
    walk_options = _walk_options(walkers, p_halt, max_length, fixed_length, seed, coupling, sigma, step, weights, scale)
    kernel = {"kernel": "diffusion", "beta": 1.0, "power": 1.0, "shift": 2.0, "alpha": None, "f": [1.0]}
    estimator = "symmetric" if ensembles == 1 else "two-ensembles"
    on = _over(graph, comm, host_size, replicate_graph)
    result = _graphrf.grf(on._handle, kernel, walk_options, estimator, True, memory_limit)
    resolved = [tuple(r) for r in result["by_length"]]
    if comm is None:
        return Walks(graph, resolved)
    longest = comm.allreduce(max(int(r[2].max(initial=0)) for r in resolved), op=_mpi_max())
    return Walks(graph, resolved, comm, result["first_row"], longest)


def _mpi_max():
    from mpi4py import MPI
    return MPI.MAX


def pagerank(graph, walkers=16, p_halt=0.15, max_length=None, seed=1, coupling="iid", *, sigma=None, step="weighted",
             reference=False, comm=None, host_size=None, replicate_graph=False):
    """PageRank with teleport probability p_halt (damping 1 - p_halt) from the end points of halting walks, per
    node in canonical order (numpy): /pagerank/estimate of `graphrf pagerank` with the same options. As there,
    P = D_out^-1 A with self-loops as out-arcs (load the graph with keep_self_loops=True to keep them, and with
    directed=True to keep arcs as given); max_length defaults to the L with (1 - p)^L < 1e-12. reference=True:
    (estimate, exact) with the exact PageRank by power iteration (/pagerank/exact). comm (mpi4py): the walks run
    over its ranks and each rank gets DistributedRows of its nodes' values."""
    on = _over(graph, comm, host_size, replicate_graph)
    result = _graphrf.pagerank(on._handle, int(walkers), float(p_halt), None if max_length is None else int(max_length),
                               int(seed), coupling, sigma, step, bool(reference))
    values = [result["estimate"], result["exact"]] if reference else [result["estimate"]]
    if comm is not None:
        values = [_rows(graph, comm, result["first_row"], v) for v in values]
    return tuple(values) if reference else values[0]


def wavelet(graph, embedding_dim, kernel="diffusion", beta=1.0, seed=1, *, power=1.0, shift=2.0, alpha=None, f=None,
            laplacian="normalized", oversample=-1, degree_chi=60, subspace_iterations=-1, degree_h=30,
            eigencount_order=50, dichotomy_eps=0.01, count_tolerance=2.0, probes=-1, comm=None, host_size=None,
            replicate_graph=False):
    """Random wavelet features (de Bassompierre, Delvenne, Jacques, "Random wavelet features for graph kernel
    machines", Alg. 1): a numpy N x (K + r) embedding Phi with Phi Phi^T ~ h(L), rows in canonical order, the
    numbers /embedding of `graphrf wavelet --embedding-dim K` with the same options. comm (mpi4py): computed over
    its ranks, each rank gets DistributedRows of its rows."""
    features = {"embedding_dim": int(embedding_dim), "oversample": int(oversample), "degree_chi": int(degree_chi),
                "subspace_iterations": int(subspace_iterations), "degree_h": int(degree_h),
                "eigencount_order": int(eigencount_order), "dichotomy_eps": float(dichotomy_eps),
                "count_tolerance": float(count_tolerance), "probes": int(probes), "seed": int(seed)}
    on = _over(graph, comm, host_size, replicate_graph)
    result = _graphrf.wavelet(on._handle, _kernel_options(kernel, beta, power, shift, alpha, f), laplacian, features)
    return result["embedding"] if comm is None else _rows(graph, comm, result["first_row"], result["embedding"])


def gp(graph, observations=None, kernel="diffusion", beta=1.0, walkers=16, p_halt=None, seed=1, *, synthetic=None,
       synthetic_theta=None, test=None, test_fraction=0.2, split_seed=1, sigma_f=1.0, sigma_n=0.1, normalize_y=True,
       learn="hyper", iterations=50, learning_rate=0.05, probes=16, cg_tolerance=1e-6, cg_max_iterations=1000,
       samples=64, exact_variance=False, power=1.0, shift=2.0, alpha=None, f=None, max_length=None,
       fixed_length=None, coupling="iid", sigma=None, step="uniform", weights="normalized", scale=1.0, comm=None,
       host_size=None, replicate_graph=False):
    """GP regression on the nodes with the GRF kernel K = sigma_f^2 M(beta), as `graphrf gp` with the same options:
    observations a CSV `node,y` (or HDF5 /obs/id, /obs/y) file, or synthetic=q with synthetic_theta=(sigma_f, beta,
    sigma_n); test a file of test ids, else a test_fraction share. Returns a dict: per node in canonical order
    "mean", "variance", "y" (NaN where unobserved), "split" (0 train, 1 test, 2 unobserved), "samples" (N x
    samples); the learned "f", "sigma_f", "beta", "sigma_n" (of the standardised targets with normalize_y,
    "y_mean", "y_scale"); and the test figures "n_test", "rmse", "nlpd", "coverage". p_halt defaults to 0.1.
    comm (mpi4py): computed over its ranks; the per-node entries are DistributedRows of each rank's nodes, the
    others the same on every rank. Files name nodes by id: with comm they need a graph whose ids are 0 .. N-1."""
    options = {"observations": None if observations is None else str(observations),
               "synthetic": None if synthetic is None else float(synthetic),
               "synthetic_theta": None if synthetic_theta is None else [float(x) for x in synthetic_theta],
               "test": None if test is None else str(test), "test_fraction": float(test_fraction),
               "split_seed": int(split_seed), "sigma_f": float(sigma_f), "sigma_n": float(sigma_n),
               "normalize_y": bool(normalize_y), "learn": learn, "iterations": int(iterations),
               "learning_rate": float(learning_rate), "probes": int(probes), "cg_tolerance": float(cg_tolerance),
               "cg_max_iterations": int(cg_max_iterations), "samples": int(samples),
               "exact_variance": bool(exact_variance)}
    walk = _walk_options(walkers, p_halt, max_length, fixed_length, seed, coupling, sigma, step, weights, scale)
    if comm is not None and (observations is not None or test is not None) and \
            not np.array_equal(graph.node_ids, np.arange(graph.num_nodes)):
        raise ValueError("gp: with comm, observation and test files need a graph whose node ids are 0 .. N-1 (the "
                         "ranks hold the graph by canonical index)")
    on = _over(graph, comm, host_size, replicate_graph)
    result = _graphrf.gp(on._handle, _kernel_options(kernel, beta, power, shift, alpha, f), walk, options)
    first_row = result.pop("first_row")
    if comm is not None:
        for name in ("mean", "variance", "y", "split", "samples"):
            result[name] = _rows(graph, comm, first_row, result[name])
    return result
