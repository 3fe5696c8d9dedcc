"""The loss a run starts from, and how many mean-reduced losses it is: the scale a gradient norm is judged at.

Torch-free on purpose: ``trainopt logs`` judges logged gradient norms with it, and must not import torch (nor numpy)
for a small file (issue 21).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from knowledge.measurements import threshold
from probes.medians import median

# raw losses whose median is the run's starting loss (``loss_start``): a few, so one odd first batch does not set it
START_LOSSES = 5


def loss_per(loss_start: float | None) -> float:
    """How many times a mean-reduced loss's size a loss starting at ``loss_start`` is: 1 up to ``MT-GRAD-LOSS-REF``.

    A loss summed over pixels, tokens or the batch has a gradient that many times larger, from the first step and
    for as long as it trains; its norm is judged per ``MT-GRAD-LOSS-REF`` of that starting loss. The start, not
    the current loss: a blow-up raises the loss along with the norm and would divide itself away.
    """
    ref = threshold("MT-GRAD-LOSS-REF")
    if loss_start is None or not math.isfinite(loss_start) or abs(loss_start) <= ref:
        return 1.0
    return abs(loss_start) / ref


def loss_start(losses: Sequence[float]) -> float | None:
    """The loss a run started from: the median of its first few finite raw losses, or None before any.

    Raw per-step losses, taken once: the bounded history's points are means of ``stride`` steps (pairs are
    averaged as it fills), so on a long run an early blow-up would lift its first points, divide the exploding
    norm away, and move the start from window to window.
    """
    first = [v for v in losses if math.isfinite(v)][:START_LOSSES]
    return float(median(first)) if first else None
