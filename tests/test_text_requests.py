"""Readings found missing from dev complaints: requests said as wishes, loader speed, whose change a number is."""

from __future__ import annotations

import pytest

from expert import Consultation
from expert.text import parse_complaint


def _read(text: str) -> dict[str, object]:
    return {o.name: o.value for o in parse_complaint(text)}


@pytest.mark.parametrize(("text", "name", "value"), [
    # a change of a quantity the lexicon does not know keeps its numbers: the setting named later has its own
    ("I only changed num_classes from 2 to 5 and the batch size from 2 to 3.", "batch_size", 3),
    ("I changed num_classes from 2 to 5 and the lr from 0.1 to 0.01", "learning_rate", 0.01),
    # the quantity said after its numbers still owns them when it heads no change of its own
    ("I went from 64 to 1024 for the batch size", "batch_size", 1024),
    ("I changed the batch size from 2 to 3", "batch_size", 3),
])
def test_numbers_of_a_change_belong_to_their_own_quantity(text: str, name: str, value: object) -> None:
    assert _read(text).get(name) == value


@pytest.mark.parametrize("text", [
    "How do I speed up the data loader?",
    "how to make the dataloader faster",
    "just constructing the trainer takes 20-30 minutes of data loading",
    "data loading takes 20 minutes every epoch",
])
def test_a_slow_loader_said_as_a_wish_or_a_duration_is_data_loading(text: str) -> None:
    assert _read(text).get("boundary_topic") == "data_loading"


def test_a_faster_loader_said_in_passing_is_no_loader_problem() -> None:
    read = _read("the data loader got faster after the fix but the loss is nan")
    assert "boundary_topic" not in read
    assert read.get("symptom") == "unstable"


@pytest.mark.parametrize("text", [
    "I want to augment my images and masks with imgaug",
    "I have images with matching segmentation masks and want to augment them with imgaug, but the image and its "
    "mask need exactly the same random transform. I couldn't find how in the docs.",
])
def test_a_wish_to_do_something_with_a_setting_asks_about_it(text: str) -> None:
    read = _read(text)
    assert read.get("symptom") == "direct_question"
    assert read.get("question_topic") == "augmentation"


@pytest.mark.parametrize("text", [
    "I don't want to use augmentation",
    "I want to understand why the loss diverges when I use heavy augmentation",
])
def test_a_wish_that_refuses_or_names_a_symptom_is_no_request(text: str) -> None:
    assert _read(text).get("symptom") != "direct_question"


def test_an_rl_run_that_does_not_learn_is_asked_its_kind_and_goes_to_the_rl_pack() -> None:
    c = Consultation()
    c.complain("my model does not learn anything")
    d = c.run()
    asked = []
    while d.question is not None and len(asked) < 12:
        asked.append(d.question.id)
        if d.question.id == "Q-TASK-RUN":
            c.answer("Q-TASK-RUN", "rl")
        else:
            c.decline(d.question.id)
        d = c.run()
    assert "Q-TASK-RUN" in asked
    assert [b["pack"] for b in d.boundary][:1] == ["deep-rl"]
    assert not d.plan


@pytest.mark.parametrize("text", [
    "Could I weight training samples in the loss so the rare ones count more?",
    "how do I reweight the classes in the loss?",
])
def test_asking_how_to_weight_the_loss_is_a_loss_question(text: str) -> None:
    read = _read(text)
    assert (read.get("symptom"), read.get("question_topic")) == ("direct_question", "loss_function")


def test_a_weighted_loss_in_use_beside_a_symptom_is_no_question() -> None:
    assert _read("I weight the samples in the loss by frequency and the loss is nan").get("symptom") == "unstable"


def test_the_crash_a_run_was_restarted_from_is_no_crash_and_a_schedule_begun_again_is_a_reset() -> None:
    read = _read("I saved the model every epoch and reloaded it after a crash, now the cosine schedule begins "
                 "again from the top")
    assert read.get("symptom") != "crash"
    assert (read.get("recent_change"), read.get("lr_observed")) == ("resume", "reset")


@pytest.mark.parametrize("text", ["training crashes after a few epochs", "my script crashed"])
def test_a_crash_of_the_run_is_still_a_crash(text: str) -> None:
    assert _read(text).get("symptom") == "crash"


def test_a_warm_restart_schedule_is_no_reset() -> None:
    assert "lr_observed" not in _read("the schedule starts again with a warm restart")
