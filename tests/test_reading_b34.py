"""Reading of training talk, issue 19 (b34): comparisons between splits, the level of a stall, whose curve moves,
whose setting is quoted, a speed's peak, and a warmup that peaks late."""

from __future__ import annotations

import pytest

from tests.reading import assert_reads, obs

# --- a comparison of the two splits: what a movement after it is said of ----------------------------------------------


@pytest.mark.parametrize("text", [
    "val loss higher than train and rising",
    "validation loss is higher than training loss and keeps increasing",
    "val loss is higher than the train loss and goes up every epoch",
    "my val loss was higher than train loss and kept climbing",
    "val loss higher than train loss, it keeps going up",
    "val_loss higher than train_loss and growing",
    "eval loss > train loss and increasing every epoch",
])
def test_val_above_train_and_rising_is_the_gap_widening(text: str) -> None:
    got = obs(text)
    assert got.get("symptom") == "overfitting" and got.get("val_loss_rising") is True, got
    assert got.get("loss_behavior") is None and got.get("val_spikes_with_train") is None, got


@pytest.mark.parametrize("text", [
    "training loss is higher than validation loss",
    "train loss is higher than val loss and going down",
    "val loss lower than train",
    "my validation loss is lower than my training loss",
])
def test_val_below_train_is_validation_better(text: str) -> None:
    got = obs(text)
    assert got.get("val_better_than_train") is True and got.get("loss_behavior") is None, got


@pytest.mark.parametrize("text", [
    "the validation loss is higher than the training loss",
    "validation loss is higher than training loss but it is not increasing",
])
def test_a_gap_alone_is_no_rise(text: str) -> None:
    assert obs(text).get("val_loss_rising") is None


def test_splits_jumping_together_still_read() -> None:
    assert_reads("both train and val loss spike", {"val_spikes_with_train": True})


# --- a stall placed by a comparative is a plateau, not a divergence ---------------------------------------------------


@pytest.mark.parametrize("text", [
    "loss plateaus at a higher value than before",
    "loss plateaus higher",
    "the loss plateaued higher than with the old lr",
    "the loss stalls lower than before",
    "fp16 without a scaler and the loss plateaus way higher than in fp32",
    "loss plateaued at a higher level after I changed the lr",
    "it plateaus at a much worse value than the baseline",
])
def test_a_plateau_at_a_level_is_a_plateau(text: str) -> None:
    assert_reads(text, {"loss_behavior": "plateau_after_learning"})


@pytest.mark.parametrize("text", [
    "loss plateaus then goes higher",
    "the loss goes higher and higher",
    "the loss is higher than before",
])
def test_a_rise_is_still_a_rise(text: str) -> None:
    assert_reads(text, {"loss_behavior": "diverging"})


def test_a_curve_converging_to_a_higher_level_is_no_divergence() -> None:
    assert obs("the loss converges to a higher value than before").get("loss_behavior") is None


# --- another person's curve against the user's own --------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "his loss goes down but mine doesn't",
    "his loss goes down but mine doesnt",
    "the tutorial's loss drops, mine stays at 2.3",
    "in the tutorial the loss goes down but mine stays flat",
    "his loss goes down but my loss doesn't",
    "his loss drops but mine stays at 2.3",
    "the loss in the tutorial goes down, mine doesnt go down at all",
    "their loss goes down but mine doesn't",
])
def test_the_users_own_clause_is_read_not_the_others(text: str) -> None:
    got = obs(text)
    assert got.get("symptom") == "not_learning" and got.get("loss_behavior") is None, got


@pytest.mark.parametrize("text", [
    "my colleague's loss explodes, mine doesn't",
    "his loss goes nan but mine is fine",
    "his loss goes down and mine goes down too",
])
def test_the_others_trouble_is_not_the_users(text: str) -> None:
    got = obs(text)
    assert got.get("symptom") is None and got.get("loss_behavior") is None, got


@pytest.mark.parametrize("text, expected", [
    ("the gradients explode, their norm is huge", {"symptom": "unstable"}),
    ("I train on their cluster and the loss goes nan", {"loss_behavior": "nan_or_inf"}),
    ("their loss goes nan, mine too", {"loss_behavior": "nan_or_inf"}),
])
def test_their_without_mine_against_it_stays_the_users(text: str, expected: dict) -> None:
    assert_reads(text, expected)


def test_a_curve_that_learned_then_stalls_is_still_a_plateau() -> None:
    assert_reads("my loss goes down but then stays flat", {"loss_behavior": "plateau_after_learning"})


# --- whose setting: a work's figures are not the user's ---------------------------------------------------------------


@pytest.mark.parametrize("text, name", [
    ("the paper trains with batch 4096", "batch_size"),
    ("the paper uses batch 4096", "batch_size"),
    ("the original repo uses lr 1e-3", "learning_rate"),
    ("the paper uses lr 1e-3", "learning_rate"),
])
def test_a_works_setting_is_not_read(text: str, name: str) -> None:
    assert obs(text).get(name) is None


@pytest.mark.parametrize("text, expected", [
    ("I use batch 4096 like the paper", {"batch_size": 4096}),
    ("i train with batch 256 and the loss goes nan", {"batch_size": 256}),
    ("I use lr 1e-3 like the original repo", {"learning_rate": 0.001}),
])
def test_the_users_setting_like_a_work_is_read(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text", ["batch 3 gives NaN", "the loss spikes at batch 4096"])
def test_a_batch_index_is_no_size(text: str) -> None:
    assert obs(text).get("batch_size") is None


# --- a speed's peak is its best figure; its drop is the slowdown ------------------------------------------------------


@pytest.mark.parametrize("text", ["throughput peaks at 3000 samples/s", "tokens/sec peak at 12k"])
def test_a_throughput_peak_is_no_slowness(text: str) -> None:
    assert obs(text).get("symptom") is None


@pytest.mark.parametrize("text", [
    "throughput drops from 3000 to 800 samples/s",
    "throughput went from 3000 to 800 it/s",
    "throughput peaks at 3000 samples/s and then drops to 800",
])
def test_a_throughput_drop_is_slow_training(text: str) -> None:
    assert_reads(text, {"symptom": "slow_training"})


# --- a warmup that peaks later than set: the schedule paced too slowly ------------------------------------------------


@pytest.mark.parametrize("text", [
    "warmup peaks after 4000 steps instead of 400",
    "LR reaches its peak 10x later than it should",
    "the lr hits its peak at step 4000 instead of 400",
    "my warmup peaked after 4k steps rather than 500",
    "the learning rate reaches the peak value way later than planned",
    "lr reachs its peak much later than i set",
    "the warmup peaks too late",
])
def test_a_late_peak_is_a_slow_schedule(text: str) -> None:
    got = obs(text)
    assert got.get("scheduler_pace") == "too_slow" and got.get("loss_behavior") is None, got


@pytest.mark.parametrize("text", [
    "the warmup peaks after 400 steps instead of 4000",
    "the lr reaches its peak after 4000 steps",
    "the loss peaks after 4000 steps",
])
def test_a_peak_on_time_or_early_is_not_slow(text: str) -> None:
    # (an early peak is the fast pace, d35: tests/test_reading_d35.py)
    assert obs(text).get("scheduler_pace") != "too_slow"


def test_the_early_end_still_reads_fast() -> None:
    assert_reads("my schedule ends too early, lr hits zero at half the run", {"scheduler_pace": "too_fast"})
