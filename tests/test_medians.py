"""probes.medians gives exactly numpy.median's results (the logs path uses it to skip importing numpy.ma)."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest

from probes.medians import median, median_along

rng = np.random.default_rng(21)
CASES = {
    "odd": rng.normal(size=101),
    "even": rng.normal(size=100),
    "one": np.array([3.5]),
    "two": np.array([1.0, 2.0]),
    "flat": np.full(50, 0.7),
    "ties": np.array([1.0, 1.0, 2.0, 2.0, 2.0, 3.0]),
    "spiky": np.where(rng.random(200) < 0.05, 1e6, rng.random(200)),
    "tiny": rng.normal(size=64) * 1e-300,
    "huge": rng.normal(size=64) * 1e300,
    "signed_zero": np.array([-0.0, 0.0, -0.0, 0.0]),
    "nan": np.array([1.0, np.nan, 3.0]),
    "inf": np.array([1.0, np.inf, 3.0, 4.0]),
    "neg_inf": np.array([-np.inf, 1.0, 2.0]),
    "empty": np.array([]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_median_is_numpys(name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = float(np.median(CASES[name]))
        got = median(CASES[name])
    assert type(got) is float
    assert got == want or (np.isnan(got) and np.isnan(want))


@pytest.mark.parametrize("name", ["odd", "even", "spiky", "nan", "inf", "flat"])
@pytest.mark.parametrize("k", [3, 4, 5])
def test_median_along_rows_is_numpys(name: str, k: int) -> None:
    a = CASES[name]
    view = np.lib.stride_tricks.sliding_window_view(np.pad(a, k // 2, mode="edge"), k)
    want = np.median(view, axis=1)
    np.testing.assert_array_equal(median_along(view, 1), want)


def test_reading_a_small_log_does_not_import_numpy_ma(tmp_path) -> None:
    log = tmp_path / "train.csv"
    log.write_text("step,loss,val_loss\n" + "".join(
        f"{i},{2.3 * 0.99 ** i + 0.05:.5f},{2.3 * 0.99 ** min(i, 120) + 0.002 * max(0, i - 120):.5f}\n"
        for i in range(300)))
    code = ("import sys; from expert.logs import read_log; r = read_log(sys.argv[1]); r.observations(); r.regimes(); "
            "print('numpy.ma' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, str(log)], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
