"""The training example src/python/examples/mesh_normals.py (vertex normals from noisy positions with GRF-masked
attention), on an icosphere it writes itself: the OBJ reader and normals are right (a sphere's normals are its
radial directions), every variant trains (finite losses that fall), the learned f moves while the fixed f does
not, DARK's M moves off FAVOR+'s identity, and the command prints the markdown table with one row per variant."""
import importlib.util
import math
import os
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch (Debian: python3-torch) is not installed: "
                                            "the training example is not tested")

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(SOURCE_DIR, "src", "python", "examples", "mesh_normals.py")


def load_example():
    spec = importlib.util.spec_from_file_location("mesh_normals", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def icosphere(subdivisions):
    """Unit icosphere: vertices on the sphere, triangles oriented outwards."""
    t = (1 + math.sqrt(5)) / 2
    vertices = [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t), (0, -1, -t), (0, 1, -t),
                (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]
    vertices = [np.array(v) / np.linalg.norm(v) for v in vertices]
    faces = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4), (11, 10, 2), (10, 7, 6),
             (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8), (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10),
             (8, 6, 7), (9, 8, 1)]
    for _ in range(subdivisions):
        middle, refined = {}, []

        def midpoint(a, b):
            key = (min(a, b), max(a, b))
            if key not in middle:
                m = vertices[a] + vertices[b]
                vertices.append(m / np.linalg.norm(m))
                middle[key] = len(vertices) - 1
            return middle[key]
        for a, b, c in faces:
            ab, bc, ca = midpoint(a, b), midpoint(b, c), midpoint(c, a)
            refined += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        faces = refined
    return np.array(vertices), np.array(faces)


@pytest.fixture(scope="module")
def mesh(tmp_path_factory):
    """An icosphere OBJ with 162 vertices; the first face is written as a quad (two triangles) with "v/vt/vn"."""
    vertices, faces = icosphere(2)
    path = tmp_path_factory.mktemp("mesh") / "sphere.obj"
    with open(path, "w") as out:
        out.write("# icosphere\no sphere\n")
        out.writelines(f"v {x:.9f} {y:.9f} {z:.9f}\n" for x, y, z in vertices)
        out.write("vt 0 0\nvn 0 0 1\n")
        out.writelines(f"f {a + 1} {b + 1} {c + 1}\n" for a, b, c in faces)
    return path, vertices


@pytest.fixture(scope="module")
def example():
    return load_example()


def test_normals_of_a_sphere_are_radial(example, mesh):
    path, vertices = mesh
    read_vertices, faces = example.read_obj(path)
    np.testing.assert_allclose(read_vertices, vertices, atol=1e-8)
    normals = example.vertex_normals(read_vertices, faces)
    np.testing.assert_allclose(np.linalg.norm(normals, axis=1), 1.0, atol=1e-12)
    assert (normals * vertices).sum(axis=1).min() > 0.999  # radial, and outwards


def test_obj_polygons_are_fans(example, tmp_path):
    path = tmp_path / "quad.obj"
    path.write_text("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1/1/1 2/2/1 3/3/1 -1//1\n")
    vertices, faces = example.read_obj(path)
    assert faces.tolist() == [[0, 1, 2], [0, 2, 3]]
    np.testing.assert_allclose(example.vertex_normals(vertices, faces), [[0, 0, 1]] * 4)


def test_every_variant_trains(example, mesh):
    args = example.parse_args([str(mesh[0]), "--steps", "25", "--seeds", "1", "--walkers", "4", "--max-length", "4",
                               "--width", "8", "--heads", "2", "--features", "4", "--lr", "0.02"])
    data, f, results = example.run(args, log=lambda line: None)
    assert data.graph.num_nodes == 162 and len(data.test) == round(0.2 * 162)
    assert set(data.train.tolist()).isdisjoint(data.test.tolist())
    assert list(results) == [name for name, *_ in example.VARIANTS]
    for name, (result,) in results.items():
        losses = np.array(result["train"] + [result["held_out"]])
        assert np.isfinite(losses).all(), name
        assert result["train"][-1] < 0.8 * result["train"][0], (name, result["train"])
    fixed = results["masked, fixed f"][0]["model"].attention.f
    learned = results["masked, learned f"][0]["model"].attention.f
    assert not fixed.requires_grad and fixed.tolist() == pytest.approx(f, abs=0, rel=1e-6)
    assert learned.requires_grad and np.abs(learned.detach().numpy() - np.array(f)).max() > 1e-2
    assert results["unmasked"][0]["f"] is None
    dark = results["masked, learned f + DARK Sigma"][0]["model"].feature
    assert (dark.M.detach() - torch.eye(dark.d)).abs().max() > 1e-3


def test_command_prints_the_table(mesh):
    done = subprocess.run([sys.executable, SCRIPT, str(mesh[0]), "--steps", "3", "--seeds", "2", "--walkers", "2",
                           "--width", "4", "--heads", "1", "--features", "2"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ")]
    assert rows[0].startswith("| attention |") and len(rows) == 1 + 4, done.stdout
    assert all(" ± " in row for row in rows[1:]), done.stdout
    assert "wall time" in done.stdout
