"""Readings of the issue-17 batch, each class with its near misses: curves said together, a rise that returns,
clipping that cannot prevent a divergence, a loop edit before the trouble, class ids numbered twice, a trainer's
figure against the user's own scoring, a step counter that moves once per optimizer call."""

from __future__ import annotations

from typing import Any

import pytest

from expert import Consultation
from expert.text import read_text
from tests.reading import finding_ids as _finding_ids


def _read(text: str) -> dict[str, Any]:
    """Every reading, firm or guessed (a guess reaches the rules as well)."""
    return {r.observation.name: r.observation.value for r in read_text(text)}


def _lead(text: str) -> str | None:
    """The skill that leads the plan once every question is declined."""
    c = Consultation()
    c.complain(text)
    d = c.run()
    while d.question is not None:
        c.decline(d.question.id)
        d = c.run()
    return d.plan[0] if d.plan else None


# 1. the training and validation curves said together: both rise, so the training curve rises (instability)
@pytest.mark.parametrize("text", [
    "both the training loss and the validation loss rise sharply after epoch 30",
    "my training loss and my validation loss both go up after epoch 20",
    "train loss and val loss increase suddenly at epoch 40",
])
def test_train_and_val_loss_rising_together_is_instability_not_overfitting(text: str) -> None:
    got = _read(text)
    assert got.get("symptom") == "unstable"
    assert "val_loss_rising" not in got


@pytest.mark.parametrize("text", [
    "validation loss goes up while training loss keeps falling",
    "the train loss goes down and the val loss goes up",
    "the training loss falls and the validation loss rises",
])
def test_validation_rising_alone_is_still_overfitting(text: str) -> None:
    got = _read(text)
    assert got.get("symptom") == "overfitting"
    assert got.get("val_loss_rising") is True


# 2. a rise that comes back down is a spike; one that does not is a divergence
@pytest.mark.parametrize("text", [
    "the loss goes up and then comes back down",
    "loss shot up and came back down after a few hundred steps",
    "both the training loss and the validation loss rise sharply then come back down",
])
def test_a_rise_that_returns_is_a_spike(text: str) -> None:
    assert _read(text).get("loss_behavior") == "spiking"


@pytest.mark.parametrize("text", [
    "the loss goes up and never comes back down",
    "the loss goes up and doesn't come back down",
])
def test_a_rise_that_does_not_return_stays_a_divergence(text: str) -> None:
    assert _read(text).get("loss_behavior") == "diverging"


# 3. clipping on and the run still explodes: clipping acts and cannot prevent it (not a clip that never engages)
@pytest.mark.parametrize("text", [
    "Gradient clipping at 1.0 doesn't stop it; with a threshold of 5 it goes better but still explodes.",
    "gradient clipping is on but the training still explodes",
    "even with gradient clipping the loss still explodes after 2000 steps",
])
def test_clipping_that_cannot_prevent_a_divergence_is_not_an_inert_clip(text: str) -> None:
    got = _read(text)
    assert "clip_ineffective" not in got
    assert got.get("grad_clipping") is True
    assert "LP-CLIP-01" not in _finding_ids(text)


def test_a_norm_still_large_under_clipping_is_still_an_inert_clip() -> None:
    assert _read("clipping is set to 1.0 and the gradient norm still explodes").get("clip_ineffective") is True


# 4. a loop edit just before learning stopped: the edit is the suspect
@pytest.mark.parametrize("text", [
    "I added a learning-rate scheduler option and now the loss doesn't come down at all. Without it training works.",
    "after adding a StepLR scheduler to my loop the loss stays flat",
    "since I implemented gradient accumulation the model stopped learning",
])
def test_a_loop_edit_before_the_trouble_is_read_and_leads_to_the_loop(text: str) -> None:
    assert _read(text).get("recent_change") == "training_loop"
    assert "DF-CHG-LOOP" in _finding_ids(text)
    assert _lead(text) == "training-loop-architecture"


@pytest.mark.parametrize("text", [
    "should I add a scheduler? the loss is flat",
    "I added a cosine scheduler but it didn't help, loss still flat",
    "how do I add a scheduler to my training loop?",
])
def test_a_scheduler_weighed_or_tried_as_a_remedy_is_no_loop_edit(text: str) -> None:
    assert _read(text).get("recent_change") != "training_loop"
    assert "DF-CHG-LOOP" not in _finding_ids(text)


@pytest.mark.parametrize("text", [
    "I added a scheduler and now the loss plateaus after 10 epochs",
    "I added a scheduler and now the loss goes down nicely, but val accuracy is stuck at 60%",
])
def test_a_loop_edit_with_a_loss_that_falls_lost_no_call(text: str) -> None:
    assert not {"DF-CHG-LOOP", "DF-CHG-LOOP-FLAT"} & set(_finding_ids(text))


@pytest.mark.parametrize("text", [
    "I added a discriminator and now training is stable",
    "I added gradient accumulation and now it works fine",
    "since I added the scheduler the loss goes down nicely",
])
def test_a_loop_edit_said_to_go_well_is_no_trouble_after_an_edit(text: str) -> None:
    assert _read(text).get("recent_change") != "training_loop"


def test_a_loop_edit_with_an_unhealthy_word_negated_is_still_read() -> None:
    text = "I added gradient accumulation and now it doesn't work, the loss is flat"
    assert _read(text).get("recent_change") == "training_loop"
    assert "DF-CHG-LOOP" in _finding_ids(text)


