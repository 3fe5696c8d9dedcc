"""Generated runs: each fault injected into several architectures, optimizers and seeds, plus healthy habits.

The hand-written zoo (``tests.zoo``) holds one run per fault, written with the probes in mind. This module
builds runs the probes were not written for: a fault is a set of changes (LR, loss, output activation, loop
order, data, precision...) applied to any of four small architectures (MLP, CNN, LSTM, transformer) trained
with the habits people have (momentum, Adam, AdamW, schedules, dropout, augmentation, label smoothing,
accumulation, clipping, AMP). ``bench.eval_probes`` runs every variant under ``watch`` and through
``examine`` and scores the diagnoses.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import torch
from torch import nn

from tests.zoo import TinyRNN as ReluRNN  # the hand-written zoo's exploding ReLU RNN, same sizes

D, C, T = 16, 4, 8
ARCHS = ("mlp", "cnn", "lstm", "transformer")


# ---------------------------------------------------------------------------------------------- models


class CNN(nn.Module):
    """Two conv blocks and a linear head on 1x8x8 images."""

    def __init__(self, act: type[nn.Module] = nn.ReLU, dropout: float = 0.1) -> None:
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), act(), nn.Conv2d(8, 8, 3, padding=1), act(),
                                      nn.MaxPool2d(2))
        self.drop = nn.Dropout(dropout)
        self.head = nn.Linear(8 * 16, C)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.drop(self.features(x).flatten(1)))


class LSTMNet(nn.Module):
    """A one-layer LSTM over (batch, time, features); the last state feeds a linear head."""

    def __init__(self, dropout: float = 0.1) -> None:
        super().__init__()
        self.rnn = nn.LSTM(D, 32, batch_first=True)
        self.drop = nn.Dropout(dropout)
        self.head = nn.Linear(32, C)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h, _ = self.rnn(x)
        return self.head(self.drop(h[:, -1]))


class TinyTransformer(nn.Module):
    """An embedding, one pre-norm encoder layer, mean pooling and a linear head."""

    def __init__(self, dropout: float = 0.1) -> None:
        super().__init__()
        self.embed = nn.Linear(D, 32)
        self.encoder = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(32, 2, 64, dropout=dropout, batch_first=True, norm_first=True), 1,
            enable_nested_tensor=False)
        self.head = nn.Linear(32, C)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.encoder(self.embed(x)).mean(1))


def mlp(width: int = 32, depth: int = 2, act: type[nn.Module] = nn.ReLU, dropout: float = 0.1) -> nn.Sequential:
    """Linear/activation blocks (dropout after the first) and a linear head."""
    layers: list[nn.Module] = []
    d = D
    for i in range(depth):
        layers += [nn.Linear(d, width), act()]
        if i == 0 and dropout:
            layers.append(nn.Dropout(dropout))
        d = width
    layers.append(nn.Linear(d, C))
    return nn.Sequential(*layers)


def build_model(arch: str, *, act: type[nn.Module] = nn.ReLU, depth: int = 2, dropout: float = 0.1) -> nn.Module:
    """A fresh model of one architecture."""
    if arch == "mlp":
        return mlp(depth=depth, act=act, dropout=dropout)
    if arch == "cnn":
        return CNN(act, dropout)
    if arch == "lstm":
        return LSTMNet(dropout)
    if arch == "rnn":
        return ReluRNN()
    if arch == "transformer":
        return TinyTransformer(dropout)
    raise ValueError(arch)


def head(model: nn.Module) -> nn.Linear:
    """The output layer (the last Linear registered)."""
    return [m for m in model.modules() if isinstance(m, nn.Linear)][-1]


# ---------------------------------------------------------------------------------------------- data


def make_data(arch: str, n: int, seed: int, noise: float = 1.0) -> tuple[torch.Tensor, torch.Tensor]:
    """Learnable class-conditional inputs shaped for ``arch`` (fixed class prototypes, seeded samples)."""
    g = torch.Generator().manual_seed(1234)
    g2 = torch.Generator().manual_seed(seed)
    y = torch.randint(0, C, (n,), generator=g2)
    if arch == "mlp":
        protos = torch.randn(C, D, generator=g) * 1.5
        return protos[y] + noise * torch.randn(n, D, generator=g2), y
    if arch == "cnn":
        protos = torch.randn(C, 1, 8, 8, generator=g)
        return protos[y] + 0.8 * noise * torch.randn(n, 1, 8, 8, generator=g2), y
    protos = torch.randn(C, D, generator=g)
    return protos[y].unsqueeze(1) + noise * torch.randn(n, T, D, generator=g2), y


class Loader:
    """Cycling minibatches; optional per-batch delay (an input-bound loop) and on-the-fly augmentation."""

    def __init__(self, x: torch.Tensor, y: torch.Tensor, bs: int, delay: float = 0.0, augment: bool = False,
                 seed: int = 0) -> None:
        self.x, self.y, self.bs, self.delay, self.augment = x, y, bs, delay, augment
        self.g = torch.Generator().manual_seed(seed + 99)

    def __iter__(self) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
        while True:
            for i in range(0, len(self.x) - self.bs + 1, self.bs):
                if self.delay:
                    time.sleep(self.delay)
                x = self.x[i:i + self.bs]
                if self.augment:
                    # heavy augmentation: strong noise, random sign flips of whole features and scaling
                    x = x * (0.7 + 0.6 * torch.rand(x.shape[0], *([1] * (x.ndim - 1)), generator=self.g))
                    x = x + 0.5 * torch.randn(x.shape, generator=self.g)
                    if x.ndim == 4:
                        flip = torch.rand(x.shape[0], generator=self.g) < 0.5
                        x = torch.where(flip.view(-1, 1, 1, 1), x.flip(-1), x)
                yield x, self.y[i:i + self.bs]


# ---------------------------------------------------------------------------------------------- optimizers


class Lion(torch.optim.Optimizer):
    """Lion (Chen et al., 2023): sign of an interpolated momentum, decoupled weight decay."""

    def __init__(self, params: Any, lr: float = 1e-4, betas: tuple[float, float] = (0.9, 0.99),
                 weight_decay: float = 0.0) -> None:
        super().__init__(params, {"lr": lr, "betas": betas, "weight_decay": weight_decay})

    @torch.no_grad()
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One Lion update."""
        loss = closure() if closure is not None else None
        for g in self.param_groups:
            b1, b2 = g["betas"]
            for p in g["params"]:
                if p.grad is None:
                    continue
                st = self.state[p]
                if not st:
                    st["exp_avg"] = torch.zeros_like(p)
                m = st["exp_avg"]
                p.mul_(1 - g["lr"] * g["weight_decay"])
                p.add_(torch.sign(m * b1 + p.grad * (1 - b1)), alpha=-g["lr"])
                m.mul_(b2).add_(p.grad, alpha=1 - b2)
        return loss


