"""End-to-end: graphs users already have, read as graphs.

* graphrf's own HDF5 graphs: `info --out g.h5` then `--graph g.h5` gives the same /graph bitwise (raw weights;
  the default normalised /graph is read with its values as edge weights) and the same /nodes/id, and for a graph
  of names the same /nodes/name, at 1, 2 and 3 ranks; found by the HDF5 signature without an extension.
* Meshes: small PLY (ASCII, binary little- and big-endian, with extra properties and an `edge` element), OFF
  (comments, colours, a quad) and STL (ASCII and binary) files written here give the edges this test computes
  from their faces (STL: vertices numbered by first appearance of their position), isolated vertices kept.
* Format errors name the likely fix: an HDF5 file read as an edge list, a Matrix Market body without its
  header, an edge list read with --format metis, a PLY point cloud given to --graph, and mesh errors naming
  FILE:LINE.
"""

import os
import shutil
import struct

import h5py
import numpy as np

import graphrf_e2e as e2e


def h5_graph(path):
    """(/graph indptr, indices, data with their dtypes, /nodes/id, /nodes/name or None) of an output file."""
    with h5py.File(path, "r") as f:
        g = f["graph"]
        arrays = tuple(g[k][:] for k in ("indptr", "indices", "data"))
        names = f["nodes/name"][:] if "nodes/name" in f else None
        return arrays, f["nodes/id"][:], names


def same_arrays(a, b):
    return len(a) == len(b) and all(x.dtype == y.dtype and np.array_equal(x, y) for x, y in zip(a, b))


def weighted_grid(directory):
    text, _, _ = e2e.grid_edge_list(5, 4, seed=3)
    rng = np.random.default_rng(1)
    lines = [text.splitlines()[0]] + ["%s %g" % (line, rng.integers(1, 9) / 4) for line in text.splitlines()[1:]]
    return e2e.write(directory, "grid.txt", "\n".join(lines) + "\n")


def test_hdf5_graph_round_trip():
    with e2e.TempDir() as d:
        source = weighted_grid(d)
        first = os.path.join(d, "first.h5")
        e2e.run(1, ["info", "--graph", source, "--weights", "raw", "--out", first])
        want = h5_graph(first)
        no_extension = os.path.join(d, "graphfile")
        shutil.copy(first, no_extension)
        for np_ in (1, 2, 3):
            for given in (first, no_extension):
                again = os.path.join(d, "again%d.h5" % np_)
                r = e2e.run(np_, ["info", "--graph", given, "--weights", "raw", "--out", again])
                assert any("as hdf5 (HDF5 signature)" in line for line in r.lines_starting("graph")), r.stdout
                got = h5_graph(again)
                assert same_arrays(got[0], want[0]), "np=%d: /graph differs" % np_
                assert np.array_equal(got[1], want[1]), "np=%d: /nodes/id differs" % np_
                assert r.result()["edges"] == "31"
                os.remove(again)
        # The default /graph holds D^-1/2 A D^-1/2: read back, those values are the edge weights.
        normalized = os.path.join(d, "normalized.h5")
        e2e.run(1, ["info", "--graph", source, "--out", normalized])
        raw_of_normalized = os.path.join(d, "raw_of_normalized.h5")
        r = e2e.run(2, ["info", "--graph", normalized, "--weights", "raw", "--out", raw_of_normalized])
        assert same_arrays(h5_graph(raw_of_normalized)[0], h5_graph(normalized)[0])
        assert any("written with --weights normalized" in line for line in r.lines_starting("loader")), r.stdout
        r = e2e.run(2, ["info", "--graph", first])  # raw weights: nothing to say
        assert not any("normalized" in line for line in r.lines_starting("loader")), r.stdout


def test_hdf5_graph_of_names_round_trip():
    with e2e.TempDir() as d:
        source = e2e.write(d, "names.txt", "alice bob\nbob carol\ncarol dave\ndave alice\nerin alice\n")
        first = os.path.join(d, "first.h5")
        e2e.run(1, ["info", "--graph", source, "--weights", "raw", "--out", first])
        want = h5_graph(first)
        assert list(want[2]) == [b"alice", b"bob", b"carol", b"dave", b"erin"]
        for np_ in (1, 2, 3):
            again = os.path.join(d, "again%d.h5" % np_)
            e2e.run(np_, ["info", "--graph", first, "--weights", "raw", "--out", again])
            got = h5_graph(again)
            assert same_arrays(got[0], want[0]) and np.array_equal(got[1], want[1]), "np=%d" % np_
            assert list(got[2]) == list(want[2]), "np=%d: /nodes/name %s" % (np_, got[2])
            os.remove(again)


# ---------------------------------------------------------------------------------------------------------------
# Meshes: 7 vertices (vertex 6 on no face), triangles and one quad.

