"""Readings of m31, both ways: a head count the stated classes contradict, a train/val loss pair in either order, a
reload drop said only in numbers, a precision change that "made no difference", another person's loss, a validation
plateau with its onset, the KL named as the loss outside policy tuning, a weight decay's per-step rate, and strong
augmentation in a run that cannot fit."""

from __future__ import annotations

import pytest

from tests.reading import assert_reads, declined, finding_ids, obs


# 1. a head's config count against the classes the text states ----------------------------------------------------
@pytest.mark.parametrize("text", [
    "num_labels=2 but my labels run 0..4",
    "I set num_labels=2 and the labels go from 0 to 4",
    "num_labels=2 for 5 classes",
    "num_labels=2 but labels are 0-4",
])
def test_a_head_count_the_stated_classes_contradict_is_read_as_the_mismatch(text: str) -> None:
    assert_reads(text, {"num_classes": 5, "num_outputs": 2, "label_check": "not_zero_based"})


@pytest.mark.parametrize(("text", "classes"), [
    ("num_labels=5 and my labels run 0..4", 5),     # the head matches the labels
    ("num_labels=2, labels are 0 and 1", 2),
    ("num_labels=2 and the loss is stuck", 2),      # no label range said: the config count stands
    ("num_labels=2 and labels are not 0..4", 2),    # the range denied
])
def test_a_head_count_the_text_agrees_with_stands(text: str, classes: int) -> None:
    assert_reads(text, {"num_classes": classes, "label_check": None})


def test_one_output_for_two_classes_is_a_binary_head() -> None:
    assert_reads("num_labels=1 with labels 0 or 1 and BCE", {"label_check": None})


# 2. numbers said the other way round -------------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "val_loss=15 with train_loss=0.7",
    "train_loss=0.7 with val_loss=15",
    "val loss is 15 while train loss is 0.7",
])
def test_a_loss_pair_is_read_in_either_order_and_spelling(text: str) -> None:
    assert_reads(text, {"train_metric": 0.7, "val_metric": 15.0, "metric_kind": "loss"})


@pytest.mark.parametrize("text", [
    "at the first eval val_loss=15 with train_loss=0.7",
    "epoch 1: val_loss=15 with train_loss=0.7",
])
def test_validation_far_above_training_at_the_first_eval_in_either_order(text: str) -> None:
    assert_reads(text, {"val_loss_far_above_from_start": True})


@pytest.mark.parametrize("text", [
    "at epoch 30 val_loss=15 with train_loss=0.7",       # a later gap: the ordinary overfit's
    "epoch 1: val_loss=0.9 with train_loss=0.7",          # no order of magnitude
])
def test_a_gap_later_or_small_is_not_far_above_from_the_start(text: str) -> None:
    assert_reads(text, {"val_loss_far_above_from_start": None})


@pytest.mark.parametrize("text", [
    "93% before saving, 12% after loading",
    "my model had 93% before saving, 12% after loading it back",
    "after reloading it gets 0.12, before saving it had 0.93",
    "93% accuracy before saving and 9% after loading",
])
def test_a_reload_drop_said_only_in_numbers_is_read(text: str) -> None:
    assert_reads(text, {"reload_metric_drop": True, "data_time_fraction": None})


@pytest.mark.parametrize("text", [
    "93% before saving, 91% after loading",                 # no drop
    "93% accuracy before saving and 90% after loading",
    "GPU at 93% before saving, 12% after loading",          # the GPU's use, not a score
    "data loading takes 40% of the time, training 60%",
    "I trained to 93% and then saved; loading takes 12% of the epoch",
])
def test_scores_that_hold_or_shares_of_time_are_no_reload_drop(text: str) -> None:
    assert_reads(text, {"reload_metric_drop": None})


def test_scores_beside_saving_and_loading_are_not_data_loading_time() -> None:
    assert_reads("93% before saving, 91% after loading", {"data_time_fraction": None, "symptom": None})


# 5. a change made that did not help --------------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "switching to bf16 made no difference",
    "switching to bf16 made no difference, the loss is still nan",
])
def test_a_precision_change_that_made_no_difference_is_no_speed_question(text: str) -> None:
    got = obs(text)
    assert got.get("mixed_precision") == "bf16", got
    assert got.get("question_topic") is None and got.get("symptom") != "direct_question", got


@pytest.mark.parametrize("text", [
    "bf16 made no difference in speed",
    "fp16 made no difference to the epoch time",
])
def test_no_difference_said_of_the_speed_stays_a_precision_question(text: str) -> None:
    assert_reads(text, {"question_topic": "precision"})


# 6. another person's run ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "my friend's loss goes nan",
    "my friend says his loss goes nan",
    "my friend's loss looks weird",
])
def test_another_persons_loss_is_not_the_users(text: str) -> None:
    assert obs(text) == {}


