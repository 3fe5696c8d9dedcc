"""Issue 19 (o32): training talk read by its general phrasing, each kind both ways.

A small gradient norm said before a NaN, a negated device comparison, a loss held at one value after a denied
change, a step operation's duration said as a complaint, an LR said constant (the schedule, or a stuck trace where
a schedule was set) and a move between precisions. Each kind has variants that must read, and near-misses that must
not change.
"""

from __future__ import annotations

import pytest

from tests.reading import assert_reads, obs

CALM_BEFORE_NAN = [
    "the grad norm was 0.09 right before it went nan",
    "gradients were tiny, around 1e-3, then suddenly nan",
    "grad norm was 0.5 at step 100 then the loss became nan",
    "the grad_norm hovered around 2.7 and then the next log shows nan",
    "gradients were tiny then suddenly nan",
    "the gradients looked normal until the loss went nan",
    "the gradients were small, then nan",
]


@pytest.mark.parametrize("text", CALM_BEFORE_NAN)
def test_small_norm_before_nan_is_calm(text: str) -> None:
    assert_reads(text, {"grad_norm_trend": "normal"})


@pytest.mark.parametrize("text", [
    "grad norm kept climbing to 1e5 then nan",
    "grad norm grew from 0.5 to 1e5 then nan",
    "the grad norm rose steadily then nan",
    "grad norm is 5000 then nan",
])
def test_grown_norm_before_nan_explodes(text: str) -> None:
    assert_reads(text, {"grad_norm_trend": "exploding"})


@pytest.mark.parametrize("text, expected", [
    ("grad norm was 0.09", None),                      # no NaN: a bare figure
    ("the grad norm was 0.09 and the loss is fine", None),
    ("gradients were tiny", "vanishing"),              # no NaN: a small level is a vanishing
    ("gradients became tiny and vanished", "vanishing"),
])
def test_small_norm_without_nan(text: str, expected: str | None) -> None:
    assert obs(text).get("grad_norm_trend") == expected


@pytest.mark.parametrize("text", [
    "4 GPUs are not slower than 1",
    "training on 8 gpus isn't slower than on one gpu",
    "2 GPUs are no slower than a single GPU",
])
def test_not_slower_is_no_missing_speedup(text: str) -> None:
    got = obs(text)
    assert got.get("multi_gpu_speedup") is None and got.get("symptom") != "slow_training", got


@pytest.mark.parametrize("text", ["4 GPUs are not faster than 1", "4 GPUs are slower than 1"])
def test_more_devices_no_faster_still_reads_none(text: str) -> None:
    assert_reads(text, {"multi_gpu_speedup": "none"})


@pytest.mark.parametrize("text", [
    "loss does not change and sticks at 0.6931 for all epochs",
    "the loss doesn't move and stays at 2.3026 from the start",
    "my loss never decreases and is stuck at 0.693 since the first step",
    "the loss doesn't go down and stays at 0.6931 every epoch",
    "the loss stays at 0.693 constantly from the beginning",
    "my loss is stuck at 2.302 since the very first step and never moves",
])
def test_held_loss_value_is_flat_from_start(text: str) -> None:
    assert_reads(text, {"loss_behavior": "flat_from_start"})


@pytest.mark.parametrize("text", [
    "loss decreases and sticks at 0.3 for all epochs",           # it learned first
    "the loss does not stick at 0.69 for all epochs",            # denied
    "loss does not change and sticks at 0.6931 after 10 epochs",  # a value at a time, not from the start
])
def test_held_loss_near_misses(text: str) -> None:
    assert obs(text).get("loss_behavior") != "flat_from_start"


@pytest.mark.parametrize("text", [
    "my loss.backward() call takes 5 seconds, way too long",
    "the forward pass takes 800 ms which is longer than expected",
    "optimizer.step() takes 2 seconds, painfully slow",
    "the backward call takes about 20 seconds per batch, so one epoch needs days, much too slow",
    "calling loss.backward takes 9 seconds for one batch, super slow",
])
def test_complained_operation_time_is_slow(text: str) -> None:
    assert_reads(text, {"symptom": "slow_training", "slow_kind": "per_step"})


@pytest.mark.parametrize("text", [
    "my loss.backward() call takes 5 seconds",      # a bare figure
    "the backward takes 5 ms",
    "loss.backward() takes 5 seconds but the loss is not decreasing",
])
def test_bare_operation_time_is_no_complaint(text: str) -> None:
    assert obs(text).get("symptom") != "slow_training"


@pytest.mark.parametrize("text", [
    "the learning rate is constant",
    "I use a constant learning rate of 1e-3",
    "constant lr, adam, batch 32",
    "lr is fixed at 3e-4",
])
def test_constant_lr_without_schedule_is_none(text: str) -> None:
    assert_reads(text, {"lr_schedule": "none", "lr_observed": None})


@pytest.mark.parametrize("text", [
    "I set cosine but the LR stays the same",
    "I use a cosine scheduler but the lr is constant",
    "my scheduler is set up but the lr stays the same the whole run",
    "the learning rate never changes",
    # (a movement verb said of the LR is its trace observed even with no schedule named: the user expected a change)
    "LR stays the same the whole run",
    "the learning rate remains the same",
])
def test_constant_lr_with_schedule_is_stuck(text: str) -> None:
    assert_reads(text, {"lr_observed": "stuck"})
    assert obs(text).get("lr_schedule") != "none"


@pytest.mark.parametrize("text", [
    "I kept the lr the same as before and switched to fp16",
    "the lr is the same",
    "the lr is not constant, I use warmup",
    "should the lr be constant?",
    "the loss is constant",
    "I fixed the lr bug",
])
def test_constant_lr_near_misses(text: str) -> None:
    got = obs(text)
    assert got.get("lr_schedule") != "none" and got.get("lr_observed") is None, got


@pytest.mark.parametrize("text, value, change", [
    ("moved from fp32 to fp16", "fp16", "precision"),
    ("I moved from fp16 to fp32", "none", "precision"),
    ("went from fp16 to fp32", "none", "precision"),
    ("transitioned from full precision to fp16", "fp16", "precision"),
    ("we transitioned to fp16 and the loss went nan", "fp16", "precision"),
    # (bf16 keeps fp32's range but not its mantissa: a change of precision all the same, DF-CHG-PREC-BF16's)
    ("moved from fp32 to bf16", "bf16", "precision"),
])
def test_precision_move_reads_new_value(text: str, value: str, change: str | None) -> None:
    assert_reads(text, {"mixed_precision": value, "recent_change": change})


@pytest.mark.parametrize("text", ["the lr transitions smoothly during warmup", "moved the model from cpu to gpu"])
def test_motion_is_no_precision_change(text: str) -> None:
    assert obs(text).get("recent_change") is None
