"""Readings of issues 17/19 (j33): a quantity's own word binds its movement, "the same" said of another variant,
and a step rate that falls by the gradient accumulation raised."""

from __future__ import annotations

import pytest

import expert  # noqa: F401  (experta is imported after expert)
from tests.reading import declined, obs


# --- a quantity's own word binds the movement: the LR's peak, the LR at its planned floor ----------------------------
@pytest.mark.parametrize("text", [
    "the LR reaches its peak after 4000 steps instead of 400",
    "my learning rate only reaches its peak at step 4000",
])
def test_the_lrs_own_peak_is_no_loss_spike(text: str) -> None:
    got = obs(text)
    assert got.get("loss_behavior") != "spiking" and got.get("symptom") != "unstable", got


@pytest.mark.parametrize("text, expected", [
    ("the loss reaches its peak at step 400", {"loss_behavior": "spiking"}),
    ("grad norm reaches its peak at step 400", {"grad_norm_trend": "spiky"}),
])
def test_a_curves_own_peak_still_reads(text: str, expected: dict) -> None:
    got = obs(text)
    assert {k: got.get(k) for k in expected} == expected, got


@pytest.mark.parametrize("text", [
    "the lr reaches 0 at the end of the run as planned",
    "the lr reaches 0 as planned",
    "the learning rate goes to zero at the end of training",
])
def test_a_schedule_ending_at_zero_is_healthy(text: str) -> None:
    assert "lr_observed" not in obs(text)


@pytest.mark.parametrize("text", [
    "the lr drops to zero at step 500",
    "the lr reaches 0 at the end of the first epoch",
    "the lr reaches 0 after 100 steps",
])
def test_an_lr_collapsing_early_still_reads(text: str) -> None:
    assert obs(text).get("lr_observed") == "near_zero"


# --- "the same" with another variant: the trouble recurs, nothing is constant ----------------------------------------
@pytest.mark.parametrize("text", [
    "the same with image_logits.t()",
    "same thing with the other optimizer",
    "same result with the other optimizer",
    "it's the same with bf16",
])
def test_the_same_with_another_variant_is_no_constant_output(text: str) -> None:
    got = obs(text)
    assert "predictions_constant" not in got and got.get("symptom") != "not_learning", got


@pytest.mark.parametrize("text", [
    "the model predicts the same class for everything",
    "outputs are all the same",
    "the predictions are the same for every input",
    "the model outputs the same with every input",
])
def test_constant_predictions_still_read(text: str) -> None:
    assert obs(text).get("predictions_constant") is True


# --- gradient accumulation raised: fewer optimizer steps per second, the same examples per second --------------------
@pytest.mark.parametrize("text, steps", [
    ("training got 4x slower in it/s after raising gradient accumulation steps to 4", 4),
    ("I increased gradient_accumulation_steps from 1 to 8 and now it/s dropped 8x", 8),
    ("gradient accumulation 1 vs 4: 8 it/s vs 2 it/s, why is it so much slower?", 4),
])
def test_step_rate_drop_after_raising_accumulation(text: str, steps: int) -> None:
    got = obs(text)
    assert got.get("accum_step_rate_drop") is True and got.get("grad_accum_steps") == steps, got
    d, _asked = declined(text)
    assert d.plan[:1] == ["batch-size-and-memory-tradeoffs"], d.plan
    assert "RT-SLOW-ACCUM-01" in {f["id"] for f in d.findings}
    assert "pytorch-engineering" not in d.plan


@pytest.mark.parametrize("text", [
    "training is slow, I use gradient accumulation 8",
    "after raising accumulation to 4, samples/sec dropped 4x too",
    "I raised gradient accumulation to 8 and the loss is fine",
])
def test_no_step_rate_drop_without_it(text: str) -> None:
    assert "accum_step_rate_drop" not in obs(text)


def test_plain_slow_accumulating_run_is_still_profiled() -> None:
    d, _asked = declined("training is slow, I use gradient accumulation 8")
    assert "RT-SLOW-ACCUM-01" not in {f["id"] for f in d.findings}
    assert d.plan[:1] == ["pytorch-engineering"], d.plan


@pytest.mark.parametrize("text, steps", [
    ("with gradient accumulation 1 I get 8 it/s, with accumulation 4 I get 2 it/s", 4),
    ("I set accumulation steps from 8 to 1", 1),
    ("accumulation=4", 4),
])
def test_the_changed_accumulation_value_is_read(text: str, steps: int) -> None:
    assert obs(text).get("grad_accum_steps") == steps


def test_loss_accumulation_is_no_gradient_accumulation() -> None:
    assert "grad_accum_steps" not in obs("loss accumulation 4 times")
