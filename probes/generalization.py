"""Generalization gap (free, from metrics): train vs validation accuracy, its trend, and accuracy vs chance."""

from __future__ import annotations

import math
from bisect import bisect_right
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

from knowledge.measurements import threshold
from knowledge.vocabulary import Observation
from probes.base import Probe, ProbeInfo, emit, finite_or_none
from probes.medians import amin

INFO = ProbeInfo("generalization", "free", "metrics",
                 ("train_metric", "val_metric", "metric_kind", "generalization_gap", "gap_trend",
                  "val_acc_over_chance", "val_loss_rising"))


def gap(train_acc: float, val_acc: float) -> float:
    """Train minus validation accuracy (fractions)."""
    return float(train_acc) - float(val_acc)


def gap_trend(gaps: Sequence[float], tol: float = 0.02) -> str | None:
    """Slope of the gap over the recorded points (least squares), scaled to the whole run: widening, stable or.

    narrowing; None with fewer than 3 points.
    """
    g = [float(x) for x in gaps if finite_or_none(x) is not None]
    n = len(g)
    if n < 3:
        return None
    # the least-squares slope against 0 .. n-1, centred (what a degree-1 fit gives, without numpy)
    xm, gm = (n - 1) / 2.0, math.fsum(g) / n
    slope = math.fsum((i - xm) * (x - gm) for i, x in enumerate(g)) / math.fsum((i - xm) ** 2 for i in range(n))
    slope *= n - 1
    return "widening" if slope > tol else "narrowing" if slope < -tol else "stable"


def observe(*, train_acc: Sequence[float] = (), val_acc: Sequence[float] = (), val_loss: Sequence[float] = (),
            train_loss: Sequence[float] = (), num_classes: int | None = None) -> list:
    """Observations from metric histories (accuracies as fractions; the last value is current)."""
    out = []
    tr = [x for x in train_acc if finite_or_none(x) is not None]
    va = [x for x in val_acc if finite_or_none(x) is not None]
    if tr and va and all(0 <= x <= 1 for x in tr + va):
        n = min(len(tr), len(va))
        gaps = [gap(a, b) for a, b in zip(tr[-n:], va[-n:])]
        out += [emit(INFO, "metric_kind", "accuracy"), emit(INFO, "train_metric", tr[-1]),
                emit(INFO, "val_metric", va[-1]),
                emit(INFO, "generalization_gap", max(-1.0, min(1.0, gaps[-1])), {"train": tr[-1], "val": va[-1]},
                     ("MT-GAP",))]
        t = gap_trend(gaps)
        if t:
            out.append(emit(INFO, "gap_trend", t, {"gaps": gaps[-10:]}))
    elif train_loss and val_loss:
        tl = [x for x in train_loss if finite_or_none(x) is not None]
        vl = [x for x in val_loss if finite_or_none(x) is not None]
        if tl and vl and min(tl + vl) >= 0:
            n = min(len(tl), len(vl))
            out += [emit(INFO, "metric_kind", "loss"), emit(INFO, "train_metric", tl[-1]),
                    emit(INFO, "val_metric", vl[-1])]
            t = gap_trend([b - a for a, b in zip(tl[-n:], vl[-n:])], tol=0.02 * max(vl[-1], 1e-9))
            if t:
                out.append(emit(INFO, "gap_trend", t, {"train": tl[-1], "val": vl[-1]}))
    elif va and not tr and all(0 <= x <= 1 for x in va):
        # validation accuracy alone is still the current validation metric: it replaces an older one (an
        # examine before training) instead of standing beside it
        out += [emit(INFO, "metric_kind", "accuracy"), emit(INFO, "val_metric", va[-1])]
    if va and num_classes and num_classes >= 2 and 0 <= va[-1] <= 1:
        out.append(emit(INFO, "val_acc_over_chance", va[-1] * num_classes,
                        {"val_acc": va[-1], "chance": 1.0 / num_classes}, ("MT-CHANCE-ACC",)))
    return out


