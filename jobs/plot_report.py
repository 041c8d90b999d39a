#!/usr/bin/python3
"""Plots from graphrf outputs: walk lengths, GRF sparsity, kernel error vs walkers, scaling curves.

    python3 jobs/plot_report.py run.h5 [more.h5 | sweep.csv ...] [--scaling scaling.csv ...] --out report.png

Inputs (any mix; each panel is drawn when its data is there):
  *.h5    files written by `graphrf grf --out` or `graphrf attention --save-grf --out`:
          /walks/length_histogram  -> walk-length histogram, with the geometric law of --p-halt
          /grf/indptr (or /attention/stats/nnz_per_row) -> histogram of nonzeros per row
          root attribute kernel_relative_frobenius_error (runs with --reference), /walks attribute
          walkers and /nodes/id -> kernel error against walkers per node
  *.csv   RESULT lines as CSV (jobs/sweep.sbatch writes one per array task): columns walkers, nodes
          and kernel_error give more points of the kernel-error plot
  --scaling CSV  jobs/scaling.sbatch's table -> strong- and weak-scaling curves

Uses Debian's python3 with python3-matplotlib and python3-h5py (apt-get install python3-matplotlib
python3-h5py); draws with the Agg backend, so no display is needed.
"""
import argparse
import csv
import math
import os
import sys
from collections import defaultdict

try:
    import numpy as np
    import h5py
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker
except ImportError as e:  # a python3 without the Debian modules (pyenv, venv) is the usual cause
    sys.exit(f"plot_report.py: error: {e.name} is missing: run it with /usr/bin/python3 "
             "(apt-get install python3-matplotlib python3-h5py)")

PROG = "plot_report.py"


def fail(msg):
    sys.exit(f"{PROG}: error: {msg}")


def parse_config(text):
    """The /config dataset: INI lines `key = value`."""
    out = {}
    for line in text.splitlines():
        if "=" in line and not line.lstrip().startswith("#"):
            k, v = line.split("=", 1)
            out[k.strip()] = v.strip()
    return out


def read_h5(path):
    """What the plots need from one graphrf output file."""
    run = {"path": path, "label": os.path.basename(path)}
    with h5py.File(path, "r") as f:
        if "config" in f:
            raw = f["config"][()]
            run["config"] = parse_config(raw.decode() if isinstance(raw, bytes) else str(raw))
        else:
            run["config"] = {}
        graph = run["config"].get("graph", "?")
        # a generator (grid:RxC) as it is, a file by its name
        run["graph"] = graph if ":" in graph and not os.path.exists(graph) else os.path.basename(graph)
        if "nodes/id" in f:
            run["nodes"] = int(f["nodes/id"].shape[0])
        if "walks/length_histogram" in f:
            run["lengths"] = np.asarray(f["walks/length_histogram"][()], dtype=np.int64)
            attrs = f["walks"].attrs  # "walks" is the total, "walkers_per_node" the --walkers option
            run["walks"] = int(attrs.get("walks", attrs.get("walkers", run["lengths"].sum())))
        if "grf/indptr" in f:
            run["nnz"] = np.diff(np.asarray(f["grf/indptr"][()], dtype=np.int64))
        elif "attention/stats/nnz_per_row" in f:
            nnz = np.asarray(f["attention/stats/nnz_per_row"][()], dtype=np.int64)
            if nnz.ndim == 2:  # multi-head: N x H; each head has its own GRF rows, the panel shows head 0
                run["nnz_note"] = f" (head 0 of {nnz.shape[1]})"
                nnz = nnz[:, 0]
            run["nnz"] = nnz
        if "attention/reference/error_vs_masked_linear" in f:
            run["attention_error"] = float(np.ravel(f["attention/reference/error_vs_masked_linear"][()])[0])
        err = f.attrs.get("kernel_relative_frobenius_error")
        if err is not None:
            run["kernel_error"] = float(err)
    if not any(k in run for k in ("lengths", "nnz", "kernel_error", "attention_error")):
        print(f"{PROG}: note: {path} has no /walks, /grf or kernel error (not a graphrf grf output?)", file=sys.stderr)
    return run


