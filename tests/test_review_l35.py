"""Review fixes (l35): prose read as a flat log, classes counted where a loss counts none, a count read as the
user's batch, another's figures read as the user's metrics, a planned or set warmup against its peak."""

from __future__ import annotations

import threading

import pytest

from expert import talk
from tests.reading import assert_reads, obs

# --- 1. figures in prose, or of two runs, are no flat log ------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "Expected loss: 0.6931 at init. My loss: 0.6931 at init, then it decreases to 0.3",
    "run A loss: 0.6931\nrun B loss: 0.6931\nboth work fine, which is faster?",
    "the loss should be 0.6931 at init and my loss is 0.6931 at init, then it drops",
])
def test_prose_figures_and_two_runs_are_no_flat_log(text: str) -> None:
    assert_reads(text, {"loss_at_init": None, "num_classes": None, "symptom": None})


@pytest.mark.parametrize("text", [
    "run A loss: 0.6931\nrun A loss: 0.6931\nrun A loss: 0.6931",
    "{'loss': 0.6931, 'epoch': 1.0}\n{'loss': 0.6931, 'epoch': 2.0}",
    "Epoch 1/10 - loss: 2.3026 - accuracy: 0.1000\nEpoch 2/10 - loss: 2.3026 - accuracy: 0.1000",
])
def test_records_of_one_run_still_read_flat(text: str) -> None:
    got = obs(text)
    assert got.get("loss_at_init") is not None and got.get("num_classes") in (2, 10), got


# --- 2. no classes counted where the loss counts none ----------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "MSE loss stuck at 0.69",
    "my regression loss is stuck at 0.69",
    "{'loss': 0.6931, 'rewards/chosen': 0.0}\n{'loss': 0.6931, 'rewards/chosen': 0.0}",
    "{'loss': 0.6931, 'logps/rejected': -3.1}\n{'loss': 0.6931, 'logps/rejected': -3.1}",
    "my DPO loss is stuck at 0.6931",
])
def test_no_classes_counted_for_regression_or_preference_losses(text: str) -> None:
    assert obs(text).get("num_classes") is None


@pytest.mark.parametrize(("text", "classes"), [
    ("my loss is stuck at 0.6931", 2),
    ("cross entropy loss stuck at 0.69", 2),
    ("my classifier loss is stuck at 2.3026", 10),
    ("I picked the chosen lr and my loss is stuck at 2.3026", 10),
])
def test_classes_still_counted_for_a_classification_loss(text: str, classes: int) -> None:
    assert obs(text).get("num_classes") == classes


# --- 3. a count after "I use" is no batch -----------------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "the paper uses batch 4096 and we use 4 A100s",
    "the paper uses batch 4096 and I use 2 nodes with 256",
    "the paper uses batch 4096 and I use 16 accumulation steps",
])
def test_a_count_of_something_else_is_no_elided_batch(text: str) -> None:
    assert obs(text).get("batch_size") is None


@pytest.mark.parametrize("text", [
    "the paper uses batch 4096 and I use 256",
    "the paper uses batch 4096; I use 256",
    "the paper uses batch 4096 and I use 256 instead.",
    "the paper uses batch 4096 and I use 256 images",
])
def test_the_users_own_batch_still_reads(text: str) -> None:
    assert obs(text).get("batch_size") == 256


# --- 4. another's figures are no metric of the user's run -----------------------------------------------------------


@pytest.mark.parametrize("text", [
    "paper reports mAP 0.9 on val, my train mAP is 0.95",
    "train F1 0.95 but the paper's val F1 is 0.4",
])
def test_others_figures_are_no_metric_of_the_run(text: str) -> None:
    got = obs(text)
    assert got.get("val_metric") is None and got.get("symptom") != "overfitting", got


def test_the_talk_reader_gives_no_metric_of_anothers_accuracy() -> None:
    text = "train accuracy 0.99 but the paper's val accuracy is 0.5"
    read = {(r.name, r.value) for r in talk._Reader(text).read().readings}
    assert ("train_metric", 0.99) in read and not any(name == "val_metric" for name, _v in read)


def test_own_figures_still_read_as_metrics() -> None:
    assert_reads("train F1 0.95 but val F1 is 0.4", {"val_metric": 0.4, "symptom": "overfitting"})
    assert_reads("paper reports mAP 0.9 on val, my val mAP is 0.5", {"val_metric": 0.5})


# --- 5. a warmup's peak against its plan ------------------------------------------------------------------------------


def test_a_peak_as_expected_is_no_fast_schedule() -> None:
    assert_reads("the lr peaks after 40 steps as expected", {"scheduler_pace": None})
    assert_reads("lr peaks after 10 steps", {"scheduler_pace": "too_fast"})


def test_a_peak_sooner_than_the_warmup_set_is_too_fast() -> None:
    assert_reads("warmup is 4000 steps but the lr peaks at step 500", {"scheduler_pace": "too_fast"})
    assert_reads("warmup is 500 steps and the lr peaks at step 500", {"scheduler_pace": None})
    assert_reads("the lr peaks at step 500", {"scheduler_pace": None})


# --- 6. the shared tokenisation, read once ----------------------------------------------------------------------------


def test_whole_tokens_is_stable_across_threads() -> None:
    texts = ["the loss is stuck at 0.69", "my lr is 1e-3 and the loss diverges"]
    want = {t: [(k.text, k.start) for k in talk._whole_tokens(t)] for t in texts}
    bad: list[str] = []

    def work(t: str) -> None:
        for _ in range(300):
            if [(k.text, k.start) for k in talk._whole_tokens(t)] != want[t]:
                bad.append(t)

    threads = [threading.Thread(target=work, args=(t,)) for t in texts * 2]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not bad
