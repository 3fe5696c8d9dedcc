"""Issue 17, no false alarms: a norm over the exploding bound that is only the loss sharpening (MS-GRAD-00/01).

A Gaussian VAE with a learned output log-variance starts near 67 nats and goes below zero while it learns
normally; its gradient norm rises about tenfold with the shrinking variance (the likelihood's gradient grows as
1/sigma^2) and crosses ``MT-GRAD-EXPLODE-ABS`` near step 300. A bound on the norm against the loss's value reads
that as exploding; the norm's own history (a gradual rise from a start under the bound, no spike, under
``MT-GRAD-RISE`` times its start) and the loss curve (still falling normally) say it is not. Real explosions keep
their warning: a norm over the bound from the first step (an RNN's recurrence), or one that rises with a broken
loss (an LR far too high, NaN), both tested on real seeded runs here, and every mix of the pieces on the rule.
"""

from __future__ import annotations

import pytest
import torch

from expert.consultation import Consultation
from knowledge.measurements import threshold
from probes import grad_flow
from tests.test_watch_vae_p34 import _train, _warnings
from tests.zoo import generated


@pytest.fixture(autouse=True)
def _one_thread():
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


# ------------------------------------------------------------------------------- real runs, both ways


def test_a_learned_variance_vae_whose_norm_rises_with_the_fit_is_not_exploding():
    c = _train(var_head=True, seed=2)
    assert c.observations["loss_behavior"].value == "decreasing_normally"
    gn = c.observations["grad_norm_global"]
    assert gn.value > threshold("MT-GRAD-EXPLODE-ABS")  # the measurement is right: the norm is over the bound
    rise = c.observations["grad_norm_steady_rise"].evidence
    assert rise["start"] < threshold("MT-GRAD-EXPLODE-ABS") and rise["growth"] < threshold("MT-GRAD-RISE")
    assert not _warnings(c), _warnings(c)


def _variant(name: str):
    return next(v for v in generated.variants() if v.name == name)


def test_an_rnn_whose_norm_is_over_the_bound_from_the_start_is_still_exploding():
    # the loss falls normally, but the norm never rose: it was over the bound from the first step
    c = generated.watch_variant(_variant("exploding_rnn/rnn/sgd_momentum/s0"))
    assert c.observations["loss_behavior"].value == "decreasing_normally"
    assert "grad_norm_steady_rise" not in c.observations
    assert "MS-GRAD-01" in _warnings(c)


def test_a_norm_that_rises_with_a_broken_loss_is_still_exploding():
    # an LR 100x too high on SGD: the norm climbs over the bound without a spike, and the loss goes non-finite
    c = generated.watch_variant(_variant("lr_too_high_sgd/transformer/sgd_momentum/s0"))
    assert c.observations["loss_behavior"].value != "decreasing_normally"
    assert "MS-GRAD-01" in _warnings(c)


# ------------------------------------------------------------------------------- the probe's reading, pure


def test_steady_rise_only_for_a_gradual_climb_over_the_bound():
    bound, rise = threshold("MT-GRAD-EXPLODE-ABS"), threshold("MT-GRAD-RISE")
    assert grad_flow.steady_rise(1.1 * bound, 0.1 * bound, 0)["growth"] == pytest.approx(11.0)
    assert grad_flow.steady_rise(0.9 * bound, 0.1 * bound, 0) is None  # under the bound: nothing at stake
    assert grad_flow.steady_rise(1.3 * bound, 1.2 * bound, 0) is None  # over it from the start
    assert grad_flow.steady_rise(1.1 * bound, 0.1 * bound, 2) is None  # spiked on the way
    assert grad_flow.steady_rise(1.1 * bound, 1.1 * bound / rise, 0) is None  # orders of magnitude
    assert grad_flow.steady_rise(1.1 * bound, None, 0) is None and grad_flow.steady_rise(None, 1.0, 0) is None


def test_the_probe_marks_a_gradual_rise_and_not_a_blow_up():
    def obs(norms: list[float]) -> dict[str, object]:
        st = grad_flow.NormStats()
        pairs = list(enumerate(norms))
        for i in range(0, len(pairs), 20):
            st.update(pairs[i:i + 20])
        struct = {"frozen": 0, "params": 2, "frozen_fraction": 0.0, "trainable_elements": 10,
                  "missing_from_optimizer": None}
        return {o.name: o for o in grad_flow.observe(struct=struct, per_param=None, no_grad=[], global_norms=st,
                                                     ratio=None, stepped=True, loss_start=67.0)}

    gradual = obs([12.0 * 1.008 ** i for i in range(300)])  # 12 -> ~130 over 300 steps
    assert gradual["grad_norm_trend"].value == "exploding" and gradual["grad_norm_steady_rise"].value is True
    blow_up = obs([1.0 * 1.03 ** i for i in range(300)])  # four decades
    assert "grad_norm_steady_rise" not in blow_up and blow_up["grad_norm_trend"].value == "exploding"
    calm = obs([12.0] * 300)
    assert "grad_norm_steady_rise" not in calm


# ------------------------------------------------------------------------------- the rule, every mix


def _fires(*, rise: bool, loss_behavior: str | None, norm: float = 130.0) -> set[str]:
    c = Consultation()
    facts: dict[str, object] = {"grad_norm_global": norm, "grad_norm_trend": "exploding"}
    if rise:
        facts["grad_norm_steady_rise"] = True
    if loss_behavior:
        facts["loss_behavior"] = loss_behavior
    c.observe(**facts)
    return {f["id"] for f in c.run().findings} & {"MS-GRAD-01", "DX-FIX-05"}


def test_a_steady_rise_is_held_back_only_while_the_loss_falls_normally():
    assert not _fires(rise=True, loss_behavior="decreasing_normally")
    for broken in ("nan_or_inf", "spiking", "diverging", "flat_from_start", "oscillating"):
        assert "MS-GRAD-01" in _fires(rise=True, loss_behavior=broken), broken
    assert "MS-GRAD-01" in _fires(rise=True, loss_behavior=None)  # no curve (examine, logs): as before
    assert "MS-GRAD-01" in _fires(rise=False, loss_behavior="decreasing_normally")  # over the bound from the start
