"""Healthy runs whose loss cannot reach zero, or learns late, or is noisy — and their truly flat twins.

The loss-curve reading (``probes.loss_curve``) once judged progress as a fraction of the whole loss, as if every
loss could reach 0. Many cannot: a reconstruction scored by BCE against grey-level targets bottoms out at the
targets' entropy, a label-smoothed or label-noisy cross-entropy at its smoothing entropy, a regression at its
target noise variance, an ELBO at its KL cost. A VAE often sits on a plateau (posterior collapse) before its
encoder starts to matter, and a run on tiny correlated batches wanders. These dev analogues (written for this
fix; the held-out ``outside`` suite is never tuned on) each have a healthy twin, which ``watch`` must not warn
on, and faulty twins whose loss is truly flat (LR 0, a frozen model, ``optimizer.step`` missing), which it must
still call flat.

Everything is tiny, seeded, CPU-fast and downloads nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F

# ---------------------------------------------------------------------------------------------- data


def _g(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def strokes(n: int, seed: int) -> torch.Tensor:
    """MNIST-like 8 x 8 grey-level images (N, 64) in [0, 1]: two random bars, blurred, plus pixel noise.

    Grey levels (not 0/1) give BCE a floor well above zero: the mean binary entropy of the targets.
    """
    g = _g(seed)
    img = torch.zeros(n, 1, 8, 8)
    rows = torch.randint(1, 7, (n,), generator=g)
    cols = torch.randint(1, 7, (n,), generator=g)
    img[torch.arange(n), 0, rows, :] = 1.0
    img[torch.arange(n), 0, :, cols] = 1.0
    img = F.avg_pool2d(F.pad(img, (1, 1, 1, 1), mode="replicate"), 3, 1)
    img = (0.8 * img + 0.1 + 0.05 * torch.randn(n, 1, 8, 8, generator=g)).clamp(0.02, 0.98)
    return img.flatten(1)


def smoothed_classes(n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Ten Gaussian classes with 20% of the labels redrawn at random: a cross-entropy floor far above zero."""
    gp, g = _g(777), _g(seed)
    centers = torch.randn(10, 16, generator=gp) * 1.2
    y = torch.randint(0, 10, (n,), generator=g)
    x = centers[y] + torch.randn(n, 16, generator=g)
    flip = torch.rand(n, generator=g) < 0.2
    return x, torch.where(flip, torch.randint(0, 10, (n,), generator=g), y)


