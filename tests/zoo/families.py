"""Model families beyond the four prototype classifiers, and fault kinds from real threads injected into them.

``tests.zoo.generated`` trains an MLP, a CNN, an LSTM and a small transformer on prototype classification. This
module adds families and tasks PyTorch users train (audio and other signals, dense vision, language models,
sequence tagging, graphs, tabular regression and multi-label, generative and representation learning), each tiny,
in plain torch, CPU-fast and with no download; fault kinds that people report in forum and issue threads (output
and target contracts, the loss's reduction, optimizer hyper-parameters, clipping, normalisation with tiny batches,
schedulers, step placement, batch order); and healthy recipes that look alarming. ``bench.eval_probes`` runs them
beside the generated variants and scores watch and examine per family and per fault kind, each held out.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F

LRS, LOSS, GRAD, LOOP = ("learning-rate-scheduling", "loss-functions-and-objectives", "gradient-management",
                         "training-loop-architecture")
OPT, BATCH, OVF = "optimization-algorithms", "batch-size-and-memory-tradeoffs", "overfitting-prevention"


# ---------------------------------------------------------------------------------------------- models


class Audio1d(nn.Module):
    """Conv1d + BatchNorm1d over 1 x 64 waveforms, global average pooling, a linear head."""

    def __init__(self, c: int, dropout: float) -> None:
        super().__init__()
        self.f = nn.Sequential(nn.Conv1d(1, 8, 5, padding=2), nn.BatchNorm1d(8), nn.ReLU(),
                               nn.Conv1d(8, 8, 5, padding=2, stride=2), nn.BatchNorm1d(8), nn.ReLU(),
                               nn.AdaptiveAvgPool1d(1), nn.Flatten())
        self.drop = nn.Dropout(dropout)
        self.head = nn.Linear(8, c)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.drop(self.f(x)))


class ResBN(nn.Module):
    """A stem and one residual block with BatchNorm2d on 3 x 8 x 8 images, pooling and a linear head."""

    def __init__(self, c: int, dropout: float) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU())
        self.block = nn.Sequential(nn.Conv2d(8, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(),
                                   nn.Conv2d(8, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8))
        self.drop = nn.Dropout(dropout)
        self.head = nn.Linear(8, c)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.stem(x)
        h = torch.relu(h + self.block(h))
        return self.head(self.drop(h.mean((2, 3))))


class SegNet(nn.Module):
    """A fully convolutional per-pixel classifier: (N, 1, 8, 8) -> (N, C, 8, 8)."""

    def __init__(self, c: int, dropout: float) -> None:
        super().__init__()
        self.f = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.Dropout2d(dropout),
                               nn.Conv2d(16, 16, 3, padding=1), nn.ReLU())
        self.head = nn.Conv2d(16, c, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.f(x))


class CharLM(nn.Module):
    """Embedding, GRU and a linear head; logits laid out (N, V, T) as CrossEntropyLoss takes a sequence."""

    def __init__(self, c: int, dropout: float) -> None:
        super().__init__()
        self.emb = nn.Embedding(c, 16)
        self.rnn = nn.GRU(16, 32, batch_first=True)
        self.drop = nn.Dropout(dropout)
        self.head = nn.Linear(32, c)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h, _ = self.rnn(self.emb(x))
        return self.head(self.drop(h)).transpose(1, 2)


class WordLM(nn.Module):
    """PyTorch's word-language-model example in miniature: embedding, LSTM, decoder over a 200-word vocabulary.

    Initialised as the example does (embedding and decoder uniform in +-0.1, decoder bias 0); logits (N, V, T).
    """

    def __init__(self, c: int, dropout: float) -> None:
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(c, 64)
        self.rnn = nn.LSTM(64, 64, batch_first=True)
        self.decoder = nn.Linear(64, c)
        nn.init.uniform_(self.encoder.weight, -0.1, 0.1)
        nn.init.uniform_(self.decoder.weight, -0.1, 0.1)
        nn.init.zeros_(self.decoder.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h, _ = self.rnn(self.drop(self.encoder(x)))
        return self.decoder(self.drop(h)).transpose(1, 2)


class Tagger(nn.Module):
    """A bidirectional GRU tagger over (N, T, D) features; tag logits laid out (N, C, T)."""

    def __init__(self, c: int, dropout: float) -> None:
        super().__init__()
        self.rnn = nn.GRU(8, 16, batch_first=True, bidirectional=True)
        self.drop = nn.Dropout(dropout)
        self.head = nn.Linear(32, c)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h, _ = self.rnn(x)
        return self.head(self.drop(h)).transpose(1, 2)


class GCN(nn.Module):
    """Two dense graph convolutions (normalised adjacency with self-loops), mean pooling, a linear head."""

    def __init__(self, c: int, dropout: float) -> None:
        super().__init__()
        self.l1, self.l2 = nn.Linear(4, 32), nn.Linear(32, 32)
        self.drop = nn.Dropout(dropout)
        self.head = nn.Linear(32, c)

    def forward(self, feats: torch.Tensor, adj: torch.Tensor) -> torch.Tensor:
        a = adj + torch.eye(adj.shape[-1])
        d = a.sum(-1).rsqrt()
        a = d.unsqueeze(-1) * a * d.unsqueeze(-2)
        h = torch.relu(a @ self.l1(feats))
        h = torch.relu(a @ self.l2(h))
        return self.head(self.drop(h.mean(1)))


class TextBag(nn.Module):
    """Token embeddings averaged over the sequence (a bag of words), one hidden layer, a linear head."""

    def __init__(self, c: int, dropout: float) -> None:
        super().__init__()
        self.emb = nn.Embedding(50, 16)
        self.f = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Dropout(dropout), nn.Linear(32, c))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.f(self.emb(x).mean(1))


class Forecaster(nn.Module):
    """A GRU over a (N, 16, 1) window; the last state predicts the next value (N, 1)."""

    def __init__(self, c: int, dropout: float) -> None:
        super().__init__()
        self.rnn = nn.GRU(1, 24, batch_first=True)
        self.drop = nn.Dropout(dropout)
        self.head = nn.Linear(24, c)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h, _ = self.rnn(x)
        return self.head(self.drop(h[:, -1]))


class AutoEncoder(nn.Module):
    """16 -> 4 -> 16 with a sigmoid output (data in [0, 1])."""

    def __init__(self, c: int, dropout: float) -> None:
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Dropout(dropout), nn.Linear(32, 4))
        self.dec = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 16), nn.Sigmoid())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.dec(self.enc(x))


class Siamese(nn.Module):
    """Contrastive (InfoNCE) encoder: two views (N, 2, 16) -> similarity logits (N, N) of view 1 against view 2."""

    def __init__(self, c: int, dropout: float) -> None:
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Dropout(dropout), nn.Linear(32, 16))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        z = F.normalize(self.enc(x), dim=-1)
        return z[:, 0] @ z[:, 1].T / 0.2


class _WithOutput(nn.Module):
    """A model with an activation appended to its output (any number of inputs, as graph models take)."""

    def __init__(self, model: nn.Module, act: nn.Module) -> None:
        super().__init__()
        self.model, self.act = model, act

    def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
        return self.act(self.model(*inputs))


def _mlp(d_in: int, c: int, dropout: float, width: int = 32) -> nn.Sequential:
    return nn.Sequential(nn.Linear(d_in, width), nn.ReLU(), nn.Dropout(dropout), nn.Linear(width, width), nn.ReLU(),
                         nn.Linear(width, c))


# ---------------------------------------------------------------------------------------------- data


def _g(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _audio(n: int, seed: int) -> tuple[Any, Any]:
    g = _g(seed)
    y = torch.randint(0, 4, (n,), generator=g)
    t = torch.arange(64).float()
    freq = (y.float() + 1.0) * 2.0 * math.pi / 16
    phase = torch.rand(n, generator=g) * 2 * math.pi
    x = torch.sin(freq[:, None] * t + phase[:, None]) + 0.5 * torch.randn(n, 64, generator=g)
    return x.unsqueeze(1), y


def _vision(n: int, seed: int) -> tuple[Any, Any]:
    g, gp = _g(seed), _g(4321)
    protos = torch.randn(4, 3, 8, 8, generator=gp)
    y = torch.randint(0, 4, (n,), generator=g)
    return protos[y] + 1.0 * torch.randn(n, 3, 8, 8, generator=g), y


def _seg(n: int, seed: int) -> tuple[Any, Any]:
    g = _g(seed)
    # a label map of blobs: three classes from a smoothed random field, inputs the class level plus noise
    field_ = F.avg_pool2d(torch.randn(n, 1, 12, 12, generator=g), 5, 1)[:, :, :8, :8]
    lab = torch.bucketize(field_, torch.tensor([-0.15, 0.15])).squeeze(1)
    x = (lab.float() - 1.0).unsqueeze(1) + 0.4 * torch.randn(n, 1, 8, 8, generator=g)
    return x, lab


def _lm(n: int, seed: int) -> tuple[Any, Any]:
    g = _g(seed)
    seq = torch.empty(n, 17, dtype=torch.long)
    seq[:, 0] = torch.randint(0, 8, (n,), generator=g)
    for t in range(1, 17):
        # a mostly deterministic grammar: next = 3 * cur + 1 (mod 8), one token in ten random
        nxt = (3 * seq[:, t - 1] + 1) % 8
        rnd = torch.randint(0, 8, (n,), generator=g)
        seq[:, t] = torch.where(torch.rand(n, generator=g) < 0.1, rnd, nxt)
    return seq[:, :-1], seq[:, 1:]


def _words(n: int, seed: int) -> tuple[Any, Any]:
    g = _g(seed)
    seq = torch.empty(n, 17, dtype=torch.long)
    seq[:, 0] = torch.randint(0, 200, (n,), generator=g)
    for t in range(1, 17):
        # each word is followed by one of two words fixed by it (a bigram language), one in ten at random
        nxt = (7 * seq[:, t - 1] + 13 + 100 * torch.randint(0, 2, (n,), generator=g)) % 200
        rnd = torch.randint(0, 200, (n,), generator=g)
        seq[:, t] = torch.where(torch.rand(n, generator=g) < 0.1, rnd, nxt)
    return seq[:, :-1], seq[:, 1:]


def _tags(n: int, seed: int) -> tuple[Any, Any]:
    g, gp = _g(seed), _g(4322)
    protos = torch.randn(3, 8, generator=gp) * 1.5
    tags = torch.randint(0, 3, (n, 12), generator=g)
    return protos[tags] + torch.randn(n, 12, 8, generator=g), tags


def _graphs(n: int, seed: int) -> tuple[Any, Any]:
    g = _g(seed)
    y = torch.randint(0, 4, (n,), generator=g)
    k = 8
    adj = torch.zeros(n, k, k)
    idx = torch.arange(k)
    for i in range(n):
        c = int(y[i])
        a = torch.zeros(k, k)
        if c == 0:  # ring
            a[idx, (idx + 1) % k] = 1
        elif c == 1:  # star
            a[0, 1:] = 1
        elif c == 2:  # complete
            a = torch.ones(k, k) - torch.eye(k)
        else:  # path
            a[idx[:-1], idx[1:]] = 1
        a = ((a + a.T) > 0).float()
        perm = torch.randperm(k, generator=g)
        adj[i] = a[perm][:, perm]
    feats = 0.3 * torch.randn(n, k, 4, generator=g)
    feats[..., 0] += adj.sum(-1) / 4  # the degree: a node feature the convolutions can spread
    return (feats, adj), y


def _text(n: int, seed: int) -> tuple[Any, Any]:
    g = _g(seed)
    y = torch.randint(0, 4, (n,), generator=g)
    # each class draws half its tokens from its own 10-token range, half from the shared 10
    own = 10 + 10 * y[:, None] + torch.randint(0, 10, (n, 12), generator=g)
    shared = torch.randint(0, 10, (n, 12), generator=g)
    pick = torch.rand(n, 12, generator=g) < 0.5
    return torch.where(pick, own, shared), y


def _tabreg(n: int, seed: int) -> tuple[Any, Any]:
    g, gp = _g(seed), _g(4323)
    w = torch.randn(8, 1, generator=gp)
    x = torch.randn(n, 8, generator=g)
    return x, torch.tanh(x @ w / 2) * 2 + 0.1 * torch.randn(n, 1, generator=g)


def _forecast(n: int, seed: int) -> tuple[Any, Any]:
    g = _g(seed)
    f = 0.3 + 0.4 * torch.rand(n, 1, generator=g)
    ph = torch.rand(n, 1, generator=g) * 6.28
    t = torch.arange(17).float()
    s = torch.sin(f * t + ph) + 0.05 * torch.randn(n, 17, generator=g)
    return s[:, :16].unsqueeze(-1), s[:, 16:]


def _multilabel(n: int, seed: int) -> tuple[Any, Any]:
    g, gp = _g(seed), _g(4324)
    w = torch.randn(16, 5, generator=gp)
    x = torch.randn(n, 16, generator=g)
    return x, (x @ w > 0.5).float()


def _binary(n: int, seed: int) -> tuple[Any, Any]:
    g, gp = _g(seed), _g(4325)
    w = torch.randn(10, 1, generator=gp)
    x = torch.randn(n, 10, generator=g)
    return x, ((x @ w + 0.3 * torch.randn(n, 1, generator=g)) > 0).float()


def _recon(n: int, seed: int) -> tuple[Any, Any]:
    g, gp = _g(seed), _g(4326)
    basis = torch.randn(4, 16, generator=gp)
    x = torch.sigmoid(torch.randn(n, 4, generator=g) @ basis)
    return x, x


def _views(n: int, seed: int) -> tuple[Any, Any]:
    g, gp = _g(seed), _g(4327)
    mix = torch.randn(6, 16, generator=gp)
    z = torch.randn(n, 6, generator=g) @ mix
    x = torch.stack([z + 0.3 * torch.randn(n, 16, generator=g), z + 0.3 * torch.randn(n, 16, generator=g)], 1)
    return x, torch.zeros(n, dtype=torch.long)  # targets are built per batch (arange), see ``targets_for``


# ---------------------------------------------------------------------------------------------- families


@dataclass(frozen=True)
class Family:
    """A model family on its task.

    Attributes:
        name: Id.
        domain: vision, sequence, language, audio, graphs, tabular, generative or representation.
        task: ``clf`` ((N, C) class indices), ``seq`` ((N, C, T) per position), ``dense`` ((N, C, H, W)),
            ``reg`` ((N, 1) regression), ``multilabel``, ``binary`` ((N, 1) BCE), ``recon`` (reconstruction),
            ``contrastive`` ((N, N) InfoNCE).
        model: ``model(out_dim, dropout)``.
        data: ``data(n, seed) -> (x, y)``.
        out: Output width (classes, or 1).
        opt: Its usual optimizer habit.
        lr: Its usual LR for that optimizer.
        bn: Whether it normalises with BatchNorm.
        clip: The max_norm its recipe clips gradients to (None: no clipping).
        steps: Steps its recipe trains for (a fault's or recipe's own step count is scaled by steps / 60).
        order: How its loader orders the batches: ``shuffled`` (a new order each epoch) or ``fixed`` (the same
            batches in the same order every epoch: a text stream read in order for truncated BPTT).
    """

    name: str
    domain: str
    task: str
    model: Callable[[int, float], nn.Module]
    data: Callable[[int, int], tuple[Any, Any]]
    out: int
    opt: str = "adamw"
    lr: float = 3e-3
    bn: bool = False
    clip: float | None = None
    steps: int = 60
    order: str = "shuffled"


FAMILIES: tuple[Family, ...] = (
    Family("audio_cnn1d", "audio", "clf", Audio1d, _audio, 4, "sgd_momentum", 0.05, bn=True),
    Family("resnet_bn", "vision", "clf", ResBN, _vision, 4, "sgd_momentum", 0.05, bn=True),
    Family("segmentation", "vision", "dense", SegNet, _seg, 3, "adamw", 5e-3),
    Family("char_lm", "language", "seq", CharLM, _lm, 8, "adamw", 1e-2),
    Family("tagger", "sequence", "seq", Tagger, _tags, 3, "adamw", 5e-3),
    Family("word_lm", "language", "seq", WordLM, _words, 200, "sgd", 20.0, clip=0.25, steps=150, order="fixed"),
    Family("gcn", "graphs", "clf", GCN, _graphs, 4, "adamw", 1e-2),
    Family("text_bag", "language", "clf", TextBag, _text, 4, "adamw", 5e-3),
    Family("tab_regression", "tabular", "reg", lambda c, d: _mlp(8, c, d), _tabreg, 1, "adamw", 3e-3),
    Family("forecaster", "audio/signals", "reg", Forecaster, _forecast, 1, "adamw", 5e-3),
    Family("multilabel", "tabular", "multilabel", lambda c, d: _mlp(16, c, d), _multilabel, 5, "adamw", 1e-2),
    Family("binary_clf", "tabular", "binary", lambda c, d: _mlp(10, c, d), _binary, 1, "sgd_momentum", 0.05),
    Family("autoencoder", "generative", "recon", AutoEncoder, _recon, 16, "adam", 3e-3),
    Family("contrastive", "representation", "contrastive", Siamese, _views, 16, "adamw", 3e-3),
)
FAMILY = {f.name: f for f in FAMILIES}

HELD_OUT_FAMILIES = ("gcn", "forecaster", "contrastive", "segmentation")
"""Families fixed as held out before any probe was written for this benchmark: never run while developing."""
HELD_OUT_FAULTS = ("momentum_too_high", "warmup_never_ends", "signed_labels_into_bce", "optimizer_step_twice",
                   "eval_mode_left_on")
"""Fault kinds held out the same way: their knowledge is written from the sources, never checked on their runs."""
CLASSIFY = ("clf", "seq", "dense", "contrastive")


# ---------------------------------------------------------------------------------------------- a run


@dataclass
class FConfig:
    """What a family run varies (defaults: the family's healthy recipe)."""

    fam: str = "audio_cnn1d"
    opt: str | None = None
    seed: int = 0
    lr: float | None = None
    lr_mult: float = 1.0
    steps: int = 60
    bs: int = 32
    n: int = 512
    dropout: float = 0.1
    out_act: str | None = None  # sigmoid | log_softmax_wrong_dim | log_softmax | softmax
    target_tf: str | None = None  # broadcast | shift | multihot_ce | signed | raw_units
    loss: str | None = None  # override: ce | nll | mse | bce_logits
    reduction: str = "mean"
    label_smoothing: float = 0.0
    eps: float | None = None
    betas: tuple[float, float] | None = None
    momentum: float | None = None
    wd: float | None = None
    clip: float | None = None  # None: the family's recipe; 0: no clipping
    schedule: str | None = None  # warmup_cosine | per_batch_step | int_div_warmup | endless_warmup | cosine
    step: str = "ok"  # ok | missing | twice
    order: str | None = None  # None: the family's loader; shuffled | fixed | sorted
    zero_grad: str = "ok"  # ok | missing
    accum: int = 1
    amp: str | None = None  # fp16_scaler
    eval_mode: bool = False
    shuffle_labels: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class FRun:
    """A built run: everything the loop and the probes need."""

    cfg: FConfig
    fam: Family
    model: nn.Module
    loss_fn: Any
    optimizer: torch.optim.Optimizer
    x: Any
    y: Any
    val: tuple[Any, Any]
    scheduler: Any
    scaler: Any
    num_classes: int | None


def _opt(kind: str, params: Any, lr: float, cfg: FConfig) -> torch.optim.Optimizer:
    if kind in ("sgd_momentum", "sgd"):
        mom = cfg.momentum if cfg.momentum is not None else (0.9 if kind == "sgd_momentum" else 0.0)
        wd = (5e-4 if kind == "sgd_momentum" else 0.0) if cfg.wd is None else cfg.wd
        return torch.optim.SGD(params, lr=lr, momentum=mom, weight_decay=wd)
    kw: dict[str, Any] = {}
    if cfg.eps is not None:
        kw["eps"] = cfg.eps
    if cfg.betas is not None:
        kw["betas"] = cfg.betas
    if kind == "adam":
        return torch.optim.Adam(params, lr=lr, weight_decay=0.0 if cfg.wd is None else cfg.wd, **kw)
    if kind == "adamw":
        return torch.optim.AdamW(params, lr=lr, weight_decay=0.01 if cfg.wd is None else cfg.wd, **kw)
    raise ValueError(kind)


def _sched(kind: str | None, opt: torch.optim.Optimizer, steps: int) -> Any:
    from torch.optim import lr_scheduler as S

    if kind is None:
        return None
    if kind == "warmup_cosine":
        w = max(1, steps // 10)
        return S.SequentialLR(opt, [S.LinearLR(opt, 0.1, 1.0, w), S.CosineAnnealingLR(opt, steps - w)], [w])
    if kind == "cosine":
        return S.CosineAnnealingLR(opt, steps)
    if kind == "per_batch_step":
        # StepLR written for epochs (decay every 10 epochs), stepped after every batch: 1e-6 of the LR by step 60
        return S.StepLR(opt, step_size=10, gamma=0.1)
    if kind == "int_div_warmup":
        # `step // warmup` (integer division) instead of `step / warmup`: the factor is 0 until the warmup ends
        return S.LambdaLR(opt, lambda s: min(1.0, s // 500))
    if kind == "endless_warmup":
        # warmup length given in samples where steps were meant: the LR stays a sliver of its peak all run
        return S.LinearLR(opt, start_factor=1e-4, end_factor=1.0, total_iters=100_000)
    raise ValueError(kind)


def build(cfg: FConfig) -> FRun:
    """Build the run a config describes (seeded)."""
    fam = FAMILY[cfg.fam]
    torch.manual_seed(cfg.seed)
    model = fam.model(fam.out, cfg.dropout)
    x, y = fam.data(cfg.n, 1 + cfg.seed)
    vx, vy = fam.data(256, 1000 + cfg.seed)
    if cfg.shuffle_labels:
        y = y.roll(1, 0) if fam.task != "clf" else (y + torch.arange(len(y))) % fam.out
    if cfg.order == "sorted":
        # a dataset stored class by class and a loader without shuffle: every batch holds one class
        idx = torch.argsort(y if y.ndim == 1 else y[:, 0], stable=True)
        x = tuple(t[idx] for t in x) if isinstance(x, tuple) else x[idx]
        y = y[idx]
    if cfg.target_tf == "raw_units":
        y, vy = y * 1000.0 + 5000.0, vy * 1000.0 + 5000.0
    if cfg.target_tf == "shift":
        # targets the output activation cannot reach (a sigmoid head for values in [-2, 2] or for data in [-1, 1])
        if fam.task == "recon":
            x, vx = x * 2 - 1, vx * 2 - 1
            y, vy = x, vx
    if cfg.target_tf == "signed":
        y, vy = y * 2 - 1, vy * 2 - 1  # labels in {-1, 1} (an SVM habit) into a BCE loss
    if cfg.out_act is not None:
        dim = 0 if fam.task == "clf" or fam.task == "contrastive" else -1
        act = {"sigmoid": nn.Sigmoid(), "softmax": nn.Softmax(dim=1), "log_softmax": nn.LogSoftmax(dim=1),
               "log_softmax_wrong_dim": nn.LogSoftmax(dim=dim)}[cfg.out_act]
        model = _WithOutput(model, act)
    if cfg.eval_mode:
        model.eval()
    kind = cfg.opt or fam.opt
    base = cfg.lr if cfg.lr is not None else (fam.lr if kind == fam.opt else
                                              {"sgd_momentum": 0.05, "sgd": 0.05, "adam": 3e-3, "adamw": 3e-3}[kind])
    opt = _opt(kind, model.parameters(), base * cfg.lr_mult, cfg)
    loss = cfg.loss or {"clf": "ce", "seq": "ce", "dense": "ce", "contrastive": "ce", "reg": "mse",
                        "recon": "mse", "multilabel": "bce_logits", "binary": "bce_logits"}[fam.task]
    if cfg.target_tf == "multihot_ce":
        loss = "ce"  # multi-hot targets into CrossEntropyLoss (it takes float targets as class probabilities)
    red = cfg.reduction
    loss_fn = {"ce": lambda: nn.CrossEntropyLoss(reduction=red, label_smoothing=cfg.label_smoothing),
               "nll": lambda: nn.NLLLoss(reduction=red), "mse": lambda: nn.MSELoss(reduction=red),
               "bce_logits": lambda: nn.BCEWithLogitsLoss(reduction=red)}[loss]()
    scaler = None
    if cfg.amp == "fp16_scaler":
        scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 40, growth_interval=10)
    nc = fam.out if fam.task in ("clf", "seq", "dense") else None
    return FRun(cfg, fam, model, loss_fn, opt, x, y, (vx, vy), _sched(cfg.schedule, opt, cfg.steps), scaler, nc)


def _take(x: Any, sl: slice) -> Any:
    return tuple(t[sl] for t in x) if isinstance(x, tuple) else x[sl]


def batches(run: FRun) -> Iterator[tuple[Any, Any]]:
    """Cycling minibatches as the run's loader gives them.

    The data is drawn in random order, so the first epoch takes it as stored; a ``shuffled`` loader then draws a
    new order every epoch (``DataLoader(shuffle=True)``), a ``fixed`` or ``sorted`` one repeats the stored order.
    """
    n, bs = len(run.y), run.cfg.bs
    order = run.cfg.order or run.fam.order
    g = torch.Generator().manual_seed(7 + run.cfg.seed)
    idx: Any = None
    while True:
        for i in range(0, n - bs + 1, bs):
            sl = slice(i, i + bs) if idx is None else idx[i:i + bs]
            yield _take(run.x, sl), run.y[sl]
        if order == "shuffled":
            idx = torch.randperm(n, generator=g)


def targets_for(run: FRun, x: Any, y: torch.Tensor) -> torch.Tensor:
    """What the loop hands the loss for a batch (the fault's target transform applied)."""
    fam, tf = run.fam, run.cfg.target_tf
    if fam.task == "contrastive":
        return torch.arange(len(y))
    if fam.task == "recon":
        return x
    if tf == "broadcast":
        return y.squeeze(-1)  # (N,) targets against (N, 1) predictions: MSELoss broadcasts to (N, N)
    return y


def call(model: nn.Module, x: Any) -> torch.Tensor:
    """The model on a batch (graph inputs are (features, adjacency))."""
    return model(*x) if isinstance(x, tuple) else model(x)


def metric(run: FRun, x: Any, y: torch.Tensor) -> float | None:
    """Accuracy of a classifying family in eval mode, modes left as found (None for the others)."""
    if run.fam.task not in CLASSIFY:
        return None
    modes = [(m, m.training) for m in run.model.modules()]
    run.model.eval()
    with torch.no_grad():
        out = call(run.model, x).float()
        t = targets_for(run, x, y)
        acc = float((out.argmax(1) == t).float().mean())
    for m, t_ in modes:
        m.training = t_
    return acc


def train(run: FRun, steps: int, w: Any = None, metrics_every: int = 10) -> None:
    """The user's loop with the config's habits (and fault); ``w`` is a watch or None."""
    cfg, model, opt, scaler = run.cfg, run.model, run.optimizer, run.scaler
    it = batches(run)
    for step in range(steps):
        if cfg.zero_grad == "ok":
            opt.zero_grad(set_to_none=True)
        total = 0.0
        for _ in range(cfg.accum):
            x, y = next(it)
            ctx = torch.autocast("cpu", dtype=torch.float16) if cfg.amp == "fp16_scaler" else _Null()
            with ctx:
                loss = run.loss_fn(call(model, x), targets_for(run, x, y))
            part = loss / cfg.accum if cfg.accum > 1 else loss
            (scaler.scale(part) if scaler is not None else part).backward()
            total = total + loss.detach()
        clip = run.fam.clip if cfg.clip is None else cfg.clip
        if clip:
            if scaler is not None:
                scaler.unscale_(opt)
            nn.utils.clip_grad_norm_(model.parameters(), clip)
        if cfg.step != "missing":
            for _ in range(2 if cfg.step == "twice" else 1):
                if scaler is not None:
                    scaler.step(opt)
                else:
                    opt.step()
            if scaler is not None:
                scaler.update()
        if run.scheduler is not None:
            run.scheduler.step()
        if w is not None:
            m: dict[str, float] = {}
            if (step + 1) % metrics_every == 0 and run.fam.task in CLASSIFY:
                m = {"train_acc": _train_acc(run), "val_acc": _val_acc(run)}
            w.step(total / cfg.accum, **m)


def _train_acc(run: FRun) -> float:
    # accuracy over a fixed slice of the training set, as an epoch-end evaluation measures it (one tiny batch's
    # accuracy is noise, not a train/validation gap)
    bs = run.cfg.bs if run.fam.task == "contrastive" else 256
    return metric(run, _take(run.x, slice(0, bs)), run.y[:bs]) or 0.0


def _val_acc(run: FRun) -> float:
    vx, vy = run.val
    bs = run.cfg.bs if run.fam.task == "contrastive" else len(vy)
    return metric(run, _take(vx, slice(0, bs)), vy[:bs]) or 0.0


class _Null:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *a: Any) -> None:
        return None


# ---------------------------------------------------------------------------------------------- the catalogue


@dataclass(frozen=True)
class FFault:
    """A fault kind from real threads: the config changes, the tasks or families it applies to, a right diagnosis.

    Attributes:
        name: Fault kind id.
        change: FConfig fields to set.
        route: Skills any of which is a right primary route.
        findings: Finding ids any of which names the cause.
        applies: Predicate on a family.
        modes: ``watch`` and/or ``examine`` (examine only for what one batch can show).
        thread: Where users report it (paraphrased kind of thread).
    """

    name: str
    change: dict[str, Any]
    route: tuple[str, ...]
    findings: tuple[str, ...]
    applies: Callable[[Family], bool]
    modes: tuple[str, ...] = ("watch", "examine")
    thread: str = ""


def _task(*tasks: str) -> Callable[[Family], bool]:
    return lambda f: f.task in tasks


def _any(f: Family) -> bool:
    return True


def _dropout(f: Family) -> bool:
    return f.name not in ("contrastive",)


F_FAULTS: tuple[FFault, ...] = (
    FFault("target_broadcast", {"target_tf": "broadcast"}, (LOSS,), ("DT-SHAPE-01",), _task("reg"),
           thread="MSELoss 'target size different to input size' warning ignored; loss flat"),
    FFault("bounded_output_unreachable_targets", {"target_tf": "shift", "out_act": "sigmoid"}, (LOSS,),
           ("MS-RANGE-01",), _task("reg", "recon"),
           thread="sigmoid output on a regression / images normalised to [-1, 1]; outputs stuck at the bound"),
    FFault("log_softmax_wrong_dim", {"out_act": "log_softmax_wrong_dim", "loss": "nll"}, (LOSS,), ("MS-DIM-01",),
           _task("clf", "seq", "dense"), thread="log_softmax(dim=0) / over the time axis; accuracy stuck"),
    FFault("multi_hot_into_cross_entropy", {"target_tf": "multihot_ce"}, (LOSS,), ("MS-TGT-01",),
           _task("multilabel"), thread="multi-label targets given to CrossEntropyLoss instead of BCEWithLogits"),
    FFault("signed_labels_into_bce", {"target_tf": "signed"}, (LOSS,), ("MS-RANGE-02",), _task("binary", "multilabel"),
           thread="labels in {-1, 1} into BCEWithLogitsLoss; negative loss or no learning"),
    FFault("sum_reduction_with_sgd", {"reduction": "sum", "opt": "sgd_momentum", "lr": 0.05}, (LOSS, LRS),
           ("MS-RED-01",), lambda f: f.task in ("clf", "reg", "seq", "dense"),
           thread="reduction='sum' makes the loss (and the step) grow with the batch size; diverges with SGD"),
    FFault("adam_eps_huge", {"eps": 1.0, "opt": "adam"}, (OPT,), ("MS-EPS-02",), _any,
           thread="Adam epsilon=1 (a TF Inception value, or a typo); Adam learns like slow SGD"),
    FFault("adam_betas_swapped", {"betas": (0.999, 0.9), "opt": "adam"}, (OPT,), ("MS-BETA-01",), _any,
           thread="betas=(0.999, 0.9) written in the wrong order; unstable or slow training"),
    FFault("momentum_too_high", {"momentum": 0.999, "opt": "sgd_momentum", "lr": 0.05}, (OPT,), ("MS-MOM-01",),
           _any, thread="SGD momentum 0.999 (or 1.0): loss oscillates, never settles"),
    FFault("sgd_weight_decay_huge", {"wd": 0.1, "opt": "sgd_momentum", "lr": 0.05}, (OPT,),
           ("MS-WD-01", "MS-WNORM-01", "MS-WNORM-02"), _any,
           thread="AdamW's weight_decay=0.1 copied onto SGD: weights decay to nothing"),
    FFault("clip_threshold_tiny", {"clip": 1e-4, "opt": "sgd_momentum", "lr": 0.05}, (GRAD,), ("MS-CLIP-01",), _any,
           modes=("watch",),
           thread="clip_grad_norm_ max_norm set far below the gradient norm: every step clipped, barely learns"),
    FFault("batchnorm_tiny_batch", {"bs": 2, "steps": 120}, (BATCH, "neural-architectures"), ("MS-BN-01",),
           lambda f: f.bn, thread="BatchNorm with 2 samples per GPU: noisy statistics, eval far worse than train"),
    FFault("dropout_keep_prob_confusion", {"dropout": 0.9}, (OVF,), ("MS-DROP-01",), _dropout,
           thread="nn.Dropout(0.9) meaning TF's keep_prob=0.9: nine units in ten dropped"),
    FFault("lr_zero", {"lr": 0.0}, (LRS,), ("MS-LR0-01",), _any,
           thread="LR read from a config default of 0; the loss never moves"),
    FFault("warmup_integer_division", {"schedule": "int_div_warmup"}, (LRS,), ("MS-LR0-01",), _any,
           thread="LambdaLR warmup written step // warmup: LR exactly 0 through the warmup"),
    FFault("scheduler_stepped_per_batch", {"schedule": "per_batch_step"}, (LRS,), ("MS-LR0-02", "LP-SCHED-01"), _any,
           modes=("watch",), thread="StepLR for epochs stepped every batch: LR gone to ~0 within a few epochs"),
    FFault("warmup_never_ends", {"schedule": "endless_warmup"}, (LRS,), ("MS-LR0-02", "LP-SCHED-01"), _any,
           modes=("watch",), thread="warmup length in samples instead of steps: the LR stays near zero"),
    FFault("optimizer_step_missing", {"step": "missing"}, (LOOP,), ("LP-STEP-01", "MS-ZERO-02"), _any,
           modes=("watch",), thread="optimizer.step() left out after a refactor: loss flat, gradients fine"),
    FFault("optimizer_step_twice", {"step": "twice"}, (LOOP,), ("LP-STEP-02",), _any, modes=("watch",),
           thread="optimizer.step() called twice per batch (once in a helper)"),
    # one batch cannot show the order of batches, nor whether labels follow inputs: watch only
    FFault("labels_sorted_no_shuffle", {"order": "sorted"}, (LOOP, "data-augmentation-strategies"),
           ("MS-ORDER-01",), _task("clf"), modes=("watch",),
           thread="DataLoader without shuffle over a class-sorted dataset"),
    # shuffle=False over a randomly stored dataset, or a generator re-seeded every epoch: identical epochs
    FFault("same_batches_each_epoch", {"order": "fixed"}, (LOOP,), ("MS-ORDER-02",), _any, modes=("watch",),
           thread="torch.manual_seed inside the epoch loop / DataLoader without shuffle: the loss repeats by epoch"),
    FFault("regression_targets_raw_units", {"target_tf": "raw_units"}, (LOSS,), ("DT-TGT-01",), _task("reg"),
           modes=("examine",), thread="house prices in dollars as MSE targets; loss in the millions"),
    # kinds of the generated benchmark, injected into the new families too
    FFault("lr_too_high", {"lr_mult": 300.0}, (LRS,), ("MS-UPD-01", "DX-NAN-06"),
           lambda f: f.opt in ("adamw", "adam")),
    FFault("lr_too_low", {"lr_mult": 1e-4}, (LRS,), ("MS-UPD-02", "MS-UPD-03"), _any),
    FFault("shuffled_labels", {"shuffle_labels": True}, (LOOP,), ("MS-CHANCE-01", "MS-CHANCE-02", "MS-CHANCE-03"),
           _task("clf"), modes=("watch",)),
    FFault("eval_mode_left_on", {"eval_mode": True}, (LOOP,), ("MS-EVAL-01",), lambda f: f.bn or _dropout(f)),
    FFault("missing_zero_grad", {"zero_grad": "missing"}, (LOOP,), ("MS-ZERO-01", "MS-ZERO-03"), _any,
           modes=("watch",)),
    # the clip rescales the carried sum every step: the left-over never looks larger than a fresh gradient
    FFault("missing_zero_grad_tight_clip", {"zero_grad": "missing", "clip": 0.05}, (LOOP,),
           ("MS-ZERO-01", "MS-ZERO-03"), _any, modes=("watch",),
           thread="zero_grad forgotten in a loop that clips: loss noisy, no explosion"),
    FFault("double_softmax", {"out_act": "softmax"}, (LOSS,), ("MS-ACT-01",), _task("clf", "seq", "dense")),
)

F_HEALTHY: tuple[tuple[str, dict[str, Any], Callable[[Family], bool]], ...] = (
    ("default_recipe", {}, _any),
    # PyTorch's word-language-model example: SGD at LR 20 with gradients clipped to 0.25, no momentum
    ("word_lm_sgd_lr20_clip", {"opt": "sgd", "lr": 20.0, "clip": 0.25, "wd": 0.0}, lambda f: f.name == "word_lm"),
    ("warmup_cosine", {"schedule": "warmup_cosine"}, _any),
    ("label_smoothing", {"label_smoothing": 0.1}, _task("clf", "seq", "dense")),
    ("heavy_dropout", {"dropout": 0.5}, _dropout),
    ("tiny_batch_noise", {"bs": 4, "steps": 120, "lr_mult": 0.5}, lambda f: not f.bn and f.task != "contrastive"),
    ("grad_accumulation", {"accum": 4, "steps": 30}, _any),
    ("amp_skipped_steps", {"amp": "fp16_scaler"}, lambda f: f.name in ("resnet_bn", "text_bag", "tab_regression",
                                                                         "multilabel", "autoencoder")),
    ("fast_converge_then_flat", {"steps": 150}, lambda f: f.task in ("clf", "binary")),
    # clipping added to the SGD families' own recipes (the word LM clips already)
    ("clipped_sgd", {"clip": 1.0}, lambda f: f.opt in ("sgd", "sgd_momentum") and f.clip is None),
    ("sum_reduction_with_adam", {"reduction": "sum", "opt": "adam", "lr": 3e-3}, _task("clf", "reg")),
)


@dataclass(frozen=True)
class FVariant:
    """One family run: a fault kind (or None for a healthy recipe) in one family, optimizer and seed."""

    name: str
    cfg: FConfig
    family: str
    fault: FFault | None = None
    recipe: str | None = None
    modes: tuple[str, ...] = ("watch", "examine")

    @property
    def healthy(self) -> bool:
        return self.fault is None


def _scaled(change: dict[str, Any], fam: Family) -> dict[str, Any]:
    """A change with its step count scaled to the family's recipe length (counts are written for 60 steps)."""
    if "steps" not in change or fam.steps == 60:
        return change
    return {**change, "steps": int(change["steps"] * fam.steps / 60)}


def variants(seeds: tuple[int, ...] = (0,), quick: bool = False) -> list[FVariant]:
    """Every fault kind in every family it applies to, and every healthy recipe."""
    out: list[FVariant] = []
    for f in F_FAULTS:
        fams = [fam for fam in FAMILIES if f.applies(fam)]
        combos = list(itertools.product(fams, seeds))
        if quick:
            combos = combos[::6] or combos[:1]
        for fam, seed in combos:
            cfg = replace(FConfig(fam=fam.name, seed=seed, steps=fam.steps), **_scaled(f.change, fam))
            out.append(FVariant(f"{f.name}/{fam.name}/s{seed}", cfg, fam.name, f))
    for name, change, ok in F_HEALTHY:
        fams = [fam for fam in FAMILIES if ok(fam)]
        if quick:
            fams = fams[::5]
        for fam in fams:
            cfg = replace(FConfig(fam=fam.name, seed=seeds[0], steps=fam.steps), **_scaled(change, fam))
            # a high-LR SGD recipe held by the loop's clip (the word LM) is healthy by its loss curve, which one
            # batch does not show: examine at step 0 measures the recipe's large first updates (known limitation)
            modes = ("watch",) if fam.clip is not None and fam.lr >= 1.0 else ("watch", "examine")
            out.append(FVariant(f"healthy:{name}/{fam.name}/s{seeds[0]}", cfg, fam.name, recipe=name, modes=modes))
    return out


def watch_variant(v: FVariant, every: int = 10) -> Any:
    """Train under ``watch``; return the consultation."""
    from trainopt import watch

    run = build(v.cfg)
    with watch(run.model, run.optimizer, every=every, loss_fn=run.loss_fn, num_classes=run.num_classes,
               scaler=run.scaler, scheduler=run.scheduler) as w:
        train(run, v.cfg.steps, w)
    return w.consultation


def examine_variant(v: FVariant) -> Any:
    """Examine at step 0 (the faults one batch can show), on the run's first batch; return the consultation."""
    from expert.consultation import Consultation
    from probes import examine

    run = build(v.cfg)
    x, y = next(batches(run))
    clip = run.fam.clip if v.cfg.clip is None else v.cfg.clip
    obs = examine(run.model, run.loss_fn, (x, targets_for(run, x, y)), run.optimizer, num_classes=run.num_classes,
                  scheduler=run.scheduler, scaler=run.scaler, clip_norm=clip or None)
    c = Consultation()
    c.add(obs)
    c.run()
    return c
