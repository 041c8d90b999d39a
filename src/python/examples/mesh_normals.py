#!/usr/bin/env python3
"""Learning a GRF mask: predicting the vertex normals of a mesh from noisy vertex positions with one block of
GRF-masked linear attention (the mesh task of Reid et al. 2025a, "Linear transformer topological masking with
graph random features"; DARK features from Farzam et al. 2026, "Data-aware random feature kernel for
transformers").

    PYTHONPATH=build/python python3 src/python/examples/mesh_normals.py fandisk.obj

The tokens are the mesh's vertices and the graph its edges (graphrf.Graph.load reads the OBJ file). Targets:
the unit normals of the clean mesh (area-weighted face normals summed at each vertex). Inputs: the vertex
positions plus Gaussian noise of `--noise` times the mean edge length (one fixed draw). Held out: a fixed random
`--held-out` share of the vertices; the loss, 1 - cos(predicted, true normal), is trained on the others only, and
the held-out figure is the loss on the held-out vertices after the last step. Four attention variants, each
trained with the same seeds, steps and optimiser:

    unmasked            linear attention D^-1 phi_q phi_k^T v over all vertices
    masked, fixed f     GRF mask M_hat = Phi Phi^T, Phi = sum_t f_t M_t, f the diffusion kernel's modulation
    masked, learned f   the same, f a Parameter initialised there
    + DARK Sigma        learned f and DARK features with a learned M (Sigma = M^T M, initialised at FAVOR+)

The first three use FAVOR+ features (the same draws). Prints one markdown table (mean ± sd over `--seeds`
seeds: model initialisation, walks and feature draws change with the seed; the data and split do not).
"""
import argparse
import math
import time

import numpy as np
import torch

import graphrf
import graphrf.torch as gtorch

VARIANTS = [("unmasked", False, False, False), ("masked, fixed f", True, False, False),
            ("masked, learned f", True, True, False), ("masked, learned f + DARK Sigma", True, True, True)]


def read_obj(path):
    """The vertices (V x 3) and triangles (F x 3, 0-based; polygons as fans) of an OBJ file."""
    vertices, faces = [], []
    with open(path) as text:
        for line in text:
            fields = line.split()
            if not fields:
                continue
            if fields[0] == "v":
                vertices.append([float(x) for x in fields[1:4]])
            elif fields[0] == "f":
                # "12", "12/3", "12/3/4" or "12//4"; negative references count back from the last vertex.
                ids = [int(ref.split("/")[0]) for ref in fields[1:]]
                ids = [i - 1 if i > 0 else len(vertices) + i for i in ids]
                faces.extend([ids[0], ids[k], ids[k + 1]] for k in range(1, len(ids) - 1))
    return np.array(vertices, dtype=np.float64), np.array(faces, dtype=np.int64).reshape(-1, 3)


def vertex_normals(vertices, faces):
    """Unit normals: each triangle's normal times its area (half the cross product), summed at its vertices."""
    a, b, c = (vertices[faces[:, k]] for k in range(3))
    face = np.cross(b - a, c - a)
    normals = np.zeros_like(vertices)
    for k in range(3):
        np.add.at(normals, faces[:, k], face)
    length = np.linalg.norm(normals, axis=1, keepdims=True)
    return normals / np.maximum(length, 1e-300)


def diffusion_f(beta, n_terms):
    """The modulation of the diffusion kernel exp(-beta L) = e^-beta exp(beta W): f_t = e^(-beta/2) (beta/2)^t / t!,
    so that f * f = alpha (what `graphrf grf --kernel diffusion --beta BETA` deposits)."""
    return [math.exp(-beta / 2) * (beta / 2) ** t / math.factorial(t) for t in range(n_terms)]