BASE_LR = {"sgd_momentum": 0.05, "nesterov": 0.05, "adam": 2e-3, "adamw": 2e-3, "lion": 2e-4}


def make_optimizer(kind: str, params: Any, lr: float, wd: float | None = None) -> torch.optim.Optimizer:
    """An optimizer by habit name."""
    if kind == "sgd_momentum":
        return torch.optim.SGD(params, lr=lr, momentum=0.9, weight_decay=5e-4 if wd is None else wd)
    if kind == "nesterov":
        return torch.optim.SGD(params, lr=lr, momentum=0.9, nesterov=True, weight_decay=5e-4 if wd is None else wd)
    if kind == "adam":
        return torch.optim.Adam(params, lr=lr)
    if kind == "adamw":
        return torch.optim.AdamW(params, lr=lr, weight_decay=0.01 if wd is None else wd)
    if kind == "lion":
        return Lion(params, lr=lr, weight_decay=0.1 if wd is None else wd)
    raise ValueError(kind)


# ---------------------------------------------------------------------------------------------- a run


@dataclass
class Config:
    """Everything a generated run varies (defaults: a healthy run)."""

    arch: str = "mlp"
    opt: str = "adamw"
    seed: int = 0
    lr_mult: float = 1.0
    wd: float | None = None
    steps: int = 60
    bs: int = 32
    n: int = 512
    loss: str = "ce"  # ce | nll | bce_logits | custom_nan | ce_smooth | ce_wrapped | bce_wrapped | fp16_tiny
    out_act: str | None = None  # softmax | sigmoid | log_softmax appended to the model
    zero_grad: str = "ok"  # ok | missing | misplaced
    accum: int = 1
    accum_scaled: bool = True
    freeze: bool = False
    opt_subset: bool = False
    shuffle_labels: bool = False
    tiny: bool = False
    slow: float = 0.0
    input_scale: tuple[float, float] = (1.0, 0.0)
    eval_mode: bool = False
    fp16: bool = False
    dead: bool = False
    deep_sigmoid: bool = False
    schedule: str | None = None  # warmup_cosine | step | onecycle | restarts
    clip: float | None = None
    amp: str | None = None  # bf16 | fp16_scaler
    augment: bool = False
    finetune: bool = False
    dropout: float = 0.1  # every model trains with some dropout; the heavy_dropout habit raises it
    wd_strength: float | None = None  # weight decay set so that lr * wd per step (decay as a fraction) is this


