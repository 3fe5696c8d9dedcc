"""Readings of ratios, spreads, attribution of listed settings, counted batches, terse topic questions and scope."""

from __future__ import annotations

import pytest

from tests.reading import obs


# -- a multiplier or a fraction against another run compares; it is no value of the metric --------------------------
@pytest.mark.parametrize("text", [
    "val acc on 8 gpus is 8x lower than on 1",
    "val accuracy on 4 gpus is 1/4 of one gpu",
    "val acc is 3 times lower with ddp",
    "the val accuracy is 75% lower than I expected",
])
def test_ratio_is_no_metric_value(text: str) -> None:
    got = obs(text)
    assert "val_metric" not in got, got


@pytest.mark.parametrize("text", [
    "val acc on 8 gpus is 8x lower than on 1",
    "val accuracy on 4 gpus is 1/4 of one gpu",
])
def test_ratio_keeps_the_comparison(text: str) -> None:
    got = obs(text)
    assert got.get("metric_world_ratio") is True and got.get("symptom") == "metrics_wrong", got


@pytest.mark.parametrize(("text", "value"), [
    ("val accuracy is 60%", 0.6),
    ("val acc: 0.6.", 0.6),
    ("train acc 0.9 val acc 0.6", 0.6),
])
def test_plain_metric_values_still_read(text: str, value: float) -> None:
    assert obs(text).get("val_metric") == pytest.approx(value)


# -- figures across seeds, folds or runs are a spread, not a curve --------------------------------------------------
@pytest.mark.parametrize("text", [
    "the val loss was 0.30, 0.33, 0.37 across 3 seeds",
    "accuracy was 71, 74 and 69 across five folds",
])
def test_spread_across_runs_reads_no_trend(text: str) -> None:
    got = obs(text)
    assert not {"not_working_aspect", "val_loss_rising", "loss_behavior", "symptom"} & set(got), got


def test_series_over_epochs_is_still_a_curve() -> None:
    assert obs("the val loss was 0.30, 0.33, 0.37 over 3 epochs").get("val_loss_rising") is True
    assert obs("my loss went 0.3, 0.5, 0.9 across epochs").get("loss_behavior") == "diverging"


# -- a setting listed beside one that worked shares its attribution -------------------------------------------------
@pytest.mark.parametrize("text", [
    "trains fine in fp32 and bf16, but fp16 gives nan",
    "works in fp32 and bf16 but fp16 gives nan",
    "fp16 gives nan but it trains fine in fp32 and bf16",
])
def test_trouble_is_attributed_to_fp16(text: str) -> None:
    assert obs(text).get("mixed_precision") == "fp16"


def test_listed_pair_before_worked_clause() -> None:
    assert obs("with adam and sgd it works fine, but lion diverges").get("optimizer") == "lion"


def test_run_settings_listed_stay_the_runs() -> None:
    got = obs("I use bf16 and adamw")
    assert got.get("mixed_precision") == "bf16" and got.get("optimizer") == "adamw", got


# -- a count of batches is no batch size ---------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "after I doubled the number of batches the loss went up",
    "I switched to more batches per epoch and now it overfits",
    "since I increased the batch count it diverges",
])
def test_counted_batches_are_no_batch_size_change(text: str) -> None:
    assert obs(text).get("recent_change") != "batch_size"


def test_batch_size_change_still_read() -> None:
    assert obs("since I doubled the batch size it diverges").get("recent_change") == "batch_size"


# -- weight decay asked with an optimizer named is the regularisation question -------------------------------------
@pytest.mark.parametrize("text", [
    "what weight decay should I use with adamw?",
    "weight decay for adamw?",
    "what wd should I use with adamw",
])
def test_weight_decay_question(text: str) -> None:
    got = obs(text)
    assert got.get("symptom") == "direct_question" and got.get("question_topic") == "overfitting", got


def test_terse_topic_question() -> None:
    assert obs("lr for adamw?").get("question_topic") == "learning_rate"


# -- augmentation words of everyday photos put nothing on topic ----------------------------------------------------
@pytest.mark.parametrize("text", [
    "I cropped and flipped the photos for my album",
    "heavy augmentation on my album photos and the printer is stuck",
])
def test_augmentation_words_lend_no_scope(text: str) -> None:
    assert "symptom" not in obs(text)


def test_strong_augmentation_alone_still_read() -> None:
    assert obs("I use heavy augmentation").get("augmentation_strength") == "strong"


# -- short crashes and hangs: a program of a run named makes them the run's ----------------------------------------
# (a demanding user expects "the robot crashes" alone to be asked about, not diagnosed as a training crash; said
# beside the run's program, "the renderer hangs when the job starts", it is the run's hang)
@pytest.mark.parametrize(("text", "symptom"), [
    ("the renderer hangs when the job starts", "hang"),
    ("the robot crashes when I launch the script", "crash"),
    ("it freezes at epoch 3", "hang"),
    ("it froze during the second epoch", "hang"),
])
def test_crash_or_hang_beside_run_machinery(text: str, symptom: str) -> None:
    assert obs(text).get("symptom") == symptom


@pytest.mark.parametrize("text", [
    "the robot crashes",
    "the counter is stuck",
    "I lost my job and the stock market crashed",
    "I freeze the encoder for 3 epochs",
    "my screen freezes",
])
def test_no_run_named_reads_no_crash(text: str) -> None:
    assert obs(text).get("symptom") not in ("crash", "hang")
