"""Every example command of README.md runs as written, within a CI-sized time limit.

The command blocks are read from README.md itself, so the examples cannot drift from what the test runs:
  * the `B=build/graphrf` block (info, grf, attention, wavelet, --dump-config + --config): each command runs
    through bash in a fresh folder where B points at the graphrf under test and `mpirun` is a shell function
    adding the test launcher's flags. The data files the examples name are made here as small stand-ins
    (the test suite never reads outside the repository): cora.cites and karate.edges are
    tests/data/karate.edges, mesh.obj a triangulated 30 x 30 grid, qkv.h5 seeded Gaussians for its nodes,
    power-grid.txt a 4941-node sparse edge list (a ring with seeded chords, the size of the US power grid).
    Each must exit 0 within PER_COMMAND_SECONDS and print its RESULT line; --reference examples must print
    their errors (sampled, with a standard error, above --dense-reference-max).
  * the Python block of "Quick start" (it opens grf.h5) runs against the grf.h5 the examples wrote.
  * the karate figures the README states (combinatorial kernel, uniform and weighted steps at 64 / 256 / 1024
    walkers, and beta 1) are read from its text and each equals a run's error rounded to the README's precision.
  * jobs/README.md says what the outputs are: rows in canonical order (ascending original id), and its Python
    block for reading them runs against a grf file written at 3 ranks with a METIS partition.
"""

import os
import re
import shutil
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import graphrf_e2e as e2e  # noqa: E402

PER_COMMAND_SECONDS = 180 * e2e.TIME_SCALE  # generous for a loaded 2-core CI machine; the slowest example takes ~20 s alone


def readme_blocks(language):
    text = open(os.path.join(e2e.SOURCE_DIR, "README.md")).read()
    return re.findall(r"```%s\n(.*?)```" % language, text, re.S)


def example_commands():
    """The commands of the README block that starts with B=build/graphrf, continuation lines joined."""
    block = next(b for b in readme_blocks("sh") if b.startswith("B=build/graphrf"))
    commands, current = [], ""
    for line in block.splitlines()[1:]:
        current += line.rstrip()
        if current.endswith("\\"):
            current = current[:-1] + " "
            continue
        if current.strip():
            commands.append(current.strip())
        current = ""
    return commands


