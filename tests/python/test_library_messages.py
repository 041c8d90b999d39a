"""How the library's messages reach Python. Warnings: a Python warning of category graphrf.GraphrfWarning (a
UserWarning) carrying the line the CLI prints after "graphrf: warning: ", and nothing on stderr. Errors: OSError
for a file that cannot be opened or read, ValueError for bad content, decided by the library's error kind (a
FileError), not by the words of the message: a bad file whose name reads ": cannot open" is a ValueError."""
import warnings

import numpy as np
import pytest

import graphrf
from conftest import cli_error, run_cli


def cli_warnings(args):
    done = run_cli(args)
    return [line.split("graphrf: warning: ", 1)[1] for line in done.stderr.splitlines()
            if line.startswith("graphrf: warning: ")]


@pytest.mark.parametrize("kwargs, options", [
    ({"max_length": 1, "p_halt": 0.1}, ["--max-length", "1", "--p-halt", "0.1"]),  # the truncation bias
    ({"f": [1.0, -0.5]}, ["--f", "1,-0.5"]),                                         # negative f
])
def test_library_warnings_are_python_warnings(tmp_path, capfd, kwargs, options):
    expected = cli_warnings(["grf", "--graph", "grid:4x4", "--out", str(tmp_path / "grf.h5"), *options])
    assert expected, "the CLI printed no warning for these options"
    with pytest.warns(graphrf.GraphrfWarning) as caught:
        graphrf.grf(graphrf.Graph.load("grid:4x4"), **kwargs)
    assert [str(w.message) for w in caught if w.category is graphrf.GraphrfWarning] == expected
    assert issubclass(graphrf.GraphrfWarning, UserWarning)
    assert caught[0].filename == __file__  # points at the caller's line, not inside the package
    assert "warning" not in capfd.readouterr().err


def test_warnings_can_be_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error", graphrf.GraphrfWarning)
        with pytest.raises(graphrf.GraphrfWarning, match="negative entries"):
            graphrf.grf(graphrf.Graph.load("grid:3x3"), f=[1.0, -0.5])
    assert graphrf.grf(graphrf.Graph.load("grid:3x3"), f=[1.0, 0.5]).nnz > 0  # and the next call still works


def test_bad_content_is_a_value_error_whatever_the_file_is_called(tmp_path):
    for name in ("bad: cannot open.txt", "bad: cannot read.txt"):
        path = tmp_path / name
        path.write_text("0 1\n1 x 2\n")
        with pytest.raises(ValueError) as error:
            graphrf.Graph.load(str(path))
        assert not isinstance(error.value, OSError)
        assert str(error.value) == cli_error(["info", "--graph", str(path)])


def test_files_that_cannot_be_opened_are_os_errors(tmp_path):
    missing = str(tmp_path / "missing")
    g = graphrf.Graph.load("grid:3x3")
    calls = [
        (lambda: graphrf.Graph.load(missing + ".obj"), ["info", "--graph", missing + ".obj"]),
        (lambda: graphrf.Graph.load(missing + ".h5"), ["info", "--graph", missing + ".h5"]),
        (lambda: graphrf.gp(g, missing + ".csv"), ["gp", "--graph", "grid:3x3", "--observations", missing + ".csv"]),
        (lambda: graphrf.walk(g, coupling="sigma", sigma=missing + ".txt"),
         ["grf", "--graph", "grid:3x3", "--coupling", "sigma", "--sigma", missing + ".txt"]),
    ]
    for call, cli_options in calls:
        with pytest.raises(OSError) as error:
            call()
        assert str(error.value) == cli_error(cli_options)
    assert np.isfinite(graphrf.pagerank(g)).all()  # nothing aborted the interpreter
