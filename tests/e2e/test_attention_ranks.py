"""End-to-end: `graphrf attention` writes the same bits at 1, 2 and 3 ranks.

What is checked (random:200:6, block partition, the machine's ranks as one host sharing memory):
  * /attention/output and /attention/stats/denominator_min are bitwise equal at np 1, 2 and 3, for the
    symmetric and the two-ensembles estimators: the key pass sums every column over its rows in canonical
    order whatever rank owns them (before, partial sums of remote columns were added on arrival by source rank
    and the files differed from np 1 in the last bits). The feature maps relu and elu1 are computed row by
    row; favor's random projection still changes bits with the rank count, so it is not used here.
  * The same with METIS cutting the graph between hosts of one rank (`--host-size 1`, np 2 and 4) and hosts of
    2 + 1 ranks (np 3): global indices then no longer follow canonical order, and the query pass sums each row's
    entries in canonical order of their columns (before, in global order: differences of about 1e-15), also
    for the asymmetric estimator.
"""

import os

import h5py
import numpy as np

import graphrf_e2e as e2e


def attention_output(d, np_, estimator, feature, extra=()):
    out = os.path.join(d, "a%d-%s.h5" % (np_, estimator))
    e2e.run(np_, ["attention", "--graph", "random:200:6", "--walkers", 6, "--estimator", estimator,
                  "--feature", feature, "--out", out] + list(extra))
    with h5py.File(out, "r") as f:
        return f["attention/output"][()], f["attention/stats/denominator_min"][()]


def test_output_has_the_same_bits_at_every_rank_count():
    with e2e.TempDir() as d:
        for estimator, feature in (("symmetric", "relu"), ("two-ensembles", "elu1")):
            want, want_min = attention_output(d, 1, estimator, feature)
            for np_ in (2, 3):
                got, got_min = attention_output(d, np_, estimator, feature)
                assert got.shape == want.shape, (got.shape, want.shape)
                differing = int(np.count_nonzero(got.view(np.uint64) != want.view(np.uint64)))
                assert differing == 0, "%s np %d: %d values differ from np 1 (largest by %g)" % (
                    estimator, np_, differing, float(np.abs(got - want).max()))
                assert got_min.tobytes() == want_min.tobytes(), (estimator, np_, got_min, want_min)


def test_metis_between_hosts_has_the_same_bits():
    with e2e.TempDir() as d:
        for estimator in ("symmetric", "asymmetric"):
            want, _ = attention_output(d, 1, estimator, "relu")
            for np_, host_size in ((2, 1), (3, 2), (4, 1)):
                got, _ = attention_output(d, np_, estimator, "relu",
                                          ["--partition", "metis", "--host-size", host_size])
                differing = int(np.count_nonzero(got.view(np.uint64) != want.view(np.uint64)))
                assert differing == 0, "%s np %d --host-size %d: %d values differ from np 1 (largest by %g)" % (
                    estimator, np_, host_size, differing, float(np.abs(got - want).max()))


if __name__ == "__main__":
    e2e.main(globals())