def val_loss_rise(val_steps: Sequence[float], val_loss: Sequence[float], train_steps: Sequence[float],
                  train_loss: Sequence[float]) -> dict[str, object] | None:
    """Whether validation loss rose after its best while the training loss kept falling (pure, noise-aware).

    The rise counts only when the last two evaluations both sit above the best by more than ``MT-VAL-RISE`` of
    it and by more than three robust noise deviations of the validation series, at least two evaluations after
    the best; the training loss must be lower at the end than around the best evaluation by more than its own
    noise. None with fewer than four finite evaluations or no training loss over the span.

    Args:
        val_steps: Steps of the validation evaluations.
        val_loss: Their losses.
        train_steps: Steps of the training-loss points (a watch's bounded history).
        train_loss: The training losses.
    """
    from probes.loss_curve import noise_level
    from probes.medians import median

    def finite(steps: Sequence[float], values: Sequence[float]) -> tuple[list[float], list[float]]:
        kept = [(float(a), float(b)) for a, b in zip(steps, values) if math.isfinite(a) and math.isfinite(b)]
        return [a for a, _ in kept], [b for _, b in kept]

    vs, vl = finite(val_steps, val_loss)
    ts, tl = finite(train_steps, train_loss)
    if len(vl) < 4 or len(tl) < 6:
        return None
    best = min(range(len(vl)), key=vl.__getitem__)  # the first lowest, as an argmin finds it
    noise = noise_level(vl)
    after = min(vl[-2:])
    rise = after - vl[best]
    need = max(threshold("MT-VAL-RISE") * abs(vl[best]), 3.0 * noise)
    win = max(1.0, 0.05 * (ts[-1] - ts[0]))

    # the training loss's own step-to-step noise (first differences: a steep fall is trend, not noise), so a
    # sparsely logged run whose few points near the best evaluation span a steep stretch is not read as noisy
    t_noise = noise_level(tl)  # 0 below three points

    def train_at(step: float) -> tuple[float, float]:
        near = [v for s, v in zip(ts, tl) if abs(s - step) <= win]
        if len(near) < 3:  # the three nearest points
            near = [tl[i] for i in sorted(range(len(ts)), key=lambda i: abs(ts[i] - step))[:3]]
        return median(near), t_noise / math.sqrt(len(near))

    t_best, se_best = train_at(vs[best])
    t_end, se_end = train_at(ts[-1])
    falling = t_end < t_best - 3.0 * max(se_best, se_end, 1e-12)
    rising = best <= len(vl) - 3 and rise > need
    return {"rising": bool(rising and falling), "best_val": vl[best], "best_step": vs[best],
            "val_now": vl[-1], "rise": rise, "needed": need, "train_at_best": t_best, "train_now": t_end,
            "train_falling": bool(falling), "evaluations": len(vl)}


def observe_val_loss(val_steps: Sequence[float], val_loss: Sequence[float], train_steps: Sequence[float],
                     train_loss: Sequence[float], step: int | None = None) -> list:
    """``val_loss_rising`` from a supplied validation loss against the run's own training loss."""
    r = val_loss_rise(val_steps, val_loss, train_steps, train_loss)
    if r is None:
        return []
    return [emit(INFO, "val_loss_rising", bool(r["rising"]), r, ("MT-VAL-RISE",), step=step)]


Pair = tuple[Any, Any]
"""(steps, values) of a series' finite points."""


def _at(steps: Sequence[float], series: Pair) -> list[float]:
    """The series' values at ``steps``: linear interpolation between its points, held at its ends.

    Computed as ``numpy.interp`` computes it (the segment's slope times the distance from its left point, plus
    that point's value; a step on a point takes the point's value), so the numbers are the same without numpy.
    """
    xp = [float(x) for x in series[0]]
    fp = [float(x) for x in series[1]]
    last = len(xp) - 1
    if not last:  # one point: its value everywhere (a NaN step included, as numpy has it)
        return [fp[0] for _ in steps]
    out = []
    for x in steps:
        x = float(x)
        if x != x:
            out.append(x)
            continue
        if x < xp[0]:
            out.append(fp[0])
            continue
        if x > xp[last]:
            out.append(fp[last])
            continue
        j = bisect_right(xp, x) - 1
        if j == last or xp[j] == x:
            out.append(fp[j])
            continue
        slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j])
        y = slope * (x - xp[j]) + fp[j]
        if y != y:  # NaN one way: try from the right-hand point
            y = slope * (x - xp[j + 1]) + fp[j + 1]
            if y != y and fp[j] == fp[j + 1]:
                y = fp[j]
        out.append(y)
    return out


