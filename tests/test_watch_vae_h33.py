"""Issues 17/21, no false alarms: healthy VAEs under the always-on watch, and the VAE faults it must still see.

Both ways, on small real VAEs (``tests/zoo/vaes.py``) and on the pure pieces:

* a ``reduction="sum"`` ELBO has a gradient norm in the hundreds from its first step, healthy: it is judged per
  ``MT-GRAD-LOSS-REF`` of its starting loss (no false "exploding"), while a summed loss whose norm does blow up
  is still exploding;
* a loss that is mostly a constant the model cannot remove moves little against its level: a clearly slowing
  move far beyond the noise is not "flat from the first step", a flat or steady creep still is;
* a decoder that never sees the latent drops to the mean image and stops: its output does not vary across the
  batch (``MT-CURVE-CONST-OUT``), so the level it stops at is no floor of the data and the run is a plateau.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from probes import grad_flow, loss_curve
from tests.zoo import vaes

WARNED = ("flat_from_start", "decreasing_slowly", "plateau_after_learning")


def _warnings(c) -> set[str]:
    return {f["id"] for f in c.diagnosis.findings if f["severity"] in ("warning", "critical")}


@pytest.fixture(autouse=True)
def _one_thread():
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


# ------------------------------------------------------------------------------- gradient norm of a summed loss


def _norm_obs(norms: list[float], loss_start: float | None) -> dict[str, object]:
    st = grad_flow.NormStats()
    pairs = list(enumerate(norms))
    for i in range(0, len(pairs), 20):  # window by window, as the watch feeds it
        st.update(pairs[i:i + 20])
    struct = {"frozen": 0, "params": 2, "frozen_fraction": 0.0, "trainable_elements": 10,
              "missing_from_optimizer": None}
    obs = grad_flow.observe(struct=struct, per_param=None, no_grad=[], global_norms=st, ratio=None,
                            stepped=True, loss_start=loss_start)
    return {o.name: o for o in obs}


def test_a_summed_loss_norm_is_judged_per_its_size_and_a_mean_loss_is_unchanged():
    norms = [300.0 + 10 * math.sin(i) for i in range(200)]  # steady, in the hundreds from the first step
    summed = _norm_obs(norms, loss_start=2700.0)
    assert summed["grad_norm_trend"].value == "normal"
    assert summed["grad_norm_global"].value < grad_flow.threshold("MT-GRAD-EXPLODE-ABS")
    assert summed["grad_norm_global"].evidence["raw_norm"] > 250
    # the same norms on a mean-reduced loss (or with the loss unknown: examine, logs) are exploding, as before
    for start in (2.3, None):
        mean = _norm_obs(norms, loss_start=start)
        assert mean["grad_norm_trend"].value == "exploding"
        assert mean["grad_norm_global"].value > 250 and "raw_norm" not in mean["grad_norm_global"].evidence


def test_a_summed_loss_whose_norm_blows_up_is_still_exploding():
    norms = [300.0] * 100 + [300.0 * 10 ** (i / 10) for i in range(100)]  # grows four decades
    obs = _norm_obs(norms, loss_start=2700.0)
    assert obs["grad_norm_trend"].value == "exploding"
    assert obs["grad_norm_global"].value > grad_flow.threshold("MT-GRAD-EXPLODE-ABS")


def test_loss_per_is_one_up_to_the_reference_and_ignores_non_finite_starts():
    ref = grad_flow.threshold("MT-GRAD-LOSS-REF")
    assert grad_flow.loss_per(None) == grad_flow.loss_per(math.nan) == grad_flow.loss_per(ref) == 1.0
    assert grad_flow.loss_per(-5.0) == 1.0 and grad_flow.loss_per(40 * ref) == pytest.approx(40.0)


# ------------------------------------------------------------------------------- the curve of a large-constant loss


def test_a_slowing_move_beyond_the_noise_under_a_large_constant_is_not_flat():
    rng = np.random.default_rng(3)
    t = np.arange(300)
    # a Gaussian likelihood's 59 nats of log 2 pi plus a learnable 2.5 that decays over the run (too slowly for
    # a floor fit): 3% of the level, fifty times the noise of a chunk
    y = 59.0 + 2.5 * np.exp(-t / 90) + 0.05 * rng.standard_normal(300)
    assert loss_curve.classify(y)["label"] not in ("flat_from_start", "decreasing_slowly")


def test_a_flat_or_steadily_creeping_large_constant_loss_is_still_flat():
    rng = np.random.default_rng(4)
    t = np.arange(300)
    assert loss_curve.classify(59.0 + 0.05 * rng.standard_normal(300))["label"] == "flat_from_start"
    # an LR far too low: one slow rate from the first step, beyond the noise but steady
    creep = 61.0 - 0.004 * t + 0.05 * rng.standard_normal(300)
    assert loss_curve.classify(creep)["label"] == "flat_from_start"


def test_a_constant_output_gets_no_fitted_floor_and_its_stop_is_a_plateau():
    rng = np.random.default_rng(5)
    t = np.arange(300)
    # a drop to the mean image's level, then nothing for two thirds of the run
    y = 0.60 + 0.07 * np.exp(-t / 25) + 0.004 * rng.standard_normal(300)
    assert loss_curve.classify(y)["label"] == "decreasing_normally"  # a fitted floor: converged, as before
    r = loss_curve.classify(y, constant_output=True)
    assert r["label"] == "plateau_after_learning" and "fitted_floor" not in r and r["constant_output"]


def test_output_spread_is_zero_for_one_answer_and_large_for_an_input_dependent_one():
    x = torch.randn(64, 16)
    assert float(loss_curve.output_spread(torch.ones(64, 10) * -1.3)) == 0.0
    assert float(loss_curve.output_spread(torch.nn.Linear(16, 10)(x))) > 0.1


# ------------------------------------------------------------------------------- real VAEs under the watch


@pytest.mark.parametrize("kind", ["mean_bce", "sum_bce"])
def test_healthy_vaes_get_no_warning_from_the_watch(kind):
    c = vaes.train(vaes.Run(kind, seed=1))
    assert c.observations["loss_behavior"].value == "decreasing_normally"
    assert not c.observations["loss_behavior"].evidence.get("constant_output")
    assert not _warnings(c), _warnings(c)
    if kind == "sum_bce":  # raw norms in the hundreds: judged per the loss's size, not exploding
        gn = c.observations["grad_norm_global"]
        assert gn.evidence["raw_norm"] > grad_flow.threshold("MT-GRAD-EXPLODE-ABS") > gn.value


def test_a_decoder_that_never_sees_the_latent_plateaus_at_the_mean_image():
    c = vaes.train(vaes.Run("mean_image", seed=0))
    lb = c.observations["loss_behavior"]
    assert lb.value == "plateau_after_learning" and lb.evidence["constant_output"]
    assert _warnings(c)


def test_a_vae_with_lr_zero_is_still_flat_from_the_first_step():
    c = vaes.train(vaes.Run("lr_zero", seed=0))
    assert c.observations["loss_behavior"].value == "flat_from_start"
    assert "RT-LOSS-01" in _warnings(c)


def test_the_loss_start_is_the_first_raw_losses_so_an_early_blow_up_is_not_divided_away():
    # 1200 steps: the bounded history has halved to points of 4 steps, so its first points already hold the
    # blow-up at step 3; the start is read from the raw losses of the first window instead
    from probes.watcher import watch

    torch.manual_seed(0)
    m = torch.nn.Linear(8, 1)
    opt = torch.optim.SGD(m.parameters(), lr=0.0)
    x, y = torch.randn(32, 8), torch.randn(32, 1)
    with watch(m, opt) as w:
        for s in range(1200):
            opt.zero_grad()
            k = 1.0 if s < 3 else 1000.0  # the loss and its gradient blow up at step 3 and stay there
            loss = ((k * m(x) - y) ** 2).mean()
            loss.backward()
            opt.step()
            w.step(loss.detach())
    gn = {o.name: o for o in w.observations()}["grad_norm_global"]
    assert "divided_by" not in gn.evidence  # a mean loss near 1 at the start: judged as it is
    assert gn.value > 1e5


def test_loss_start_is_the_median_of_the_first_finite_raw_losses():
    assert grad_flow.loss_start([]) is None and grad_flow.loss_start([math.nan]) is None
    assert grad_flow.loss_start([math.nan, 2700.0, 2650.0, 1e9, 2690.0, 2600.0, 1e9, 1e9]) == 2690.0


def test_output_spread_copies_a_bounded_slice_of_a_large_output():
    from torch.utils._python_dispatch import TorchDispatchMode

    class Largest(TorchDispatchMode):  # the largest new tensor (not a view of the output) made meanwhile
        most = 0
        seen = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            r = func(*args, **(kwargs or {}))
            for t in r if isinstance(r, (tuple, list)) else (r,):
                if isinstance(t, torch.Tensor) and t.untyped_storage().data_ptr() != Largest.seen:
                    Largest.most = max(Largest.most, t.numel())
            return r

    logits = torch.randn(64, 50, 2000, dtype=torch.bfloat16)  # batch x tokens x vocabulary
    logits[:, :, ::7] += torch.randn(64, 1, 1).to(torch.bfloat16) * 3  # answers that differ by example
    Largest.seen = logits.untyped_storage().data_ptr()
    with Largest():
        s = float(loss_curve.output_spread(logits))
    assert Largest.most <= loss_curve.SPREAD_ROWS * loss_curve.SPREAD_COLUMNS < logits.numel()
    assert s > 0.1
    assert float(loss_curve.output_spread(torch.ones(64, 50, 2000, dtype=torch.bfloat16))) == 0.0


def _constant(windows: list[list[tuple[int, float]]]) -> bool:
    """Whether the loss-curve probe, fed (step, spread) windows and a falling loss, reads a constant output."""
    from types import SimpleNamespace

    from probes.watcher import Window

    p = loss_curve.LossCurveProbe()
    run = SimpleNamespace(nonfinite_at={}, loss_fn=None, num_classes=lambda: None, steps=0)
    p.attach(run)
    for i, spreads in enumerate(windows):
        losses = [(s, [2.0 * math.exp(-s / 40)]) for s in range(20 * i, 20 * i + 20)]
        p.accumulate(run, Window(20 * i, 20 * i + 20, {"loss": losses, "lc:spread": [(s, [v]) for s, v in spreads]}))
        run.steps = 20 * i + 20
    (lb,) = p.summarise(run)
    return bool(lb.evidence.get("constant_output"))


def test_one_zero_spread_of_a_zero_initialised_head_is_no_constant_output():
    # ReZero / adaLN-Zero: the head answers 0 for everything until its first update; a window that sampled only
    # that step, or one sample alone, must not read as a constant output (no fitted floor -> a false plateau)
    assert not _constant([[(0, 0.0)], [(20, 0.5)], [(40, 0.0)]])
    assert not _constant([[(0, 0.0), (10, 0.4)], [(20, 0.4)], [(40, 0.0)]])
    # a head stuck at one answer over two windows is still constant
    assert _constant([[(0, 0.0), (10, 0.0)], [(20, 0.0)], [(40, 0.0)]])


def test_the_log_reader_judges_a_summed_loss_norm_as_the_watch_does():
    from probes import history

    norms = [400.0 + 10 * math.sin(i) for i in range(100)]
    gn = history.Curve(list(range(100)), norms, None, 0, 100)
    summed = {o.name: o for o in history.grad_norm_observations(gn, loss_start=2700.0)}
    watched = _norm_obs(norms, loss_start=2700.0)
    assert summed["grad_norm_trend"].value == watched["grad_norm_trend"].value != "exploding"
    assert summed["grad_norm_global"].value == pytest.approx(watched["grad_norm_global"].value, rel=0.05)
    assert summed["grad_norm_global"].evidence["raw_norm"] > 100
    # a mean loss: as logged
    mean = {o.name: o for o in history.grad_norm_observations(gn, loss_start=2.3)}
    assert mean["grad_norm_trend"].value == "exploding" and "divided_by" not in mean["grad_norm_global"].evidence