POSITIONS = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0.5, 0.5, 1), (2, 0, 0), (9, 9, 9)]
FACES = [(0, 1, 4), (1, 2, 4), (2, 3, 4), (3, 0, 4), (0, 1, 2, 3), (1, 5, 2)]
EXTRA_EDGE = (5, 3)  # a PLY `edge` element


def edges_of(faces, extra=()):
    """Undirected edges {(i, j): 1.0} (i < j) along every face's boundary."""
    edges = {}
    for face in faces:
        for k in range(len(face)):
            a, b = face[k], face[(k + 1) % len(face)]
            edges[(min(a, b), max(a, b))] = 1.0
    for a, b in extra:
        edges[(min(a, b), max(a, b))] = 1.0
    return edges


def read_edges(path):
    """{(i, j): w} (i < j, by /nodes/id) and the ids of an info --weights raw output."""
    (indptr, indices, data), ids, _ = h5_graph(path)
    edges = {}
    for i in range(len(indptr) - 1):
        for k in range(indptr[i], indptr[i + 1]):
            a, b = int(ids[i]), int(ids[indices[k]])
            if a < b:
                edges[(a, b)] = float(data[k])
    return edges, list(ids)


def ply_ascii():
    lines = ["ply", "format ascii 1.0", "comment made by a test", "element vertex %d" % len(POSITIONS),
             "property float x", "property float y", "property float z", "property uchar red",
             "element face %d" % len(FACES), "property list uchar int vertex_indices", "property float quality",
             "element edge 1", "property int vertex1", "property int vertex2", "end_header"]
    lines += ["%g %g %g 200" % p for p in POSITIONS]
    lines += ["%d %s 0.5" % (len(f), " ".join(map(str, f))) for f in FACES]
    lines.append("%d %d" % EXTRA_EDGE)
    return ("\n".join(lines) + "\n").encode()


def ply_binary(endian):
    tag = "<" if endian == "little" else ">"
    header = ["ply", "format binary_%s_endian 1.0" % endian, "element vertex %d" % len(POSITIONS),
              "property double x", "property double y", "property double z", "property list uchar short junk",
              "element face %d" % len(FACES), "property uchar flags", "property list uchar uint vertex_indices",
              "element edge 1", "property int vertex1", "property int vertex2", "end_header"]
    body = b""
    for p in POSITIONS:
        body += struct.pack(tag + "3dBhh", *p, 2, 7, -7)
    for f in FACES:
        body += struct.pack(tag + "BB%dI" % len(f), 3, len(f), *f)
    body += struct.pack(tag + "ii", *EXTRA_EDGE)
    return ("\n".join(header) + "\n").encode() + body


def off_text():
    lines = ["OFF", "# a pyramid on a square, one more triangle and a lone vertex",
             "%d %d 0" % (len(POSITIONS), len(FACES)), ""]
    lines += ["%g %g %g" % p for p in POSITIONS]
    lines += ["%d %s  255 0 0" % (len(f), " ".join(map(str, f))) for f in FACES]
    return ("\n".join(lines) + "\n").encode()


# STL: triangles only; the quad is split, and the lone vertex does not exist.
STL_TRIANGLES = [f for f in FACES if len(f) == 3] + [(0, 1, 2), (0, 2, 3)]


def stl_numbering():
    """Vertex ids as the STL reader numbers them: positions in order of first appearance."""
    order = {}
    for t in STL_TRIANGLES:
        for v in t:
            order.setdefault(v, len(order))
    return order


def stl_ascii():
    lines = ["solid test"]
    for t in STL_TRIANGLES:
        lines += ["  facet normal 0 0 1", "    outer loop"] + ["      vertex %g %g %g" % POSITIONS[v] for v in t]
        lines += ["    endloop", "  endfacet"]
    lines.append("endsolid test")
    return ("\n".join(lines) + "\n").encode()


def stl_binary():
    body = b"solid but binary".ljust(80, b" ") + struct.pack("<I", len(STL_TRIANGLES))
    for t in STL_TRIANGLES:
        body += struct.pack("<3f", 0, 0, 1)
        for v in t:
            body += struct.pack("<3f", *POSITIONS[v])
        body += b"\0\0"
    return body