def make_inputs(directory):
    karate = os.path.join(e2e.DATA_DIR, "karate.edges")
    shutil.copy(karate, os.path.join(directory, "cora.cites"))
    shutil.copy(karate, os.path.join(directory, "karate.edges"))
    side = 30
    with open(os.path.join(directory, "mesh.obj"), "w") as f:
        for r in range(side):
            for c in range(side):
                f.write("v %d %d 0\n" % (c, r))
        for r in range(side - 1):
            for c in range(side - 1):
                a = r * side + c + 1
                f.write("f %d %d %d\nf %d %d %d\n" % (a, a + 1, a + side, a + 1, a + side + 1, a + side))
    rng = np.random.default_rng(16)
    n = side * side
    e2e.write_qkv(os.path.join(directory, "qkv.h5"), rng.normal(size=(n, 8)), rng.normal(size=(n, 8)),
                  rng.normal(size=(n, 8)))
    nodes = 4941
    with open(os.path.join(directory, "power-grid.txt"), "w") as f:
        for u in range(nodes):
            f.write("%d %d\n" % (u + 1, (u + 1) % nodes + 1))
        for u, v in rng.integers(1, nodes + 1, size=(nodes // 3, 2)):
            if u != v:
                f.write("%d %d\n" % (u, v))


def run_example(command, directory):
    flags = " ".join(e2e.MPIEXEC_FLAGS)
    script = 'mpirun() { "%s" %s "$@"; }\nB="%s"\n%s\n' % (e2e.MPIEXEC, flags, e2e.GRAPHRF, command)
    env = dict(e2e.MPI_ENV)
    env.update(os.environ)
    start = time.monotonic()
    p = subprocess.Popen(["bash", "-e", "-c", script], cwd=directory, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        out, err = p.communicate(timeout=PER_COMMAND_SECONDS)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, 9)
        out, err = p.communicate()
        raise AssertionError("README example did not finish in %g s: %s\n%s\n%s" % (PER_COMMAND_SECONDS, command, out, err))
    seconds = time.monotonic() - start
    assert p.returncode == 0, "README example failed (exit %d): %s\n%s\n%s" % (p.returncode, command, out, err)
    return out, seconds


def test_every_readme_example_runs():
    commands = example_commands()
    assert len(commands) >= 7, commands
    with e2e.TempDir() as d:
        make_inputs(d)
        outputs = {}
        for command in commands:
            out, seconds = run_example(command, d)
            outputs[command] = out
            assert "RESULT " in out, command + "\n" + out
            if "--reference" in command:
                lines = [l for l in out.splitlines() if l.startswith("reference")]
                assert lines and re.search(r"\d\.\d+", lines[-1]), command + "\n" + out
            print("      %5.1f s  %s" % (seconds, command[:100]), flush=True)
        for name in ("cora.h5", "grf.h5", "att.h5", "rwf.h5", "my.ini"):
            assert os.path.exists(os.path.join(d, name)), name
        big = [l for l in outputs[next(c for c in commands if "power-grid" in c)].splitlines()
               if l.startswith("reference")]
        assert "+-" in big[-1], big  # 4941 nodes: the sampled reference, with its standard error
        # The Python block of "Quick start" reads what the examples wrote.
        python = next(b for b in readme_blocks("python") if 'h5py.File("grf.h5")' in b)
        p = subprocess.run([sys.executable, "-c", python], cwd=d, capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        assert "walkers" in p.stdout, p.stdout  # the /config text it prints


def readme_text():
    return " ".join(open(os.path.join(e2e.SOURCE_DIR, "README.md")).read().split())


def karate_error(np_, step, beta, walkers, seed, p_halt, max_length):
    r = e2e.run(np_, ["grf", "--graph", os.path.join(e2e.DATA_DIR, "karate.edges"), "--weights", "combinatorial",
                      "--step", step, "--beta", beta, "--walkers", walkers, "--p-halt", p_halt,
                      "--max-length", max_length, "--seed", seed, "--reference"])
    return float(r.result()["kernel_error"])


def same_at_precision(readme_figure, value):
    """The run's value printed with as many decimals as the README's figure."""
    decimals = len(readme_figure.split(".")[1])
    return "%.*f" % (decimals, value) == readme_figure


def test_readme_karate_figures_match_a_run():
    text = readme_text()
    setup = re.search(r"On karate \(d_max = 17; beta ([0-9.]+), so beta \* d_max = [0-9.]+; `--p-halt ([0-9.]+) "
                      r"--max-length (\d+)`, seed (\d+), np (\d+)\)", text)
    figures = re.search(r"is ([0-9.]+) / ([0-9.]+) / ([0-9.]+) with uniform steps and ([0-9.]+) / ([0-9.]+) / ([0-9.]+) "
                        r"with weighted steps at (\d+) / (\d+) / (\d+) walkers; at beta ([0-9.]+) .*? (\d+) weighted "
                        r"walkers give ([0-9.]+)", text)
    assert setup and figures, "the README's karate paragraph changed shape: update this test"
    beta, p_halt, max_length, seed, np_ = setup.groups()
    g = figures.groups()
    walkers = g[6:9]
    cases = [("uniform", beta, w, f) for w, f in zip(walkers, g[0:3])]
    cases += [("weighted", beta, w, f) for w, f in zip(walkers, g[3:6])]
    cases.append(("weighted", g[9], g[10], g[11]))
    wrong = []
    for step, b, w, figure in cases:
        value = karate_error(int(np_), step, b, w, seed, p_halt, max_length)
        print("      --step %s --beta %s --walkers %s: README %s, run %.6f" % (step, b, w, figure, value), flush=True)
        if not same_at_precision(figure, value):
            wrong.append((step, b, w, figure, value))
    assert not wrong, "README figures that a run does not print: %s" % wrong


def test_jobs_readme_row_order():
    text = " ".join(open(os.path.join(e2e.SOURCE_DIR, "jobs", "README.md")).read().split())
    assert "Rows are in canonical order, ascending original id" in text, "jobs/README.md on row order"
    assert "in the order the ranks held them" not in text
    block = open(os.path.join(e2e.SOURCE_DIR, "jobs", "README.md")).read()
    python = re.search(r"## Reading the outputs\s*```python\n(.*?)```", block, re.S).group(1)
    with e2e.TempDir() as d:
        os.makedirs(os.path.join(d, "results"))
        text_graph, _, _ = e2e.grid_edge_list(6, 7, seed=2)
        graph = e2e.write(d, "grid.edges", text_graph)
        e2e.run(3, ["grf", "--graph", graph, "--partition", "metis", "--walkers", 4, "--out",
                    os.path.join(d, "results", "grf-1234.h5")])
        p = subprocess.run([sys.executable, "-c", python], cwd=d, capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr


if __name__ == "__main__":
    e2e.main(globals())