class MeshData:
    """One mesh: the graph, noisy inputs and clean normals in the graph's canonical node order, and the split."""

    def __init__(self, path, noise, held_out, data_seed):
        self.graph = graphrf.Graph.load(path)
        vertices, faces = read_obj(path)
        index = np.asarray(self.graph.node_ids, dtype=np.int64) - 1  # OBJ vertex k is node k + 1
        normals = vertex_normals(vertices, faces)[index]
        vertices = vertices[index]
        # Centred and scaled to unit RMS radius, so that the learning rates do not depend on the mesh's units.
        vertices = vertices - vertices.mean(axis=0)
        vertices /= math.sqrt((vertices ** 2).sum(axis=1).mean())
        edges = self.graph.adjacency("raw").tocoo()
        self.mean_edge = float(np.linalg.norm(vertices[edges.row] - vertices[edges.col], axis=1).mean())
        rng = np.random.default_rng(data_seed)
        noisy = vertices + rng.normal(scale=noise * self.mean_edge, size=vertices.shape)
        self.inputs = torch.from_numpy(noisy).float()
        self.targets = torch.from_numpy(normals).float()
        n = self.graph.num_nodes
        order = rng.permutation(n)
        n_held_out = int(round(held_out * n))
        self.test = torch.from_numpy(np.sort(order[:n_held_out]))
        self.train = torch.from_numpy(np.sort(order[n_held_out:]))


class NormalModel(torch.nn.Module):
    """Vertex positions -> embedding h (MLP) -> one attention block (linear Q, K, V, feature map, masked or
    unmasked linear attention, H heads) -> MLP head on [h, attention] -> unit normal."""

    def __init__(self, walks, f, masked, learn_f, dark, width, heads, features, seed):
        super().__init__()
        torch.manual_seed(seed)
        self.heads, self.head_dim = heads, width // heads
        self.embed = torch.nn.Sequential(torch.nn.Linear(3, width), torch.nn.GELU(), torch.nn.Linear(width, width))
        self.q, self.k, self.v = (torch.nn.Linear(width, width) for _ in range(3))
        feature_map = gtorch.DARK if dark else gtorch.FAVORPlus
        self.feature = feature_map(self.head_dim, m=features, seed=seed)
        self.attention = gtorch.MaskedLinearAttention(walks, f, learn_f=learn_f) if masked else None
        self.head = torch.nn.Sequential(torch.nn.Linear(2 * width, width), torch.nn.GELU(), torch.nn.Linear(width, 3))

    def split_heads(self, x):  # N x width -> H x N x head_dim
        return x.reshape(x.shape[0], self.heads, self.head_dim).transpose(0, 1)

    def forward(self, x):
        h = self.embed(x)
        q, k, v = (self.split_heads(p(h)) for p in (self.q, self.k, self.v))
        phi_q, phi_k = self.feature(q, role="query"), self.feature(k, role="key")
        if self.attention is not None:
            a = self.attention(phi_q, phi_k, v)
        else:  # D^-1 phi_q (phi_k^T v): every vertex attends to every vertex
            a = (phi_q @ (phi_k.transpose(1, 2) @ v)) / (phi_q @ phi_k.sum(dim=1, keepdim=True).transpose(1, 2))
        a = a.transpose(0, 1).reshape(x.shape[0], -1)
        return torch.nn.functional.normalize(self.head(torch.cat([h, a], dim=1)), dim=1)


def cosine_loss(predicted, target):
    return (1.0 - (predicted * target).sum(dim=1)).mean()


def train(data, walks, f, variant, args, seed):
    name, masked, learn_f, dark = variant
    model = NormalModel(walks, f, masked, learn_f, dark, args.width, args.heads, args.features, seed)
    optimiser = torch.optim.Adam(model.parameters(), lr=args.lr)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, args.steps)
    train_losses = []
    for _ in range(args.steps):
        optimiser.zero_grad()
        loss = cosine_loss(model(data.inputs)[data.train], data.targets[data.train])
        loss.backward()
        optimiser.step()
        schedule.step()
        train_losses.append(loss.item())
    with torch.no_grad():
        predicted = model(data.inputs)
        held_out = cosine_loss(predicted[data.test], data.targets[data.test]).item()
        cosines = (predicted[data.test] * data.targets[data.test]).sum(dim=1).clamp(-1, 1)
        angle = torch.rad2deg(torch.acos(cosines)).mean().item()
    learned_f = model.attention.f.detach().tolist() if masked else None
    return {"train": train_losses, "held_out": held_out, "angle": angle, "f": learned_f, "model": model}


