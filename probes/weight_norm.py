"""Weight norms over a run (cheap, optimizer step, sampled): weights that decay towards zero.

Weight decay too strong for the LR and the number of steps shrinks every weight geometrically; the gradients
shrink with the weights, so the run looks like vanishing gradients although the fault is the decay. Tracking
the global weight norm (and each weight matrix's) against its value at the start tells the two apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from probes.base import Probe, ProbeInfo, emit, norms

INFO = ProbeInfo("weight_norm", "cheap", "optimizer_step", ("weight_norm_ratio", "decay_share"))


@dataclass
class Track:
    """The weight norms at the first sample and now (bounded: two vectors, whatever the run's length).

    Attributes:
        first: Per-tensor norms at the first sample.
        last: Per-tensor norms at the latest sample.
        first_step: Step of the first sample.
        last_step: Step of the latest sample.
    """

    first: list[float] | None = None
    last: list[float] | None = None
    first_step: int | None = None
    last_step: int | None = None
    names: list[str] = field(default_factory=list)
    matrices: list[bool] = field(default_factory=list)

    def update(self, per_tensor: Sequence[float], step: int) -> None:
        """Feed one sample's per-tensor norms (host floats)."""
        vals = [float(v) for v in per_tensor]
        if self.first is None or len(vals) != len(self.first):
            self.first, self.first_step = vals, step
        self.last, self.last_step = vals, step


def summarize(first: Sequence[float], last: Sequence[float], names: Sequence[str] | None = None,
              matrices: Sequence[bool] | None = None) -> dict[str, Any] | None:
    """Global weight norm now over at the start, and the weight matrix that shrank most (pure).

    Only weight matrices count (biases and norm gains may start at zero or one and move freely); all tensors
    when there is no matrix. None when nothing had a non-zero norm at the start.
    """
    import numpy as np

    f = np.asarray(first, dtype=np.float64)
    la = np.asarray(last, dtype=np.float64)
    if f.size == 0 or f.size != la.size:
        return None
    mat = np.asarray(matrices, dtype=bool) if matrices is not None and any(matrices) else np.ones(f.size, bool)
    ok = mat & np.isfinite(f) & np.isfinite(la) & (f > 0)
    if not ok.any():
        return None
    g0, g1 = float(np.sqrt((f[ok] ** 2).sum())), float(np.sqrt((la[ok] ** 2).sum()))
    per = np.where(ok, la / np.where(f > 0, f, 1.0), np.inf)
    worst = int(np.argmin(per))
    out: dict[str, Any] = {"global_first": g0, "global_now": g1, "ratio": g1 / g0, "worst_ratio": float(per[worst])}
    if names is not None:
        out["worst_layer"] = names[worst]
    return out


def observe(track: Track) -> list:
    """``weight_norm_ratio`` once two samples at different steps exist."""
    if track.first is None or track.last is None or track.first_step == track.last_step:
        return []
    s = summarize(track.first, track.last, track.names or None, track.matrices or None)
    if s is None:
        return []
    s.update({"first_step": track.first_step, "step": track.last_step})
    return [emit(INFO, "weight_norm_ratio", max(0.0, s["ratio"]), s, ("MT-WNORM-COLLAPSE",), step=track.last_step)]



# optimizers whose weight_decay is an L2 term inside a normalized (adaptive) step: its shrink per step is not
# lr * wd, so no decay rate is claimed for them
_COUPLED_ADAPTIVE = ("Adam", "Adamax", "NAdam", "RAdam", "RMSprop", "Adagrad", "Adadelta")


def decay_rate(optimizer: Any) -> float | None:
    """The fraction of each weight that weight decay removes per step, at the LR now (largest over param groups).

    Decoupled decay (AdamW, Lion and look-alikes) multiplies the weights by ``1 - lr * wd``; SGD's coupled decay
    enters the gradient, and momentum ``m`` carries it to ``lr * wd / (1 - m)`` a step. None when no group decays
    or the decay is an L2 term inside an adaptive step (Adam without decoupling), whose shrink is not lr * wd.
    """
    best: float | None = None
    name = type(optimizer).__name__
    for g in getattr(optimizer, "param_groups", ()):
        try:
            lr, wd = float(g.get("lr", 0.0)), float(g.get("weight_decay", 0.0) or 0.0)
        except (TypeError, ValueError):
            continue
        if not (lr > 0 and wd > 0):
            continue
        if isinstance(optimizer, torch.optim.SGD):
            m = float(g.get("momentum", 0.0) or 0.0)
            damp = float(g.get("dampening", 0.0) or 0.0)
            rate = lr * wd * (1.0 - damp) / (1.0 - m) if m < 1 else None
        elif name in _COUPLED_ADAPTIVE and not g.get("decoupled_weight_decay", False):
            rate = None
        else:
            rate = lr * wd
        if rate is not None and (best is None or rate > best):
            best = rate
    return best


def observe_decay(rate: float | None, update: dict[str, Any] | None, step: int | None) -> list:
    """``decay_share``: the decay's shrink per step over the weights' measured relative update per step.

    At or above one half the decay is most of what moves the weights: the gradient only holds them against it.
    """
    if rate is None or not update:
        return []
    measured = update.get("median_matrix", update.get("median"))
    try:
        measured = float(measured)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return []
    if not measured > 0:
        return []
    ev = {"decay_per_step": rate, "update_ratio": measured, "update_step": update.get("step")}
    return [emit(INFO, "decay_share", rate / measured, ev, ("MT-DECAY-SHARE",), step=step)]


class WeightNormProbe(Probe):
    """Plugin: per-tensor weight norms after sampled optimizer steps (one foreach kernel, read with the window).

    Bounded: the norms at the first sample and at the latest (``Track``).
    """

    info = INFO
    hooks = ("optimizer_post", "window")
    thresholds = ("MT-WNORM-COLLAPSE", "MT-WNORM-SHRINK", "MT-DECAY-SHARE")

    def attach(self, run: Any) -> None:
        """No sample yet."""
        self.track = Track(names=list(run.pnames), matrices=list(run.pmatrix))

    def optimizer_post(self, run: Any) -> None:
        """Queue the weight norms on the first sampled step of each window (device only).

        Decay moves the weights slowly: one sample a window tracks it, and the other sampled steps skip a kernel
        per parameter.
        """
        if run.steps % run.every >= run.update_every:
            return
        run.record("wn", norms(run.params))

    def accumulate(self, run: Any, window: Any) -> None:
        """Fold the window's samples into the first/latest pair."""
        for step, v in window.get("wn"):
            self.track.update(v, step)

    def summarise(self, run: Any) -> list:
        """``weight_norm_ratio`` (the global weight norm now over at the start) and ``decay_share``."""
        out = observe(self.track)
        if out:
            phases = getattr(run.probe("update_ratio"), "phases", None)
            # the latest window's update ratio, at the LR of now: the decay rate is read now too
            out += observe_decay(decay_rate(run.optimizer), getattr(phases, "last", None), self.track.last_step)
        return out
