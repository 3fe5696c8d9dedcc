"""Loss multiplier (cheap, output-gradient hook, sampled): what the loss behind ``backward`` was multiplied by.

For a mean-reduced softmax cross-entropy the gradient reaching the logits is ``c * (softmax(z) - target) / B``,
and for BCE-with-logits it is ``c * (sigmoid(z) - target) / N``: ``c`` is whatever the loop multiplied the loss
by before ``backward`` (1 for a plain loss, ``1/k`` when ``k`` accumulated micro-batches are averaged). Away
from the target entries the target's share is known (0, or the label-smoothing mass), so ``c`` is read from the
output and its gradient alone, without the labels. With ``k > 1`` micro-batches per optimizer step, ``c`` near 1
means the loss was not divided by ``k``: the step applies the sum of ``k`` gradients, ``k`` times the LR on SGD.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from typing import Any

import torch

from probes.base import Probe, ProbeInfo, emit

INFO = ProbeInfo("loss_scale", "cheap", "backward", ("loss_scaled_for_accum",))
KINDS = ("cross_entropy", "bce_with_logits")


def supported(loss_fn: Any, kind: str) -> bool:
    """Whether the multiplier can be read for this loss: an unweighted, mean-reduced CE or BCE-with-logits."""
    return (kind in KINDS and getattr(loss_fn, "reduction", "mean") == "mean"
            and getattr(loss_fn, "weight", None) is None and getattr(loss_fn, "pos_weight", None) is None)


def multiplier(out: torch.Tensor, grad: torch.Tensor, kind: str, smoothing: float = 0.0) -> torch.Tensor:
    """The loss multiplier ``c`` as a device scalar (NaN when the batch shows nothing to read it from).

    Args:
        out: The model output the loss was given, (batch, classes) logits.
        grad: The gradient that reached it.
        kind: ``cross_entropy`` (softmax over dim 1, divided by the rows that carry a gradient) or
            ``bce_with_logits`` (sigmoid per element, divided by every element).
        smoothing: The cross-entropy's label smoothing (each non-target entry's target share is
            ``smoothing / classes``).
    """
    z = out.detach().float()
    g = grad.detach().float()
    if kind == "cross_entropy":
        p = torch.softmax(z, dim=1)
        share = smoothing / z.shape[1]
        # rows without gradient are ignored targets (ignore_index): the mean is over the rows that count
        rows = (g != 0).any(dim=1).sum().clamp(min=1)
        count = rows.float()
    else:
        p = torch.sigmoid(z)
        share = 0.0
        count = torch.tensor(float(z.numel()), device=z.device)
    # a non-target entry's gradient is c * (p - share) / count: positive, with a known denominator
    den = p - share
    # entries whose probability is too close to the target's share (or to zero) carry rounding, not c
    ok = (g > 0) & (den > 1e-6 + share)
    est = torch.where(ok, g * count / den.clamp(min=1e-6), torch.full_like(g, float("nan")))
    return torch.nanmedian(est.reshape(-1))


def scaled_for_accum(multipliers: Sequence[float], k: int) -> bool | None:
    """Judge whether the loss was divided by the ``k`` micro-batches: True, False or None (cannot tell).

    A multiplier within a factor ``sqrt(k)`` of ``1/k`` is divided, within ``sqrt(k)`` of 1 is not; anything
    else (a sum reduction, a loss weighted by the user) is left unjudged.
    """
    vals = sorted(m for m in multipliers if math.isfinite(m) and m > 0)
    if k < 2 or not vals:
        return None
    m = vals[len(vals) // 2]
    band = 0.5 * math.log(k)
    if abs(math.log(m)) < band:
        return False
    if abs(math.log(m * k)) < band:
        return True
    return None


def observe(multipliers: Sequence[float], k: int) -> list:
    """``loss_scaled_for_accum`` when ``k > 1`` micro-batches feed each step and the multiplier was readable."""
    judged = scaled_for_accum(multipliers, k)
    if judged is None:
        return []
    vals = [m for m in multipliers if math.isfinite(m)]
    return [emit(INFO, "loss_scaled_for_accum", judged,
                 {"loss_multiplier": sorted(vals)[len(vals) // 2], "micro_batches": k, "samples": len(vals),
                  "expected_if_divided": 1.0 / k})]


class LossScaleProbe(Probe):
    """Plugin: the loss multiplier read from the gradient at the output, on sampled steps only.

    On a sampled training forward whose output is (batch, classes) logits of a supported loss, a tensor hook on
    the output computes the multiplier on the device when the gradient arrives (divided by a GradScaler's
    scale, which multiplies the loss too) and records it with the window; nothing is read in the step. The
    verdict needs the micro-batch count the configuration lint measures (``grad_accum_steps``).
    """

    info = INFO
    hooks = ("forward", "window")
    sampled_hooks = ("forward",)
    thresholds = ()
    KEEP = 64

    def attach(self, run: Any) -> None:
        """Which loss kind the multiplier is read for (None: not readable); no samples yet."""
        from probes.config_lint import loss_name

        kind = loss_name(run.loss_fn) if run.loss_fn is not None else ""
        self.kind = kind if supported(run.loss_fn, kind) else None
        self.smoothing = float(getattr(run.loss_fn, "label_smoothing", 0.0) or 0.0)
        self.samples: deque[float] = deque(maxlen=self.KEEP)
        self._lint: Any = None  # the configuration lint (its micro-batch counts), looked up at the first sample

    def forward(self, run: Any, module: Any, first: Any, out: Any) -> None:
        """On a sampled step of an accumulating loop, hook the output's gradient (host checks only otherwise).

        The multiplier is judged only beside the micro-batch count (``summarise``): while the configuration lint
        has counted no step of more than one micro-batch, nothing would read it, and its dozen kernels a sample
        were about 0.4 ms of a sampled step's 3 ms extra on the small MLP (4 us a step amortised; issue 21).
        The lint counts micro-batches on the same sampled steps: before it has recorded a count, a micro-batch
        after the first of the step being counted (a backward already in it) is read already, so a run that ends
        after one sampled step of an accumulating loop still has its multiplier. Without the lint, every sampled
        step, as before.
        """
        if self.kind is None or not run.sampled or out is None or out.ndim != 2 or not out.requires_grad:
            return
        if self._lint is None:
            self._lint = run.probe("config_lint") or False
        if self._lint is not False and not self._lint.accum and not self._lint.accumulating_now():
            return
        z = out.detach()

        def hook(g: torch.Tensor) -> None:
            m = multiplier(z, g, self.kind or "", self.smoothing)
            sc = getattr(run.scaler, "_scale", None)  # a GradScaler's scale multiplies the loss too
            if isinstance(sc, torch.Tensor):
                m = m / sc.float().reshape(())
            run.record("lossmul", m.reshape(()))

        out.register_hook(hook)

    def accumulate(self, run: Any, window: Any) -> None:
        """Keep the latest multipliers (bounded)."""
        self.samples.extend(v[0] for _, v in window.get("lossmul"))

    def summarise(self, run: Any) -> list:
        """``loss_scaled_for_accum`` once the configuration lint counted micro-batches per step."""
        from probes.base import at_step

        lint = run.probe("config_lint")
        accum = getattr(lint, "accum", None)
        if not accum:
            return []
        import statistics

        return at_step(observe(list(self.samples), int(statistics.median(accum))), run.steps)