def _fraction(series: Pair | None) -> Pair | None:
    """Accuracies as fractions: a series logged in percent is scaled down."""
    if series is None or not len(series[1]):
        return None
    v = [float(x) for x in series[1]]
    return (series[0], [x / 100.0 for x in v]) if max(v) > 1.0 else (series[0], v)


def observe_series(*, loss: Pair | None = None, val_loss: Pair | None = None, val_acc: Pair | None = None,
                   train_acc: Pair | None = None, train_loss_at_val: Pair | None = None,
                   val_best: tuple[float, float] | None = None, num_classes: int | None = None) -> list:
    """Gap, gap trend, accuracy over chance and a rising validation loss, from whatever series a run has.

    The one reading of a run's metrics that ``watch`` (this probe) and ``trainopt logs`` (``probes.history``)
    share. Train and validation metrics are compared at matching points: the training series is read at the
    validation steps. A validation loss is judged against the training loss in every case (overfitting shows in
    losses whether or not accuracies were logged).

    Args:
        loss: The training loss over the run.
        val_loss: Validation loss at its evaluation steps.
        val_acc: Validation accuracy (fractions or percent).
        train_acc: Training accuracy (fractions or percent).
        train_loss_at_val: The training loss recorded beside each validation loss (a callback has it); read
            off ``loss`` at the validation steps otherwise.
        val_best: ``(step, value)`` of the best validation loss when ``val_loss`` keeps only recent points.
        num_classes: For accuracy over chance.
    """
    val_acc, train_acc = _fraction(val_acc), _fraction(train_acc)
    out: list = []
    if val_acc is not None and train_acc is not None:
        out = observe(train_acc=_at(val_acc[0], train_acc), val_acc=list(val_acc[1]),
                      num_classes=num_classes)
    elif val_loss is not None and (train_loss_at_val is not None or loss is not None):
        tl = [float(x) for x in (train_loss_at_val[1] if train_loss_at_val is not None else _at(val_loss[0], loss))]
        vl = [float(x) for x in val_loss[1]]
        n = min(len(tl), len(vl))
        out = observe(train_loss=tl[-n:], val_loss=vl[-n:], num_classes=num_classes)
        if val_acc is not None:
            out += [o for o in observe(val_acc=list(val_acc[1]), num_classes=num_classes)
                    if o.name == "val_acc_over_chance"]
    elif val_acc is not None:
        out = observe(val_acc=list(val_acc[1]), num_classes=num_classes)
    if val_loss is not None and loss is not None:
        vs, vl = [float(x) for x in val_loss[0]], [float(x) for x in val_loss[1]]
        if val_best is not None and val_best[1] < amin(vl) and val_best[0] < vs[0]:
            vs, vl = [float(val_best[0]), *vs], [float(val_best[1]), *vl]  # the best evaluation fell out of the window
        out += observe_val_loss(vs, vl, list(loss[0]), list(loss[1]))
    return out


def superseded(known: Mapping[str, Observation], fresh: Sequence[Observation]) -> list[str]:
    """Names of this probe's earlier observations that a newer summary leaves out and so makes stale (pure).

    Train and validation metrics describe the model at one moment: an examine before training that measured
    train accuracy must not leave it beside the end-of-run validation accuracy a watch measured. A newer
    summary from this probe replaces the earlier one whole.

    Args:
        known: Observations already held (by name).
        fresh: This probe's new observations, stamped with the step they were measured at.
    """
    mine = [o for o in fresh if o.source == INFO.source]
    steps = [o.step for o in mine if o.step is not None]
    if not steps:
        return []
    now, names = min(steps), {o.name for o in mine}
    return sorted(n for n, o in known.items() if o.source == INFO.source and n not in names
                  and (o.step is None or o.step < now))


def accuracy(out: Any, y: Any) -> float | None:
    """Top-1 accuracy of class scores ``out`` (N, C) against integer labels ``y`` (N,), or None."""
    import torch

    if not (isinstance(out, torch.Tensor) and isinstance(y, torch.Tensor)) or out.ndim != 2 or out.shape[1] < 2:
        return None
    if y.dtype not in (torch.int64, torch.int32, torch.int16, torch.uint8) or y.shape != out.shape[:1]:
        return None
    return float((out.argmax(1) == y).float().mean())


