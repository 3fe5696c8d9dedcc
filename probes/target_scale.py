"""Regression-target scale (free): are the targets of a regression loss standardized or in raw units."""

from __future__ import annotations

from typing import Any

import torch

from knowledge.measurements import threshold
from knowledge.terms import REGRESSION_LOSSES
from probes.base import Probe, ProbeInfo, emit

INFO = ProbeInfo("target_scale", "free", "static", ("targets_unscaled",))


def scale(y: Any) -> float | None:
    """max(|mean|, std) of a float target batch; None for class indices, tiny or non-finite batches."""
    if not isinstance(y, torch.Tensor) or not y.is_floating_point() or y.numel() < 2:
        return None
    yf = y.detach().float()
    if not bool(torch.isfinite(yf).all()):
        return None
    return max(abs(float(yf.mean())), float(yf.std()))


def observe(targets: Any, loss_name: str | None) -> list:
    """``targets_unscaled`` for a regression loss whose float targets are far from unit scale (else nothing)."""
    if loss_name not in REGRESSION_LOSSES:
        return []
    s = scale(targets)
    if s is None:
        return []
    return [emit(INFO, "targets_unscaled", s > threshold("MT-TARGET-SCALE"), {"target_scale": s},
                 ("MT-TARGET-SCALE",))]


class TargetScaleProbe(Probe):
    """Plugin (``examine`` only): the scale of the examined batch's regression targets."""

    info = INFO
    hooks = ()
    thresholds = ("MT-TARGET-SCALE",)

    def examine(self, ex: Any) -> list:
        """``targets_unscaled`` for the loss the examined loss function computes."""
        return observe(ex.y, ex.loss_kind)