def mean_sd(values, digits=4):
    values = np.asarray(values, dtype=np.float64)
    sd = values.std(ddof=1) if len(values) > 1 else 0.0
    return f"{values.mean():.{digits}f} ± {sd:.{digits}f}"


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("mesh", help="a triangle mesh (OBJ), e.g. trimesh's models/fandisk.obj")
    parser.add_argument("--steps", type=int, default=300, help="Adam steps per run (default 300)")
    parser.add_argument("--seeds", type=int, default=3, help="runs per variant, seeds 1..SEEDS (default 3)")
    parser.add_argument("--lr", type=float, default=1e-2, help="Adam learning rate, cosine-annealed (default 0.01)")
    parser.add_argument("--noise", type=float, default=1.0, help="noise sd in mean edge lengths (default 1)")
    parser.add_argument("--held-out", type=float, default=0.2, help="share of vertices held out (default 0.2)")
    parser.add_argument("--data-seed", type=int, default=0, help="seed of the noise and the split (default 0)")
    parser.add_argument("--walkers", type=int, default=8, help="walkers per vertex (default 8)")
    parser.add_argument("--p-halt", type=float, default=0.2, help="walk halting probability (default 0.2)")
    parser.add_argument("--max-length", type=int, default=6, help="longest walk (default 6)")
    parser.add_argument("--beta", type=float, default=1.0, help="diffusion kernel beta of the fixed f (default 1)")
    parser.add_argument("--width", type=int, default=32, help="embedding width (default 32)")
    parser.add_argument("--heads", type=int, default=2, help="attention heads (default 2)")
    parser.add_argument("--features", type=int, default=16, help="random features per head (default 16)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    parser.add_argument("--variants", default="0,1,2,3", help="which variants to run, by row number (default all)")
    return parser.parse_args(argv)


def run(args, log=print):
    """Trains every variant for every seed; returns (data, f, {variant name: [result per seed]})."""
    torch.set_num_threads(args.threads)
    data = MeshData(args.mesh, args.noise, args.held_out, args.data_seed)
    f = diffusion_f(args.beta, args.max_length + 1)
    variants = [VARIANTS[int(i)] for i in args.variants.split(",")]
    results = {variant[0]: [] for variant in variants}
    for seed in range(1, args.seeds + 1):
        walks = graphrf.walk(data.graph, walkers=args.walkers, p_halt=args.p_halt, max_length=args.max_length, seed=seed)
        for variant in variants:
            began = time.perf_counter()
            result = train(data, walks, f, variant, args, seed)
            result["seconds"] = time.perf_counter() - began
            results[variant[0]].append(result)
            log(f"seed {seed} {variant[0]:32s} train {result['train'][0]:.4f} -> {result['train'][-1]:.4f}  "
                f"held-out {result['held_out']:.4f} ({result['angle']:.1f} deg)  {result['seconds']:.1f} s"
                + (f"  f {np.round(result['f'], 3).tolist()}" if result["f"] is not None else ""))
    return data, f, results


def main():
    args = parse_args()
    start = time.perf_counter()
    data, f, results = run(args, log=lambda line: print(line, flush=True))
    print(f"\n{data.graph.num_nodes} vertices, {len(data.train)} trained, {len(data.test)} held out; noise "
          f"{args.noise} mean edge lengths; {args.steps} Adam steps (lr {args.lr}), {args.seeds} seeds; walks: "
          f"{args.walkers} walkers, p_halt {args.p_halt}, max length {args.max_length}; fixed f: diffusion beta "
          f"{args.beta} = {np.round(f, 4).tolist()}\n")
    print("| attention | train loss | held-out loss 1 - cos | held-out mean angle (deg) | s per run |")
    print("|---|---|---|---|---|")
    for name, runs in results.items():
        print(f"| {name} | {mean_sd([r['train'][-1] for r in runs])} | {mean_sd([r['held_out'] for r in runs])} | "
              f"{mean_sd([r['angle'] for r in runs], 1)} | {np.mean([r['seconds'] for r in runs]):.1f} |")
    print(f"\nwall time {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