# 5. validation above training with a decent figure: the measurement, not a run that does not learn
def test_training_accuracy_below_test_accuracy_is_not_a_stuck_run() -> None:
    text = ("test accuracy reaches 96.6% but the training accuracy stays below 90% the whole time. "
            "Why is training accuracy so much lower than test accuracy?")
    assert "DT-AUG-02" in _finding_ids(text)
    assert _lead(text) in ("experiment-tracking", "data-augmentation-strategies")


# 6. class ids numbered by order of folders, and a trainer's figure against the user's own scoring
@pytest.mark.parametrize("text", [
    "The classes are assigned by folder order, not by folder name, so the 90 images are scored as 180",
    "ImageFolder sorted my numeric class folders as strings",
])
def test_class_ids_numbered_by_folder_order_are_read(text: str) -> None:
    assert _read(text).get("label_check") == "class_order"
    assert "DT-LABEL-04" in _finding_ids(text)
    assert _lead(text) == "loss-functions-and-objectives"


@pytest.mark.parametrize("text", [
    "how does ImageFolder order the class folders?",
    "should I sort the class folders alphabetically?",
])
def test_a_question_about_folder_order_is_no_finding(text: str) -> None:
    assert "label_check" not in _read(text)


@pytest.mark.parametrize("text", [
    "The training output reports about 60% test accuracy, but when I run the model myself and compare the "
    "predicted index with the folder name, only 27 of more than 7000 test images are right.",
    "the trainer logs 85% val accuracy but my own evaluation script gives 2%",
])
def test_a_trainer_figure_against_own_scoring_is_a_measurement_question(text: str) -> None:
    got = _read(text)
    assert got.get("symptom") == "metrics_wrong"
    assert "predictions_constant" not in got
    c = Consultation()
    c.complain(text)
    asked = []
    d = c.run()
    while d.question is not None:
        asked.append(d.question.id)
        c.decline(d.question.id)
        d = c.run()
    assert "Q-LABELS" in asked


def test_constant_predictions_are_still_read() -> None:
    assert _read("the model always outputs the same class").get("predictions_constant") is True
    assert _read("the model only predicts class 0").get("predictions_constant") is True


# 7. a step counter that moves by more than one per batch, and logs that appear every k steps
@pytest.mark.parametrize("text", [
    "the logs only appear every 2 steps, and self.global_step itself moves by 2 per batch",
    "global_step increases by two every batch with my two optimizers",
])
def test_a_step_counter_moving_twice_per_batch_is_read(text: str) -> None:
    assert _read(text).get("step_counter_multi") is True
    assert "ME-STEP-02" in _finding_ids(text)


@pytest.mark.parametrize("text", [
    "with gradient accumulation of 2 the global step increases once every 2 micro batches",
    "how should global_step count two optimizers per batch?",
])
def test_accumulation_or_a_question_is_no_doubled_counter(text: str) -> None:
    assert "step_counter_multi" not in _read(text)


def test_logs_every_other_step_are_a_metrics_complaint() -> None:
    assert _read("metrics are logged only every other step").get("symptom") == "metrics_wrong"
    assert _read("I want to log metrics every 100 steps").get("symptom") != "metrics_wrong"


# 8. what separates the step size from the gradients in an instability: when it starts, and whether the validation
# loss jumps with the training loss and the run comes back down by itself
@pytest.mark.parametrize("text", [
    "after a short while the loss starts exploding",
    "the loss diverges early on",
    "the loss spikes right after the warmup ends",
])
def test_an_early_instability_is_read(text: str) -> None:
    assert _read(text).get("unstable_early") is True


@pytest.mark.parametrize("text", [
    "the loss diverges late in training",
    "I added gradient clipping but the loss still diverges",
    "transformer training diverges, I don't use any warmup",
])
def test_no_time_or_a_late_one_is_no_early_instability(text: str) -> None:
    assert "unstable_early" not in _read(text)


@pytest.mark.parametrize("text", [
    "train loss and val loss both spike, then recover",
    "both the training and the validation loss shoot up and then come back down",
])
def test_both_curves_jumping_and_recovering_are_read(text: str) -> None:
    got = _read(text)
    assert got.get("spike_recovers") is True
    assert got.get("val_spikes_with_train") is True


@pytest.mark.parametrize("text", [
    "the loss spikes and never recovers",
    "the loss goes up and doesn't come back down",
])
def test_a_spike_that_stays_does_not_recover(text: str) -> None:
    assert "spike_recovers" not in _read(text)


def test_validation_rising_while_training_falls_is_no_joint_spike() -> None:
    assert "val_spikes_with_train" not in _read("the val loss rises while the train loss falls")


@pytest.mark.parametrize("text", [
    "pretraining a small GPT: after a short while the loss explodes, gradient clipping at 1.0 doesn't stop it",
    "the loss diverges early on even though I clip gradients to 1.0",
    "train loss and val loss both jump up around epoch 40 and then come back down",
])
def test_an_instability_the_step_size_explains_leads_with_the_lr(text: str) -> None:
    assert _lead(text) == "learning-rate-scheduling"


@pytest.mark.parametrize("text", [
    "I added gradient clipping but the loss still diverges",
    "the loss diverges despite gradient clipping",
    "the loss spikes now and then and recovers",
    "loss explodes right after the warmup ends",
])
def test_without_that_evidence_the_gradients_stay_first(text: str) -> None:
    assert _lead(text) == "gradient-management"
