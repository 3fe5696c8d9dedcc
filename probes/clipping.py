"""Gradient clipping as it acts (cheap): is the norm at the optimizer step cut to the same max_norm every time.

``clip_grad_norm_`` runs between backward and the optimizer step and rescales the gradients to norm ``max_norm``
whenever they are larger; the unclipped norms vary from batch to batch. So the global norm at the optimizer's
pre-step hook, equal on every sampled step to within ``MT-CLIP-TOL``, is clipping that cut every step, at that
norm. For SGD, whose step is the LR times the (clipped) gradient, the step that clip allows is also measured against
the weights: ``lr * max_norm / (1 - momentum) / |W|`` (``clip_step_ratio``), the update ratio the clip sets. Adam
divides the gradient's scale out again, so clipping does not bound its step and no ratio is given.

The global norm is read from the per-parameter gradient norms the gradient-flow probe queues on every sampled
step (``gf:norms``, the same gradients at the same hook): one pass over the gradients a sampled step, not two.
Only when that probe is absent, or the gradients are not all dense (it reads a sparse one's stored values, which
clipping leaves out), are the norms taken here. For SGD a foreach norm of the weights, on sampled steps only.
"""

from __future__ import annotations

import math
from typing import Any

import torch

from knowledge.measurements import threshold
from probes.base import Probe, ProbeInfo, emit, norms

INFO = ProbeInfo("clipping", "cheap", "optimizer_step", ("grad_clip_active", "clip_step_ratio"))


def sgd_gain(optimizer: Any) -> float | None:
    """``lr / (1 - momentum)`` of an SGD optimizer (its steady step per unit gradient), None for other families."""
    g = optimizer.param_groups[0]
    if "momentum" not in g or "dampening" not in g:
        return None
    lr, m = g.get("lr"), g.get("momentum", 0.0)
    if not isinstance(lr, (int, float)) or not isinstance(m, (int, float)) or m >= 1.0:
        return None
    return float(lr) / (1.0 - float(m))


def verdict(values: list[float]) -> tuple[str, float] | None:
    """``every_step`` / ``sometimes`` / ``never`` and the clipped norm, from the sampled global norms."""
    vals = [v for v in values if v == v and v not in (float("inf"),)]
    if len(vals) < threshold("MT-CLIP-MIN"):
        return None
    top = max(vals)
    if top <= 0.0:
        return None  # no gradient at all: nothing was clipped
    tol = threshold("MT-CLIP-TOL") * top
    at = sum(abs(v - top) <= tol for v in vals)
    if at == len(vals):
        return "every_step", top
    return ("sometimes", top) if at >= 2 else ("never", top)


class ClippingProbe(Probe):
    """Plugin (watch only: examine runs no user loop, so it never sees the user's clipping)."""

    info = INFO
    hooks = ("optimizer_pre", "window")
    sampled_hooks = ("optimizer_pre",)
    thresholds = ("MT-CLIP-TOL", "MT-CLIP-MIN")

    def attach(self, run: Any) -> None:
        """No norms yet."""
        self.values: list[float] = []
        self.steps: list[float] = []

    def optimizer_pre(self, run: Any) -> None:
        """On a sampled step, the global gradient norm as the optimizer will apply it (device scalar)."""
        if not run.sampled:
            return
        grads = [p.grad for p in run.params if p.grad is not None and not p.grad.is_sparse]
        if grads:
            if not self._shared(run, grads):
                run.record("clip:norm", torch.linalg.vector_norm(norms(grads)))
            gain = sgd_gain(run.optimizer)
            if gain is not None:
                run.record("clip:wnorm", torch.linalg.vector_norm(norms([p.detach() for p in run.params])))
                run.record_host("clip:gain", gain)

    def _shared(self, run: Any, grads: list[Any]) -> bool:
        """Whether the gradient-flow probe queues this sampled step's per-parameter norms of exactly ``grads``."""
        gf = run.probe("grad_flow") if hasattr(run, "probe") else None
        return gf is not None and getattr(gf, "_dense", False) and getattr(gf, "_count", -1) == len(grads)

    def accumulate(self, run: Any, window: Any) -> None:
        """Keep the last 256 sampled norms (the global norm of the sampled steps' per-parameter norms, or ours)."""
        ue = run.update_every
        own = window.get("clip:norm")
        shared = [(s, math.sqrt(math.fsum(x * x for x in v))) for s, v in window.get("gf:norms") if s % ue == 0]
        if own and shared:  # both kinds in one window (the gradients' set changed): in step order
            self.values += [v for _, v in sorted([(s, v[0]) for s, v in own] + shared, key=lambda r: r[0])]
        else:
            self.values += [v[0] for _, v in own] + [v for _, v in shared]
        self.values = self.values[-256:]
        for (_, w), (_, g) in zip(window.get("clip:wnorm"), window.get("clip:gain"), strict=False):
            if w[0] > 0:
                self.steps.append(g[0] / w[0])  # the step per unit of (clipped) gradient norm, against the weights
        self.steps = self.steps[-256:]

    def examine(self, ex: Any) -> list:
        """With the loop's ``clip_norm`` given, whether the examined steps were clipped every time."""
        norms_ = getattr(ex, "pre_clip", [])
        clip = getattr(ex, "clip_norm", None)
        if not clip or not norms_:
            return []
        every = all(n > clip for n in norms_)
        return [emit(INFO, "grad_clip_active", "every_step" if every else "sometimes" if any(n > clip for n in norms_)
                     else "never", {"max_norm": clip, "pre_clip_norms": norms_})]

    def summarise(self, run: Any) -> list:
        """Whether every sampled step was clipped, with the norm it was clipped to."""
        v = verdict(self.values)
        if v is None:
            return []
        ev = {"clipped_norm": v[1], "sampled_steps": len(self.values)}
        out = [emit(INFO, "grad_clip_active", v[0], ev, ("MT-CLIP-TOL", "MT-CLIP-MIN"), step=run.steps)]
        if v[0] == "every_step" and self.steps:
            import statistics

            ratio = v[1] * statistics.median(self.steps)
            out.append(emit(INFO, "clip_step_ratio", ratio, {**ev, "lr_over_1_minus_momentum_per_weight_norm":
                                                             statistics.median(self.steps)}, step=run.steps))
        return out
