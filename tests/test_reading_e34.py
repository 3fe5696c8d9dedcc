"""A validation accuracy said to fall slowly is still a fall: the overfitting reading (issue 17, e34).

The sentences are written for this file (none is from the phrasing suite or the corpus).
"""

from __future__ import annotations

import pytest

from tests.reading import assert_reads, obs

SLOW_VAL_FALLS = (
    "the validation accuracy slowly drops after epoch 20",
    "test accuracy peaks at 82% and then slowly declines to 78% while the training accuracy keeps rising",
    "my val acc gradually goes down from 0.9 to 0.85",
)


@pytest.mark.parametrize("text", SLOW_VAL_FALLS)
def test_a_slow_fall_of_validation_accuracy_is_overfitting(text: str) -> None:
    assert_reads(text, {"symptom": "overfitting", "metric_kind": "accuracy"})


NEAR_MISSES = (
    # a rise, slow or not, is no fall
    ("the validation accuracy slowly rises to 69%", {"symptom": None}),
    # a slow fall of the training loss is a slow descent, not overfitting
    ("the training loss slowly drops", {"symptom": "not_learning", "loss_behavior": "decreasing_slowly"}),
    # the training split's fall is a figure that is not working, no overfitting
    ("the training accuracy slowly drops", {"symptom": None, "not_working_aspect": "accuracy"}),
)


@pytest.mark.parametrize(("text", "expected"), NEAR_MISSES)
def test_near_misses_read_no_overfitting(text: str, expected: dict) -> None:
    assert_reads(text, expected)


def test_a_negated_slow_fall_is_no_overfitting() -> None:
    assert obs("my validation accuracy does not slowly drop, it stays at 70%").get("symptom") != "overfitting"


# -- a loss held at one level over the whole run, said with the run as its span ------------------------------------
WHOLE_RUN_FLAT = (
    "my training loss stays constant for the whole run",
    "the loss remains the same throughout training, epoch after epoch",
    "the loss is flat over the entire training run",
)


@pytest.mark.parametrize("text", WHOLE_RUN_FLAT)
def test_a_loss_flat_over_the_whole_run_is_flat_from_the_start(text: str) -> None:
    assert_reads(text, {"symptom": "not_learning", "loss_behavior": "flat_from_start"})


WHOLE_RUN_NEAR_MISSES = (
    # a fall over the whole run is a healthy curve, not a flat one
    ("the loss goes down steadily throughout training", {"loss_behavior": None}),
    # a swing over the whole run stays a swing
    ("the loss oscillates for the entire run", {"loss_behavior": "oscillating"}),
    # negated, with the fall said after it
    ("the loss does not stay constant for the whole run, it drops after epoch 2", {"loss_behavior": None}),
    # a flat loss without the span keeps no time
    ("the loss stays constant", {"loss_behavior": None}),
)


@pytest.mark.parametrize(("text", "expected"), WHOLE_RUN_NEAR_MISSES)
def test_whole_run_near_misses(text: str, expected: dict) -> None:
    assert_reads(text, expected)
