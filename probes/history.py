"""One analysis of a run history: the verdicts ``watch``, the framework callbacks and ``trainopt logs`` share.

A run reaches trainopt three ways: live through ``watch`` (the Lightning and Hugging Face callbacks feed a
watch), or afterwards as a log file. Whichever way it arrives, its series (training loss, validation loss and
accuracy, gradient norm, learning rate) go through the functions here, so the same run gets the same
``loss_behavior``, NaN step, generalization and overfitting verdicts. Plain Python over any sequence (lists, or
the arrays a large log's reader has): reading a log never imports torch, and this module never imports numpy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from knowledge.measurements import threshold
from knowledge.record import dataclass
from knowledge.vocabulary import Observation
from probes.medians import amin, median

SOURCE = "probe:history"


@dataclass
class Curve:
    """One series of a run: the steps and values of its finite points, and where it first went non-finite.

    Attributes:
        steps: Step of each finite point (a bucket's first step when the series is downsampled).
        values: The finite values (bucket means when downsampled).
        first_nonfinite: Step of the first NaN/Inf value, or None.
        nonfinite: How many values were NaN/Inf.
        points: Values the series held before any downsampling.
        hi: Per-point maxima when downsampled (spikes live in the maxima), else None.
    """

    steps: Sequence[float]
    values: Sequence[float]
    first_nonfinite: float | None = None
    nonfinite: int = 0
    points: int = 0
    hi: Sequence[float] | None = None

    @classmethod
    def of(cls, steps: Any, values: Any) -> Curve:
        """A curve from raw points (NaN/Inf values located and counted, None entries skipped)."""
        values = list(values)
        steps = range(len(values)) if steps is None else list(steps)
        known = [(float(s), float(x)) for s, x in zip(steps, values) if x is not None]
        bad = [s for s, x in known if not math.isfinite(x)]
        good = [(s, x) for s, x in known if math.isfinite(x)]
        return cls([s for s, _ in good], [x for _, x in good], bad[0] if bad else None, len(bad), len(known))

    def __len__(self) -> int:
        return len(self.values)


# --------------------------------------------------------------------------------------- NaN hidden by a filter


def nan_filtered(loss: float | None, grad_norm: float | None) -> bool:
    """Whether a logged training loss hides a non-finite one (pure).

    The Hugging Face Trainer's ``logging_nan_inf_filter`` (on by default) never logs a NaN/Inf loss: it logs the
    mean of the earlier finite losses, or 0.0 once every loss of the window was non-finite. The gradient norm is
    logged unfiltered, so a non-finite ``grad_norm`` beside a finite loss is the evidence that the loss was not.

    Args:
        loss: The logged loss (None when the row has none).
        grad_norm: The gradient norm logged on the same row (None when not logged).
    """
    return loss is not None and grad_norm is not None and math.isfinite(loss) and not math.isfinite(grad_norm)


def unfiltered_loss(loss: float | None, grad_norm: float | None) -> float | None:
    """The loss as it was: NaN where the logged value hides a non-finite loss (see :func:`nan_filtered`)."""
    return math.nan if nan_filtered(loss, grad_norm) else loss


# --------------------------------------------------------------------------------------- the analysis


def _emit(name: str, value: Any, evidence: dict[str, Any] | None = None, thresholds: Sequence[str] = (),
          source: str = SOURCE) -> Observation:
    from probes.base import VALUES_ONLY, jsonable, threshold_evidence

    if VALUES_ONLY.get():
        return Observation.make(name, value, source)  # a window end's trip check: values only (base.values_only)
    ev = jsonable({k: v for k, v in (evidence or {}).items() if k != "label"})
    if thresholds:
        ev.update(threshold_evidence(*thresholds))
    return Observation.make(name, value, source, ev)


def loss_observations(loss: Curve, *, spikes: Any = None, floor: float = 0.0, chance: float | None = None,
                      why: str | None = None) -> list[Observation]:
    """``loss_behavior`` of a training-loss curve, and ``nan_step`` / ``nan_onset`` when it went non-finite.

    Args:
        loss: The training loss.
        spikes: A ``SpikeCounter`` fed the raw values (``watch``, whose history is downsampled); counted on the
            curve's points when None.
        floor: The lowest value the loss can reach (label smoothing).
        chance: The loss of a guessing model, when known.
        why: How the non-finite step was found, when not from the loss itself (a filtered log).
    """
    from probes.loss_curve import observe

    if loss.first_nonfinite is not None:
        step = int(loss.first_nonfinite)
        first = float(loss.steps[0]) if len(loss) else float(step)
        ev: dict[str, Any] = {"first_nonfinite_step": step, "nonfinite_points": loss.nonfinite,
                              "points": loss.points}
        if why:
            ev["why"] = why
        out = [_emit("loss_behavior", "nan_or_inf", ev), _emit("nan_step", max(0, step), ev)]
        # the onset is known when the very first step was non-finite or finite points came before it; a log
        # whose first row (step 10, say) is already non-finite cannot tell
        if step <= 1 or first < step:
            out.append(_emit("nan_onset", "immediate" if step <= 1 else "after_steps", ev))
        return out
    # spikes counted on the points as given (bucket means when downsampled): a plot of the same points marks the
    # same spikes (``count_spikes``)
    return [Observation.make(o.name, o.value, SOURCE, o.evidence)
            for o in observe(loss.values, spikes=spikes, floor=floor, chance=chance)]


def _pair(c: Curve | None) -> tuple[Sequence[float], Sequence[float]] | None:
    return None if c is None or not len(c) else (c.steps, c.values)


def generalization_observations(*, loss: Curve | None = None, val_loss: Curve | None = None,
                                val_acc: Curve | None = None, train_acc: Curve | None = None,
                                train_loss_at_val: Curve | None = None, val_best: tuple[float, float] | None = None,
                                num_classes: int | None = None) -> list[Observation]:
    """Gap, gap trend, accuracy over chance and a rising validation loss (``probes.generalization.observe_series``).

    Args:
        loss: The training loss over the run.
        val_loss: Validation loss at its evaluation steps.
        val_acc: Validation accuracy (fractions or percent).
        train_acc: Training accuracy (fractions or percent).
        train_loss_at_val: The training loss recorded beside each validation loss, when the caller has it.
        val_best: ``(step, value)`` of the best validation loss when ``val_loss`` keeps only recent points.
        num_classes: For accuracy over chance.
    """
    from probes.generalization import observe_series

    out = observe_series(loss=_pair(loss), val_loss=_pair(val_loss), val_acc=_pair(val_acc),
                         train_acc=_pair(train_acc), train_loss_at_val=_pair(train_loss_at_val), val_best=val_best,
                         num_classes=num_classes)
    return [Observation.make(o.name, o.value, SOURCE, o.evidence) for o in out]


def grad_norm_observations(gn: Curve, loss_start: float | None = None) -> list[Observation]:
    """``grad_norm_trend`` and ``grad_norm_global`` from logged global gradient norms.

    As the watch does (``probes.loss_reference.loss_per``), a loss that starts above ``MT-GRAD-LOSS-REF`` (summed over
    many elements) has its norms judged per that much of it: the log reader and the watch read one run alike.

    A non-finite norm is ``exploding`` here; when the log hides non-finite losses, ``analyse`` also reads it as
    the loss's non-finite step.

    Args:
        gn: The gradient-norm series (``hi``: bucket maxima when downsampled).
        loss_start: The logged loss's first value (the median of its first few), when the log has one.
    """
    from probes.loss_reference import loss_per

    if gn.first_nonfinite is not None:
        return [_emit("grad_norm_trend", "exploding", {"first_nonfinite_step": int(gn.first_nonfinite),
                                                       "nonfinite_points": gn.nonfinite})]
    if not len(gn):
        return []
    per = loss_per(loss_start)
    mean = [v / per for v in gn.values]
    hi = [v / per for v in gn.hi] if gn.hi is not None else mean
    med = median(mean)
    # spikes: a point whose maximum exceeds MT-GRAD-SPIKE times the running median of the points before it
    spikes = 0
    if len(mean) >= 8:
        k = threshold("MT-GRAD-SPIKE")
        spikes = sum(1 for i in range(4, len(mean)) if hi[i] > k * max(median(mean[max(0, i - 64):i]), 1e-12))
    if med > threshold("MT-GRAD-EXPLODE-ABS"):
        trend = "exploding"
    elif med < threshold("MT-GRAD-VANISH-ABS"):
        trend = "vanishing"
    else:
        trend = "spiky" if spikes else "normal"
    ev = {"median_grad_norm": float(f"{med:.6g}"), "spikes": spikes, "points": gn.points}
    gev: dict[str, Any] = {"median_over_points": gn.points}
    if per > 1.0:
        extra = {"raw_norm": float(f"{median(gn.values):.6g}"), "loss_start": loss_start, "divided_by": per}
        ev.update(extra)
        gev.update(extra)
    return [_emit("grad_norm_trend", trend, ev, ("MT-GRAD-EXPLODE-ABS", "MT-GRAD-VANISH-ABS", "MT-GRAD-SPIKE")),
            _emit("grad_norm_global", med, gev)]


def _round(x: float, decimals: int) -> float:
    """``numpy.round(x, decimals)``: scale, round half to even, scale back (Python's ``round`` rounds exactly)."""
    scale = 10.0 ** decimals
    y = x * scale
    return float(round(y)) / scale if math.isfinite(y) else y / scale


def lr_observations(lr: Curve, *, lo: Sequence[float] | None = None, width: int = 1) -> list[Observation]:
    """Peak ``learning_rate``, ``warmup`` and a constant or step ``lr_schedule`` from a logged LR series.

    Args:
        lr: The LR series (``hi``: bucket maxima when downsampled).
        lo: Bucket minima when downsampled.
        width: Points per bucket.
    """
    mean = lr.values
    hi = lr.hi if lr.hi is not None else mean
    lo = lo if lo is not None else mean
    fin = [float(x) for x in hi if math.isfinite(x) and x > 0]
    if not fin:
        return []
    peak = max(fin)
    out = []
    if 0 < peak <= 10:
        out.append(_emit("learning_rate", peak, {"peak": peak, "first": float(mean[0]), "last": float(mean[-1])}))
    if len(mean) >= 3:
        first_peak = next((i for i, x in enumerate(mean) if x >= 0.999 * peak), 0)
        out.append(_emit("warmup", bool(first_peak > 0 and mean[0] < 0.5 * peak),
                         {"steps_to_peak_bucket": first_peak, "bucket_width": width}))
        if amin(lo) >= 0.9999 * peak:
            out.append(_emit("lr_schedule", "none", {"constant": peak}))
        else:
            # a few flat levels, each lower than the one before: a step schedule
            levels = sorted({_round(float(x), 12) for x in mean})
            if 1 < len(levels) <= 6 and all(b - a <= 1e-15 * peak for a, b in zip(mean, mean[1:])):
                out.append(_emit("lr_schedule", "step", {"levels": levels[::-1]}))
    return out


def analyse(*, loss: Curve, val_loss: Curve | None = None, val_acc: Curve | None = None,
            train_acc: Curve | None = None, grad_norm: Curve | None = None, lr: Curve | None = None,
            nan_filter: bool = False, lr_lo: Sequence[float] | None = None, lr_width: int = 1) -> dict[str, list]:
    """Every verdict a run history supports, by the series (role) it rests on.

    Args:
        loss: The training loss.
        val_loss: Validation loss.
        val_acc: Validation accuracy.
        train_acc: Training accuracy.
        grad_norm: Global gradient norm.
        lr: Learning rate.
        nan_filter: The log hides non-finite losses (Hugging Face ``logging_nan_inf_filter``): a non-finite
            gradient norm marks the step the loss went non-finite.
        lr_lo: LR bucket minima when downsampled.
        lr_width: LR points per bucket.

    Returns:
        ``{role: [Observation, ...]}`` with roles ``loss``, ``grad_norm``, ``val_loss``/``val_acc`` and ``lr``;
        each observation's source is ``probe:history`` (a log reader restamps it with its column).
    """
    out: dict[str, list] = {}
    why = None
    if nan_filter and loss.first_nonfinite is None and grad_norm is not None \
            and grad_norm.first_nonfinite is not None:
        # the loss logged after that step is the filter's stand-in (0.0 or an old mean), not the run's loss
        cut = grad_norm.first_nonfinite
        keep = [i for i, s in enumerate(loss.steps) if s < cut]
        loss = Curve([loss.steps[i] for i in keep], [loss.values[i] for i in keep], cut, grad_norm.nonfinite,
                     loss.points)
        why = "grad_norm non-finite at this step; the Trainer's NaN filter hides non-finite losses"
    out["loss"] = loss_observations(loss, why=why)
    if why:
        out["grad_norm"] = out.pop("loss")
    if grad_norm is not None:
        out.setdefault("grad_norm", [])
        from probes.loss_reference import loss_start

        out["grad_norm"] += grad_norm_observations(grad_norm, loss_start(loss.values) if loss is not None else None)
    role = "val_acc" if val_acc is not None and train_acc is not None or val_loss is None else "val_loss"
    fine = loss if loss.first_nonfinite is None else None  # a run that went NaN has no gap worth measuring
    gen = generalization_observations(loss=fine, val_loss=val_loss, val_acc=val_acc, train_acc=train_acc)
    if gen:
        out[role] = gen
    if lr is not None and len(lr):
        out["lr"] = lr_observations(lr, lo=lr_lo, width=lr_width)
    return out


__all__ = ["Curve", "analyse", "generalization_observations", "grad_norm_observations", "loss_observations",
           "lr_observations", "nan_filtered", "unfiltered_loss"]
