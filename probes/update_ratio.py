"""Update-to-weight ratio (cheap, sampled around an optimizer step): |w_after - w_before| / |w_before| per layer."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from knowledge.measurements import threshold
from probes.base import Probe, ProbeInfo, emit, median_rows
from probes.medians import median

INFO = ProbeInfo("update_ratio", "cheap", "optimizer_step", ("update_ratio",))


def weight_matrix(name: str, shape: Sequence[int]) -> bool:
    """Whether a parameter is judged as a weight matrix (one whose updates speak for the LR on their own).

    A weight matrix has two or more dimensions, but not every such tensor is one: a class token (1, 1, D),
    learned positions (1, T, D), a mask or register token are added to the activations, as a bias is, and are
    initialised at or near zero, where any update is a large fraction of them. Such a tensor has a singleton
    (broadcast) dimension and a name that is not a weight's; a layer's ``weight`` (``in_proj_weight``,
    ``weight_ih_l0`` ...) stays a matrix whatever its shape (a one-output head's (1, D)), and so does a
    user's own full matrix (no singleton dimension).

    Args:
        name: The parameter's dotted name.
        shape: Its shape.
    """
    if len(shape) < 2:
        return False
    leaf = name.rsplit(".", 1)[-1].lower()
    return "weight" in leaf or 1 not in tuple(shape)


def update_norms(before: Sequence[torch.Tensor], after: Sequence[torch.Tensor], consume: bool = False
                 ) -> torch.Tensor:
    """``[|after - before| per tensor..., |before| per tensor...]`` stacked on the device (no sync).

    The division is left to :func:`host_ratios` on host floats: on the device it would cost a handful of kernel
    launches a sample.

    Args:
        before: The weights before the step (a copy).
        after: The weights after it.
        consume: ``before`` is a copy of the caller's that is not needed afterwards: the differences are written
            into it (``before - after``, the same norm) instead of a new copy of the whole model.
    """
    if not before:
        return torch.zeros(0)
    with torch.no_grad():
        weights = torch._foreach_norm(list(before))
        if consume:
            torch._foreach_sub_(list(before), list(after))
            deltas = list(before)
        else:
            deltas = torch._foreach_sub(list(after), list(before))
        return torch.stack((*torch._foreach_norm(deltas), *weights))


SUBSET = 8192
"""Elements of a parameter the watch reads on a sampled step: a larger tensor is read through an evenly strided
subset of about this many. The ratio of two norms over an even spread of a layer's entries estimates the layer's
ratio (the bands are decades apart); a full copy of the weights before each sampled step, and the passes over
them after it, were most of the update ratio's cost on a CPU whose cache the step has flushed (about 17 us a step
amortised on the bench's small MLP, issue 21)."""


def _stride(n: int, last: int) -> int:
    """The stride of a parameter's subset: about ``n / SUBSET``, coprime with its last dimension.

    Coprime, so that the subset walks through every column of a matrix instead of the same few in every row.
    """
    k = max(1, n // SUBSET)
    while k > 1 and math.gcd(k, last) != 1:
        k += 1
    return k


def subset(params: Sequence[torch.Tensor]) -> list[torch.Tensor]:
    """Each parameter flattened, or a strided view of about ``SUBSET`` of its entries (views: no copy).

    The same entries every time for the same shapes, so a view taken before an optimizer step and one taken
    after it pair entry for entry.
    """
    out = []
    for p in params:
        flat = p.detach().reshape(-1)  # a view of a contiguous parameter (a copy of the values otherwise)
        n = flat.numel()
        out.append(flat if n <= SUBSET else flat[::_stride(n, p.shape[-1])])
    return out


def host_ratios(norms: Sequence[float]) -> list[float]:
    """Per-tensor update/weight ratios from :func:`update_norms` read to the host.

    A tensor that did not move at all (no gradient reached it) says nothing about the LR: NaN, skipped later.
    """
    n = len(norms) // 2
    return [d / w if w > 0 and d > 0 else float("nan") for d, w in zip(norms[:n], norms[n:])]


def ratios(before: Sequence[torch.Tensor], after: Sequence[torch.Tensor]) -> list[float]:
    """Per-tensor update/weight ratios as host floats (one read: ``examine`` is one-shot)."""
    return host_ratios(update_norms(before, after).tolist())


def summarize(values: Sequence[float], names: Sequence[str] | None = None,
              matrices: Sequence[bool] | None = None) -> dict[str, object] | None:
    """Judge per layer, from host floats: the worst weight matrix when one is far too high, else the median layer.

    One layer can be the fault (a head whose updates are 40% of its weights while the median layer looks
    fine), so a layer above ``MT-UPD-HIGH-LAYER`` speaks for the run. Only weight matrices are judged per layer:
    biases and norm gains start near zero, where any update is a large fraction.

    Args:
        values: Ratio per parameter tensor (NaN: did not move).
        names: Their names (evidence).
        matrices: Whether each is a weight matrix (:func:`weight_matrix`); all when None.
    """
    import numpy as np

    v = np.asarray(values, dtype=np.float64)
    ok = np.isfinite(v)
    if not ok.any():
        return None
    mat = np.asarray(matrices, dtype=bool) if matrices is not None else np.ones_like(ok)
    judged = ok & mat if (ok & mat).any() else ok
    med = median(v[ok])
    med_mat = median(v[judged])
    top = int(np.argmax(np.where(judged, v, -np.inf)))
    out: dict[str, object] = {"median": med, "median_matrix": med_mat, "min": float(v[ok].min()),
                              "max": float(v[ok].max()), "layers": int(ok.sum()), "worst_matrix": float(v[top])}
    high = v[top] > threshold("MT-UPD-HIGH-LAYER")
    # too high: the worst matrix or the median layer; too low: the median matrix (biases near zero would make
    # any update look large)
    out["value"] = float(v[top]) if high else med if med > threshold("MT-UPD-LOW") and med_mat > threshold(
        "MT-UPD-LOW") else med_mat
    out["judged"] = "worst layer" if high else "median layer"
    if names is not None:
        out["worst_layer"] = names[top]
        order = np.argsort(np.where(ok, v, -np.inf))[::-1][:3]
        out["largest"] = {names[i]: float(v[i]) for i in order if ok[i]}
    return out


@dataclass
class Phases:
    """Update ratios over a run's phases, bounded: the first abnormal window and the latest window.

    The first phase out of band is the cause (a blow-up is followed by a dead stretch, which is its
    consequence, not "LR far too low"); a low ratio counts only while the LR is near its peak, since a
    schedule that anneals to zero is healthy.
    """

    pick: dict[str, object] | None = None
    last: dict[str, object] | None = None
    healthy: dict[str, object] | None = None
    peak_lr: float = 0.0
    windows: int = 0

    def update(self, per_layer: Sequence[float], names: Sequence[str], matrices: Sequence[bool], lr: float | None,
               step: int, peak: float | None = None) -> None:
        """Feed one window's ratios and LRs.

        Args:
            per_layer: Per-tensor ratios (median over the window's samples).
            names: Tensor names.
            matrices: Whether each tensor is a weight matrix.
            lr: The lowest LR sampled in the window.
            step: Step at the window's end.
            peak: The schedule's declared peak LR (``max_lr`` / ``initial_lr``), when known.
        """
        s = summarize(per_layer, names, matrices)
        if s is None:
            return
        self.windows += 1
        for v in (lr, peak):
            if v is not None:
                self.peak_lr = max(self.peak_lr, v)
        s["step"] = step
        s["lr"] = lr
        at_peak = lr is None or self.peak_lr <= 0 or lr >= threshold("MT-UPD-LR-PEAK") * self.peak_lr
        s["lr_near_peak"] = at_peak
        if not at_peak and lr:
            at_peak = True
            at_peak_value(s, lr, self.peak_lr)
        self.last = s
        v = float(s["value"])
        if self.pick is None and v > threshold("MT-UPD-HIGH"):
            self.pick = s
        elif at_peak and v < threshold("MT-UPD-LOW"):
            # Updates that were in band at this LR and then shrank are the gradients shrinking (a loss near its
            # minimum), not the LR: LR far too low shows from the start.
            if self.pick is None and self.healthy is None:
                self.pick = s
        elif threshold("MT-UPD-WORKING") <= v <= threshold("MT-UPD-HIGH"):
            self.healthy = s

    def summary(self) -> dict[str, object] | None:
        """The phase that speaks for the run.

        The first window out of band; else the latest, unless the latest is low after an in-band phase: then
        the in-band phase speaks (with the latest value beside it), since shrinking gradients are not the LR.
        """
        s = self.pick or self.last
        if s is None:
            return None
        low = float(s["value"]) < threshold("MT-UPD-LOW")
        if self.pick is None and low and self.healthy is not None:
            s = dict(self.healthy, latest=s["value"], latest_step=s["step"],
                     note="updates shrank after an in-band phase at the same LR: gradients near a minimum")
        s = dict(s)
        s["windows"] = self.windows
        return s


def at_peak_value(s: dict[str, object], lr: float, peak: float) -> None:
    """Judge a small ratio measured at an annealed LR as it would be at the peak (updates scale with the LR).

    A cosine or one-cycle end, or a warmup start, is small on purpose; scaled to the peak LR it shows whether
    the LR the run trains with is too low.
    """
    if float(s["value"]) < threshold("MT-UPD-HIGH"):  # only the low side: a high ratio is high at any LR
        measured = float(s["value"])
        s["measured"] = measured
        # scaled up only as far as it takes to leave the low band: scaling never makes a ratio "too high"
        s["value"] = min(measured * peak / lr, max(measured, threshold("MT-UPD-HEALTHY")))
        s["judged"] = f"{s['judged']}, scaled to the peak LR ({peak:.3g} / {lr:.3g})"


def lr_now_and_peak(optimizer: Any) -> tuple[float | None, float | None]:
    """The LR now and the schedule's peak (``max_lr`` of one-cycle, ``initial_lr`` of the others), host floats."""
    def fin(v: Any) -> float | None:
        try:
            f = float(v)
        except (TypeError, ValueError):
            return None
        return f if math.isfinite(f) else None

    lrs = [fin(g.get("lr")) for g in optimizer.param_groups]
    peaks = [fin(g.get("max_lr", g.get("initial_lr"))) for g in optimizer.param_groups]
    return (max((v for v in lrs if v is not None), default=None),
            max((v for v in peaks if v is not None), default=None))


def observe(summary: dict[str, object] | None) -> list:
    """``update_ratio`` with the healthy value and the bands applied."""
    if not summary:
        return []
    step = summary.get("step")
    return [emit(INFO, "update_ratio", summary.get("value", summary["median"]), summary,
                 ("MT-UPD-HEALTHY", "MT-UPD-LOW", "MT-UPD-HIGH"), step=step if isinstance(step, int) else None)]


def raise_to_peak(optimizer: Any) -> list[tuple[float, float]]:
    """Set each param group's LR to its schedule's peak where it sits below ``MT-UPD-LR-PEAK`` of it.

    ``examine`` judges the LR the run trains with: at the end of a cosine or one-cycle schedule the LR is near
    zero on purpose, and steps there measure nothing. The caller restores the groups afterwards.

    Returns:
        (LR found, LR set) for each group raised.
    """
    raised = []
    for g in optimizer.param_groups:
        lr, peak = g.get("lr"), g.get("max_lr", g.get("initial_lr"))
        if isinstance(lr, float) and isinstance(peak, (int, float)) and peak > 0 \
                and lr < threshold("MT-UPD-LR-PEAK") * peak:
            g["lr"] = float(peak)
            raised.append((lr, float(peak)))
    return raised


def lr_near_peak(optimizer: Any) -> tuple[bool, float | None, float | None]:
    """Whether the LR now is near the schedule's peak (``max_lr`` of one-cycle, ``initial_lr`` of the others)."""
    lr, peak = lr_now_and_peak(optimizer)
    if lr is None or peak is None or peak <= 0:
        return True, lr, peak
    return lr >= threshold("MT-UPD-LR-PEAK") * peak, lr, peak


def _median_rows(rows: list[list[float]]) -> Any:
    """Per-column median of equal-length rows, NaN (did not move) left out; NaN where a column has none."""
    import numpy as np

    a = np.asarray(rows, dtype=np.float64)
    if len(rows) == 1:
        return a[0]
    nan = np.isnan(a)
    if not nan.any():
        return median_rows(a, 0)  # the common case; nanmedian is several times slower
    import warnings

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmedian(a, axis=0)


class UpdateRatioProbe(Probe):
    """Plugin: |update| / |weight| per layer, around sampled optimizer steps.

    On a sampled step an even subset of each weight (about ``SUBSET`` entries) is copied before the step (one
    foreach kernel) and the ratios queued after it; the window end folds the median of its samples per layer into
    ``Phases`` (bounded: the first abnormal window and the latest one).
    """

    info = INFO
    hooks = ("optimizer_pre", "optimizer_post", "window")
    sampled_hooks = ("optimizer_pre",)
    thresholds = ("MT-UPD-HEALTHY", "MT-UPD-LOW", "MT-UPD-HIGH", "MT-UPD-HIGH-LAYER", "MT-UPD-LR-PEAK",
                  "MT-UPD-WORKING")

    def attach(self, run: Any) -> None:
        """No samples yet."""
        self.phases = Phases()
        self._before: list[torch.Tensor] | None = None
        self._lr_now: float | None = None
        self._lr_peak = 0.0
        self._lr_low = float("inf")

    def optimizer_pre(self, run: Any) -> None:
        """On a sampled step: copy the weights' subsets and read the LR (host numbers already)."""
        if not run.sampled:
            return
        with torch.no_grad():
            self._before = torch._foreach_mul(subset(run.params), 1.0)
        self._lr_now, peak = lr_now_and_peak(run.optimizer)
        if peak is not None:
            self._lr_peak = max(self._lr_peak, peak)

    def optimizer_post(self, run: Any) -> None:
        """Queue the norms of the sampled step's updates and of the weights before it (divided at the window end)."""
        if self._before is None:
            return
        run.record("upd:norms", update_norms(self._before, subset(run.params), consume=True))
        self._before = None
        if self._lr_now is not None:
            self._lr_low = min(self._lr_low, self._lr_now)

    def accumulate(self, run: Any, window: Any) -> None:
        """Median per layer over the window's samples, into the phases."""
        upd = [host_ratios(v) for _, v in window.get("upd:norms")]
        if not upd:
            return
        per_layer = _median_rows(upd)
        lr = None if self._lr_low == float("inf") else self._lr_low
        self.phases.update(per_layer.tolist(), run.pnames, run.pmatrix, lr, run.steps, self._lr_peak or None)
        self._lr_low = float("inf")

    def summarise(self, run: Any) -> list:
        """The phase that speaks for the run."""
        return observe(self.phases.summary())

    # ------------------------------------------------------------------ examine

    def prepare(self, ex: Any) -> None:
        """No steps yet."""
        self.samples: list[list[float]] = []
        self._before = None
        self.raised: list[tuple[float, float]] = []

    def before_step(self, ex: Any, i: int) -> None:
        """Copy the weights the optimizer holds; raise an annealed LR to its peak for the step."""
        # measure at the schedule's peak LR; the LR found goes back after each step, so that every other probe
        # reads the LR the run applies now (an LR stuck at 0 is not the peak)
        found = [g.get("lr") for g in ex.optimizer.param_groups]
        raised = raise_to_peak(ex.optimizer)
        self._found = found if raised else None
        if i == 0:
            self.raised = raised
        self._before = [p.detach().clone() for p in ex.opt_params]

    def after_step(self, ex: Any, i: int) -> None:
        """The step's ratios (host floats: examine is one-shot)."""
        if getattr(self, "_found", None) is not None:
            for g, lr in zip(ex.optimizer.param_groups, self._found, strict=False):
                g["lr"] = lr
            self._found = None
        if self._before is not None:
            self.samples.append(ratios(self._before, ex.opt_params))
            self._before = None

    def examine(self, ex: Any) -> list:
        """Ratios judged per layer, at the schedule's peak LR when the LR now is annealed."""
        if not self.samples:
            return []
        import warnings

        import numpy as np

        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            per_layer = np.nanmedian(np.asarray(self.samples, dtype=np.float64), axis=0) if len(self.samples) > 1 \
                else np.asarray(self.samples[0], dtype=np.float64)
        s = summarize(per_layer.tolist(), ex.upd_names,
                      [weight_matrix(n, p.shape) for n, p in zip(ex.upd_names, ex.opt_params, strict=True)])
        if s is None:
            return []
        near_peak, lr, peak = lr_near_peak(ex.optimizer)
        s.update({"lr": lr, "peak_lr": peak, "lr_near_peak": near_peak, "raised_to_peak": self.raised})
        if not near_peak and lr and peak:
            # an annealed LR (end of a cosine or one-cycle schedule) is meant to be small: judge the LR the run
            # trains with, at its peak
            at_peak_value(s, lr, peak)
        return observe(s)
