"""A zoo of small, seeded, CPU-fast training runs, each with one real fault, plus healthy controls.

Each case builds a fresh run; ``train_plain`` trains it without probes (then ``examine`` looks at it) and
``train_watched`` trains it under ``watch``. Precision fault: pure FP16 weights (``model.half()``) trained on the
CPU with no loss scaling (CPU supports FP16 matmuls here), so gradients really underflow.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

D, C = 16, 4

# Tiny models on a shared machine: extra threads only contend (and make the timing probes' numbers noise).
torch.set_num_threads(1)


def clusters(n: int, seed: int, scale: float = 1.0, shift: float = 0.0, shuffle_labels: bool = False,
             noise: float = 1.0) -> tuple[torch.Tensor, torch.Tensor]:
    """Gaussian class clusters (learnable), optionally rescaled inputs or shuffled labels."""
    g = torch.Generator().manual_seed(1234)
    centers = torch.randn(C, D, generator=g) * 1.5
    g2 = torch.Generator().manual_seed(seed)
    y = torch.randint(0, C, (n,), generator=g2)
    x = centers[y] + noise * torch.randn(n, D, generator=g2)
    if shuffle_labels:
        y = y[torch.randperm(n, generator=g2)]
    return x * scale + shift, y


def mlp(width: int = 32, depth: int = 2, act: type[nn.Module] = nn.ReLU, out: int = C) -> nn.Sequential:
    layers: list[nn.Module] = []
    d = D
    for _ in range(depth):
        layers += [nn.Linear(d, width), act()]
        d = width
    layers.append(nn.Linear(d, out))
    return nn.Sequential(*layers)


class SlowData:
    """A loader whose batches take ``delay`` seconds each (an input-bound loop)."""

    def __init__(self, x: torch.Tensor, y: torch.Tensor, bs: int, delay: float) -> None:
        self.x, self.y, self.bs, self.delay = x, y, bs, delay

    def __iter__(self) -> Any:
        for i in range(0, len(self.x) - self.bs + 1, self.bs):
            time.sleep(self.delay)
            yield self.x[i:i + self.bs], self.y[i:i + self.bs]

    def __len__(self) -> int:
        return len(self.x) // self.bs


class Batches:
    """Cycling minibatches over tensors: the stored (random) order first, then a new order every epoch, as a
    ``DataLoader(shuffle=True)`` gives them (the same batches every epoch is a fault of its own)."""

    def __init__(self, x: torch.Tensor, y: Any, bs: int) -> None:
        self.x, self.y, self.bs = x, y, bs

    def __iter__(self) -> Any:
        g = torch.Generator().manual_seed(4321)
        idx: Any = None
        while True:
            for i in range(0, len(self.x) - self.bs + 1, self.bs):
                sl = slice(i, i + self.bs) if idx is None else idx[i:i + self.bs]
                yield self.x[sl], self.y[sl]
            idx = torch.randperm(len(self.x), generator=g)


@dataclass
class Run:
    """One built run."""

    model: nn.Module
    loss_fn: Callable[[Any, Any], torch.Tensor]
    optimizer: torch.optim.Optimizer
    data: Any
    val: tuple[Any, Any] | None = None
    num_classes: int | None = C
    steps: int = 40
    zero_grad: bool = True
    loader: Any = None
    metrics_every: int = 10
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Case:
    """A zoo entry: how to build the run and what a correct diagnosis contains."""

    name: str
    build: Callable[[], Run]
    findings: tuple[str, ...] = ()
    route: str | None = None
    healthy: bool = False
    examine_steps: int | None = None  # plain steps before examine (default: the run's steps)
    modes: tuple[str, ...] = ("watch", "examine")  # loop faults only a watch over the loop can see


def _opt(model: nn.Module, kind: str, lr: float, **kw: Any) -> torch.optim.Optimizer:
    return {"adam": torch.optim.Adam, "sgd": torch.optim.SGD, "adamw": torch.optim.AdamW}[kind](
        model.parameters(), lr=lr, **kw)


def _cls_run(model: nn.Module, opt: str = "adam", lr: float = 1e-3, *, loss_fn: Any = None, n: int = 512,
             bs: int = 64, val_n: int = 256, steps: int = 40, data_kw: dict[str, Any] | None = None,
             **kw: Any) -> Run:
    data_kw = data_kw or {}
    x, y = clusters(n, 1, **data_kw)
    vx, vy = clusters(val_n, 2, **{k: v for k, v in data_kw.items() if k != "shuffle_labels"})
    return Run(model, loss_fn or nn.CrossEntropyLoss(), _opt(model, opt, lr, **kw.pop("opt_kw", {})),
               Batches(x, y, bs), (vx, vy), steps=steps, **kw)


def _seed(fn: Callable[[], Run]) -> Callable[[], Run]:
    def build() -> Run:
        torch.manual_seed(0)
        return fn()
    build.__name__ = fn.__name__
    return build


@_seed
def healthy_mlp() -> Run:
    return _cls_run(mlp(), "adam", 3e-3)


@_seed
def healthy_cnn() -> Run:
    g = torch.Generator().manual_seed(3)
    n = 256
    y = torch.randint(0, C, (n,), generator=g)
    pat = torch.randn(C, 1, 8, 8, generator=g)
    x = pat[y] + 0.8 * torch.randn(n, 1, 8, 8, generator=g)
    vy = torch.randint(0, C, (128,), generator=g)
    vx = pat[vy] + 0.8 * torch.randn(128, 1, 8, 8, generator=g)
    model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                          nn.Linear(8 * 16, C))
    return Run(model, nn.CrossEntropyLoss(), torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9),
               Batches(x, y, 32), (vx, vy), steps=40)


@_seed
def lr_too_high() -> Run:
    return _cls_run(mlp(), "adam", 0.5, steps=30)


@_seed
def lr_too_low() -> Run:
    return _cls_run(mlp(), "adam", 1e-7)


def _unsafe_ce(logits: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """A hand-written cross-entropy that takes log of probabilities (log 0 = -inf, 0 * -inf = NaN)."""
    p = torch.softmax(logits, dim=1)
    onehot = torch.nn.functional.one_hot(y, logits.shape[1]).float()
    return -(onehot * torch.log(p)).sum(1).mean()


@_seed
def nan_custom_loss() -> Run:
    model = mlp()
    with torch.no_grad():
        model[-1].weight.mul_(400.0)  # confident logits: softmax saturates to exact 0/1
    return _cls_run(model, "adam", 1e-3, loss_fn=_unsafe_ce, steps=20)


class TinyRNN(nn.Module):
    """A vanilla ReLU RNN with an over-scaled recurrent matrix: gradients explode through time."""

    def __init__(self, gain: float = 3.0) -> None:
        super().__init__()
        self.rnn = nn.RNN(D, 32, nonlinearity="relu", batch_first=True)
        self.head = nn.Linear(32, C)
        with torch.no_grad():
            nn.init.orthogonal_(self.rnn.weight_hh_l0, gain=gain)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h, _ = self.rnn(x)
        return self.head(h[:, -1])


@_seed
def exploding_rnn() -> Run:
    g = torch.Generator().manual_seed(5)
    n, t = 128, 12
    y = torch.randint(0, C, (n,), generator=g)
    x = torch.randn(n, t, D, generator=g) * 0.5 + y.view(-1, 1, 1) * 0.1
    model = TinyRNN()
    return Run(model, nn.CrossEntropyLoss(), torch.optim.SGD(model.parameters(), lr=1e-6), Batches(x, y, 32),
               None, steps=12)


@_seed
def vanishing_sigmoid() -> Run:
    return _cls_run(mlp(width=32, depth=10, act=nn.Sigmoid), "sgd", 0.05)


@_seed
def dead_relu() -> Run:
    model = mlp(width=64, depth=2)
    with torch.no_grad():
        for m in model:
            if isinstance(m, nn.Linear) and m.out_features == 64:
                m.bias.fill_(-8.0)
    return _cls_run(model, "adam", 1e-3)


@_seed
def frozen_layers() -> Run:
    model = mlp(width=64, depth=3)
    for m in list(model)[:-1]:
        for p in m.parameters():
            p.requires_grad_(False)
    run = _cls_run(model, "adam", 1e-3)
    return run


@_seed
def missing_zero_grad() -> Run:
    run = _cls_run(mlp(), "sgd", 0.01)
    run.zero_grad = False
    return run


@_seed
def double_softmax() -> Run:
    model = nn.Sequential(*mlp(), nn.Softmax(dim=1))
    return _cls_run(model, "adam", 1e-3)


@_seed
def shuffled_labels() -> Run:
    return _cls_run(mlp(), "adam", 3e-3, data_kw={"shuffle_labels": True})


@_seed
def overfit_tiny() -> Run:
    x, y = clusters(16, 1, noise=3.0)
    vx, vy = clusters(256, 2, noise=3.0)
    model = mlp(width=128, depth=2)
    return Run(model, nn.CrossEntropyLoss(), torch.optim.Adam(model.parameters(), lr=1e-2), Batches(x, y, 16),
               (vx, vy), steps=60)


@_seed
def slow_data() -> Run:
    x, y = clusters(512, 1)
    run = _cls_run(mlp(), "adam", 3e-3, steps=12)
    run.data = SlowData(x, y, 32, 0.03)
    run.loader = SlowData(x, y, 32, 0.03)
    return run


@_seed
def unnormalized_inputs() -> Run:
    return _cls_run(mlp(), "sgd", 1e-3, data_kw={"scale": 40.0, "shift": 120.0})


@_seed
def fp16_no_scaler() -> Run:
    model = mlp(width=32, depth=4).half()
    x, y = clusters(512, 1)
    vx, vy = clusters(256, 2)

    def loss_fn(out: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        # the loss is summed over a large virtual batch and then averaged: tiny per-element gradients
        return nn.functional.cross_entropy(out.float(), t) * 1e-4

    return Run(model, loss_fn, torch.optim.SGD(model.parameters(), lr=1.0), Batches(x.half(), y, 64),
               (vx.half(), vy), steps=20)


CASES: tuple[Case, ...] = (
    Case("healthy_mlp", healthy_mlp, healthy=True),
    Case("healthy_cnn", healthy_cnn, healthy=True),
    Case("lr_too_high", lr_too_high, ("MS-UPD-01",), "learning-rate-scheduling", examine_steps=5),
    Case("lr_too_low", lr_too_low, ("MS-UPD-02",), "learning-rate-scheduling"),
    Case("nan_custom_loss", nan_custom_loss, ("MS-NAN-02",), "loss-functions-and-objectives", examine_steps=0),
    Case("exploding_rnn", exploding_rnn, ("MS-GRAD-01",), "gradient-management", examine_steps=0),
    Case("vanishing_sigmoid", vanishing_sigmoid, ("MS-GRAD-02",), "gradient-management"),
    Case("dead_relu", dead_relu, ("MS-DEAD-01",), "gradient-management"),
    Case("frozen_layers", frozen_layers, ("MS-FROZEN-01",), "training-loop-architecture"),
    Case("missing_zero_grad", missing_zero_grad, ("MS-ZERO-01",), "training-loop-architecture", modes=("watch",)),
    Case("double_softmax", double_softmax, ("MS-ACT-01",), "loss-functions-and-objectives"),
    Case("shuffled_labels", shuffled_labels, ("MS-CHANCE-01",), "training-loop-architecture"),
    Case("overfit_tiny", overfit_tiny, ("MS-GAP-01",), "overfitting-prevention"),
    Case("slow_data", slow_data, ("MS-DATA-01",), "pytorch-engineering"),
    Case("unnormalized_inputs", unnormalized_inputs, ("MS-INPUT-01",), "training-loop-architecture"),
    Case("fp16_no_scaler", fp16_no_scaler, ("MS-FP16-01",), "batch-size-and-memory-tradeoffs"),
)
CASE_BY_NAME = {c.name: c for c in CASES}


def _accuracy(model: nn.Module, x: Any, y: Any) -> float:
    was = model.training
    model.eval()
    with torch.no_grad():
        acc = float((model(x).argmax(1) == y).float().mean())
    model.train(was)
    return acc


def train(run: Run, steps: int, w: Any = None) -> list[float]:
    """The plain training loop (the way a user writes it); ``w`` is a watch or None."""
    it = iter(run.data)
    losses = []
    for step in range(steps):
        x, y = next(it)
        if run.zero_grad:
            run.optimizer.zero_grad(set_to_none=True)
        loss = run.loss_fn(run.model(x), y)
        loss.backward()
        run.optimizer.step()
        losses.append(loss.detach())
        if w is not None:
            metrics = {}
            if run.val is not None and (step + 1) % run.metrics_every == 0:
                metrics = {"train_acc": _accuracy(run.model, x, y), "val_acc": _accuracy(run.model, *run.val)}
            w.step(loss, **metrics)
    return [float(v) for v in losses]


def fit_batch(model: nn.Module, optimizer: Any, x: Any, y: Any, steps: int, w: Any = None) -> None:
    """Train ``model`` on one fixed batch with cross-entropy, the plainest loop there is (watched when ``w``)."""
    for _ in range(steps):
        optimizer.zero_grad(set_to_none=True)
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        if w is not None:
            w.step(loss)


def examine_case(case: Case) -> Any:
    """Train the case without probes, then examine it; returns the consultation."""
    from expert.consultation import Consultation
    from probes import examine

    run = case.build()
    pre = run.steps if case.examine_steps is None else case.examine_steps
    train(run, pre)
    batch = next(iter(run.data))
    obs = examine(run.model, run.loss_fn, batch, run.optimizer, num_classes=run.num_classes, val_batch=run.val,
                  loader=run.loader)
    c = Consultation()
    c.add(obs)
    c.run()
    return c


def watch_case(case: Case, every: int = 10) -> Any:
    """Train the case under watch; returns the watch (``w.consultation`` holds the diagnosis)."""
    from trainopt import watch

    run = case.build()
    with watch(run.model, run.optimizer, every=every, loss_fn=run.loss_fn, num_classes=run.num_classes) as w:
        train(run, run.steps, w)
    return w


def summary(c: Any) -> dict[str, Any]:
    d = c.diagnosis
    return {"status": d.status, "findings": {f["id"]: f["severity"] for f in d.findings},
            "routes": {r["skill"]: r["role"] for r in d.routes}}


def finite(x: float) -> bool:
    return math.isfinite(x)
