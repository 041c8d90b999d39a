"""Feature maps phi: R^d -> R^m for the queries and keys of linear attention, as torch modules (graphrf.torch
re-exports them). The formulas are those of `graphrf attention --feature relu|elu1|favor|dark` (the library's
FeatureMap), and the random frequencies are the ones it draws for the same draw, m and seed (`--feature-seed SEED`
draws head h's frequencies with SEED + h):

    ReLU        phi(x) = max(x, 0) + epsilon
    EluPlusOne  phi(x) = elu(x) + 1 (Katharopoulos et al. 2020, "Transformers are RNNs")
    FAVORPlus   phi(x)_i = m^-1/2 exp(w_i^T x - |x|^2/2), x = d^-1/4 input, w_i the rows of `omega`
                (Choromanski et al. 2021, "Rethinking attention with Performers"): E phi(q)^T phi(k) = exp(q^T k/sqrt(d))
    DARK        phi(x)_i = m^-1/2 exp(g_i^T M x - |M x|^2/2), x = d^-1/4 input, M (r x d) learnable, Sigma = M^T M
                (Farzam et al. 2026, "Data-aware random feature kernel for transformers", Eq. 3, Prop. 4.1):
                E phi(q)^T phi(k) = exp(q^T Sigma k / sqrt(d))

forward(x, role): x is ... x d. The random maps stabilise the exponentials as the library does (the factors cancel
in attention): role="query" subtracts each row's largest logit, role="key" the largest logit of all keys (of each
head for H x N x d), both without gradient, then add stabilizer_epsilon; role=None gives the unshifted estimator
(no shift, no epsilon; may overflow). ReLU and EluPlusOne ignore role.
"""
import math

import torch

from . import _graphrf

__all__ = ["ReLU", "EluPlusOne", "FAVORPlus", "DARK"]

_ROLES = (None, "query", "key")


def _check_role(role):
    if role not in _ROLES:
        raise ValueError(f"feature map: role must be 'query', 'key' or None (got {role!r})")


class ReLU(torch.nn.Module):
    """phi(x) = max(x, 0) + epsilon (`--feature relu --relu-epsilon EPSILON`); m = d."""

    def __init__(self, epsilon=1e-8):
        super().__init__()
        if not (epsilon >= 0 and math.isfinite(epsilon)):
            raise ValueError(f"ReLU: epsilon must be finite and >= 0 (got {epsilon})")
        self.epsilon = float(epsilon)

    def forward(self, x, role=None):
        _check_role(role)
        return torch.relu(x) + self.epsilon

    def extra_repr(self):
        return f"epsilon={self.epsilon}"


class EluPlusOne(torch.nn.Module):
    """phi(x) = elu(x) + 1 (`--feature elu1`); m = d."""

    def forward(self, x, role=None):
        _check_role(role)
        return torch.nn.functional.elu(x) + 1.0


def _positive_features(logits, role, epsilon, m):
    """m^-1/2 (exp(logits - shift) + epsilon) with the library's shifts (module docstring), or the unshifted
    estimator for role=None."""
    _check_role(role)
    if role is None:
        return torch.exp(logits) / math.sqrt(m)
    if role == "query":
        shift = logits.amax(dim=-1, keepdim=True)
    else:
        shift = logits.amax(dim=(-2, -1), keepdim=True) if logits.dim() >= 2 else logits.amax()
    return (torch.exp(logits - shift.detach()) + epsilon) / math.sqrt(m)


