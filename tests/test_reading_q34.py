"""Readings added for the dev misses of the reading of training talk (issue 19): a weight-decay question asked
through the optimizer's parameter groups, and a run said to have stopped training with "nothing" as its subject.

The sentences are written for this file (none is from the phrasing suite or the corpus); each reading comes with a
near miss that must not give it.
"""

from __future__ import annotations

import pytest

from tests.reading import assert_reads, obs


# -- a setting offered "with" and then "without" is weighed: the optimizer's knob is the topic, not the optimizer
@pytest.mark.parametrize("text", [
    "should my optimizer get two parameter groups, one with weight decay and one without for the norms?",
    "should AdamW get one param group with weight decay and another without it?",
])
def test_knob_with_and_without_is_the_question(text: str) -> None:
    assert_reads(text, {"symptom": "direct_question", "question_topic": "overfitting"})


def test_knob_in_use_leaves_the_optimizer_asked() -> None:
    assert_reads("I use weight decay 0.1, which optimizer should I pick?",
                 {"symptom": "direct_question", "question_topic": "optimizer"})


# -- the decay said by its verb, of the parameters it is applied to: a weight-decay question
@pytest.mark.parametrize("text", [
    "how should I build the AdamW param groups so the norm weights are not decayed?",
    "should my AdamW parameter groups keep the embeddings out of decay?",
])
def test_decayed_parameters_ask_about_weight_decay(text: str) -> None:
    assert_reads(text, {"symptom": "direct_question", "question_topic": "overfitting"})


@pytest.mark.parametrize("text", [
    # the decay is the learning rate's: a schedule, not weight decay
    "how do I set up AdamW so the lr decays along a cosine?",
    # a curve decaying in another sentence is no knob of the question
    "which optimizer should I pick? my loss decays very slowly.",
])
def test_a_decay_of_the_lr_or_a_curve_is_no_weight_decay_question(text: str) -> None:
    assert obs(text).get("question_topic") != "overfitting"


# -- "nothing" as the subject of training, said to have stopped: the run no longer learns
@pytest.mark.parametrize("text", [
    "half the units died after the lr jump and now nothing trains anymore",
    "since the restart nothing trains at all",
])
def test_nothing_trains_any_more_is_not_learning(text: str) -> None:
    assert_reads(text, {"symptom": "not_learning"})


@pytest.mark.parametrize("text", [
    "nothing trains faster than a small model on one GPU",
    "it is not true that nothing trains anymore",
])
def test_nothing_trains_compared_or_denied_is_no_symptom(text: str) -> None:
    assert obs(text).get("symptom") != "not_learning"
