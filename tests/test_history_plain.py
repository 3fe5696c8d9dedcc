"""The run-history analysis works on plain Python sequences and gives numpy's numbers (issue 21).

``trainopt logs`` on a small file must not import numpy (its import alone costs about twice a bare interpreter
start), so the pieces the analysis shares with ``watch`` compute in plain Python. Each is checked here against
the numpy computation it replaced, on varied inputs.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from probes.generalization import _at, gap_trend
from probes.history import Curve, _round, lr_observations
from probes.medians import amin

rng = np.random.default_rng(21)


def grids() -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(xp, fp, x): sorted points with ties, a single point, steps before, on and after the points."""
    out = []
    for n in (1, 2, 3, 7, 40):
        xp = np.sort(rng.integers(0, 200, size=n)).astype(np.float64)
        fp = rng.normal(size=n)
        x = np.concatenate([xp, xp + 0.5, [-5.0, 1e6, np.nan], rng.uniform(-10, 210, size=30)])
        out.append((xp, fp, x))
    xp = np.array([0.0, 10.0, 10.0, 20.0])
    out.append((xp, np.array([1.0, 2.0, 3.0, 4.0]), np.array([5.0, 10.0, 15.0, 20.0, 25.0])))
    out.append((np.array([0.0, 1.0]), np.array([np.inf, np.inf]), np.array([0.5])))
    return out


@pytest.mark.parametrize("case", range(len(grids())))
def test_interpolation_is_numpys(case: int) -> None:
    xp, fp, x = grids()[case]
    want = np.interp(x, xp, fp)
    got = np.array(_at(x.tolist(), (xp.tolist(), fp.tolist())))
    assert np.array_equal(got, want, equal_nan=True)


def test_gap_trend_agrees_with_a_least_squares_fit() -> None:
    for n in (3, 4, 10, 64):
        for _ in range(200):
            g = rng.normal(size=n) * rng.choice([1e-3, 0.05, 1.0])
            slope = np.polyfit(np.arange(n, dtype=np.float64), g, 1)[0] * (n - 1)
            want = "widening" if slope > 0.02 else "narrowing" if slope < -0.02 else "stable"
            assert gap_trend(g.tolist()) == want
    assert gap_trend([0.1, 0.2]) is None
    assert gap_trend([0.0, math.nan, 0.1, 0.2, 0.3]) == "widening"


def test_rounding_and_minimum_are_numpys() -> None:
    for x in np.concatenate([rng.normal(size=200) * 1e-3, [0.5e-12, 1.5e-12, 2.5e-12, -2.5e-12, 0.0, 1e300]]):
        assert _round(float(x), 12) == float(np.round(x, 12))
    assert amin([3.0, 1.0, 2.0]) == 1.0
    assert math.isnan(amin([1.0, math.nan])) and math.isnan(amin([math.nan, 1.0]))


def test_a_step_schedule_is_read_from_plain_lists_and_arrays_alike() -> None:
    lr = [1e-3] * 10 + [1e-4] * 10 + [1e-5] * 10
    a = lr_observations(Curve(list(range(30)), lr))
    b = lr_observations(Curve(np.arange(30.0), np.array(lr)))
    assert a == b
    assert {o.name: o.value for o in a}["lr_schedule"] == "step"


def varied_curves() -> dict[str, list[float]]:
    """Healthy, overfitting-shaped, flat, spiky, noisy, diverging, plateau, heavy-tailed and 8-point curves."""
    r = np.random.default_rng(7)
    out = {}
    for n in (8, 30, 300, 2000):
        t = np.arange(n)
        out[f"healthy{n}"] = 2 * np.exp(-t / (n / 4)) + 0.1 + 0.02 * r.normal(size=n)
        out[f"flat{n}"] = 2.3 + 0.01 * r.normal(size=n)
        y = 2 * np.exp(-t / (n / 4)) + 0.1 + 0.02 * r.normal(size=n)
        y[r.integers(0, n, size=max(1, n // 50))] += 3
        out[f"spiky{n}"] = y
        out[f"noisy{n}"] = 2 * np.exp(-t / (n / 3)) + 0.5 + 0.4 * r.normal(size=n)
        out[f"diverging{n}"] = 1 + 3 * (t / n) ** 2 + 0.02 * r.normal(size=n)
        out[f"plateau{n}"] = np.where(t < n / 2, 2 * np.exp(-t / (n / 10)) + 0.8, 0.8) + 0.01 * r.normal(size=n)
        out[f"overfit{n}"] = 0.2 + np.abs(t / n - 0.4) + 0.01 * r.normal(size=n)
        out[f"cauchy{n}"] = np.abs(r.standard_cauchy(size=n))
    return {k: v.tolist() for k, v in out.items()}


@pytest.mark.parametrize("name", sorted(varied_curves()))
def test_noise_rows_are_the_same_vectorized_or_not(name: str) -> None:
    from probes.loss_curve import _noise_rows, noise_level

    y = varied_curves()[name]
    ends = list(range(1, len(y) + 1))
    plain = [noise_level(y[max(0, e - 64):e]) for e in ends]
    assert _noise_rows(y, ends, 64) == plain  # numpy is loaded here: the full windows go vectorized


@pytest.mark.parametrize("name", sorted(varied_curves()))
def test_rolling_medians_are_the_same_vectorized_or_not(name: str) -> None:
    from probes.loss_curve import _rolling_median

    y = varied_curves()[name]
    for k in (3, 5):
        rows = range(len(y))
        pad = k // 2
        plain = [sorted((y[pad:0:-1] + y + y[-2:-pad - 2:-1])[i:i + k])[pad] for i in rows]
        assert _rolling_median(y, k, rows) == plain  # numpy is loaded here: vectorized
        assert _rolling_median(y, k, range(1, 4)) == plain[1:4]  # few rows: the plain loop


CLASSIFY = """
import json, sys
from probes.loss_curve import classify, count_spikes
curves = json.loads(sys.stdin.read())
out = {k: [classify(v), count_spikes(v).positions] for k, v in curves.items()}
assert "numpy" not in sys.modules, "the classifier imported numpy"
print(json.dumps(out, sort_keys=True))
"""


def test_the_classifier_runs_without_numpy_and_reads_every_curve_alike() -> None:
    import json
    import os
    import subprocess
    import sys

    from probes.loss_curve import classify, count_spikes

    curves = varied_curves()
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    got = subprocess.run([sys.executable, "-c", CLASSIFY], input=json.dumps(curves), capture_output=True,
                         text=True, env=env, check=True).stdout
    want = {k: [classify(np.array(v)), count_spikes(v).positions] for k, v in curves.items()}
    assert json.loads(got) == json.loads(json.dumps(want, sort_keys=True))
    labels = {v[0]["label"] for v in want.values()}
    assert {"decreasing_normally", "flat_from_start", "spiking", "diverging"} <= labels
