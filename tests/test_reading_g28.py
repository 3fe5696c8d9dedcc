"""Review g28's items: the label-smoothing floor only for a run that learned, FSDP said worse (not just compared),
a box term NaN beside a classification term said fine, a setting said to work with that is the run's own, and
everyday texts that name a grid search or an actor and a critic."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.reading import assert_reads, obs


def _diagnosed(facts: dict) -> str:
    """The text report of ``trainopt diagnose`` on the declared facts."""
    return subprocess.run([sys.executable, "-m", "expert.cli", "diagnose", "-"], input=json.dumps(facts),
                          capture_output=True, text=True, timeout=120).stdout


# -- the smoothed loss's floor is reached only by a run that learned, and only where nothing else explains the run
@pytest.mark.parametrize("facts", [
    {"complaint": "label smoothing 0.1 on 10 classes, loss stuck at 2.3 from the start and accuracy is 10%"},
    {"label_smoothing": True, "symptom": "not_learning", "loss_behavior": "flat_from_start"},
    {"label_smoothing": True, "symptom": "not_learning", "val_acc_over_chance": 1.0},
    {"label_smoothing": True, "symptom": "not_learning", "train_metric": 0.12, "num_classes": 10,
     "metric_kind": "accuracy"},
    {"label_smoothing": True, "symptom": "not_learning", "lr_zero_fraction": 1.0},
    {"label_smoothing": True, "symptom": "convergence", "val_loss_rising": True},
])
def test_smoothing_floor_only_for_a_run_that_learned(facts: dict) -> None:
    assert "[LS-SMOOTH-01]" not in _diagnosed(facts)


def test_smoothing_floor_still_explains_a_plateau() -> None:
    assert "[LS-SMOOTH-01]" in _diagnosed(
        {"complaint": "with label smoothing 0.1 the train loss stops going down at about 0.5"})


# -- FSDP said to train worse, not merely compared with another backend
@pytest.mark.parametrize(("text", "worse"), [
    ("bf16 with fsdp, loss identical to deepspeed", None),
    ("fsdp reaches a lower loss than deepspeed in bf16", None),
    ("fsdp is faster than deepspeed and loss is identical, bf16", None),
    ("deepspeed loss plateaus higher than fsdp in bf16", None),
    ("with fsdp the loss is much higher than with deepspeed, bf16", True),
    ("the final loss plateaus 3x higher than the identical recipe under DeepSpeed ZeRO-3 with FSDP", True),
])
def test_fsdp_worse_has_a_direction(text: str, worse: bool | None) -> None:
    assert_reads(text, {"fsdp_trains_worse": worse})


def test_fsdp_suspect_not_for_a_slow_run() -> None:
    out = _diagnosed({"fsdp_trains_worse": True, "mixed_precision": "bf16", "symptom": "slow_training"})
    assert "FSDP" not in out.split("\n1. ", 1)[-1].split("\n", 1)[0]


# -- a box term NaN beside a classification term said to be fine is still the box term's
@pytest.mark.parametrize(("text", "box"), [
    ("loss_box_reg becomes nan after 3000 iters, loss_cls fine, faster rcnn", True),
    ("loss_box_reg is nan, loss_cls is fine", True),
    ("loss_box_reg goes nan while loss_classifier stays normal", True),
    ("loss_box_reg is 1310 and loss_cls is nan", None),
])
def test_box_nan_beside_a_fine_classification_term(text: str, box: bool | None) -> None:
    assert_reads(text, {"box_loss_nonfinite": box})


# -- a setting said to work with, contrasted on something else, is the run's own
@pytest.mark.parametrize(("text", "expected"), [
    ("it works with fp16 on one gpu but nans on two", {"mixed_precision": "fp16"}),
    ("fp16 works in inference but training gives nan", {"mixed_precision": "fp16"}),
    ("it works with adam but with sgd the loss is flat", {"optimizer": "sgd"}),
])
def test_works_with_attribution(text: str, expected: dict) -> None:
    assert_reads(text, expected)


# -- everyday words of searching and of the theatre
@pytest.mark.parametrize("text", ["we did grid search over the restaurants in town",
                                  "the actor critic play in the park was lovely"])
def test_everyday_search_and_actors_read_nothing(text: str) -> None:
    assert obs(text) == {}


def test_actor_critic_in_training_talk() -> None:
    assert_reads("the actor critic loss diverges after 1000 steps", {"task": "rl"})
    assert_reads("I run a grid search over the learning rate", {"tuning_method": "grid"})