@pytest.mark.parametrize("text", [
    "my friend's loss goes nan and so does mine",
    "my friend's loss goes nan, mine too",
])
def test_another_persons_trouble_shared_by_the_user_is_read(text: str) -> None:
    assert_reads(text, {"loss_behavior": "nan_or_inf", "symptom": "unstable"})


def test_the_users_own_loss_beside_a_friends_is_read() -> None:
    assert_reads("my friend's loss goes nan but my loss is stuck", {"symptom": "not_learning",
                                                                    "loss_behavior": None})


# 7. a validation plateau with its onset ------------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "val loss plateaus after 10 epochs",
    "val loss plateaued after 10 epochs",
    "validation loss stops improving after 10 epochs",
    "val loss flattens out after 5 epochs",
    "val loss goes down and then plateaus",
])
def test_a_validation_plateau_with_an_onset_is_a_stall(text: str) -> None:
    assert_reads(text, {"symptom": "convergence", "loss_behavior": None})


@pytest.mark.parametrize("text", [
    "val loss plateaus",                                                   # no onset: which figure, weakly
    "val loss is stuck from the start",
    "val loss plateaus after 10 epochs while train loss keeps going down",  # the gap's, not a stall
])
def test_a_validation_plateau_without_an_onset_or_beside_training_is_no_stall(text: str) -> None:
    assert_reads(text, {"symptom": None})


def test_a_validation_nan_with_an_onset_keeps_its_onset() -> None:
    assert_reads("val loss goes nan after 10 epochs while train loss is fine", {"nan_onset": "after_steps"})


# 4. the KL named as the loss, outside policy tuning --------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "my kl divergence loss is negative",
    "KLDivLoss gives negative values",
    "distillation with KLDivLoss, the loss is negative",
])
def test_a_negative_kl_names_the_loss(text: str) -> None:
    assert_reads(text, {"negative_loss": True, "loss_fn": "kl_div"})


@pytest.mark.parametrize("text", [
    "the KL penalty in DPO is negative",
    "the kl term in my RLHF run goes below zero",
    "my loss is negative",
])
def test_a_kl_in_policy_tuning_or_no_kl_names_no_loss(text: str) -> None:
    assert_reads(text, {"loss_fn": None})


def test_a_loss_named_elsewhere_is_kept() -> None:
    assert_reads("my cross entropy loss is negative", {"loss_fn": "cross_entropy"})


# 3. weight decay far too large, augmentation too strong: the right cause leads -----------------------------------
@pytest.mark.parametrize(("text", "rate"), [
    ("AdamW with lr=1e-2 and weight_decay=1.0 and the loss is stuck", 0.01),
    ("SGD lr 0.1 momentum 0.9 weight decay 0.5 and the loss is stuck", 0.5),
])
def test_a_decay_too_large_per_step_routes_the_optimizer_first(text: str, rate: float) -> None:
    assert obs(text)["decay_per_step"] == pytest.approx(rate)
    decision, _ = declined(text)
    assert "MS-WD-01" in finding_ids(text)
    assert decision.plan and decision.plan[0] == "optimization-algorithms"


@pytest.mark.parametrize("text", [
    "AdamW lr 1e-3 weight decay 0.01 and the loss is stuck",
    "SGD lr 0.1 momentum 0.9 weight decay 5e-4, the loss is stuck",
])
def test_a_usual_decay_is_no_finding(text: str) -> None:
    assert "MS-WD-01" not in finding_ids(text)


def test_adams_coupled_decay_gives_no_rate() -> None:
    assert_reads("Adam lr 1e-2 weight_decay 1.0", {"decay_per_step": None})


def test_a_decay_set_to_a_value_is_read() -> None:
    assert_reads("I set weight decay to 0.5 and the model does not learn", {"weight_decay": 0.5})


@pytest.mark.parametrize("text", [
    "augmentation is too strong, the model underfits",
    "my augmentations are very aggressive and training accuracy stays low",
])
def test_strong_augmentation_in_a_run_that_cannot_fit_routes_augmentation_first(text: str) -> None:
    decision, _ = declined(text)
    assert finding_ids(text) == {"DT-AUG-03"}
    assert decision.plan and decision.plan[0] == "data-augmentation-strategies"


@pytest.mark.parametrize("text", [
    "heavy augmentation and the model overfits",
    "strong augmentation, training is slow",
    "I use light augmentation and the loss is stuck",
])
def test_augmentation_beside_another_trouble_is_not_blamed(text: str) -> None:
    assert "DT-AUG-03" not in finding_ids(text)


@pytest.mark.parametrize("text", ["10 classes and the loss is stuck", "5 classes, num_labels=2"])
def test_a_class_count_said_first_is_read_without_fault(text: str) -> None:
    got = obs(text)
    assert got.get("num_classes") in (5, 10), got