def noisy_regression(n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """A smooth target plus noise of variance 1: MSE can fall from about 2 to 1, never to 0."""
    gp, g = _g(778), _g(seed)
    w = torch.randn(8, 1, generator=gp)
    x = torch.randn(n, 8, generator=g)
    return x, torch.tanh(x @ w / 2) * 1.5 + torch.randn(n, 1, generator=g)


def chain_graphs(n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Node features on a ring (N, 6, 4) and a per-graph target; stored sorted by a latent.

    Read in shuffled blocks of neighbours (``order="blocks"``), consecutive tiny batches are correlated (similar
    graphs), so the loss wanders over several steps on top of its step-to-step noise.
    """
    g = _g(seed)
    z = torch.sort(torch.rand(n, generator=g)).values  # the latent the data are sorted by
    feats = z[:, None, None] * 2 - 1 + 0.5 * torch.randn(n, 6, 4, generator=g)
    y = 1.5 + 0.5 * torch.sin(4 * z)[:, None] + 0.5 * feats.mean((1, 2))[:, None] + 0.1 * torch.randn(n, 1, generator=g)
    return feats, y


# ---------------------------------------------------------------------------------------------- models


class AE(nn.Module):
    """64 -> 8 -> 64 autoencoder returning logits (scored with BCE-with-logits against grey levels)."""

    def __init__(self) -> None:
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 8))
        self.dec = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 64))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.dec(self.enc(x))


class VAE(nn.Module):
    """64 -> (mu, logvar) in 4-d -> 64 logits; the loss is the negative ELBO per image (BCE sum + KL)."""

    def __init__(self) -> None:
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 8))
        self.dec = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 64))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        mu, logvar = self.enc(x).chunk(2, -1)
        z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
        return self.dec(z), mu, logvar


def elbo_loss(out: Any, x: torch.Tensor) -> torch.Tensor:
    """Negative ELBO per image: Bernoulli reconstruction (BCE summed over pixels) plus the KL to N(0, I)."""
    logits, mu, logvar = out
    rec = F.binary_cross_entropy_with_logits(logits, x, reduction="sum") / len(x)
    kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp()) / len(x)
    return rec + kl


class MessagePassing(nn.Module):
    """Two rounds of ring message passing with ``index_add_``, mean readout, a linear head (N, 1)."""

    def __init__(self) -> None:
        super().__init__()
        self.inp, self.msg, self.head = nn.Linear(4, 16), nn.Linear(16, 16), nn.Linear(16, 1)
        k = 6
        self.src = torch.arange(k)
        self.dst = (self.src + 1) % k

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.inp(x))
        for _ in range(2):
            agg = torch.zeros_like(h).index_add_(1, self.dst, self.msg(h)[:, self.src])
            h = torch.relu(h + agg)
        return self.head(h.mean(1))


# ---------------------------------------------------------------------------------------------- families


@dataclass(frozen=True)
class Setup:
    """A family: its model, data, loss, optimizer habit and run length.

    Attributes:
        name: Id.
        model: A fresh model.
        data: ``data(n, seed) -> (x, y)``.
        loss: ``loss(model_output, y)`` (a module or a function).
        opt: ``adam`` or ``sgd``.
        lr: Its healthy LR.
        steps: Steps its healthy recipe trains for.
        bs: Batch size.
        order: ``shuffled``, or ``blocks`` (blocks of 16 stored neighbours in shuffled order: correlated
            consecutive batches).
        num_classes: For a classifier (the watch's chance level), else None.
    """

    name: str
    model: Callable[[], nn.Module]
    data: Callable[[int, int], tuple[Any, Any]]
    loss: Any
    opt: str = "adam"
    lr: float = 3e-3
    steps: int = 200
    bs: int = 32
    order: str = "shuffled"
    num_classes: int | None = None


SETUPS: tuple[Setup, ...] = (
    Setup("bce_autoencoder", AE, lambda n, s: (strokes(n, s), None), nn.BCEWithLogitsLoss(), lr=3e-3),
    Setup("vae_elbo", VAE, lambda n, s: (strokes(n, s), None), elbo_loss, lr=2e-3, steps=240),
    Setup("smoothed_classifier", lambda: nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 10)),
          smoothed_classes, nn.CrossEntropyLoss(label_smoothing=0.1), lr=3e-3, num_classes=10),
    Setup("noisy_regression", lambda: nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1)),
          noisy_regression, nn.MSELoss(), lr=3e-3),
    Setup("message_passing_tiny", MessagePassing, chain_graphs, nn.MSELoss(), lr=3e-3, steps=240, bs=4,
          order="blocks"),
)
SETUP = {s.name: s for s in SETUPS}

FAULTS = ("lr_zero", "frozen_model", "step_missing")
"""Faults whose loss is truly flat: the watch must still call these runs flat."""


@dataclass(frozen=True)
class Variant:
    """One run: a family, and a fault (None: the healthy recipe)."""

    setup: str
    fault: str | None = None
    seed: int = 0

    @property
    def name(self) -> str:
        return f"{self.fault or 'healthy'}/{self.setup}/s{self.seed}"

    @property
    def healthy(self) -> bool:
        return self.fault is None


def variants(seeds: tuple[int, ...] = (0,)) -> list[Variant]:
    """Every family healthy and with every flat fault."""
    return [Variant(s.name, f, seed) for s in SETUPS for f in (None, *FAULTS) for seed in seeds]


@dataclass
class Built:
    """A built run: model, loss, optimizer, data and a trainable stand-in when the model is frozen."""

    setup: Setup
    model: nn.Module
    loss_fn: Any
    optimizer: torch.optim.Optimizer
    x: Any
    y: Any
    fault: str | None


def build(v: Variant) -> Built:
    """The run of a variant (seeded)."""
    s = SETUP[v.setup]
    torch.manual_seed(v.seed)
    model = s.model()
    x, y = s.data(1024, v.seed)
    params = list(model.parameters())
    if v.fault == "frozen_model":
        # the model frozen by mistake (a fine-tuning freeze applied to everything): only a head that the loss
        # does not depend on is left in the optimizer
        for p in params:
            p.requires_grad_(False)
        params = [nn.Parameter(torch.zeros(1))]
    lr = 0.0 if v.fault == "lr_zero" else s.lr
    opt = torch.optim.Adam(params, lr=lr) if s.opt == "adam" else torch.optim.SGD(params, lr=lr, momentum=0.9)
    return Built(s, model, s.loss, opt, x, y, v.fault)


def batches(b: Built, seed: int) -> Iterator[tuple[Any, Any]]:
    """Endless batches: reshuffled each epoch, or blocks of stored neighbours in a shuffled order."""
    n, bs = len(b.x), b.setup.bs
    g = _g(seed + 99)
    while True:
        if b.setup.order == "shuffled":
            order = torch.randperm(n, generator=g)
        else:  # blocks of 16 neighbours, the blocks shuffled: consecutive batches alike
            order = (torch.randperm(n // 16, generator=g)[:, None] * 16 + torch.arange(16)).flatten()
        for i in range(0, n - bs + 1, bs):
            idx = order[i:i + bs]
            yield b.x[idx], (b.x[idx] if b.y is None else b.y[idx])


def train(b: Built, steps: int, w: Any = None, seed: int = 0) -> list[float]:
    """Train (under the watch ``w`` when given); return the losses."""
    it = batches(b, seed)
    losses = []
    stand_in = b.optimizer.param_groups[0]["params"][0] if b.fault == "frozen_model" else None
    for _ in range(steps):
        b.optimizer.zero_grad(set_to_none=True)
        xb, yb = next(it)
        loss = b.loss_fn(b.model(xb), yb)
        if stand_in is not None:
            loss = loss + 0.0 * stand_in.sum()  # keeps backward legal: nothing the model owns gets a gradient
        loss.backward()
        if b.fault != "step_missing":
            b.optimizer.step()
        losses.append(float(loss.detach()))
        if w is not None:
            w.step(loss.detach())
    return losses


def curve(v: Variant) -> list[float]:
    """The raw loss curve of a variant, trained without probes."""
    b = build(v)
    return train(b, b.setup.steps, seed=v.seed)


def watch_variant(v: Variant, every: int = 20) -> Any:
    """Train a variant under ``watch``; return the consultation."""
    from trainopt import watch

    b = build(v)
    with watch(b.model, b.optimizer, every=every, loss_fn=b.loss_fn, num_classes=b.setup.num_classes) as w:
        train(b, b.setup.steps, w, seed=v.seed)
    return w.consultation
