"""Readings found missing or wrong on the dev threads of the d33 corpus batch (issue 17), tested both ways.

Two general gaps, not case-specific phrasings:

* An LR schedule said to reach its end value (its end, floor, minimum or zero) before the step count it was set
  for ("after 2.5k steps instead of at 10k", "after 3000 of 12000 steps", "after half of max_train_steps") runs
  faster than it was defined for: a schedule stepped too slowly never gets there, so the early end is the fast
  pace (``scheduler_pace='too_fast'``). A warmup that peaks late, or a schedule that ends where it was planned,
  is not.
* The code of an accuracy ("acc = (torch.argmax(logits) == y).float().mean()") was read as the outputs being all
  the same (its ``mean`` and the logits in one clause), and its outputs-against-targets mean as a regression at
  the targets' mean: a metric's computation is no statement about the predictions, and an argmax picks a class.
  A sameness said in words of the argmax or the outputs is still read.
"""

from __future__ import annotations

import pytest

from tests.reading import assert_reads, obs

EARLY_END = [
    "the learning rate reaches its end value after about 2.5k steps instead of at 10k",
    "the lr hits its minimum after 3000 of 12000 steps",
    "the learning rate is at its minimum after 2000 of 8000 iterations",
    "the lr reaches zero after 1000 steps instead of 4000",
    "I find that the learning rate is 0 after half of max_train_steps",
    "the LR drops to 0 after a quarter of the training and the loss stops moving",
    "the lr reaches its minimum after 2.5k out of 10k steps.",
]


@pytest.mark.parametrize("text", EARLY_END)
def test_schedule_ending_early_is_read_as_too_fast(text: str) -> None:
    assert_reads(text, {"scheduler_pace": "too_fast"})


NOT_EARLY_END = [
    # the planned end, reached where it was planned
    "the learning rate reaches its final value at the end of training",
    "the cosine schedule reaches its minimum after 10k steps",
    # a value of the LR at some step, no end said
    "the learning rate is 0.001 after 500 steps",
    "my learning rate is 1e-4 after 30% of training",
    # a warmup that peaks late is the slow pace, never the fast one
    "the LR reaches its peak after 4000 steps instead of 400",
    # a duration "of" training, or the planned end itself: no count before the end
    "The learning rate decays to zero after 100 epochs of training",
    "the lr decays to 0 after 30 epochs of cosine annealing",
    "the lr reaches its minimum at 10k of 10k steps",
]


@pytest.mark.parametrize("text", NOT_EARLY_END)
def test_schedule_reaching_a_value_as_planned_is_not_too_fast(text: str) -> None:
    assert obs(text).get("scheduler_pace") != "too_fast"


@pytest.mark.parametrize("text", [
    "acc = (torch.argmax(logits) == y).float().mean()",
    "I log (torch.argmax(logits) == labels).float().mean() as the accuracy",
    "my validation accuracy is (torch.argmax(outputs) == targets).float().mean()",
])
def test_accuracy_code_is_not_read_as_constant_predictions(text: str) -> None:
    got = obs(text)
    # (nor as a regression whose outputs sit at the targets' mean: the argmax picks a class)
    assert got.get("predictions_constant") is None and got.get("task") != "regression", got


@pytest.mark.parametrize("text", [
    "the argmax of the output is always the same class",
    "the argmax of the logits is the same for every image",
    "the predictions are always the same",
    "the model outputs the same logits for every input",
])
def test_constant_predictions_said_in_words_still_read(text: str) -> None:
    assert_reads(text, {"predictions_constant": True})


def test_outputs_at_the_targets_mean_still_read_as_regression() -> None:
    assert_reads("the model's predictions are always the mean of the target values", {"task": "regression"})


@pytest.mark.parametrize("text,off", [("lr_warmup_steps=0", True), ("warmup_ratio: 0.0", True),
                                      ("warmup_steps: '.0'", True), ("warmup_steps: 500", False),
                                      ("num_warmup_steps=1000", False), ("warmup_ratio=0.05", False),
                                      ("warmup_steps: 0x10", False)])
def test_the_warmup_off_option_needs_a_zero_value(text: str, off: bool) -> None:
    # the option's own cue, alone (the plain "warmup" cue would set warmup=True anyway)
    import re

    from knowledge.keywords import KEYWORDS

    (cue,) = [k for k in KEYWORDS if k.sets == {"warmup": False} and "warm_?up_" in k.pattern]
    assert bool(re.search(cue.pattern, text, re.I)) is off


@pytest.mark.parametrize("text,want", [
    ("LR warmup: 0 -> 3e-4 over 2k steps, then cosine. Loss spikes at step 5000.", {"warmup": True}),
    ("warmup: 0 → 1e-3 over 500 steps; loss goes to nan", {"warmup": True}),
    ("We use gradient clipping of 0 to 1 and the loss spikes.", {"grad_clipping": True}),
    # the switch set to zero alone is still off
    ("warmup_steps=0 and the loss diverges to nan.", {"warmup": False}),
    ("gradient clipping: 0, loss explodes", {"grad_clipping": False}),
])
def test_a_range_from_zero_is_no_switch_set_to_zero(text: str, want: dict) -> None:
    got = obs(text)
    assert {k: got.get(k) for k in want} == want


@pytest.mark.parametrize("text,periodic", [
    ("my training loss has regular spikes", True),
    ("The loss spikes at regular intervals.", True),
    ("I see regular loss spikes every few hundred steps", True),
    # "regular" said of the setup, not of the spikes
    ("With regular fp32 training the loss spikes once at step 2000 and recovers.", None),
    ("It's a regular ResNet-50; the loss jumps to nan after 3 epochs.", None),
])
def test_regular_is_a_period_only_when_said_of_the_spikes(text: str, periodic: bool | None) -> None:
    assert obs(text).get("loss_periodic") is periodic


@pytest.mark.parametrize("text,symptom", [
    ("The loss hardly moves during the first 100 steps, then drops quickly.", None),
    ("The loss hardly moves at all.", "not_learning"),
    ("The loss barely changes, it is stuck at 2.3.", "not_learning"),
])
def test_hardly_moving_then_falling_is_no_curve_that_does_not_learn(text: str, symptom: str | None) -> None:
    assert obs(text).get("symptom") == symptom


@pytest.mark.parametrize("text,change", [
    ("torch 2.1 is faster than torch 2.0 on my machine, and the model trains fine.", None),
    ("torch 1.12.1 runs slower than torch 1.8.2", "library_upgrade"),
    ("torch 1.8 is faster than torch 1.12 for my model", "library_upgrade"),
])
def test_two_versions_compared_are_an_upgrade_only_when_the_newer_is_worse(text: str, change: str | None) -> None:
    assert obs(text).get("recent_change") == change
