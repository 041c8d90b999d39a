"""`graphrf attention --frames`: stacks of point clouds, each frame's kNN graph built on the fly.

Checks: the output of a ragged stack is the same file content at 1, 2 and 3 ranks and for any batch size;
float32 output is the float64 output rounded;
every frame's rows equal what the single-graph path (`attention --points FRAME --qkv FRAME_QKV --estimator
asymmetric`) gives for that frame alone; a uniform F x N x d stack gives F x N x d_v rows; malformed stacks get
one clear error line and no output."""
import os
import tempfile

import h5py
import numpy as np

from graphrf_e2e import expect_error, main, run, write_qkv

WALKS = ["--knn", "3", "--walkers", "6", "--fixed-length", "3", "--coupling", "repelling", "--seed", "5", "--quiet"]


def ragged_stack(path, sizes, d=4, dv=3, seed=0, qkv=True):
    rng = np.random.default_rng(seed)
    points = rng.random((sum(sizes), 3))
    with h5py.File(path, "w") as f:
        f["frames/points"] = points
        f["frames/offsets"] = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        if qkv:
            f["frames/q"] = rng.standard_normal((sum(sizes), d))
            f["frames/k"] = rng.standard_normal((sum(sizes), d))
            f["frames/v"] = rng.standard_normal((sum(sizes), dv))
    return path


def read_rows(path):
    with h5py.File(path, "r") as f:
        return f["frames/attention"][...]


def test_same_rows_at_any_rank_count_and_batch():
    with tempfile.TemporaryDirectory() as d:
        stack = ragged_stack(os.path.join(d, "stack.h5"), [40, 25, 60, 33, 47])
        reference = None
        for np_, batch in [(1, 16), (2, 1), (3, 2)]:
            out = os.path.join(d, "out%d_%d.h5" % (np_, batch))
            run(np_, ["attention", "--frames", stack, "--frames-batch", batch, "--out", out] + WALKS)
            rows = read_rows(out)
            assert rows.shape == (205, 3), rows.shape
            if reference is None:
                reference = rows
            else:
                assert np.array_equal(rows, reference), "np=%d batch=%d differs" % (np_, batch)
            with h5py.File(out, "r") as f:
                assert list(f["frames/offsets"][...]) == [0, 40, 65, 125, 158, 205]
        # float32 output: the float64 rows rounded to nearest, element for element (numpy's cast rounds to nearest).
        single = os.path.join(d, "out_float32.h5")
        run(2, ["attention", "--frames", stack, "--frames-dtype", "float32", "--out", single] + WALKS)
        with h5py.File(single, "r") as f:
            assert f["frames/attention"].dtype == np.float32, f["frames/attention"].dtype
            assert np.array_equal(f["frames/attention"][...], reference.astype(np.float32))


def test_each_frame_matches_the_single_graph_path():
    with tempfile.TemporaryDirectory() as d:
        stack = ragged_stack(os.path.join(d, "stack.h5"), [40, 25, 60], seed=3)
        out = os.path.join(d, "frames.h5")
        run(2, ["attention", "--frames", stack, "--out", out] + WALKS)
        rows = read_rows(out)
        with h5py.File(stack, "r") as f:
            offsets = f["frames/offsets"][...]
            points, q, k, v = (f["frames/" + name][...] for name in ("points", "q", "k", "v"))
        for frame in range(3):
            a, b = offsets[frame], offsets[frame + 1]
            frame_points = os.path.join(d, "frame%d.h5" % frame)
            with h5py.File(frame_points, "w") as f:
                f["points"] = points[a:b]
            frame_qkv = write_qkv(os.path.join(d, "qkv%d.h5" % frame), q[a:b], k[a:b], v[a:b])
            single = os.path.join(d, "single%d.h5" % frame)
            run(3, ["attention", "--points", frame_points, "--qkv", frame_qkv, "--estimator", "asymmetric",
                    "--partition", "metis", "--out", single] + WALKS)
            with h5py.File(single, "r") as f:
                assert list(f["nodes/id"][...]) == list(range(b - a))
                expected = f["attention/output"][...]
            assert np.allclose(rows[a:b], expected, rtol=1e-12, atol=1e-13), \
                "frame %d: max difference %g" % (frame, np.abs(rows[a:b] - expected).max())


def test_uniform_stack_with_synthetic_qkv():
    with tempfile.TemporaryDirectory() as d:
        stack = os.path.join(d, "uniform.h5")
        with h5py.File(stack, "w") as f:
            f["frames/points"] = np.random.default_rng(1).random((4, 30, 2))
        out = os.path.join(d, "out.h5")
        r = run(2, ["attention", "--frames", stack, "--synthetic", "6,5", "--out", out] + WALKS[:-1])
        assert "frames      4 / 4 done" in r.stdout, r.stdout
        with h5py.File(out, "r") as f:
            rows = f["frames/attention"][...]
            assert f["frames/attention"].attrs["axes"] == "frame, point, value"
        assert rows.shape == (4, 30, 5) and np.all(np.isfinite(rows))
        # Each row is a convex combination of values (ReLU features, alpha >= 0): never all zero.
        assert np.all(np.abs(rows).sum(axis=2) > 0)


def test_malformed_stacks():
    with tempfile.TemporaryDirectory() as d:
        cases = []
        nan = os.path.join(d, "nan.h5")
        with h5py.File(nan, "w") as f:
            p = np.random.default_rng(0).random((3, 20, 3))
            p[2, 7, 1] = np.nan
            f["frames/points"] = p
        cases.append((nan, ["frame 2", "point 7", "NaN"]))
        flat = os.path.join(d, "flat.h5")
        with h5py.File(flat, "w") as f:
            f["frames/points"] = np.zeros((20, 3))
        cases.append((flat, ["/frames/points is 20 x 3", "/frames/offsets"]))
        small = ragged_stack(os.path.join(d, "small.h5"), [20, 3, 20], qkv=False)
        cases.append((small, ["frame 1", "at least k + 1 = 4 points"]))
        short = os.path.join(d, "short.h5")
        with h5py.File(short, "w") as f:
            f["frames/points"] = np.zeros((20, 3))
            f["frames/offsets"] = np.array([0, 10, 19], dtype=np.int64)
        cases.append((short, ["/frames/offsets ends at 19", "20 rows"]))
        partial = os.path.join(d, "partial.h5")
        with h5py.File(partial, "w") as f:
            f["frames/points"] = np.zeros((2, 10, 3))
            f["frames/q"] = np.zeros((2, 10, 4))
        cases.append((partial, ["all of /frames/q, /frames/k and /frames/v, or none"]))
        for path, needles in cases:
            os.makedirs(os.path.join(d, "out"), exist_ok=True)
            for np_ in (1, 3):
                expect_error(np_, ["attention", "--frames", path, "--out", "{out}"] + WALKS, path, *needles,
                             directory=os.path.join(d, "out"))
        expect_error(2, ["attention", "--frames", small, "--graph", "grid:4x4", "--out", "{out}"] + WALKS,
                     "--frames and --graph", directory=os.path.join(d, "out"))
        expect_error(2, ["attention", "--frames", small, "--estimator", "symmetric", "--out", "{out}"] + WALKS,
                     "--estimator symmetric", directory=os.path.join(d, "out"))
        expect_error(2, ["attention", "--frames", small, "--frames-dtype", "float16", "--out", "{out}"] + WALKS,
                     "--frames-dtype", "float16", directory=os.path.join(d, "out"))


if __name__ == "__main__":
    main(globals())
