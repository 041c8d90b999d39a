"""End-to-end: an --out that would destroy something is refused before any work.

  * --out naming the same file as any input of the command (--graph, --points, --qkv, --frames, --observations,
    --test, --sigma, --config, --partition file:PATH, graphrf-partition's --graph; also through a symlink or a
    hard link): one error line naming --out and the input option, non-zero exit, the input byte for byte as it was;
  * --out naming an existing FIFO or character device: refused, the node left as it was (the device case is
    skipped, saying so, where mknod is not permitted);
  * --out "" (every command with --out): an error naming --out instead of writing nothing without a word.
Each case also checks the bad-input contract of graphrf_e2e.expect_error: no output, no temporary file.
"""

import os
import stat

import h5py
import numpy as np

import graphrf_e2e as e2e

EDGES = "".join("%d %d\n" % (i, (i + 1) % 12) for i in range(12)) + "0 6\n3 9\n"


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def expect_clash(np_, args, out, option, directory, program=None, prefix="graphrf: error: "):
    """Runs args (which write --out OUT, an input of the command) and checks the refusal and that OUT is intact."""
    before = read_bytes(out)
    line = e2e.expect_error(np_, args, "--out " + out + ": ", "same file as " + option, directory=directory,
                            program=program, prefix=prefix)
    assert read_bytes(out) == before, "the input was changed: " + line


def test_output_is_an_input():
    with e2e.TempDir() as d:
        graph = e2e.write(d, "g.edges", EDGES)
        expect_clash(1, ["info", "--graph", graph, "--out", graph], graph, "--graph " + graph, d)
        expect_clash(2, ["grf", "--graph", graph, "--out", graph], graph, "--graph", d)
        expect_clash(3, ["couple", "--graph", graph, "--out", graph], graph, "--graph", d)
        expect_clash(2, ["--graph", graph, "--parts", "2", "--out", graph], graph, "--graph", d,
                     program=e2e.GRAPHRF_PARTITION, prefix="graphrf-partition: error: ")
        # Through a symlink and a hard link: the same file under another name.
        link, hard = os.path.join(d, "link.edges"), os.path.join(d, "hard.edges")
        os.symlink(graph, link)
        os.link(graph, hard)
        expect_clash(2, ["pagerank", "--graph", graph, "--out", link], link, "--graph", d)
        expect_clash(1, ["wavelet", "--graph", graph, "--embedding-dim", "2", "--out", hard], hard, "--graph", d)
        assert os.path.islink(link)

        qkv = e2e.write_qkv(os.path.join(d, "qkv.h5"), *(np.ones((12, 2)) for _ in range(3)))
        expect_clash(2, ["attention", "--graph", graph, "--qkv", qkv, "--out", qkv], qkv, "--qkv " + qkv, d)
        points = os.path.join(d, "pts.h5")
        with h5py.File(points, "w") as f:
            f["points"] = np.arange(24, dtype=float).reshape(12, 2)
        expect_clash(2, ["grf", "--points", points, "--knn", "3", "--out", points], points, "--points " + points, d)
        frames = os.path.join(d, "frames.h5")
        with h5py.File(frames, "w") as f:
            f["frames/points"] = np.random.default_rng(1).random((2, 12, 3))
        expect_clash(1, ["attention", "--frames", frames, "--knn", "3", "--out", frames], frames, "--frames", d)

        obs = e2e.write(d, "obs.csv", "node,y\n" + "".join("%d,%g\n" % (i, i * 0.1) for i in range(12)))
        expect_clash(2, ["gp", "--graph", graph, "--observations", obs, "--out", obs], obs, "--observations", d)
        test = e2e.write(d, "test.txt", "0\n1\n")
        expect_clash(1, ["gp", "--graph", graph, "--observations", obs, "--test", test, "--out", test], test,
                     "--test", d)
        sigma = e2e.write(d, "sigma.txt", "2 1\n")
        expect_clash(2, ["grf", "--graph", graph, "--coupling", "sigma", "--sigma", sigma, "--out", sigma], sigma,
                     "--sigma", d)
        parts = e2e.write(d, "parts.txt", "0\n" * 6 + "1\n" * 6)
        expect_clash(2, ["grf", "--graph", graph, "--partition", "file:" + parts, "--out", parts], parts,
                     "--partition file:" + parts, d)
        config = e2e.write(d, "run.ini", "walkers = 4\n")
        expect_clash(1, ["grf", "--graph", graph, "--config", config, "--out", config], config, "--config", d)
        # The same output named in the INI file.
        config_out = e2e.write(d, "self.ini", "out = self.ini\n")
        expect_clash(2, ["grf", "--graph", graph, "--config", config_out], config_out, "--config", d)


def test_output_is_a_fifo_or_device():
    with e2e.TempDir() as d:
        fifo = os.path.join(d, "fifo")
        os.mkfifo(fifo)
        for np_ in (1, 2):
            e2e.expect_error(np_, ["grf", "--graph", "grid:4x4", "--out", fifo], "--out " + fifo, "it is a FIFO",
                             directory=d)
        e2e.expect_error(2, ["--graph", "grid:4x4", "--parts", "2", "--out", fifo], "--out " + fifo, "a FIFO",
                         directory=d, program=e2e.GRAPHRF_PARTITION, prefix="graphrf-partition: error: ")
        assert stat.S_ISFIFO(os.stat(fifo).st_mode)
        null2 = os.path.join(d, "null2")
        try:
            os.mknod(null2, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        except OSError as e:
            print("      skipped the character device case: mknod is not permitted here (%s)" % e, flush=True)
            return
        e2e.expect_error(2, ["info", "--graph", "grid:4x4", "--out", null2], "--out " + null2,
                         "it is a character device", directory=d)
        assert stat.S_ISCHR(os.stat(null2).st_mode)


def test_empty_output_name():
    with e2e.TempDir() as d:
        graph = e2e.write(d, "g.edges", EDGES)
        for command in ("grf", "info", "attention", "couple", "gp --synthetic 0.5", "pagerank", "wavelet"):
            e2e.expect_error(1, command.split() + ["--graph", graph, "--out", ""], "--out: the file name is empty",
                             directory=d)
        e2e.expect_error(2, ["grf", "--graph", graph, "--out="], "'--out'", directory=d)  # refused by the parser
        ini = e2e.write(d, "empty.ini", "out =\n")
        e2e.expect_error(2, ["grf", "--graph", graph, "--config", ini], "--out: the file name is empty", directory=d)
        e2e.expect_error(2, ["--graph", graph, "--out", ""], "--out: the file name is empty", directory=d,
                         program=e2e.GRAPHRF_PARTITION, prefix="graphrf-partition: error: ")


if __name__ == "__main__":
    e2e.main(globals())