class _RandomFeatures(torch.nn.Module):
    """What FAVORPlus and DARK share: m Gaussian frequencies of dimension `dim` drawn by the library, redrawable."""

    def __init__(self, name, d, dim, m, draw, antithetic, seed, stabilizer_epsilon):
        super().__init__()
        self.d, self.m = int(d), int(dim if m is None else m)
        if self.d < 1:
            raise ValueError(f"{name}: d must be >= 1 (got {d})")
        if not (stabilizer_epsilon >= 0 and math.isfinite(stabilizer_epsilon)):
            raise ValueError(f"{name}: stabilizer_epsilon must be finite and >= 0 (got {stabilizer_epsilon})")
        self.draw, self.antithetic, self.seed = draw, bool(antithetic), int(seed)
        self.stabilizer_epsilon = float(stabilizer_epsilon)
        self._dim = int(dim)
        # float64 as drawn (forward casts to the input's dtype), so the frequencies are the library's bits.
        self.register_buffer("_gaussian", self._frequencies(self.seed, torch.float64))

    def _frequencies(self, seed, dtype):
        return torch.from_numpy(_graphrf.draw_frequencies(self.m, self._dim, self.draw, self.antithetic, seed)).to(dtype)

    def redraw(self, seed=None):
        """Fresh frequencies: those of `seed`, or of the next seed (seed + 1) when None."""
        self.seed = self.seed + 1 if seed is None else int(seed)
        with torch.no_grad():
            self._gaussian.copy_(self._frequencies(self.seed, self._gaussian.dtype))

    def _scaled(self, x):
        if x.shape[-1] != self.d:
            raise ValueError(f"{type(self).__name__}: input has {x.shape[-1]} columns, expected d = {self.d}")
        return x * self.d ** -0.25

    def extra_repr(self):
        return f"d={self.d}, m={self.m}, draw={self.draw}, antithetic={self.antithetic}, seed={self.seed}"


class FAVORPlus(_RandomFeatures):
    """Performer's positive random features (`--feature favor --draw DRAW --num-features M --seed SEED`).
    draw: "iid", "orthogonal" (blocks of d orthogonal rows with chi norms) or "orthogonal+pnc"; antithetic: rows
    m/2.. are minus rows ..m/2. m defaults to d. `omega` (m x d) are the frequencies; redraw() draws new ones."""

    def __init__(self, d, m=None, draw="orthogonal", antithetic=False, seed=1, stabilizer_epsilon=1e-6):
        super().__init__("FAVORPlus", d, d, m, draw, antithetic, seed, stabilizer_epsilon)

    @property
    def omega(self):
        return self._gaussian

    def forward(self, x, role=None):
        x = self._scaled(x)
        logits = x @ self.omega.to(x.dtype).T - 0.5 * (x * x).sum(dim=-1, keepdim=True)
        return _positive_features(logits, role, self.stabilizer_epsilon, self.m)


class DARK(_RandomFeatures):
    """DARKFormer's features (`--feature dark --dark-sigma FILE`) with a learnable M (r x d, a Parameter; Sigma =
    M^T M). M: the initial M (default the d x d identity: FAVOR+), 1 <= r <= d as --dark-sigma reads it. The
    Gaussian vectors g_i (m x r, `gaussian`) are drawn like FAVORPlus's; the frequencies are omega = G M."""

    def __init__(self, d, m=None, M=None, draw="orthogonal", antithetic=False, seed=1, stabilizer_epsilon=1e-6):
        M = torch.eye(int(d)) if M is None else torch.as_tensor(M).detach().clone()
        if M.dim() != 2 or M.shape[1] != d or not 1 <= M.shape[0] <= d:
            raise ValueError(f"DARK: M must be r x d with 1 <= r <= d = {d} (got shape {tuple(M.shape)})")
        if not torch.isfinite(M).all():
            raise ValueError("DARK: M has NaN or infinite entries")
        super().__init__("DARK", d, M.shape[0], d if m is None else m, draw, antithetic, seed, stabilizer_epsilon)
        self.M = torch.nn.Parameter(M.to(torch.get_default_dtype()) if not M.is_floating_point() else M)

    @property
    def gaussian(self):
        return self._gaussian

    @property
    def omega(self):
        return self.gaussian.to(self.M.dtype) @ self.M

    def sigma(self):
        """Sigma = M^T M (d x d)."""
        return self.M.T @ self.M

    def forward(self, x, role=None):
        x = self._scaled(x)
        mx = x @ self.M.to(x.dtype).T  # ... x r
        logits = mx @ self.gaussian.to(x.dtype).T - 0.5 * (mx * mx).sum(dim=-1, keepdim=True)
        return _positive_features(logits, role, self.stabilizer_epsilon, self.m)

    def save_sigma(self, path):
        """Writes M (r x d, float64) as /M of the HDF5 file `graphrf attention --feature dark --dark-sigma PATH`
        reads (needs h5py, Debian: python3-h5py)."""
        try:
            import h5py
        except ImportError as e:
            raise ImportError("DARK.save_sigma needs h5py (Debian: python3-h5py)") from e
        with h5py.File(path, "w") as f:
            f["M"] = self.M.detach().to(torch.float64).cpu().numpy()