def read_csv_rows(path):
    with open(path, newline="") as fh:
        rows = [r for r in csv.DictReader(fh)]
    # sweep CSVs concatenated with `cat` repeat their header: drop those rows
    return [r for r in rows if r and list(r.values())[0] != list(r.keys())[0]]


def error_points_from_csv(path, key="kernel_error"):
    """(graph, walkers per node, error) from CSV rows of RESULT fields: kernel_error of grf sweeps, or
    head0_error_vs_masked_linear of attention sweeps."""
    pts = []
    for r in read_csv_rows(path):
        try:
            err = float(r[key])
            per_node = float(r["walkers_per_node"]) if "walkers_per_node" in r else \
                float(r["walkers"]) if key != "kernel_error" else float(r["walks"]) / float(r["nodes"])
        except (KeyError, TypeError, ValueError):
            continue
        pts.append((r.get("graph") or os.path.basename(path), per_node, err))
    if not pts and key == "kernel_error":
        return error_points_from_csv(path, "head0_error_vs_masked_linear")
    if not pts:
        print(f"{PROG}: note: {path} has no rows with walkers and kernel_error or head0_error_vs_masked_linear",
              file=sys.stderr)
    return pts


def compute_time(row):
    """Compute time of one scaling row: RESULT's seconds, else walk + assemble seconds."""
    if row.get("seconds"):
        return float(row["seconds"])
    if row.get("walk_seconds") and row.get("assemble_seconds"):
        return float(row["walk_seconds"]) + float(row["assemble_seconds"])
    return None


def short_label(run):
    """A legend label: graph, kernel, p_halt and walkers per node when known, else the file name."""
    cfg = run.get("config", {})
    n = cfg.get("walkers") or (f"{run['walks'] / run['nodes']:g}" if run.get("walks") and run.get("nodes") else None)
    if n:
        kernel = cfg.get("kernel", "?") + (f" beta={cfg['beta']}" if "beta" in cfg and "alpha" not in cfg else "")
        return f"{run['graph']}, {kernel}, p_halt={cfg.get('p-halt', '?')}, n={n}"
    name = run["label"]
    return name if len(name) <= 32 else "..." + name[-29:]


def plot_lengths(ax, runs):
    drawn_expectation = set()
    lowest = 1.0
    for run in runs:
        h = run["lengths"]
        total = h.sum()
        if total == 0:
            continue
        t = np.arange(len(h))
        seen = h > 0
        ax.plot(t[seen], h[seen] / total, "o-", ms=4, lw=1, alpha=0.8, label=f"{short_label(run)} ({total} walks)")
        lowest = min(lowest, 0.5 / total)
        p = float(run["config"].get("p-halt", "nan"))
        if not math.isnan(p) and p not in drawn_expectation:
            # halting with probability p before each hop: P(len = t) = p (1-p)^t; walks stop at max-length
            drawn_expectation.add(p)
            expect = p * (1 - p) ** t
            expect[-1] = (1 - p) ** (len(h) - 1)
            ax.plot(t, expect, "k--", lw=1.2, label=f"geometric p (1-p)^t, p_halt={p:g}")
    ax.legend(fontsize=7, loc="upper right")
    ax.set_yscale("log")
    ax.set_ylim(bottom=lowest)
    ax.set_xlabel("walk length (hops)")
    ax.set_ylabel("fraction of walks")
    ax.set_title("walk lengths")
    last = max(int(np.nonzero(r["lengths"])[0].max()) for r in runs if r["lengths"].any())
    ax.set_xlim(-0.5, last + 1.5)


def plot_nnz(ax, runs):
    hi = max(int(r["nnz"].max()) for r in runs)
    bins = np.arange(0, hi + 2) - 0.5
    for run in runs:
        nnz = run["nnz"]
        ax.hist(nnz, bins=bins, histtype="step", lw=1.6, weights=np.full(len(nnz), 1.0 / len(nnz)),
                label=f"{short_label(run)}{run.get('nnz_note', '')}: mean {nnz.mean():.1f}, max {nnz.max()}")
    ax.set_xlabel("nonzeros per row of the GRF matrix")
    ax.set_ylabel("fraction of rows")
    ax.set_title("GRF sparsity")
    ax.legend(fontsize=7)


