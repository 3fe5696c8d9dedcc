"""Loss at initialization against chance, ln(num_classes), and negative-loss / log-probability mismatches (free)."""

from __future__ import annotations

import math
from typing import Any

from knowledge.terms import NON_NEGATIVE_LOSSES
from probes.base import Probe, ProbeInfo, emit, finite_or_none

INFO = ProbeInfo("loss_init", "free", "forward", ("loss_at_init", "loss_init_ratio", "negative_loss", "num_classes"))


def check(loss: float, num_classes: int | None, loss_fn: str | None, at_init: bool) -> dict[str, object]:
    """Compare a measured loss with chance and with the loss's range (pure).

    Args:
        loss: The measured loss (may be non-finite).
        num_classes: Classes, when a classification loss.
        loss_fn: Normalized loss name (see ``config_lint.loss_name``).
        at_init: Whether the model is at initialization (no optimizer step taken yet).
    """
    v = finite_or_none(loss)
    chance = math.log(num_classes) if num_classes and num_classes >= 2 else None
    return {"loss": v, "chance": chance, "ratio": (v / chance) if (v is not None and chance and at_init
                                                                    and v >= 0) else None,
            "negative": bool(v is not None and v < -1e-6 and loss_fn in NON_NEGATIVE_LOSSES), "at_init": at_init}


def per_example(loss: float, loss_fn: Any, shape: Any) -> float:
    """The loss per example: a summed loss (``reduction='sum'``) divided by the examples it sums over.

    Chance is ln(C) per example; a summed cross-entropy starts at N x ln(C) without being confidently wrong.
    ``shape`` is the output's (classes on dimension 1, so every other dimension counts examples).
    """
    if getattr(loss_fn, "reduction", None) != "sum" or not shape or len(shape) < 2 or not shape[1]:
        return loss
    n = math.prod(shape) // shape[1]
    return loss / n if n else loss


def observe(r: dict[str, object], num_classes: int | None) -> list:
    """Observations from ``check``."""
    out = []
    if num_classes and num_classes >= 2:
        out.append(emit(INFO, "num_classes", num_classes))
    if r["loss"] is not None and r["at_init"]:
        out.append(emit(INFO, "loss_at_init", r["loss"], {"chance_ln_c": r["chance"]}))
    if r["ratio"] is not None:
        out.append(emit(INFO, "loss_init_ratio", r["ratio"], {"loss": r["loss"], "chance_ln_c": r["chance"]},
                        ("MT-INIT-RATIO",)))
    if r["loss"] is not None:
        out.append(emit(INFO, "negative_loss", bool(r["negative"]), {"loss": r["loss"]}))
    return out


class LossInitProbe(Probe):
    """Plugin: the first loss against chance (ln C for cross-entropy) and its sign."""

    info = INFO
    hooks = ("window",)
    thresholds = ("MT-INIT-RATIO",)

    def attach(self, run: Any) -> None:
        """No loss seen yet."""
        self.first: float | None = None
        self._made: tuple[Any, list] | None = None

    def accumulate(self, run: Any, window: Any) -> None:
        """Keep the first loss of the run (when it is finite)."""
        losses = window.get("loss")
        if self.first is None and losses and math.isfinite(losses[0][1][0]):
            self.first = losses[0][1][0]

    def summarise(self, run: Any) -> list:
        """Observations of the first loss, stamped at step 0."""
        if self.first is None:
            return []
        from probes.base import at_step
        from probes.config_lint import loss_name

        nc = run.num_classes()
        kind = loss_name(run.loss_fn) if run.loss_fn is not None else None
        key = (self.first, nc, kind, run.at_init)
        if self._made is None or self._made[0] != key:  # the first loss does not change: emit it once
            first = per_example(self.first, run.loss_fn, run.first_output_shape)
            self._made = (key, at_step(observe(check(first, nc, kind, run.at_init), nc), 0))
        return list(self._made[1])

    def examine(self, ex: Any) -> list:
        """Observations of the examined batch's loss."""
        shape = tuple(ex.output_tensor.shape) if ex.output_tensor is not None else None
        return observe(check(per_example(ex.loss_value, ex.loss_fn, shape), ex.num_classes, ex.loss_kind, ex.at_init),
                       ex.num_classes)
