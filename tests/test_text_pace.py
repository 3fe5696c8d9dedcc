"""Pace and epoch steps in training talk (issue 19).

A "slowly" said after the movement it qualifies, across a comma or a "but"; a run's length foretold; a slow run
beside a busy GPU; a loss that steps down at each epoch's boundary. Every sentence here was invented for these tests.
"""

from __future__ import annotations

import pytest

from tests.reading import assert_reads


@pytest.mark.parametrize("text, expected", [
    # the manner after its movement, with only fillers between: the loss falls slowly, the run is not slow
    ("the network learns, only very slowly", {"loss_behavior": "decreasing_slowly", "symptom": "not_learning"}),
    ("my classifier does converge but really slowly, lr is 1e-6",
     {"loss_behavior": "decreasing_slowly", "symptom": "not_learning"}),
    ("the model improves, just painfully slow", {"loss_behavior": "decreasing_slowly"}),
    # a run's whole length foretold in weeks or months
    ("at 2 it/s our 90 epochs would take a month", {"symptom": "slow_training"}),
    ("the full training will take weeks on this card", {"symptom": "slow_training"}),
    ("the training will take a week on this card", {"symptom": "slow_training"}),
    # a busy GPU or a dataset size beside a duration or a rate: still a slow run
    ("nvidia-smi shows 99% util and 1 epoch is 7 hours", {"symptom": "slow_training", "gpu_utilization_pct": 99.0}),
    ("we have 5M rows, the gpu is at 92% and we get 1.5 it/s", {"symptom": "slow_training"}),
    # the loss stepping down at each epoch's boundary
    ("the train loss steps down whenever the data loader restarts", {"epoch_start_drop": True}),
    ("our loss only goes down at every epoch transition", {"epoch_start_drop": True}),
    ("the loss falls sharply in the first few batches of each new epoch", {"epoch_start_drop": True}),
])
def test_reads(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    # the slowness said of another subject, not the movement's manner: the run is slow, the loss not
    ("the model learns, but the epochs are slow", {"loss_behavior": None, "symptom": "slow_training"}),
    ("it learns well, training is just slow", {"loss_behavior": None}),
    # a duration of something other than the run
    ("labelling the data will take a month, which optimizer should I pick?", {"symptom": "direct_question"}),
    # a rate beside a real complaint is only its context
    ("gpu util 97%, 4 it/s, and the loss turns nan", {"symptom": "unstable"}),
    # a learning-rate step schedule, or step counts, are no loss stepping down
    ("the lr steps down at epoch 30 as planned", {"epoch_start_drop": None, "symptom": None}),
    ("the dataloader restarts every epoch and that costs 20 s", {"epoch_start_drop": None}),
    # another movement at the boundary: a NaN at each epoch's first batches is no step down
    ("the loss is nan in the first batches of each epoch", {"epoch_start_drop": None, "symptom": "unstable"}),
])
def test_does_not_read(text: str, expected: dict) -> None:
    assert_reads(text, expected)