@dataclass
class Run:
    """A built run, ready to train."""

    cfg: Config
    model: nn.Module
    loss_fn: Callable[[Any, Any], torch.Tensor]
    optimizer: torch.optim.Optimizer
    data: Loader
    val: tuple[torch.Tensor, Any]
    scheduler: Any = None
    scaler: Any = None
    num_classes: int | None = C
    options: dict[str, Any] = field(default_factory=dict)


def _unsafe_ce(logits: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """A hand-written cross-entropy through log(softmax): log 0 = -inf and 0 * -inf = NaN on confident logits."""
    p = torch.softmax(logits.float(), dim=1)
    onehot = nn.functional.one_hot(y, logits.shape[1]).float()
    return -(onehot * torch.log(p)).sum(1).mean()


def _bce_onehot(loss: nn.Module) -> Callable[[torch.Tensor, torch.Tensor], torch.Tensor]:
    def bce(out: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return loss(out, nn.functional.one_hot(y, out.shape[1]).to(out.dtype))
    bce.__name__ = "bce_onehot"
    return bce


def _scheduler(kind: str | None, opt: torch.optim.Optimizer, steps: int) -> Any:
    if kind is None:
        return None
    S = torch.optim.lr_scheduler
    if kind == "warmup_cosine":
        w = max(2, steps // 10)
        return S.SequentialLR(opt, [S.LinearLR(opt, 0.1, 1.0, w), S.CosineAnnealingLR(opt, steps - w)], [w])
    if kind == "step":
        return S.StepLR(opt, max(1, steps // 3), 0.3)
    if kind == "onecycle":
        return S.OneCycleLR(opt, max_lr=opt.param_groups[0]["lr"], total_steps=steps + 1)
    if kind == "restarts":
        return S.CosineAnnealingWarmRestarts(opt, max(2, steps // 3))
    raise ValueError(kind)


def build(cfg: Config) -> Run:
    """Build the run a config describes (seeded: the same config gives the same run)."""
    torch.manual_seed(cfg.seed)
    if cfg.deep_sigmoid:
        model = mlp(depth=10, act=nn.Sigmoid, dropout=0.0) if cfg.arch == "mlp" else build_model(cfg.arch)
    else:
        model = build_model(cfg.arch, dropout=cfg.dropout)
    n = 16 if cfg.tiny else cfg.n
    x, y = make_data(cfg.arch, n, 1 + cfg.seed, noise=3.0 if cfg.tiny else 1.0)
    vx, vy = make_data(cfg.arch, 256, 1000 + cfg.seed, noise=3.0 if cfg.tiny else 1.0)
    if cfg.shuffle_labels:
        # inputs and labels shuffled apart: every label moved by a cycling offset, so each input's label is spread
        # evenly over the classes (a random permutation of 512 labels leaves, by chance, a learnable 2-3% excess)
        y = (y + torch.arange(n)) % C
    scale, shift = cfg.input_scale
    x, vx = x * scale + shift, vx * scale + shift
    if cfg.finetune:
        _pretrain(model, x, y)
    if cfg.dead:
        # one hidden layer dies: its pre-activations sit far below zero for every input
        hidden = [m for m in model.modules() if isinstance(m, (nn.Linear, nn.Conv2d)) and m is not head(model)]
        with torch.no_grad():
            hidden[-1].bias.fill_(-12.0)
    if cfg.loss == "custom_nan":
        with torch.no_grad():
            head(model).weight.mul_(400.0)  # confident logits: the softmax saturates to exact 0 and 1
    if cfg.out_act is not None:
        act = {"softmax": nn.Softmax(dim=1), "sigmoid": nn.Sigmoid(), "log_softmax": nn.LogSoftmax(dim=1)}
        model = nn.Sequential(model, act[cfg.out_act])
    if cfg.freeze:
        for p in model.parameters():
            p.requires_grad_(False)
        for p in head(model).parameters():
            p.requires_grad_(True)
    if cfg.fp16:
        model = model.half()
        x, vx = x.half(), vx.half()
    params = list(head(model).parameters()) if cfg.opt_subset else [p for p in model.parameters()
                                                                      if p.requires_grad]
    lr = (BASE_LR[cfg.opt] * (0.3 if cfg.finetune else 1.0)) * cfg.lr_mult
    wd = cfg.wd
    if cfg.wd_strength is not None:
        # SGD's decay enters through momentum, which multiplies it by 1 / (1 - momentum)
        wd = cfg.wd_strength / lr * (0.1 if cfg.opt in ("sgd_momentum", "nesterov") else 1.0)
    opt = make_optimizer(cfg.opt, params, lr, wd)
    loss_fn: Callable[[Any, Any], torch.Tensor]
    if cfg.loss == "ce":
        loss_fn = nn.CrossEntropyLoss()
    elif cfg.loss == "ce_smooth":
        loss_fn = nn.CrossEntropyLoss(label_smoothing=0.1)
    elif cfg.loss == "nll":
        loss_fn = nn.NLLLoss()
    elif cfg.loss == "bce_logits":
        loss_fn = nn.BCEWithLogitsLoss()  # the loop turns the labels into one-hot float targets
    elif cfg.loss == "bce_wrapped":
        loss_fn = _bce_onehot(nn.BCEWithLogitsLoss())
    elif cfg.loss == "ce_wrapped":
        def loss_fn(out: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
            # the user's own function around a built-in loss
            return nn.functional.cross_entropy(out, t)
    elif cfg.loss == "custom_nan":
        loss_fn = _unsafe_ce
    elif cfg.loss == "fp16_tiny":
        def loss_fn(out: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
            # the sum over a large virtual batch, averaged: tiny per-element gradients
            return nn.functional.cross_entropy(out.float(), t) * 1e-6
    else:
        raise ValueError(cfg.loss)
    if cfg.eval_mode:
        model.eval()
    scaler = None
    if cfg.amp == "fp16_scaler":
        # a huge initial scale overflows on the first steps: GradScaler skips them (info, not a fault)
        scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 40, growth_interval=10)
    return Run(cfg, model, loss_fn, opt, Loader(x, y, 8 if cfg.tiny else cfg.bs, cfg.slow, cfg.augment, cfg.seed),
               (vx, vy), _scheduler(cfg.schedule, opt, cfg.steps * 1), scaler)


def _pretrain(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> None:
    """Fine-tuning starts from trained weights: a short pre-training, then a fresh head."""
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
    for i in range(0, min(len(x), 320), 32):
        opt.zero_grad()
        nn.functional.cross_entropy(model(x[i:i + 32]), y[i:i + 32]).backward()
        opt.step()
    h = head(model)
    h.reset_parameters()


def accuracy(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> float:
    """Accuracy in eval mode, the model's modes left as found."""
    modes = [(m, m.training) for m in model.modules()]
    model.eval()
    with torch.no_grad():
        acc = float((model(x).float().argmax(1) == y).float().mean())
    for m, t in modes:
        m.training = t
    return acc


def train(run: Run, steps: int, w: Any = None, metrics_every: int = 10) -> list[float]:
    """The user's loop, with the config's habits (and fault); ``w`` is a watch or None."""
    cfg, model, opt, scaler = run.cfg, run.model, run.optimizer, run.scaler
    it = iter(run.data)
    losses: list[float] = []
    for step in range(steps):
        if cfg.zero_grad == "ok":
            opt.zero_grad(set_to_none=True)
        total = None
        for _ in range(cfg.accum):
            x, y = next(it)
            ctx = torch.autocast("cpu", dtype=torch.bfloat16) if cfg.amp == "bf16" else \
                torch.autocast("cpu", dtype=torch.float16) if cfg.amp == "fp16_scaler" else _null()
            with ctx:
                loss = run.loss_fn(model(x), targets(cfg, y))
            part = loss / cfg.accum if (cfg.accum > 1 and cfg.accum_scaled) else loss
            (scaler.scale(part) if scaler is not None else part).backward()
            total = loss.detach() if total is None else total + loss.detach()
        if cfg.zero_grad == "misplaced":
            opt.zero_grad(set_to_none=True)  # the fault: the gradients are cleared before the step uses them
        if cfg.clip is not None:
            if scaler is not None:
                scaler.unscale_(opt)
            nn.utils.clip_grad_norm_(model.parameters(), cfg.clip)
        if scaler is not None:
            scaler.step(opt)
            scaler.update()
        else:
            opt.step()
        if run.scheduler is not None:
            run.scheduler.step()
        mean_loss = total / cfg.accum
        losses.append(mean_loss)
        if w is not None:
            m = {}
            if (step + 1) % metrics_every == 0:
                m = {"train_acc": accuracy(model, x, y), "val_acc": accuracy(model, *run.val)}
            w.step(mean_loss, **m)
    return [float(v) for v in losses]


def targets(cfg: Config, y: torch.Tensor) -> torch.Tensor:
    """What the loop hands the loss: class indices, or one-hot floats for BCE-with-logits."""
    return nn.functional.one_hot(y, C).float() if cfg.loss == "bce_logits" else y


class _null:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *a: Any) -> None:
        return None


# ---------------------------------------------------------------------------------------------- the catalogue


@dataclass(frozen=True)
class Fault:
    """A fault: the config changes that inject it, where it applies, and what a right diagnosis contains.

    Attributes:
        name: Fault id.
        change: Config fields to set.
        route: Skills any of which is a right primary route.
        findings: Finding ids any of which names the fault.
        archs: Architectures it is injected into.
        opts: Optimizers it is combined with.
    """

    name: str
    change: dict[str, Any]
    route: tuple[str, ...]
    findings: tuple[str, ...]
    archs: tuple[str, ...] = ARCHS
    opts: tuple[str, ...] = ("adamw", "sgd_momentum")
    modes: tuple[str, ...] = ("watch", "examine")


LRS, LOSS, GRAD, LOOP = ("learning-rate-scheduling", "loss-functions-and-objectives", "gradient-management",
                         "training-loop-architecture")

FAULTS: tuple[Fault, ...] = (
    # named by the update ratio, or, once a step has already turned the weights non-finite, by DX-NAN-06 ("the
    # update was too large: LR too high"); the update ratio cannot be measured on NaN weights
    Fault("lr_too_high", {"lr_mult": 300.0}, (LRS,), ("MS-UPD-01", "DX-NAN-06"), opts=("adamw", "adam")),
    Fault("lr_too_high_sgd", {"lr_mult": 100.0}, (LRS, GRAD), ("MS-UPD-01", "DX-NAN-06", "MS-GRAD-01"),
          opts=("sgd_momentum",)),
    Fault("lr_too_low", {"lr_mult": 1e-4}, (LRS,), ("MS-UPD-02", "MS-UPD-03")),
    Fault("nan_custom_loss", {"loss": "custom_nan"}, (LOSS,), ("MS-NAN-02",)),
    Fault("exploding_rnn", {"lr_mult": 1e-4}, (GRAD,), ("MS-GRAD-01", "MS-GRAD-03"), archs=("rnn",),
          opts=("sgd_momentum", "adamw")),
    Fault("vanishing_sigmoid", {"deep_sigmoid": True}, (GRAD,), ("MS-GRAD-02", "MS-SAT-01"), archs=("mlp",),
          opts=("sgd_momentum", "nesterov")),
    Fault("dead_relu", {"dead": True}, (GRAD,), ("MS-DEAD-01",), archs=("mlp", "cnn")),
    Fault("frozen_layers", {"freeze": True}, (LOOP,), ("MS-FROZEN-01",)),
    Fault("params_missing_from_optimizer", {"opt_subset": True}, (LOOP,), ("MS-OPT-01",)),
    Fault("missing_zero_grad", {"zero_grad": "missing"}, (LOOP,), ("MS-ZERO-01",), modes=("watch",)),
    # loop-order faults: only a watch over the user's loop sees them (examine runs between the user's steps,
    # where the last step's gradient is normally still there, so a left-over gradient proves nothing)
    Fault("misplaced_zero_grad", {"zero_grad": "misplaced"}, (LOOP,), ("MS-ZERO-02",),
          modes=("watch",)),
    # seed 000 routes gradient accumulation to batch-size-and-memory-tradeoffs as well as gradient-management
    Fault("accumulation_unscaled", {"accum": 4, "accum_scaled": False}, (GRAD, LOOP, "batch-size-and-memory-tradeoffs"),
          ("AP-12",), modes=("watch",)),
    Fault("double_softmax", {"out_act": "softmax"}, (LOSS,), ("MS-ACT-01",)),
    Fault("sigmoid_into_bce_with_logits", {"out_act": "sigmoid", "loss": "bce_logits"}, (LOSS,), ("MS-ACT-02",)),
    # a built-in loss inside the user's own function: examine names it by its values on the batch (watch never
    # sees the targets, so it cannot)
    Fault("double_softmax_wrapped_loss", {"out_act": "softmax", "loss": "ce_wrapped"}, (LOSS,), ("MS-ACT-01",),
          modes=("examine",)),
    Fault("sigmoid_into_wrapped_bce_with_logits", {"out_act": "sigmoid", "loss": "bce_wrapped"}, (LOSS,),
          ("MS-ACT-02",), modes=("examine",)),
    Fault("softmax_into_nll", {"out_act": "softmax", "loss": "nll"}, (LOSS,), ("MS-ACT-03", "MS-LOSS-01")),
    Fault("shuffled_labels", {"shuffle_labels": True}, (LOOP,), ("MS-CHANCE-01", "MS-CHANCE-02")),
    Fault("overfit_tiny", {"tiny": True, "steps": 80}, ("overfitting-prevention",), ("MS-GAP-01",),
          opts=("adam",)),
    Fault("slow_data", {"slow": 0.02, "steps": 24}, ("pytorch-engineering",), ("MS-DATA-01",), opts=("adamw",)),
    Fault("unnormalized_inputs", {"input_scale": (40.0, 120.0)}, (LOOP,), ("MS-INPUT-01",)),
    Fault("eval_mode_left_on", {"eval_mode": True}, (LOOP,), ("MS-EVAL-01",)),
    Fault("fp16_no_scaler", {"fp16": True, "loss": "fp16_tiny", "lr_mult": 20.0}, ("batch-size-and-memory-tradeoffs",),
          ("MS-FP16-01",), archs=("mlp", "cnn"), opts=("sgd_momentum",)),
    # weight decay far too strong for the LR: the weights shrink to nothing and their gradients with them (only a
    # watch sees the weights shrink; examine sees one moment)
    Fault("weight_decay_collapse", {"wd_strength": 0.1, "steps": 100}, ("optimization-algorithms",),
          ("MS-WNORM-01", "MS-WNORM-02"), opts=("adamw",), modes=("watch",)),
    Fault("lion_at_adamw_lr", {"opt": "lion", "lr_mult": 10.0, "wd": 0.01}, ("optimization-algorithms",),
          ("AP-05", "AP-06"), opts=("lion",)),
)

HEALTHY: tuple[tuple[str, dict[str, Any]], ...] = (
    ("sgd_momentum", {"opt": "sgd_momentum"}),
    ("nesterov_step_decay", {"opt": "nesterov", "schedule": "step"}),
    ("adam", {"opt": "adam"}),
    ("adamw_warmup_cosine", {"opt": "adamw", "schedule": "warmup_cosine"}),
    ("onecycle", {"opt": "sgd_momentum", "schedule": "onecycle"}),
    ("cosine_restarts", {"opt": "sgd_momentum", "schedule": "restarts"}),
    ("heavy_augmentation", {"opt": "adamw", "augment": True}),
    ("heavy_dropout", {"opt": "sgd_momentum", "dropout": 0.5}),
    ("label_smoothing", {"opt": "adamw", "loss": "ce_smooth"}),
    ("small_batch", {"opt": "adamw", "bs": 4, "lr_mult": 0.5, "steps": 150}),
    ("large_batch", {"opt": "adamw", "bs": 256, "lr_mult": 2.0, "steps": 40}),
    ("finetune", {"opt": "adamw", "finetune": True}),
    ("amp_gradscaler", {"opt": "adamw", "amp": "fp16_scaler"}),
    ("bf16_autocast", {"opt": "adamw", "amp": "bf16"}),
    ("grad_accumulation", {"opt": "adamw", "accum": 4, "steps": 30}),
    ("grad_clipping", {"opt": "sgd_momentum", "clip": 1.0}),
)


@dataclass(frozen=True)
class Variant:
    """One generated run: a fault (or None for a healthy habit) in one config."""

    name: str
    cfg: Config
    fault: Fault | None = None

    @property
    def healthy(self) -> bool:
        return self.fault is None


def _fix_habits(cfg: Config) -> Config:
    # Adam-family transformers are trained with warmup (an Adam transformer without warmup is a real lint).
    if cfg.arch == "transformer" and cfg.opt in ("adam", "adamw", "lion") and cfg.schedule is None:
        cfg = replace(cfg, schedule="warmup_cosine")
    return cfg


def _one_per_arch(combos: list[tuple[str, str, int]], turn: int) -> list[tuple[str, str, int]]:
    """The quick subset of a fault's (arch, optimizer, seed) combinations: one per architecture, the optimizer and
    seed rotating with the architecture and the fault (every architecture and optimizer stays covered)."""
    by_arch: dict[str, list[tuple[str, str, int]]] = {}
    for c in combos:
        by_arch.setdefault(c[0], []).append(c)
    return [cs[(turn + j) % len(cs)] for j, cs in enumerate(by_arch.values())]


def variants(seeds: tuple[int, ...] = (0, 1), archs: tuple[str, ...] = ARCHS, quick: bool = False) -> list[Variant]:
    """Every fault in every architecture, optimizer and seed it applies to, plus the healthy habits."""
    out: list[Variant] = []
    for fi, f in enumerate(FAULTS):
        fa = [a for a in f.archs if a in archs or a == "rnn"]
        combos = list(itertools.product(fa, f.opts, seeds))
        if quick:
            combos = _one_per_arch(combos, fi)
        for arch, opt, seed in combos:
            cfg = _fix_habits(replace(Config(arch=arch, opt=opt, seed=seed), **f.change))
            out.append(Variant(f"{f.name}/{arch}/{cfg.opt}/s{seed}", cfg, f))
    for hi, (name, change) in enumerate(HEALTHY):
        # quick: each habit on two architectures, rotating, so that every architecture meets most habits
        for arch in ([archs[(hi + k) % len(archs)] for k in (0, len(archs) // 2)] if quick else archs):
            if arch == "lstm" and "amp" in change:
                continue  # CPU autocast has no LSTM kernel (oneDNN cannot build one): not a habit on this machine
            for seed in (seeds[:1] if quick else seeds):
                cfg = _fix_habits(replace(Config(arch=arch, seed=seed), **change))
                out.append(Variant(f"healthy:{name}/{arch}/{cfg.opt}/s{seed}", cfg))
    return out


# ---------------------------------------------------------------------------------------------- running them


def watch_variant(v: Variant, every: int = 10) -> Any:
    """Train the variant under ``watch``; return the consultation."""
    from trainopt import watch

    run = build(v.cfg)
    with watch(run.model, run.optimizer, every=every, loss_fn=run.loss_fn, num_classes=run.num_classes,
               scaler=run.scaler, scheduler=run.scheduler) as w:
        train(run, v.cfg.steps, w)
    return w.consultation


def examine_variant(v: Variant) -> Any:
    """Train the variant without probes, then ``examine`` it on the next batch; return the consultation."""
    from expert.consultation import Consultation
    from probes import examine

    run = build(v.cfg)
    pre = v.cfg.steps
    if v.fault is not None and v.fault.name in ("nan_custom_loss", "exploding_rnn"):
        pre = 0  # these runs go non-finite at once; examine sees them from the start
    elif v.fault is not None and v.fault.name.startswith("lr_too_high"):
        pre = 5
    train(run, pre)
    x, y = next(iter(run.data))
    batch = (x, targets(v.cfg, y))
    loader = run.data if v.cfg.slow else None
    obs = examine(run.model, run.loss_fn, batch, run.optimizer, num_classes=run.num_classes, val_batch=run.val,
                  loader=loader, scheduler=run.scheduler, scaler=run.scaler)
    c = Consultation()
    c.add(obs)
    c.run()
    return c


def score(v: Variant, c: Any) -> dict[str, Any]:
    """Judge one diagnosis: routed right (a right skill is primary), named right, or a healthy run warned."""
    d = c.diagnosis
    bad = {f["id"]: f["severity"] for f in d.findings if f["severity"] in ("warning", "critical")}
    primary = sorted(r["skill"] for r in d.routes if r["role"] == "primary")
    if v.healthy:
        return {"variant": v.name, "healthy": True, "warned": bool(bad), "findings": bad, "primary": primary}
    f = v.fault
    assert f is not None
    return {"variant": v.name, "healthy": False, "fault": f.name, "routed": any(s in primary for s in f.route),
            "named": any(i in bad or i in {x["id"] for x in d.findings} for i in f.findings),
            "findings": bad, "primary": primary}


def finite(x: float) -> bool:
    """Whether a float is finite."""
    return math.isfinite(x)
