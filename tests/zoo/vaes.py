"""Small real VAEs, healthy and faulty, for the always-on watch's "no false alarms" checks (issues 17/21).

Healthy VAE losses sit on a large constant the model cannot remove, which once made their clear, slowing
descent read as flat from the first step:

* ``mean_bce``: per-pixel mean BCE against grey-level images (the images' own entropy, ~0.5 nats a pixel, is
  most of the loss) plus the KL per pixel;
* ``gauss_fixed``: a unit-variance Gaussian likelihood per image, written out with its ``0.5 log 2 pi`` a pixel
  (59 nats an image that no model removes, against a learnable part of about 2);
* ``gauss_nll``: the same with a learned per-pixel variance;
* ``beta_warmup``: BCE summed per image plus ``beta * KL`` with beta warmed up from 0 (the KL rises while the
  reconstruction falls, holding the total level);
* ``sum_bce``: BCE and KL summed over pixels *and* the batch (``reduction="sum"``, the classic VAE example): a
  loss in the thousands and a gradient norm to match, while Adam's steps do not depend on the scale.

Faulty twins: ``mean_image`` (the decoder is fed zeros instead of the latent by mistake: the loss drops to the
mean image's and stops there, as a collapsed posterior does), ``lr_zero`` (nothing moves). The data are blurred
blobs at random places in an 8 x 8 grid (grey levels in (0, 1)); everything is tiny, seeded and CPU-fast.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F

PIXELS = 64
LATENT = 4
HEALTHY = ("mean_bce", "gauss_fixed", "gauss_nll", "beta_warmup", "sum_bce")
FAULTS = ("mean_image", "lr_zero")


def blobs(n: int, seed: int, grey: float = 0.0) -> torch.Tensor:
    """(n, 64) grey-level images in (0, 1): one or two Gaussian blobs of random place and width, plus noise.

    ``grey`` (0 to 1) pulls every pixel that far towards 0.5: the images' own entropy, the floor a per-pixel
    BCE cannot go under, rises towards ln 2 and the part a model can learn shrinks.
    """
    g = torch.Generator().manual_seed(seed)
    yy, xx = torch.meshgrid(torch.arange(8.0), torch.arange(8.0), indexing="ij")
    img = torch.zeros(n, 8, 8)
    for _ in range(2):
        cy, cx = torch.rand(n, 1, 1, generator=g) * 7, torch.rand(n, 1, 1, generator=g) * 7
        w = 0.8 + 1.5 * torch.rand(n, 1, 1, generator=g)
        on = (torch.rand(n, 1, 1, generator=g) < 0.7).float()
        img = img + on * torch.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * w ** 2))
    img = 0.85 * img.clamp(max=1.0) + 0.08 + 0.04 * torch.randn(n, 8, 8, generator=g)
    return ((1 - grey) * img.clamp(0.02, 0.98) + 0.5 * grey).flatten(1)


class VAE(nn.Module):
    """64 -> (mu, logvar) in 4-d -> 64 outputs (logits or means), and a learned per-pixel log-variance if asked."""

    def __init__(self, feed_zeros: bool = False, learn_variance: bool = False) -> None:
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(PIXELS, 48), nn.ReLU(), nn.Linear(48, 2 * LATENT))
        self.dec = nn.Sequential(nn.Linear(LATENT, 48), nn.ReLU(), nn.Linear(48, PIXELS))
        # the Gaussian likelihood's per-pixel log-variance (only that recipe has it: an unused parameter gets no
        # gradient, which the watch rightly reports)
        self.log_var_x = nn.Parameter(torch.zeros(PIXELS)) if learn_variance else None
        self.feed_zeros = feed_zeros

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        mu, logvar = self.enc(x).chunk(2, -1)
        z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
        # the fault: the decoder gets zeros (a leftover debugging line), so it can only learn the mean image
        return self.dec(torch.zeros_like(z) if self.feed_zeros else z), mu, logvar


def _kl(mu: torch.Tensor, logvar: torch.Tensor) -> torch.Tensor:
    """KL(q(z|x) || N(0, I)) per example, summed over the latent."""
    return -0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum(-1)


def loss_of(kind: str, model: VAE, out: Any, x: torch.Tensor, step: int) -> torch.Tensor:
    """The loss of recipe ``kind`` (the faulty twins use ``mean_bce``'s)."""
    logits, mu, logvar = out
    if kind == "gauss_nll":
        lv = model.log_var_x
        assert lv is not None
        nll = 0.5 * (math.log(2 * math.pi) + lv + (x - torch.sigmoid(logits)) ** 2 / lv.exp())
        return nll.sum(-1).mean() + _kl(mu, logvar).mean()
    if kind == "gauss_fixed":
        nll = 0.5 * (math.log(2 * math.pi) + (x - torch.sigmoid(logits)) ** 2)
        return nll.sum(-1).mean() + _kl(mu, logvar).mean() / PIXELS
    if kind == "beta_warmup":
        beta = min(1.0, step / 150)
        rec = F.binary_cross_entropy_with_logits(logits, x, reduction="none").sum(-1).mean()
        return rec + beta * _kl(mu, logvar).mean()
    if kind == "sum_bce":
        return F.binary_cross_entropy_with_logits(logits, x, reduction="sum") + _kl(mu, logvar).sum()
    # per-pixel mean BCE, KL spread over the pixels
    return F.binary_cross_entropy_with_logits(logits, x) + _kl(mu, logvar).mean() / PIXELS


@dataclass(frozen=True)
class Run:
    """One run: a recipe (healthy) or a fault, a seed, its length and batch size."""

    kind: str
    seed: int = 0
    steps: int = 300
    bs: int = 64
    lr: float = 2e-3
    grey: float = 0.0

    @property
    def healthy(self) -> bool:
        return self.kind in HEALTHY

    @property
    def name(self) -> str:
        return f"{self.kind}/s{self.seed}/n{self.steps}/lr{self.lr:g}/grey{self.grey:g}"


def train(run: Run, watch: bool = True, **options: Any) -> Any:
    """Train ``run`` (under ``trainopt.watch`` when asked); the consultation, or the losses without the watch."""
    torch.manual_seed(run.seed)
    x = blobs(2048, run.seed, run.grey)
    model = VAE(feed_zeros=run.kind == "mean_image", learn_variance=run.kind == "gauss_nll")
    lr = 0.0 if run.kind == "lr_zero" else run.lr
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    recipe = "mean_bce" if run.kind in FAULTS else run.kind
    g = torch.Generator().manual_seed(run.seed + 7)
    losses: list[float] = []

    def loop(w: Any = None) -> None:
        for step in range(run.steps):
            xb = x[torch.randint(0, len(x), (run.bs,), generator=g)]
            loss = loss_of(recipe, model, model(xb), xb, step)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            losses.append(float(loss.detach()))
            if w is not None:
                w.step(loss.detach())

    if not watch:
        loop()
        return losses
    from trainopt import watch as watch_

    with watch_(model, opt, **options) as w:
        loop(w)
    return w.consultation
