"""Loss-curve classifier (cheap, history): label a loss history with one ``loss_behavior`` value."""

from __future__ import annotations

import math
import operator
import sys
from dataclasses import field
from functools import reduce
from itertools import repeat
from typing import Any

from knowledge.measurements import threshold
from knowledge.record import dataclass
from probes.base import Probe, ProbeInfo, emit, median_rows
from probes.medians import median

INFO = ProbeInfo("loss_curve", "cheap", "history", ("loss_behavior", "nan_step"))
MIN_POINTS = 6
# ``output_spread`` reads at most this many examples and output columns (a strided pick of them): enough for a
# spread of the answers across the batch, and a bounded fp32 copy (1M elements) whatever the output's size
SPREAD_ROWS = 256
SPREAD_COLUMNS = 4096


def as_list(history: Any) -> list[float]:
    """Accept a list, a tuple, a numpy array, a torch tensor or a dataframe-like column; return its floats, flat."""
    if hasattr(history, "to_numpy"):  # pandas / polars series
        history = history.to_numpy()
    elif hasattr(history, "detach"):  # torch tensor
        history = history.detach().to("cpu").double().numpy()
    elif hasattr(history, "values") and not isinstance(history, dict) and not callable(history.values):
        history = history.values
    if hasattr(history, "ravel"):  # an array: flat, as Python floats
        flat = history.ravel()
        history = flat.tolist()
        if getattr(getattr(flat, "dtype", None), "kind", "") == "f":
            return history  # a float array's tolist() gives Python floats already
    return list(map(float, history))


def _rolling_median(y: list[float], k: int, rows: range) -> list[float]:
    """Centred rolling median of odd width ``k`` (3 or 5) at ``rows``: a sort of ``k`` values per row.

    Vectorized like :func:`_noise_rows` when numpy is already loaded and the rows are many (same numbers).
    """
    pad = k // 2
    # reflect, not edge: an edge pad repeats a spike in the last point and hides it
    yp = y[pad:0:-1] + y + y[-2:-pad - 2:-1] if len(y) > pad else [y[0]] * pad + y + [y[-1]] * pad
    np = sys.modules.get("numpy")
    if np is not None and len(rows) >= _VECTOR_ROWS:
        win = np.lib.stride_tricks.sliding_window_view(np.asarray(yp, dtype=np.float64), k)
        return np.sort(win[rows.start:rows.stop], axis=1)[:, pad].tolist()
    return [sorted(yp[i:i + k])[pad] for i in rows]


def noise_level(y: Any) -> float:
    """Robust step-to-step noise of a curve: MAD of its first differences, as a standard deviation."""
    if len(y) < 3:
        return 0.0
    np = sys.modules.get("numpy")
    if np is not None and len(y) >= _VECTOR_POINTS:
        # the same differences and deviations, elementwise in numpy (the watch reads up to 512 points a window)
        dv = np.diff(np.asarray(y, dtype=np.float64))
        md = median(dv)
        return median(np.abs(dv - md)) * 1.4826 / math.sqrt(2.0)
    d = list(map(operator.sub, y[1:], y[:-1]))
    md = median(d)
    return median([abs(x - md) for x in d]) * 1.4826 / math.sqrt(2.0)


def _noise_rows(y: list[float], ends: Any, width: int) -> list[float]:
    """``noise_level`` of ``y[max(0, e - width):e]`` for each end ``e``.

    A sort of ``width`` values per end in plain Python; when numpy is already loaded (``watch``: torch brings it;
    a large log's reader) the full windows go through one vectorized sort instead. Same numbers either way
    (``tests/test_history_plain.py``); only the cost differs, and a small log never imports numpy for it.
    """
    ends = [int(e) for e in ends]
    np = sys.modules.get("numpy")
    if np is None or len(ends) < _VECTOR_ROWS:
        return [noise_level(y[max(0, e - width):e]) for e in ends]
    arr = np.asarray(y, dtype=np.float64)
    e = np.asarray(ends)
    out = np.empty(e.size)
    full = e >= width
    if full.any():
        win = np.lib.stride_tricks.sliding_window_view(arr, width)[e[full] - width]
        d = np.diff(win, axis=1)
        med = median_rows(d, 1)
        out[full] = median_rows(np.abs(d - med[:, None]), 1) * 1.4826 / math.sqrt(2.0)
    for i in np.flatnonzero(~full):
        out[i] = noise_level(y[: ends[i]])
    return out.tolist()


_FIRST, _SECOND = operator.itemgetter(0), operator.itemgetter(1)
_VECTOR_ROWS = 8
"""Below this many rows the plain loop beats numpy's call overhead even with numpy loaded."""
_VECTOR_POINTS = 64
"""Below this many points a curve's differences are taken in plain Python even with numpy loaded."""


