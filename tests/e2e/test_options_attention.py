"""Every option of `attention` acts or is refused (option_coverage.py): read from its --help, each set to a
non-default value in a tiny single-rank run, which must change the RESULT line, the log or the output, or stop
with one error line naming it."""

import os

import h5py
import numpy as np

import option_coverage as oc
from option_coverage import changes, DROP

import graphrf_e2e as e2e


def test_attention():
    with e2e.TempDir() as d:
        inputs = oc.Inputs(d)
        rng = np.random.default_rng(2)
        qkv = os.path.join(d, "qkv.h5")
        e2e.write_qkv(qkv, rng.standard_normal((6, 2)), rng.standard_normal((6, 2)), rng.standard_normal((6, 2)))
        frames = os.path.join(d, "frames.h5")
        with h5py.File(frames, "w") as f:
            f["frames/points"] = rng.random((2, 12, 3))
        dark_sigma = os.path.join(d, "dark_sigma.h5")
        with h5py.File(dark_sigma, "w") as f:
            f["sigma"] = np.diag([0.5, 2.0])  # d = 2, as the Q/K above
        on_frames = {"graph": DROP, "frames": frames, "knn": 3}
        negative_f = {"alpha": "1,-0.9", "on_bad_normalizer": "clamp"}  # a negative normaliser: clamped
        table = dict(oc.graph_entries(inputs), **oc.run_entries(inputs))
        table.update(oc.kernel_entries())
        table.update(oc.walk_entries(inputs))
        table.update(oc.reference_entries())
        table.update({
            "estimator": changes(estimator="asymmetric"),
            "qkv": changes(qkv=qkv),
            "synthetic": changes(synthetic="3,2"),
            "heads": changes(heads=2),
            "head-betas": changes(base={"heads": 2}, head_betas="1,2"),
            "shared-walks": changes(base={"heads": 2, "head_betas": "1,2"}, shared_walks=None),
            "on-bad-normalizer": changes(base=negative_f, on_bad_normalizer="skip"),
            "normalizer-eps": changes(base=negative_f, normalizer_eps=0.5),
            "frames": changes(graph=DROP, frames=frames, knn=3),
            "frames-batch": changes(base=on_frames, frames_batch=3, logs="batches of 3"),
            "frames-dtype": changes(base=on_frames, frames_dtype="float32"),
            "feature": changes(feature="favor"),
            "num-features": changes(base={"feature": "favor"}, num_features=4),
            "draw": changes(base={"feature": "favor"}, draw="iid"),
            "antithetic": changes(base={"feature": "favor"}, antithetic=None),
            "relu-scale": changes(relu_scale=None),
            "relu-epsilon": changes(relu_epsilon=0.5),
            "stabilizer-epsilon": changes(base={"feature": "favor"}, stabilizer_epsilon=0.5),
            "feature-seed": changes(base={"feature": "favor"}, feature_seed=7),
            "dark-ridge": changes(base={"feature": "dark"}, dark_ridge=0.5),
            "dark-sigma": changes(base={"feature": "dark", "qkv": qkv}, dark_sigma=dark_sigma),
            "save-grf": changes(save_grf=None),
            "by-length": changes(base={"save_grf": None}, by_length=None),
            "out": changes(out=DROP),
        })
        oc.check_command("attention", table, {"graph": inputs.graph, "walkers": 4, "out": "x"}, d)


if __name__ == "__main__":
    e2e.main(globals())