def plot_errors(ax, points, what="kernel"):
    by_graph = defaultdict(list)
    for graph, n, err in points:
        by_graph[graph].append((n, err))
    for graph, pts in sorted(by_graph.items()):
        pts.sort()
        n = np.array([p[0] for p in pts])
        e = np.array([p[1] for p in pts])
        line = ax.plot(n, e, "o", ms=5, label=graph)[0]
        means = {x: e[n == x].mean() for x in np.unique(n)}
        xs = np.array(sorted(means))
        ax.plot(xs, [means[x] for x in xs], "-", color=line.get_color(), lw=1)
        if len(xs) > 1:  # Monte Carlo rate: error ~ c / sqrt(walkers), c fitted to the points
            c = float(np.mean(e * np.sqrt(n)))
            grid = np.geomspace(xs.min(), xs.max(), 50)
            ax.plot(grid, c / np.sqrt(grid), ":", color=line.get_color(), lw=1.2,
                    label=f"{c:.2f}/sqrt(n)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("walkers per node n")
    if what == "kernel":
        ax.set_ylabel("||K_GRF - K||_F / ||K||_F")
        ax.set_title("kernel error vs walkers")
    else:
        ax.set_ylabel("relative error vs exact M-masked linear attention (head 0)")
        ax.set_title("attention error vs walkers")
    ax.legend(fontsize=7)


def scaling_series(rows, series):
    """ntasks -> (fastest compute time, fastest wall time, nodes) over the repeats of one series."""
    best = {}
    for r in rows:
        if r.get("series") != series:
            continue
        p = int(r["ntasks"])
        comp = compute_time(r)
        wall = float(r["wall_seconds"]) if r.get("wall_seconds") else None
        c0, w0, _ = best.get(p, (None, None, None))
        comp = comp if c0 is None else (c0 if comp is None else min(c0, comp))
        wall = wall if w0 is None else (w0 if wall is None else min(w0, wall))
        best[p] = (comp, wall, r.get("nodes", "?"))
    return dict(sorted(best.items()))


def plot_scaling(ax, rows, series):
    data = scaling_series(rows, series)
    p = np.array(list(data))
    comp = np.array([v[0] if v[0] is not None else np.nan for v in data.values()])
    wall = np.array([v[1] if v[1] is not None else np.nan for v in data.values()])
    if not np.all(np.isnan(comp)):
        ax.plot(p, comp, "o-", label="compute (RESULT seconds)")
    ax.plot(p, wall, "s--", alpha=0.7, label="wall (launch + load + compute)")
    ref = comp if not np.all(np.isnan(comp)) else wall
    if series == "strong":
        ax.plot(p, ref[0] * p[0] / p, "k:", label="ideal t1 / p")
        nodes = {v[2] for v in data.values()}
        ax.set_title(f"strong scaling ({', '.join(sorted(nodes))} nodes)")
    else:
        ax.plot(p, np.full(len(p), ref[0]), "k:", label="ideal: constant")
        per = [f"{int(v[2]) // k}" for k, v in data.items() if str(v[2]).isdigit()]
        ax.set_title(f"weak scaling ({per[0] if per else '?'} nodes per task)")
    # Both series on the same axes style: log-log, tasks as ticks, labelled efficiency at every point.
    ax.set_yscale("log")
    ax.yaxis.set_minor_formatter(matplotlib.ticker.FormatStrFormatter("%.2g"))
    ax.tick_params(axis="y", which="minor", labelsize=7)
    ax.set_xscale("log", base=2)
    ax.set_xticks(p)
    ax.set_xticklabels([str(x) for x in p])
    ax.set_xlabel("MPI tasks")
    ax.set_ylabel("seconds")
    ax.legend(fontsize=7)
    for x, y in zip(p, ref):
        if not np.isnan(y):
            eff = (ref[0] * p[0] / x) / y if series == "strong" else ref[0] / y
            ax.annotate(f"efficiency {100 * eff:.0f}%", (x, y), textcoords="offset points", xytext=(4, 6), fontsize=7)


def main():
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("inputs", nargs="*", help="graphrf .h5 outputs and/or CSVs of RESULT lines")
    ap.add_argument("--scaling", nargs="+", default=[], metavar="CSV", help="scaling CSVs from jobs/scaling.sbatch")
    ap.add_argument("--out", required=True, help="PNG (or PDF, SVG) to write")
    ap.add_argument("--title", default=None, help="figure title")
    ap.add_argument("--max-files", type=int, default=4, help="at most this many files in the histograms (default 4)")
    args = ap.parse_args()
    if not args.inputs and not args.scaling:
        fail("nothing to plot: give graphrf .h5 files, RESULT CSVs or --scaling CSV")
    for path in args.inputs + args.scaling:
        if not os.path.isfile(path):
            fail(f"{path}: no such file")
    out_dir = os.path.dirname(os.path.abspath(args.out))
    if not os.access(out_dir, os.W_OK):
        fail(f"--out {args.out}: folder {out_dir} is not writable")

    runs, points, attention_points = [], [], []
    for path in args.inputs:
        if path.endswith(".csv"):
            rows = read_csv_rows(path)
            if rows and "head0_error_vs_masked_linear" in rows[0]:
                attention_points += error_points_from_csv(path, "head0_error_vs_masked_linear")
            else:
                points += error_points_from_csv(path)
            continue
        try:
            run = read_h5(path)
        except OSError as e:
            fail(f"{path}: not a readable HDF5 file ({e})")
        runs.append(run)
        if "kernel_error" in run and "walks" in run and run.get("nodes"):
            points.append((run["graph"], run["walks"] / run["nodes"], run["kernel_error"]))
        if "attention_error" in run and run["config"].get("walkers"):
            attention_points.append((run["graph"], float(run["config"]["walkers"]), run["attention_error"]))
    scaling_rows = []
    for path in args.scaling:
        rows = read_csv_rows(path)
        if not rows or "series" not in rows[0] or "ntasks" not in rows[0]:
            fail(f"{path}: not a scaling CSV (needs columns series, ntasks, wall_seconds)")
        scaling_rows += rows

    def per_node(run):
        return run["walks"] / run["nodes"] if run.get("walks") and run.get("nodes") else 0

    runs.sort(key=lambda r: (r["graph"], per_node(r), r["label"]))
    def first_files(selected, panel):
        """At most --max-files runs per histogram panel (sorted by graph and walkers), saying what is left out."""
        if len(selected) > args.max_files:
            left = ", ".join(r["label"] for r in selected[args.max_files:])
            print(f"{PROG}: note: the {panel} panel shows {args.max_files} of {len(selected)} files "
                  f"(--max-files); left out: {left}", file=sys.stderr)
        return selected[: args.max_files]

    length_runs = first_files([r for r in runs if "lengths" in r], "walk-length")
    nnz_runs = first_files([r for r in runs if "nnz" in r and len(r["nnz"])], "sparsity")
    for r in runs:
        facts = [f"{k}={r[k]}" for k in ("graph", "nodes", "walks") if k in r]
        if "kernel_error" in r:
            facts.append(f"kernel_error={r['kernel_error']:.6g}")
        if "nnz" in r and len(r["nnz"]):
            facts.append(f"nnz_mean={r['nnz'].mean():.3f}")
        print(f"{r['path']}: {' '.join(facts)}")
    panels = []
    if length_runs:
        panels.append(lambda ax: plot_lengths(ax, length_runs))
    if nnz_runs:
        panels.append(lambda ax: plot_nnz(ax, nnz_runs))
    if points:
        panels.append(lambda ax: plot_errors(ax, points))
    if attention_points:
        panels.append(lambda ax: plot_errors(ax, attention_points, "attention"))
    for series in ("strong", "weak"):
        if any(r.get("series") == series for r in scaling_rows):
            panels.append(lambda ax, s=series: plot_scaling(ax, scaling_rows, s))
    if not panels:
        fail("the inputs hold nothing to plot (no /walks, /grf, kernel or attention errors, or scaling rows)")

    cols = 1 if len(panels) == 1 else 2
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(6.2 * cols, 4.4 * rows), squeeze=False)
    for ax, draw in zip(axes.flat, panels):
        draw(ax)
        ax.grid(True, which="both", alpha=0.25)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    if args.title:
        fig.suptitle(args.title)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"{PROG}: wrote {args.out} ({len(panels)} panels from {len(runs)} HDF5 files, "
          f"{len(points)} kernel-error points, {len(scaling_rows)} scaling rows)")


if __name__ == "__main__":
    main()
