"""Readings and one cause-over-effect relation found missing on the dev threads of the d34 corpus batch (issue 17),
tested both ways.

General gaps, not case-specific phrasings:

* Held-out items said to sit in both splits ("108 patients have cells in both the train and the validation
  indices", "some images are in both the training and test sets") are a leak (``val_in_train``): an item, a verb of
  being there, then "in both <train> and <held-out>". A setting or a figure both splits share ("resized in both",
  "the loss falls in both", "the same augmentations for images in both") is not, and a denial cancels it.
* An LR schedule said not to have run its course when training ends ("the learning rate never gets down to 0 at
  the end of training", "num_training_steps is larger than the number of steps actually trained") is stepped more
  slowly than it was defined for (``scheduler_pace='too_slow'``); a floor set on purpose (eta_min) or the loss's
  own zero is not.
* A leak said outright explains validation scoring better than training (it scores examples the model trained
  on, in eval mode): the measurement finding (DT-AUG-02) yields to the leak (DT-LEAK-01), which leads.
"""

from __future__ import annotations

import pytest

import expert  # noqa: F401  (expert before experta)
from expert import Consultation
from tests.reading import assert_reads, obs

BOTH_SPLITS = [
    "108 samples (patients) have cells in both the train and the validation indices.",
    "some images are in both the training and test sets",
    "the same patient appears in both the train and val split",
    "a few records also show up in both the training and the validation data",
    "I found that 40 files are present in both the train and test sets",
]


@pytest.mark.parametrize("text", BOTH_SPLITS)
def test_items_in_both_splits_are_a_leak(text: str) -> None:
    assert_reads(text, {"val_in_train": True})


NOT_BOTH_SPLITS = [
    # a denial
    "no patient is in both the train and the validation set",
    # a transform or a figure both splits share, not the items themselves
    "the images are resized in both train and val",
    "images have been normalized in both the train and the test set",
    "the loss falls in both train and validation",
    "accuracy is 90% in both the training and validation sets",
    # the same augmentation said of both splits is a setting, not the same items
    "I apply the same augmentations to images in both the train and val sets",
    # items of one split only
    "the images are in the training set only",
]


@pytest.mark.parametrize("text", NOT_BOTH_SPLITS)
def test_what_both_splits_share_that_is_no_item_is_not_a_leak(text: str) -> None:
    assert obs(text).get("val_in_train") is not True


UNFINISHED_SCHEDULE = [
    "The logged learning rate never gets down to 0 at the end of training",
    "the learning rate never decays to zero by the end of the run with my cosine schedule",
    "lr_scheduler.num_training_steps is larger than the number of steps actually trained",
    "total_steps is much larger than the number of optimizer steps actually taken",
]


@pytest.mark.parametrize("text", UNFINISHED_SCHEDULE)
def test_schedule_unfinished_at_the_end_is_too_slow(text: str) -> None:
    assert_reads(text, {"scheduler_pace": "too_slow"})


FINISHED_OR_FLOORED = [
    # a floor set on purpose
    "the learning rate never gets down to 0 at the end because I set eta_min=1e-6",
    # the loss's zero, not the LR's
    "the loss never gets down to 0 at the end of training",
    # the schedule ending where it was planned
    "the learning rate reaches 0 at the end of training",
    # a step count, nothing compared
    "num_training_steps is 10000",
    "the scheduler's total_steps is larger than 1000",
]


@pytest.mark.parametrize("text", FINISHED_OR_FLOORED)
def test_planned_end_or_floor_is_not_too_slow(text: str) -> None:
    assert obs(text).get("scheduler_pace") != "too_slow"


def _plan(**facts: object) -> list[str]:
    c = Consultation()
    c.observe(**facts)
    return list(c.run().plan)


def test_a_stated_leak_explains_validation_better_than_training() -> None:
    plan = _plan(val_better_than_train=True, val_in_train=True)
    assert plan[0] == "training-loop-architecture"


def test_validation_better_than_training_alone_is_still_the_measurement() -> None:
    assert _plan(val_better_than_train=True)[0] == "experiment-tracking"
