"""Generalization gap (free, from metrics): train vs validation accuracy, its trend, and accuracy vs chance."""

from __future__ import annotations

from collections.abc import Sequence

from probes.base import ProbeInfo, emit, finite_or_none

INFO = ProbeInfo("generalization", "free", "metrics",
                 ("train_metric", "val_metric", "metric_kind", "generalization_gap", "gap_trend",
                  "val_acc_over_chance"))


def gap(train_acc: float, val_acc: float) -> float:
    """Train minus validation accuracy (fractions)."""
    return float(train_acc) - float(val_acc)


def gap_trend(gaps: Sequence[float], tol: float = 0.02) -> str | None:
    """Slope of the gap over the recorded points (least squares), scaled to the whole run: widening, stable or.

    narrowing; None with fewer than 3 points.
    """
    import numpy as np

    g = np.asarray([x for x in gaps if finite_or_none(x) is not None], dtype=np.float64)
    if g.size < 3:
        return None
    slope = np.polyfit(np.arange(g.size, dtype=np.float64), g, 1)[0] * (g.size - 1)
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
    if va and num_classes and num_classes >= 2 and 0 <= va[-1] <= 1:
        out.append(emit(INFO, "val_acc_over_chance", va[-1] * num_classes,
                        {"val_acc": va[-1], "chance": 1.0 / num_classes}, ("MT-CHANCE-ACC",)))
    return out