@dataclass
class SpikeCounter:
    """Incremental loss-spike counter whose count does not depend on how the stream is cut into windows.

    ``watch`` feeds its windows, ``trainopt logs`` a whole file: the same run gets the same count.

    A point is a spike when it stands above the rolling median of its neighbours by more than ``MT-CURVE-SPIKE``
    robust noise deviations of the ``TAIL`` points up to it *and* by more than ``MT-CURVE-SPIKE-ABS`` of the loss
    scale at the start (the first ``SCALE`` points: a tiny late loss jumping from 0.005 to 0.2 is noise against a
    start of 1.4, not a spike). A point is judged once its right-hand neighbours have arrived. A spike the loss
    comes back from within ``RECOVER`` points is counted as recovered (info, not a symptom).

    Attributes:
        scale: Loss scale at the start (median of the first ``SCALE`` points, unless given).
        spikes: Spikes seen.
        recovered: Of those, spikes the loss came back from.
        steps: Points fed.
    """

    scale: float | None = None
    spikes: int = 0
    recovered: int = 0
    steps: int = 0
    last_spike: int | None = None
    positions: list[int] = field(default_factory=list)
    """Where the first MAX_POSITIONS spikes were (point indices): what a plot marks is what was counted."""
    _tail: list[float] = field(default_factory=list)
    _first: list[float] = field(default_factory=list)
    _judged: int = 0
    _pending: list[tuple[int, float, float]] = field(default_factory=list)  # (index, base, residual)
    _fixed: bool = False

    TAIL = 64
    HALF = 2  # the rolling median spans 2 * HALF + 1 points
    RECOVER = 5
    SCALE = 20
    MAX_POSITIONS = 50

    def __post_init__(self) -> None:
        self._fixed = self.scale is not None

    def update(self, values: Any) -> None:
        """Count spikes among the points fed so far (cost: the window and ``TAIL`` points, not the history)."""
        v = list(filter(math.isfinite, as_list(values)))
        if not v:
            return
        if not self._fixed and len(self._first) < self.SCALE:
            self._first += v[: self.SCALE - len(self._first)]
            self.scale = max(median([abs(x) for x in self._first]), 1e-12)
        y = self._tail + v
        y0 = self.steps - len(self._tail)  # index of y[0] in the stream
        self.steps += len(v)
        still = []
        for idx, base, res in self._pending:  # spikes waiting for the points after them
            after = y[idx + 1 - y0: idx + 1 + self.RECOVER - y0]
            if after and min(after) <= base + 0.5 * res:
                self.recovered += 1
            elif idx + self.RECOVER >= self.steps:
                still.append((idx, base, res))
        self._pending = still
        lo, hi = self._judged, self.steps - self.HALF
        if hi > lo and len(y) >= 3:
            rows = range(lo - y0, hi - y0)
            base = _rolling_median(y, 5 if len(y) >= 5 else 3, rows)
            rel, floor = threshold("MT-CURVE-SPIKE"), threshold("MT-CURVE-SPIKE-ABS") * self.scale
            # the noise (a sort of TAIL differences per row) only where the floor alone does not rule the point
            # out: the same verdicts, at a fraction of the cost (issue 21: most of a window end's time in watch)
            np = sys.modules.get("numpy")
            if np is not None and len(rows) >= _VECTOR_ROWS:
                # the same test in float64, elementwise (a window end judges about 200 rows)
                lo_row = rows.start
                hit = np.flatnonzero(np.asarray(y[lo_row:rows.stop], dtype=np.float64)
                                     - np.asarray(base, dtype=np.float64) > floor).tolist()
                over = [(lo_row + j, base[j]) for j in hit]
            else:
                over = [(i, b) for i, b in zip(rows, base) if y[i] - b > floor]
            noise = _noise_rows(y, [i + self.HALF + 1 for i, _ in over], self.TAIL) if over else []
            for (i, b), nz in zip(over, noise):
                if not y[i] - b > max(rel * nz, floor):
                    continue
                self.spikes += 1
                self.last_spike = y0 + i
                if len(self.positions) < self.MAX_POSITIONS:
                    self.positions.append(self.last_spike)
                res, after = y[i] - b, y[i + 1: i + 1 + self.RECOVER]
                if after and min(after) <= b + 0.5 * res:
                    self.recovered += 1
                elif len(after) < self.RECOVER:
                    self._pending.append((y0 + i, b, res))
            self._judged = hi
        self._tail = y[-self.TAIL:]

    def open_end(self) -> list[int]:
        """Spikes among the last points, not judged yet: read with the curve reflected at its end, uncommitted.

        Their right-hand neighbours have not arrived, and the stream may go on. Returns their point indices.
        """
        y = self._tail
        y0 = self.steps - len(y)
        lo = self._judged - y0
        if len(y) < 3 or lo >= len(y) or self.scale is None:
            return []
        rows = range(max(lo, 0), len(y))
        base = _rolling_median(y, 5 if len(y) >= 5 else 3, rows)
        # every row's noise window ends at the last point: one measurement (the tail is at most TAIL points)
        tol = max(threshold("MT-CURVE-SPIKE") * noise_level(y[-self.TAIL:]),
                  threshold("MT-CURVE-SPIKE-ABS") * self.scale)
        return [y0 + i for i, b in zip(rows, base) if y[i] - b > tol]

    def totals(self) -> tuple[int, int]:
        """(spikes, recovered) so far, the run's last points included (a spike the run ends on is unrecovered)."""
        return self.spikes + len(self.open_end()), self.recovered

    @property
    def unrecovered(self) -> int:
        """Spikes the loss has not come back from (one still waiting for its next points counts here)."""
        total, rec = self.totals()
        return total - rec


