"""Loss multiplier (cheap, output-gradient hook, sampled): what the loss behind ``backward`` was multiplied by.

For a mean-reduced softmax cross-entropy the gradient reaching the logits is ``c * (softmax(z) - target) / B``,
and for BCE-with-logits it is ``c * (sigmoid(z) - target) / N``: ``c`` is whatever the loop multiplied the loss
by before ``backward`` (1 for a plain loss, ``1/k`` when ``k`` accumulated micro-batches are averaged). Away
from the target entries the target's share is known (0, or the label-smoothing mass), so ``c`` is read from the
output and its gradient alone, without the labels. With ``k > 1`` micro-batches per optimizer step, ``c`` near 1
means the loss was not divided by ``k``: the step applies the sum of ``k`` gradients, ``k`` times the LR on SGD.
Far below ``1/k`` (``MT-LOSSMUL-LOW``), the loss was multiplied down and never divided back (a collapsed loss
scale, a stray constant): every gradient and update shrinks with it (``loss_multiplier``), which the update ratio
alone reads as gradients shrinking near a minimum.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from typing import Any

import torch

from knowledge.measurements import threshold
from probes.base import Probe, ProbeInfo, emit

INFO = ProbeInfo("loss_scale", "cheap", "backward", ("loss_scaled_for_accum", "loss_multiplier"))
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


def window_multiplier(values: Sequence[float]) -> float | None:
    """One window's multiplier: the median of its finite positive samples (None when it has none)."""
    vals = sorted(v for v in values if math.isfinite(v) and v > 0)
    return vals[len(vals) // 2] if vals else None


def observe_multiplier(first_low: tuple[int, float] | None, latest: tuple[int, float] | None) -> list:
    """``loss_multiplier``: the first window below ``MT-LOSSMUL-LOW`` speaks for the run, else the latest one.

    A collapse is the fault even where the scale later recovers (a dynamic scale grows back), as the update
    ratio's first abnormal phase is.
    """
    pick = first_low or latest
    if pick is None:
        return []
    step, value = pick
    ev = {"step": step, "judged": "first window below the bound" if first_low else "latest window"}
    if latest is not None and first_low is not None:
        ev["latest"] = latest[1]
    return [emit(INFO, "loss_multiplier", value, ev, ("MT-LOSSMUL-LOW",), step=step)]


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
    thresholds = ("MT-LOSSMUL-LOW",)
    KEEP = 64

    def attach(self, run: Any) -> None:
        """Which loss kind the multiplier is read for (None: not readable); no samples yet."""
        from probes.config_lint import loss_name

        kind = loss_name(run.loss_fn) if run.loss_fn is not None else ""
        self.kind = kind if supported(run.loss_fn, kind) else None
        self.smoothing = float(getattr(run.loss_fn, "label_smoothing", 0.0) or 0.0)
        self.samples: deque[float] = deque(maxlen=self.KEEP)
        self._lint: Any = None  # the configuration lint (its micro-batch counts), looked up at the first sample
        self.latest: tuple[int, float] | None = None  # (step at the window end, the window's multiplier)
        self.first_low: tuple[int, float] | None = None  # the first window below MT-LOSSMUL-LOW

    def forward(self, run: Any, module: Any, first: Any, out: Any) -> None:
        """On a sampled step, hook the output's gradient (host checks only otherwise).

        An accumulating loop is read on every sampled step: the verdict on the division by ``k`` (``summarise``)
        needs the configuration lint's micro-batch count beside it. Before the lint has recorded a count, a
        micro-batch after the first of the step being counted (a backward already in it) is read already, so a
        run that ends after one sampled step of an accumulating loop still has its multiplier. Any other loop is
        read on the first step and then once a window, on its last sampled step (``loss_multiplier``: a loss
        multiplied down late in a run shows at the next window end); every sampled step would cost its dozen
        kernels, about 0.4 ms of a sampled step's extra on the small MLP, twice as often (issue 21). Without the
        lint, every sampled step.
        """
        if self.kind is None or not run.sampled or out is None or out.ndim != 2 or not out.requires_grad:
            return
        if self._lint is None:
            self._lint = run.probe("config_lint") or False
        if self._lint is not False and not self._lint.accum and not self._lint.accumulating_now() \
                and run.steps and run.steps % run.every < run.every - run.update_every:
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
        """Keep the latest multipliers (bounded), and the window's: the latest, and the first one far too low."""
        got = [v[0] for _, v in window.get("lossmul")]
        if not got:
            return
        self.samples.extend(got)
        m = window_multiplier(got)
        if m is not None:
            self.latest = (run.steps, m)
            if self.first_low is None and m < threshold("MT-LOSSMUL-LOW"):
                self.first_low = self.latest

    def summarise(self, run: Any) -> list:
        """``loss_multiplier`` once read; ``loss_scaled_for_accum`` beside the lint's micro-batch count."""
        from probes.base import at_step

        out = observe_multiplier(self.first_low, self.latest)
        lint = run.probe("config_lint")
        accum = getattr(lint, "accum", None)
        if not accum:
            return out
        import statistics

        return out + at_step(observe(list(self.samples), int(statistics.median(accum))), run.steps)