class GeneralizationProbe(Probe):
    """Plugin: train/validation gap and trend.

    From the metrics given to ``w.step`` (host numbers, at most 64 of each kept) or, in ``examine``, from one
    validation batch against the training batch.
    """

    info = INFO
    hooks = ("window",)
    thresholds = ("MT-GAP", "MT-CHANCE-ACC", "MT-VAL-RISE")
    KEEP = 64

    def attach(self, run: Any) -> None:
        """No metric seen yet."""
        self.metrics: dict[str, deque[float]] = {}
        self.metric_steps: dict[str, deque[int]] = {}  # the step of each kept value (a validation loss's)
        self.val_best: tuple[float, float] | None = None  # (step, value): the best validation loss, kept or not

    def accumulate(self, run: Any, window: Any) -> None:
        """Append the window's metric values (keys ``m:<name>``)."""
        for key in window.keys():
            if key.startswith("m:"):
                q = self.metrics.setdefault(key[2:], deque(maxlen=self.KEEP))
                q.extend(v[0] for _, v in window.get(key))
                self.metric_steps.setdefault(key[2:], deque(maxlen=self.KEEP)).extend(s for s, _ in window.get(key))
                if key == "m:val_loss":
                    for step, v in window.get(key):
                        if finite_or_none(v[0]) is not None and (self.val_best is None or v[0] < self.val_best[1]):
                            self.val_best = (float(step), float(v[0]))

    def metric_history(self) -> dict[str, list[float]]:
        """The kept values of each metric, by name."""
        return {k: list(v) for k, v in self.metrics.items()}

    def summarise(self, run: Any) -> list:
        """Gap, trend, accuracy over chance and a rising validation loss, stamped at the current step.

        The same analysis ``trainopt logs`` runs on a log file (``probes.history``), over the kept metrics and
        the watch's own training-loss history.
        """
        from probes.base import at_step

        def series(steps: Any, values: Any) -> Pair | None:
            try:
                # the usual case, every value a finite number: the pairs as they are, without a call per value
                # (the loss history is up to 512 points, read at every window end)
                if values and len(steps) == len(values) and all(map(math.isfinite, values)):
                    return list(steps), list(values)
            except TypeError:
                pass  # something that is not a number: sorted out one by one below
            kept = [(s, v) for s, v in zip(steps, values) if finite_or_none(v) is not None]
            return ([s for s, _ in kept], [v for _, v in kept]) if kept else None

        def metric(name: str) -> Pair | None:
            return series(self.metric_steps[name], self.metrics[name]) if name in self.metrics else None

        got = observe_series(loss=series(*run.loss_history), val_loss=metric("val_loss"), val_acc=metric("val_acc"),
                             train_acc=metric("train_acc"), train_loss_at_val=metric("train_loss"),
                             val_best=self.val_best, num_classes=run.num_classes())
        return at_step(got, run.steps)

    def stale(self, known: Any, fresh: Any) -> list[str]:
        """Earlier metrics observations a newer summary replaces whole (see :func:`superseded`)."""
        return superseded(known, fresh)

    def after_forward(self, ex: Any) -> None:
        """With a validation batch: accuracies on it and on the training batch, weights as found, eval mode."""
        self._acc = None
        if ex.val_batch is None:
            return
        import torch

        vx, vy = ex.split(ex.val_batch)
        modes = [(m, m.training) for m in ex.model.modules()]
        try:
            ex.model.eval()
            with torch.no_grad():
                va = accuracy(ex.call_model(vx, "model(val_inputs)"), vy)
                ta = accuracy(ex.forward(), ex.y)
        finally:
            for m, t in modes:
                m.training = t
        if va is not None and ta is not None:
            self._acc = (ta, va)

    def examine(self, ex: Any) -> list:
        """The gap between the training and the validation batch."""
        acc = getattr(self, "_acc", None)
        if acc is None:
            return []
        return observe(train_acc=[acc[0]], val_acc=[acc[1]], num_classes=ex.num_classes)