def test_meshes_give_their_face_edges():
    mesh_edges = edges_of(FACES)
    numbering = stl_numbering()
    stl_edges = {(min(numbering[a], numbering[b]), max(numbering[a], numbering[b])): w
                 for (a, b), w in edges_of(STL_TRIANGLES).items()}
    cases = [
        ("mesh.ply", ply_ascii(), edges_of(FACES, [EXTRA_EDGE]), 7, "ply (first line 'ply')"),
        ("little.ply", ply_binary("little"), edges_of(FACES, [EXTRA_EDGE]), 7, "ply"),
        ("big.ply", ply_binary("big"), edges_of(FACES, [EXTRA_EDGE]), 7, "ply"),
        ("plyfile", ply_ascii(), edges_of(FACES, [EXTRA_EDGE]), 7, "ply (first line 'ply')"),
        ("mesh.off", off_text(), mesh_edges, 7, "off (first word 'OFF')"),
        ("offfile", off_text(), mesh_edges, 7, "off (first word 'OFF')"),
        ("mesh.stl", stl_ascii(), stl_edges, 6, "stl (extension .stl)"),
        ("stlfile", stl_ascii(), stl_edges, 6, "stl ('solid' and 'facet' lines)"),
        ("binary.stl", stl_binary(), stl_edges, 6, "stl (extension .stl)"),
    ]
    with e2e.TempDir() as d:
        for name, data, want, n, source in cases:
            path = os.path.join(d, name)
            with open(path, "wb") as f:
                f.write(data)
            for np_ in (1, 3):
                out = os.path.join(d, "out.h5")
                r = e2e.run(np_, ["info", "--graph", path, "--weights", "raw", "--out", out])
                assert any(source in line for line in r.lines_starting("graph")), r.stdout
                got, ids = read_edges(out)
                assert ids == list(range(n)), "%s: ids %s" % (name, ids)
                assert got == want, "%s np=%d: edges %s, expected %s" % (name, np_, sorted(got), sorted(want))
                os.remove(out)


def test_format_errors_name_the_fix():
    with e2e.TempDir() as d:
        graph_h5 = os.path.join(d, "g.h5")
        e2e.run(1, ["info", "--graph", "grid:3x3", "--out", graph_h5])
        points = os.path.join(d, "cloud.h5")
        with h5py.File(points, "w") as f:
            f["points"] = np.zeros((4, 3))
        edges = e2e.write(d, "edges.txt", "103482 7\n7 9\n9 103482\n12 7\n")
        edges_cut = e2e.write(d, "cut.edges", "4 1\n1 103482\n2 3\n3 4\n4 1\n")
        body = e2e.write(d, "body.mtx", "3 3 2\n1 2\n2 3\n")
        cloud = e2e.write(d, "cloud.ply", "ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\n"
                                          "property float y\nproperty float z\nend_header\n0 0 0\n1 1 1\n")
        bad_off = e2e.write(d, "bad.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 3\n")
        good_off = os.path.join(d, "good.off")
        with open(good_off, "wb") as f:
            f.write(off_text())
        short_ply = os.path.join(d, "short.ply")
        with open(short_ply, "wb") as f:
            f.write(ply_binary("little")[:-12])
        for np_ in (1, 3):
            e2e.expect_error(np_, ["info", "--graph", graph_h5, "--format", "edgelist", "--out", "{out}"],
                             "g.h5", "looks like hdf5 (HDF5 signature): try --format hdf5", directory=d)
            e2e.expect_error(np_, ["info", "--graph", points, "--out", "{out}"],
                             "cloud.h5: an HDF5 file without the /graph CSR group", "--points", directory=d)
            e2e.expect_error(np_, ["info", "--graph", edges, "--format", "metis", "--out", "{out}"],
                             "edges.txt:", "looks like an edge list", "try --format edgelist", directory=d)
            e2e.expect_error(np_, ["info", "--graph", edges_cut, "--format", "metis", "--out", "{out}"],
                             "cut.edges:2: node id 103482 out of range",
                             "it looks like an edge list (extension .edges): try --format edgelist", directory=d)
            e2e.expect_error(np_, ["info", "--graph", body, "--out", "{out}"],
                             "body.mtx:1: no %%MatrixMarket header: for a plain edge list use --format edgelist",
                             directory=d)
            e2e.expect_error(np_, ["info", "--graph", cloud, "--out", "{out}"],
                             "cloud.ply: a PLY file with 2 vertices and no faces or edges is a point cloud",
                             "--points", directory=d)
            e2e.expect_error(np_, ["info", "--graph", bad_off, "--out", "{out}"],
                             "bad.off:6: vertex index 3 out of range", directory=d)
            e2e.expect_error(np_, ["info", "--graph", good_off, "--format", "ply", "--out", "{out}"],
                             "good.off:1: a PLY file starts with the line 'ply'",
                             "it looks like off (first word 'OFF'): try --format off", directory=d)
            e2e.expect_error(np_, ["info", "--graph", edges, "--format", "hdf5", "--out", "{out}"],
                             "edges.txt: not an HDF5 file", "try --format edgelist", directory=d)
            e2e.expect_error(np_, ["info", "--graph", short_ply, "--out", "{out}"],
                             "short.ply: the data ends inside", "truncated", directory=d)


if __name__ == "__main__":
    e2e.main(globals())
