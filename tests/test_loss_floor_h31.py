"""Issue 17: the loss-curve reading judges progress against the curve's own floor and noise, not against zero.

Both ways: healthy runs whose loss bottoms out above zero, learns after a plateau, or wanders on correlated
batches are not read as flat, slow or plateaued; runs whose loss is truly flat (LR 0, a frozen model,
``optimizer.step`` missing), descends at one slow rate, or stops abruptly are still read so.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from probes import loss_curve
from tests.zoo import floors

WARNED = ("flat_from_start", "decreasing_slowly", "plateau_after_learning")


def _ar1(n: int, rho: float, sd: float, seed: int) -> np.ndarray:
    """Correlated noise (AR(1)): what tiny batches of similar examples add to a loss."""
    rng = np.random.default_rng(seed)
    e = np.zeros(n)
    for i in range(1, n):
        e[i] = rho * e[i - 1] + sd * rng.standard_normal()
    return e


# ------------------------------------------------------------------------------------ healthy: not warned


def test_a_bce_loss_converging_to_its_positive_floor_is_not_slow_and_its_floor_is_fitted():
    rng = np.random.default_rng(0)
    t = np.arange(300)
    # BCE against grey-level targets: 0.69 at init, floor 0.55 (the targets' entropy); a 20% drop of the loss
    y = 0.55 + 0.14 * np.exp(-t / 40) + 0.003 * rng.standard_normal(300)
    r = loss_curve.classify(y)
    assert r["label"] == "decreasing_normally"
    assert r["fitted_floor"] == pytest.approx(0.55, abs=0.01)
    assert r["progress"] > 0.9


def test_a_fast_first_drop_then_slow_learning_is_not_flat_from_the_first_step():
    rng = np.random.default_rng(1)
    t = np.arange(240)
    # an ELBO reaching the mean image in a few steps (inside the first chunk), then learning 4% more slowly
    y = 200 + 340 * np.exp(-t / 2) - 8 * (1 - np.exp(-t / 120)) + 0.5 * rng.standard_normal(240)
    assert loss_curve.classify(y)["label"] not in WARNED


def test_learning_that_starts_after_a_plateau_is_not_slow():
    rng = np.random.default_rng(2)
    t = np.arange(300)
    # a VAE-like plateau for 80 steps, then learning begins: 10% of the loss by the end, still accelerating
    y = 0.69 - 0.07 / (1 + np.exp(-(t - 200) / 25)) + 0.002 * rng.standard_normal(300)
    r = loss_curve.classify(y)
    assert r["label"] == "decreasing_normally"


@pytest.mark.parametrize("seed", [2, 5])
def test_a_noisy_wander_after_learning_is_not_a_plateau(seed):
    t = np.arange(240)
    # learned, then converged with tiny correlated batches: the level wanders by more than the step noise shows
    # (these seeds read "learned, then plateaued" when the band was the step noise alone)
    y = 0.3 + 0.7 * np.exp(-t / 25) + _ar1(240, 0.95, 0.02, seed) \
        + 0.005 * np.random.default_rng(seed + 10).standard_normal(240)
    assert loss_curve.classify(y, chance=math.log(4))["label"] == "decreasing_normally"


def test_noise_band_includes_the_chunks_own_wander():
    levels = [1.0, 1.1, 0.95, 1.08, 0.97, 1.06, 0.93, 1.1]
    assert loss_curve.noise_band(levels, 0.001) > 0.05  # the wander, not the tiny step noise
    assert loss_curve.noise_band([1.0, 0.9, 0.8, 0.7, 0.6, 0.5], 0.01) == pytest.approx(0.01)  # straight: se


# ------------------------------------------------------------------------------------ faulty: still warned


def test_a_truly_flat_loss_is_still_flat_white_or_correlated_noise():
    rng = np.random.default_rng(5)
    assert loss_curve.classify(0.69 + 0.002 * rng.standard_normal(300))["label"] == "flat_from_start"
    assert loss_curve.classify(44.3 + 0.1 * rng.standard_normal(240))["label"] == "flat_from_start"
    wander = 0.69 + _ar1(300, 0.9, 0.004, 6)
    assert loss_curve.classify(wander)["label"] == "flat_from_start"
    assert loss_curve.fit_floor(list(0.69 + 0.002 * rng.standard_normal(300)), 0.002) is None


def test_a_steady_slow_descent_is_still_slow_and_an_abrupt_stop_still_a_plateau():
    rng = np.random.default_rng(7)
    t = np.arange(300)
    # an LR too low: one small rate from the first step, nothing to fit a floor to
    slow = 0.69 - 0.0002 * t + 0.002 * rng.standard_normal(300)
    r = loss_curve.classify(slow)
    assert r["label"] == "decreasing_slowly" and "fitted_floor" not in r
    # an LR cut to nothing mid-descent: the curve stops far above where its descent was heading
    cut = np.r_[2.4 - 0.008 * t[:150], 1.2 + 0 * t[150:]] + 0.01 * rng.standard_normal(300)
    assert loss_curve.classify(cut)["label"] == "plateau_after_learning"


# ------------------------------------------------------------------------------------ real runs (dev zoo)


@pytest.mark.parametrize("setup", ["bce_autoencoder", "vae_elbo", "noisy_regression", "smoothed_classifier"])
def test_dev_zoo_healthy_curves_are_not_warned_and_flat_twins_are(setup):
    torch.set_num_threads(1)
    s = floors.SETUP[setup]
    chance = math.log(s.num_classes) if s.num_classes else None
    from probes.config_lint import loss_floor

    floor = loss_floor(s.loss, s.num_classes) if isinstance(s.loss, torch.nn.Module) else 0.0
    healthy = loss_curve.classify(floors.curve(floors.Variant(setup)), floor=floor, chance=chance)
    assert healthy["label"] == "decreasing_normally", healthy
    flat = loss_curve.classify(floors.curve(floors.Variant(setup, "lr_zero")), floor=floor, chance=chance)
    # a noisy regression's flat run reads as oscillating (its per-batch MSE swings): warned either way
    assert flat["label"] in ("flat_from_start", "oscillating"), flat


CURVE_ROWS = {"RT-LOSS-01", "RT-LOSS-02", "RT-LOSS-05"}
"""The findings a flat, plateaued or slow loss reading raises on its own."""


def _warnings(c) -> set[str]:
    return {f["id"] for f in c.diagnosis.findings if f["severity"] in ("warning", "critical")}


def test_watch_on_a_healthy_vae_reads_its_curve_as_healthy_and_on_its_flat_twin_warns():
    healthy = floors.watch_variant(floors.Variant("vae_elbo"))
    assert healthy.observations["loss_behavior"].value == "decreasing_normally"
    assert not _warnings(healthy) & CURVE_ROWS
    flat = floors.watch_variant(floors.Variant("vae_elbo", "step_missing"))
    assert flat.observations["loss_behavior"].value == "flat_from_start"
    assert _warnings(flat)


def test_a_fast_first_transient_then_a_slow_approach_fits_its_floor():
    rng = np.random.default_rng(11)
    t = np.arange(1000)
    # a long VAE run: the mean image in ~10 steps (178 -> 104), then the ELBO's slow approach to its floor (87);
    # one exponential cannot follow both time scales, the approach alone fits
    y = 87 + 74 * np.exp(-t / 8) + 17 * np.exp(-t / 200) + 0.8 * rng.standard_normal(1000)
    r = loss_curve.classify(y)
    assert r["label"] == "decreasing_normally" and r["fitted_floor"] == pytest.approx(87, abs=1.5)
    # a steady slow descent from the first step (no transient to leave out) still gets no floor: slow
    slow = 0.69 - 0.0002 * t[:300] + 0.002 * rng.standard_normal(300)
    assert loss_curve.classify(slow)["label"] == "decreasing_slowly"


def test_an_lr_cut_mid_descent_is_a_plateau_although_one_exponential_fits_the_whole_curve():
    rng = np.random.default_rng(12)
    t = np.arange(300)
    # a decelerating descent towards 0.1, cut (LR to ~0) at step 100 at 0.35: read from a log (floor unknown)
    y = np.where(t < 100, 0.1 + 0.9 * np.exp(-t / 80), 0.1 + 0.9 * np.exp(-100 / 80)) \
        + 0.02 * rng.standard_normal(300)
    r = loss_curve.classify(y)
    assert r["stopped_short"] and r["label"] == "plateau_after_learning"
    # the same descent carried on to its floor is converged
    ok = 0.1 + 0.9 * np.exp(-t / 40) + 0.02 * rng.standard_normal(300)
    r = loss_curve.classify(ok)
    assert not r["stopped_short"] and r["label"] == "decreasing_normally"
