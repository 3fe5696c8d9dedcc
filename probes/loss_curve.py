"""Loss-curve classifier (cheap, history): label a loss history with one ``loss_behavior`` value."""

from __future__ import annotations

from typing import Any

import numpy as np

from knowledge.measurements import threshold
from probes.base import ProbeInfo, emit

INFO = ProbeInfo("loss_curve", "cheap", "history", ("loss_behavior", "nan_step"))
MIN_POINTS = 6


def as_array(history: Any) -> np.ndarray:
    """Accept a list, a tuple, a numpy array, a torch tensor or a dataframe-like column; return float64."""
    if hasattr(history, "to_numpy"):  # pandas / polars series
        history = history.to_numpy()
    elif hasattr(history, "detach"):  # torch tensor
        history = history.detach().to("cpu").double().numpy()
    elif hasattr(history, "values") and not isinstance(history, dict) and not callable(history.values):
        history = history.values
    arr = np.asarray(history, dtype=np.float64).reshape(-1)
    return arr


def _rolling_median(y: np.ndarray, k: int) -> np.ndarray:
    pad = k // 2
    yp = np.pad(y, pad, mode="edge")
    return np.median(np.lib.stride_tricks.sliding_window_view(yp, k), axis=1)[: len(y)]


def classify(history: Any) -> dict[str, Any]:
    """Classify a loss history (pure, vectorized).

    Args:
        history: Loss values in step order.

    Returns:
        ``{"label": <loss_behavior or None>, "first_nonfinite": int | None, ...measured numbers}``; the label
        is None when fewer than ``MIN_POINTS`` finite values exist.
    """
    y = as_array(history)
    n = int(y.size)
    bad = ~np.isfinite(y)
    if bad.any():
        first = int(np.argmax(bad))
        return {"label": "nan_or_inf", "first_nonfinite": first, "points": n}
    if n < MIN_POINTS:
        return {"label": None, "first_nonfinite": None, "points": n}
    k = int(min(10, max(3, n // 6)))
    chunks = np.array_split(y, k)
    m = np.array([np.median(c) for c in chunks])
    start, end = float(m[0]), float(m[-1])
    scale = max(abs(start), 1e-12)
    drop = (start - end) / scale
    best_drop = (start - float(m.min())) / scale
    half = k // 2
    late_drop = (float(m[half]) - end) / scale
    # robust residuals against a rolling median: spikes and oscillation
    w = 5 if n >= 10 else 3
    base = _rolling_median(y, w)
    resid = y - base
    mad = float(np.median(np.abs(resid - np.median(resid)))) * 1.4826
    level = max(float(np.median(np.abs(y))), 1e-12)
    floor = max(mad, 1e-3 * level)
    z = resid / floor
    spikes = int(np.sum((z > threshold("MT-CURVE-SPIKE")) & (resid > 0.25 * np.abs(base))))
    swing = float(np.median(np.abs(np.diff(y)))) / level
    out: dict[str, Any] = {"points": n, "start": start, "end": end, "drop": drop, "late_drop": late_drop,
                           "spikes": spikes, "swing": swing, "first_nonfinite": None}
    if -drop > threshold("MT-CURVE-DIVERGE") and float(m[-1]) >= float(m.max()) - 1e-12 * scale:
        out["label"] = "diverging"
    elif swing > threshold("MT-CURVE-OSC") and drop < threshold("MT-CURVE-SLOW"):
        out["label"] = "oscillating"
    elif 0 < spikes <= max(1, n // 20):
        out["label"] = "spiking"
    elif best_drop < threshold("MT-CURVE-FLAT"):
        out["label"] = "diverging" if -drop > threshold("MT-CURVE-DIVERGE") else "flat_from_start"
    elif drop < threshold("MT-CURVE-SLOW"):
        out["label"] = "decreasing_slowly"
    elif late_drop < threshold("MT-CURVE-PLATEAU") and drop < threshold("MT-CURVE-CONVERGED"):
        out["label"] = "plateau_after_learning"
    else:
        out["label"] = "decreasing_normally"
    return out


def observe(history: Any, offset: int = 0) -> list:
    """Observations for a loss history: ``loss_behavior`` (and ``nan_step`` when it went non-finite).

    Args:
        history: Loss values in step order.
        offset: Step number of the first value.
    """
    r = classify(history)
    if r["label"] is None:
        return []
    th = ("MT-CURVE-FLAT", "MT-CURVE-SLOW", "MT-CURVE-PLATEAU", "MT-CURVE-CONVERGED", "MT-CURVE-DIVERGE",
          "MT-CURVE-OSC",
          "MT-CURVE-SPIKE")
    obs = [emit(INFO, "loss_behavior", r["label"], r, th)]
    if r["first_nonfinite"] is not None:
        obs.append(emit(INFO, "nan_step", offset + r["first_nonfinite"], {"points": r["points"]}))
    return obs