@dataclass
class History:
    """A bounded loss history: at most ``2 * cap`` points, halved by averaging pairs when full.

    Memory stays flat over any run length; ``stride`` says how many steps one point stands for.
    """

    cap: int = 256
    values: list[float] = field(default_factory=list)
    stride: int = 1
    _sum: float = 0.0  # the point being accumulated: a sum and a count, not a list (its stride grows)
    _n: int = 0

    def extend(self, values: Any) -> None:
        """Append finite values (step order).

        A point at a time, each the running sum of its ``stride`` values taken left to right and divided by
        ``stride``; done a point's values at once (``functools.reduce`` adds them in the same order, in C), as a
        window end feeds 200 losses in one go (issue 21: a Python loop per value was a tenth of the window end).
        """
        vals = list(map(float, values))
        i, n = 0, len(vals)
        while i < n:
            take = vals[i:i + self.stride - self._n]
            i += len(take)
            self._n += len(take)
            if self._n < self.stride:
                self._sum = reduce(operator.add, take, self._sum)
                break
            self.values.append(reduce(operator.add, take, self._sum) / self.stride)
            full = min((n - i) // self.stride, 2 * self.cap - len(self.values))  # whole points, up to the cap
            if full > 0:
                take = vals[i:i + full * self.stride]
                i += len(take)
                if self.stride == 1:  # a point per value: 0.0 + x, as the running sum from zero gives
                    self.values += map(operator.add, repeat(0.0), take)
                else:
                    # each point's values summed left to right (an accumulate is sequential), plus 0.0 last: the
                    # sum from 0.0 differs from the sum from the first value only by the sign of an all -0.0 sum
                    import numpy as np  # the watch's (torch has loaded it)

                    sums = np.cumsum(np.asarray(take, dtype=np.float64).reshape(full, self.stride), axis=1)[:, -1]
                    self.values += ((sums + 0.0) / self.stride).tolist()
            self._sum, self._n = 0.0, 0
            if len(self.values) >= 2 * self.cap:
                import numpy as np  # the watch's (torch has loaded it)

                self.values = np.asarray(self.values, dtype=np.float64).reshape(-1, 2).mean(1).tolist()
                self.stride *= 2

    def points(self) -> list[float]:
        """The points, plus the partial one being accumulated (a new list of floats: what ``array`` holds)."""
        return self.values + [self._sum / self._n] if self._n else list(self.values)

    def array(self) -> Any:
        """The points, plus the partial one being accumulated (a float64 array)."""
        import numpy as np  # the watch's (torch has loaded it)

        tail = [self._sum / self._n] if self._n else []
        return np.asarray(self.values + tail, dtype=np.float64)


def converged_fraction(initial: float, end: float, floor: float = 0.0) -> float:
    """How much of the way from the initial loss to the floor the run has come (1: at the floor).

    A loss that has come most of the way down and flattens is converging, not stalled; a flat stretch is a
    plateau only while most of the reachable drop is still ahead.
    """
    room = initial - floor
    if not room > 0:
        return 0.0
    return float((initial - end) / room)


def stalled(late_progress: float, se: float, scale: float) -> bool:
    """Whether the second half of a run has confidently stopped improving (pure).

    The noise must be able to rule out progress, not merely hide it: the late drop plus the standard error of
    the chunk medians has to stay under ``MT-CURVE-PLATEAU`` of the scale. A short noisy run whose late drop is
    within its noise is undecided and reads as still decreasing, never as a plateau.

    Args:
        late_progress: Drop of the smoothed loss between the middle and the end (loss units).
        se: Three standard errors of a chunk median (loss units).
        scale: The loss scale at the start, above the floor.
    """
    return late_progress + se < threshold("MT-CURVE-PLATEAU") * scale


def noise_band(levels: list[float], se: float) -> float:
    """Three standard errors of a chunk median, from the step-to-step noise or the chunks' own wander (pure).

    ``se`` (from first differences) assumes independent steps. Tiny or correlated batches (a loader reading
    similar examples together, graphs drawn from one neighbourhood) make the loss wander over many steps, which
    first differences do not see; the second differences of the chunk medians do (a straight or gently curved
    stretch leaves them near zero; a wander does not). The band is the larger of the two: a change inside it
    is noise, whichever kind.

    Args:
        levels: Chunk medians in step order.
        se: Three standard errors of a chunk median from the step-to-step noise.
    """
    if len(levels) < 5:
        return se
    d2 = [a - 2.0 * b + c for a, b, c in zip(levels, levels[1:], levels[2:])]
    md = median(d2)
    # a second difference of three independent levels has six times a level's variance
    wander = median([abs(x - md) for x in d2]) * 1.4826 / math.sqrt(6.0)
    return max(se, 3.0 * wander)


_TAUS = tuple(0.02 * (12.5 ** (i / 15)) for i in range(16))  # 0.02 .. 0.25 of the run, geometric
"""Time constants tried by :func:`fit_floor`, as fractions of the run: at most a quarter of it, so at least four
time constants have passed and under 2% of the decay is left at the end: the curve has visibly flattened (a
longer one fits a straight descent too, and would extrapolate a floor the run never approached)."""


def fit_floor(y: list[float], noise: float) -> float | None:
    """The level a curve approaches smoothly: the asymptote of one decaying exponential, if one fits (pure).

    ``y(t) ~ f + A exp(-t / tau)`` on the medians of up to 24 equal bins, least squares in (f, A) for each
    ``tau`` in :data:`_TAUS`. The fit counts only if it decays (``A > 0``) and stays within
    ``MT-CURVE-FIT`` of its amplitude or three standard errors of a bin median (rms over the bins):
    a run that arrives at its own floor fits; one that stops abruptly far above where its descent was heading
    (an LR cut to nothing) does not, and neither does a flat one (no decay to fit).

    Returns:
        The fitted asymptote, or None when no decaying exponential fits.
    """
    binned = _bins(y, noise)
    if binned is None:
        return None
    mb_all, tb_all, se_bin = binned
    # a fast first transient (an output bias finding the mean target, a VAE reaching the mean image in a few
    # dozen steps) is a second, much shorter time scale one exponential cannot follow: the fit may leave out up
    # to the first quarter of the run, and the approach to the floor is read on the rest
    k = len(mb_all)
    for skip in range(k // 4 + 1):
        fast = mb_all[0] - mb_all[skip]
        rest = mb_all[skip] - median(mb_all[-3:])
        if skip and not (fast > 3.0 * se_bin and fast / skip > threshold("MT-CURVE-STEADY")
                         * max(rest, 0.0) / (k - 1 - skip) and rest > 3.0 * se_bin):
            # what is left out must be a transient (beyond the noise, much faster than the rest), and the rest
            # an approach of its own: a fast drop and then nothing (only an output bias learned) has no floor
            continue
        mb, tb = mb_all[skip:], tb_all[skip:]
        best = _fit_exp(tb, mb, _TAUS, decaying=True)
        if best is not None and math.sqrt(best[0] / len(mb)) <= max(threshold("MT-CURVE-FIT") * best[2],
                                                                      3.0 * se_bin):
            return best[1]
    return None


def _bins(y: list[float], noise: float) -> tuple[list[float], list[float], float] | None:
    """Medians of up to 24 equal bins, their centres (fractions of the run) and a bin median's standard error.

    None when the curve is too short for six bins of four points.
    """
    n = len(y)
    nb = min(24, n // 4)
    if nb < 6:
        return None
    size, extra = divmod(n, nb)
    cuts = [i * size + min(i, extra) for i in range(nb + 1)]
    mb = [median(y[a:b]) for a, b in zip(cuts, cuts[1:])]
    tb = [(a + b - 1) / 2.0 / n for a, b in zip(cuts, cuts[1:])]
    return mb, tb, 1.2533 * noise / math.sqrt(max(1, n // nb))


def _fit_exp(t: list[float], m: list[float], taus: Any,
             decaying: bool = False) -> tuple[float, float, float, float] | None:
    """Least squares ``m ~ f + A exp(-t / tau)`` over ``taus``: the best ``(rss, f, A, tau)``, or None (pure).

    With ``decaying``, only fits with ``A > 0`` are candidates (a floor approached from above).
    """
    k = len(t)
    mean_m = sum(m) / k
    best: tuple[float, float, float, float] | None = None  # (rss, f, A, tau)
    for tau in taus:
        e = [math.exp(-(x - t[0]) / tau) for x in t]
        mean_e = sum(e) / k
        var_e = sum((v - mean_e) ** 2 for v in e)
        if not var_e > 0:
            continue
        amp = sum((v - mean_e) * (x - mean_m) for v, x in zip(e, m)) / var_e
        f = mean_m - amp * mean_e
        rss = sum((x - f - amp * v) ** 2 for v, x in zip(e, m))
        if (amp > 0 or not decaying) and (best is None or rss < best[0]):
            best = (rss, f, amp, tau)
    return best


def stopped_short(mb: list[float], tb: list[float], tol: float, nonneg: bool = True) -> bool:
    """Whether a descent stopped abruptly, well above where it was heading (pure).

    The flat tail runs from the first bin within ``tol`` of the lowest level the tail reaches. A decaying
    exponential fitted to the descent before it (time constants no longer than that descent) says where the
    descent was heading by the end of the run. A run arriving at a floor of its own was heading there: its tail
    comes down to (or below) the prediction. A descent cut short (an LR dropped to almost nothing, a module
    frozen mid-run) predicts a level far below the tail, by more than ``MT-CURVE-STOP`` of the drop it made and
    by more than the noise: a plateau, whatever the global fit says (a descent that was already decelerating
    fits one exponential over the whole run within a few percent, at the coarse resolution of the bins).

    Args:
        mb: Bin medians in step order.
        tb: Bin centres (any unit, increasing).
        tol: Three standard errors of a bin median, or the chunks' wander where that is larger.
        nonneg: Whether the loss cannot go below zero (the prediction is clipped there).
    """
    nb = len(mb)
    tail_len = max(3, nb // 3)
    level = median(mb[-tail_len:])
    # where the descent first came within the noise of the lowest the tail went (a stray noisy bin in the tail
    # does not move it; a wander down and back up does not end the descent early)
    low = min(mb[next(i for i, x in enumerate(mb) if x <= level + tol):])
    s = next(i for i, x in enumerate(mb) if x <= low + tol)
    # a stop needs a descent of a quarter of the run before it (a shorter one, with noise, extrapolates to any
    # level) and a flat tail of a quarter of the run after it
    if s < max(3, nb // 4) or nb - s < max(3, nb // 4):
        return False
    t, m = tb[: s + 1], mb[: s + 1]
    span = t[-1] - t[0]
    # time constants from half a bin to the descent's own length: an extrapolation no longer than the evidence
    # (a straight stretch of a few noisy bins, extrapolated as a line over the run, would predict any level)
    step = (t[1] - t[0]) or 1.0
    taus = [0.5 * step * (2.0 * span / step) ** (i / 15) for i in range(16)]
    fit = _fit_exp(t, m, taus)
    if fit is None or not fit[2] > 0:
        return False
    _, f, amp, tau = fit
    pred = f + amp * math.exp(-(tb[-1] - t[0]) / tau)
    if nonneg:
        pred = max(pred, 0.0)
    # the lowest the run came after its descent: a tail that dipped near the prediction and wandered back up
    # (correlated batches) reached where it was heading
    made = m[0] - low
    return made > 0 and low - pred > max(threshold("MT-CURVE-STOP") * made, tol)


def _unsteady(y: list[float], levels: list[float], start0: float, band: float, se0: float) -> bool:
    """Whether a descent clearly decelerates or accelerates, rather than moving at one steady rate (pure).

    Decelerating: the first chunk fell (from the very first points) ``MT-CURVE-STEADY`` times faster per step
    than the rest of the run, beyond the noise: a fast first phase (an output bias finding the mean target) and
    a slower approach to a floor of the run's own. Or, by thirds of the chunk levels, the first third fell that
    many times more than the last (decelerating) or the last that many times more than the first (learning that
    began after a plateau). An LR too low moves the loss at one small rate from the first step: steady.
    """
    k, n = len(levels), len(y)
    if k < 6:
        return False
    ratio = threshold("MT-CURVE-STEADY")
    # chunk i's centre, in steps (the chunks split the points as ``classify`` cuts them)
    centre = [(i + 0.5) * n / k for i in range(k)]
    t0 = max(3, min(8, n // 20)) / 2.0
    early, rest = start0 - levels[1], levels[1] - levels[-1]
    if early > band + se0 and early / (centre[1] - t0) > ratio * max(rest, 0.0) / (centre[-1] - centre[1]):
        return True
    third = k // 3
    a, b, c = median(levels[:third]), median(levels[third:k - third]), median(levels[k - third:])
    first, last = a - b, b - c
    return first > ratio * max(last, 0.0) + band or last > ratio * max(first, 0.0) + band


def count_spikes(y: Any) -> SpikeCounter:
    """Spikes of a whole finite history (the classifier's own count, as ``watch`` counts them window by window).

    A plot of the same history marks ``positions`` (the run's last points included), so the markers and the
    report's count agree.
    """
    spikes = SpikeCounter()
    spikes.update([x for x in as_list(y) if math.isfinite(x)])
    spikes.positions += spikes.open_end()[: max(0, spikes.MAX_POSITIONS - len(spikes.positions))]
    return spikes


def output_spread(out: Any) -> Any:
    """Spread of a model output across its batch, relative to its size: a 0-d device tensor (no sync).

    The mean over output columns of their standard deviation over the examples (up to ``SPREAD_ROWS``), over the
    mean absolute output. Zero for a model that gives every example the same answer. At most ``SPREAD_COLUMNS``
    columns are read, on an even stride, before anything is copied: a language model's logits are
    batch x tokens x vocabulary, and an fp32 copy of all of them would cost gigabytes for one number.
    """
    import torch  # loaded already: the output is one of its tensors

    y = out.detach().reshape(out.shape[0], -1)[:SPREAD_ROWS]
    cols = y.shape[1]
    y = y[:, ::-(-cols // SPREAD_COLUMNS)].float()  # a strided view first: only the kept columns are copied
    std, _ = torch.std_mean(y, dim=0)
    return std.mean() / y.abs().mean().clamp_min(1e-30)


def classify(history: Any, spikes: SpikeCounter | None = None, floor: float = 0.0,
             chance: float | None = None, constant_output: bool = False) -> dict[str, Any]:
    """Classify a loss history (pure, vectorized, noise-aware).

    Every test compares against two tolerances: a fraction of the loss at the start and the run's own noise
    (the standard error of a chunk median), so a noisy healthy run (small batches, augmentation, dropout)
    does not read as flat, oscillating or spiking.

    Args:
        history: Loss values in step order (raw, or a ``History``'s downsampled points).
        spikes: Spike counts measured incrementally on the raw values (``watch``); counted here when None.
        floor: The lowest value the loss can reach (label smoothing keeps cross-entropy above zero); progress
            is measured against ``start - floor``.
        chance: The loss of a model that guesses (ln C for a C-class cross-entropy), when known: a curve flat
            within ``MT-CURVE-AT-FLOOR`` of the way from the floor to it is fitted, not stalled.
        constant_output: The model gives every example the same output (``MT-CURVE-CONST-OUT``, measured under
            ``watch``): the level the loss settled on is that one answer's, so no floor is fitted to it.

    Returns:
        ``{"label": <loss_behavior or None>, "first_nonfinite": int | None, ...measured numbers}``; the label
        is None when fewer than ``MIN_POINTS`` finite values exist.
    """
    y = as_list(history)
    n = len(y)
    first = None if all(map(math.isfinite, y)) else next(i for i, x in enumerate(y) if not math.isfinite(x))
    if first is not None:
        return {"label": "nan_or_inf", "first_nonfinite": first, "points": n}
    if n < MIN_POINTS:
        return {"label": None, "first_nonfinite": None, "points": n}
    k = int(min(10, max(3, n // 6)))
    size, extra = divmod(n, k)  # numpy.array_split's chunks: the first ``extra`` one point longer
    cuts = [i * size + min(i, extra) for i in range(k + 1)]
    chunks = [y[a:b] for a, b in zip(cuts, cuts[1:])]
    # the level the run started from: its first few points (a fast first drop is progress, not the baseline)
    start0 = median(y[: max(3, min(8, n // 20))])
    if spikes is None:
        spikes = count_spikes(y)
    m = [median(c) for c in chunks]
    start, end = m[0], m[-1]
    scale = max(abs(start - floor) if 0 < floor < start else abs(start), 1e-12)
    noise = noise_level(y)
    # a chunk median's standard error; three of them is a change the noise cannot produce
    se = 3.0 * 1.2533 * noise / math.sqrt(max(1, n // k))
    drop = (start - end) / scale
    half = k // 2
    late_drop = (m[half] - end) / scale
    progress = converged_fraction(start0, end, floor)
    np = sys.modules.get("numpy")
    if np is not None and n >= _VECTOR_POINTS:  # the same numbers, elementwise in numpy
        arr = np.asarray(y, dtype=np.float64)
        swing = median(np.abs(np.diff(arr))) / max(median(np.abs(arr)), 1e-12)
    else:
        swing = median([abs(b - a) for a, b in zip(y[:-1], y[1:])]) / max(median([abs(x) for x in y]), 1e-12)
    n_spikes, n_recovered = spikes.totals()
    out: dict[str, Any] = {"points": n, "start": start, "end": end, "drop": drop, "late_drop": late_drop,
                           "spikes": n_spikes, "recovered_spikes": n_recovered, "swing": swing,
                           "noise": noise, "first_nonfinite": None, "initial": start0, "progress": progress}
    band = noise_band(m, se)
    binned = _bins(y, noise)
    # a descent that stopped well above where it was heading (an LR cut mid-descent): a plateau even where the
    # tail's wander makes the stall itself uncertain, and even where one exponential fits the whole curve
    stop = binned is not None and stopped_short(binned[0], binned[1], max(3.0 * binned[2], band),
                                                nonneg=min(y) >= 0)
    out["stopped_short"] = stop
    # the very first points count: a fast first drop inside the first chunk (a VAE reaching the mean image) is
    # movement, beyond the few points' own standard error
    se0 = 3.0 * 1.2533 * noise / math.sqrt(max(3, min(8, n // 20)))
    moved = max(start - min(m), start0 - min(m) - se0)
    # the floor progress is measured against. A hard-label cross-entropy's is known (0, or the smoothing
    # entropy; ``chance`` says the loss is one); any other loss's floor is not (BCE against grey levels, a noisy
    # regression, an ELBO): a curve that approached a level of its own smoothly, beyond its noise, has that
    # level as its floor (issue 17: progress judged against zero made healthy runs read flat or slow)
    floor_eff = floor
    # (a descent cut short fits one exponential too, but its tail is not where it was heading: no floor of its own)
    # (nor does a model that ignores its input: its loss settles on one answer's level, the mean image a VAE
    # whose decoder never sees the latent reconstructs, and that plateau is a fault, not the data's floor)
    if constant_output:
        out["constant_output"] = True
    elif chance is None and not stop and moved > max(threshold("MT-CURVE-FLAT") * scale, band):
        fitted = fit_floor(y, noise)
        if fitted is not None:
            floor_eff = min(max(fitted, floor, 0.0 if min(y) >= 0 else fitted), min(m))
            out["fitted_floor"] = floor_eff
    room = max(max(start, start0) - floor_eff, 1e-12)
    drop_room = (max(start, start0) - end) / room
    progress = converged_fraction(start0, end, floor_eff)
    out["progress"] = progress
    out["band"] = band
    # with the floor unknown, a small drop is slow only when the descent is steady
    steady = chance is not None or floor_eff != floor or not _unsteady(y, m, start0, band, se0)
    rise = end - start
    if rise > max(threshold("MT-CURVE-DIVERGE") * scale, se) and end >= max(m) - 1e-12 * scale:
        out["label"] = "diverging"
    elif swing > threshold("MT-CURVE-OSC") and drop < threshold("MT-CURVE-SLOW"):
        out["label"] = "oscillating"
    elif n_spikes > n_recovered or n_spikes >= 3:
        out["label"] = "spiking"
    elif chance is not None and chance > floor \
            and max(start, end) - floor < threshold("MT-CURVE-AT-FLOOR") * (chance - floor):
        # flat or slow only because there is nothing left to learn (a resumed or converged run)
        out["label"] = "decreasing_normally"
        out["note"] = "at its floor from the start: fitted (a converged or resumed run), not stalled"
    elif moved < max(threshold("MT-CURVE-FLAT") * scale, band) and (moved < band or steady):
        # a small move against the loss's whole level is flat only when it is within the noise or steady: a
        # loss that is mostly a constant it cannot remove (a per-pixel BCE's entropy, a Gaussian's log 2 pi, a
        # KL holding the total) moves little against its level, but a move far beyond the noise that clearly
        # slows down is an approach to a floor of its own (issue 17), and one that stops after a first drop a
        # plateau, both judged below; a far too low LR creeps at one rate (steady) and stays flat
        out["label"] = "diverging" if rise > threshold("MT-CURVE-DIVERGE") * scale else "flat_from_start"
    elif drop_room < threshold("MT-CURVE-SLOW") and steady:
        out["label"] = "decreasing_slowly"
    elif (stalled(m[half] - end, band, scale) or stop and stalled(m[half] - end, se, scale)) \
            and progress < threshold("MT-CURVE-CONVERGED"):
        out["label"] = "plateau_after_learning"
    else:
        out["label"] = "decreasing_normally"
        if drop_room < threshold("MT-CURVE-SLOW"):
            out["note"] = ("a small drop, but not a steady slow one: the run slowed as it neared a floor of its "
                           "own, or began learning after a plateau (healthy)")
        if progress >= threshold("MT-CURVE-CONVERGED") and stalled(m[half] - end, band, scale):
            out["note"] = "converged: most of the way from the start to the floor, then flat (healthy)"
    if n_spikes and out["label"] != "spiking":
        out["note"] = "loss spikes the run recovered from (info)"
    return out


def observe(history: Any, offset: int = 0, spikes: SpikeCounter | None = None, floor: float = 0.0,
            chance: float | None = None, constant_output: bool = False) -> list:
    """Observations for a loss history: ``loss_behavior`` (and ``nan_step`` when it went non-finite).

    Args:
        history: Loss values in step order.
        offset: Step number of the first value.
        spikes: Spike counts measured on the raw values (when ``history`` is downsampled).
        floor: The lowest value the loss can reach (see ``classify``).
        chance: The loss of a guessing model, when known (see ``classify``).
        constant_output: The model gives every example the same output (see ``classify``).
    """
    r = classify(history, spikes, floor, chance, constant_output)
    if r["label"] is None:
        return []
    th = ("MT-CURVE-FLAT", "MT-CURVE-SLOW", "MT-CURVE-PLATEAU", "MT-CURVE-CONVERGED", "MT-CURVE-DIVERGE",
          "MT-CURVE-OSC", "MT-CURVE-SPIKE", "MT-CURVE-SPIKE-ABS", "MT-CURVE-FIT",
          "MT-CURVE-STEADY", "MT-CURVE-STOP") + (("MT-CURVE-AT-FLOOR",) if chance else ()) \
        + (("MT-CURVE-CONST-OUT",) if constant_output else ())
    obs = [emit(INFO, "loss_behavior", r["label"], r, th)]
    if r["first_nonfinite"] is not None:
        obs.append(emit(INFO, "nan_step", offset + r["first_nonfinite"], {"points": r["points"]}))
    return obs


class LossCurveProbe(Probe):
    """Plugin: the loss curve's shape, from the losses given to ``w.step`` (key ``loss``).

    A window end costs the window: spikes are counted incrementally on the raw values and the history the
    classifier reads is bounded (``History``: at most ``2 * cap`` points, downsampled by averaging).
    """

    info = INFO
    hooks = ("window", "forward")
    # the output's spread is read on sampled steps only: the other steps' forwards cost nothing here
    sampled_hooks = ("forward",)
    thresholds = ("MT-CURVE-FLAT", "MT-CURVE-SLOW", "MT-CURVE-PLATEAU", "MT-CURVE-CONVERGED", "MT-CURVE-DIVERGE",
                  "MT-CURVE-OSC", "MT-CURVE-SPIKE", "MT-CURVE-SPIKE-ABS", "MT-CURVE-AT-FLOOR", "MT-CURVE-FIT",
                  "MT-CURVE-STEADY", "MT-CURVE-STOP", "MT-CURVE-CONST-OUT")

    def attach(self, run: Any) -> None:
        """Empty bounded history and spike counter."""
        self.history = History()
        self.spikes = SpikeCounter()
        self.points = 0
        # the output spreads (after step 0) of the latest two windows that measured one: ``constant_output``
        # needs two of them, since one sample (a zero-initialised head's first step: ReZero, DiT's adaLN-Zero)
        # can be 0 in a healthy run
        self.spreads: list[list[float]] = []

    def forward(self, run: Any, module: Any, first: Any, out: Any) -> None:
        """On a sampled step, queue the output's spread across the batch (``output_spread``; no sync)."""
        if not run.sampled or not hasattr(out, "is_floating_point") or not out.is_floating_point() \
                or out.ndim < 2 or out.shape[0] < 4:
            return
        run.record("lc:spread", output_spread(out))

    def accumulate(self, run: Any, window: Any) -> None:
        """Feed the window's losses; note the first non-finite one."""
        losses = window.get("loss")
        # (step, [loss]) rows -> the finite losses, in C (a window end reads 200 of them)
        finite = list(filter(math.isfinite, map(_FIRST, map(_SECOND, losses))))
        if len(finite) < len(losses) and "loss" not in run.nonfinite_at:
            run.nonfinite_at["loss"] = next(s for s, v in losses if not math.isfinite(v[0]))
        self.history.extend(finite)
        self.spikes.update(finite)
        self.points += len(finite)
        spreads = [v[0] for s, v in window.get("lc:spread") if s > 0]
        if spreads:
            self.spreads = [*self.spreads[-1:], spreads]

    def loss_history(self) -> tuple[list[float], list[float]]:
        """(steps, values) of the bounded history; a point stands for ``stride`` steps, placed at their middle."""
        values = self.history.points()
        stride = self.history.stride
        np = sys.modules.get("numpy")
        if np is not None and len(values) >= _VECTOR_POINTS:
            # the same floats (i * stride is exact in float64 far past any run's length), without a Python
            # expression per point: read at every window end, up to 512 points
            return (np.arange(len(values), dtype=np.float64) * stride + (stride - 1) / 2).tolist(), values
        return [i * stride + (stride - 1) / 2 for i in range(len(values))], values

    def summarise(self, run: Any) -> list:
        """``loss_behavior`` of the run so far."""
        if not self.points:
            return []
        from probes.base import at_step
        from probes.config_lint import loss_floor, loss_name

        nc = run.num_classes()
        floor = loss_floor(run.loss_fn, nc)
        chance = math.log(nc) if nc and nc >= 2 and run.loss_fn is not None \
            and loss_name(run.loss_fn) in ("cross_entropy", "nll") else None
        recent = [x for w in self.spreads for x in w]
        constant = len(recent) >= 2 and max(recent) < threshold("MT-CURVE-CONST-OUT")
        return at_step(observe(self.history.points(), spikes=self.spikes, floor=floor, chance=chance,
                               constant_output=constant), run.steps)
