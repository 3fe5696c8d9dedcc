"""Reading of training talk, issue 19 (b33): precision moves to bf16, head/class mismatches, others' runs, GPU use
during validation, hardware without bf16, class counts, logged loss collapse, metrics averaged over batches."""

from __future__ import annotations

import pytest

from tests.reading import assert_reads, finding_ids, obs

# --- a move to bf16 is a precision change; the differential names its lost mantissa, not fp16's overflow -----------


@pytest.mark.parametrize("text", [
    "I moved from fp32 to bf16 and the loss plateaued",
    "switched to bf16 autocast and now the loss is stuck at 2.1",
    "since I enabled bfloat16 the validation loss stalls higher than before",
    "after changing precision from fp32 to bf16 the model trains worse",
])
def test_a_move_to_bf16_is_a_precision_change(text: str) -> None:
    assert_reads(text, {"mixed_precision": "bf16", "recent_change": "precision"})


@pytest.mark.parametrize("text", [
    "I use bf16 and the loss is stuck at 2.3",
    "should I switch to bf16? my loss is noisy",
    "I am thinking about moving to bf16 to save memory",
])
def test_bf16_in_use_or_weighed_is_no_change(text: str) -> None:
    assert obs(text).get("recent_change") is None


def test_bf16_change_names_lost_precision_not_overflow() -> None:
    ids = finding_ids("since I switched to bf16 the loss is stuck at 1.9 and learns slower than in fp32")
    assert "DF-CHG-PREC-BF16" in ids and "DF-CHG-PREC" not in ids, ids


def test_fp16_change_still_names_overflow() -> None:
    ids = finding_ids("I moved from fp32 to fp16 and the loss went nan")
    assert "DF-CHG-PREC" in ids and "DF-CHG-PREC-BF16" not in ids, ids


# --- a class count set against the width of a Linear: the head is short of the classes ------------------------------


@pytest.mark.parametrize("text, classes, width", [
    ("num_labels=10 but out_features=5", 10, 5),
    ("I set num_classes=10 while my final nn.Linear(768, 5)", 10, 5),
    ("out_features=3 whereas num_labels=7 in the config", 7, 3),
])
def test_class_count_against_linear_width(text: str, classes: int, width: int) -> None:
    assert_reads(text, {"num_classes": classes, "num_outputs": width, "label_check": "not_zero_based"})


@pytest.mark.parametrize("text", [
    "num_labels=10 and out_features=10",
    "num_labels=10, fc1 out_features=128",
    "I have num_labels=2 for sentiment",
])
def test_matching_or_unrelated_widths_are_no_mismatch(text: str) -> None:
    assert obs(text).get("label_check") is None


# --- another person's run, or a work's, is not the user's -------------------------------------------------------------


@pytest.mark.parametrize("text, name", [
    ("my colleague's run had no warmup and was fine", "warmup"),
    ("my colleague ran it without warmup and it converged", "warmup"),
    ("the paper trains with no warmup", "warmup"),
    ("their model uses adam", "optimizer"),
    ("his run uses lr 0.1 and works", "learning_rate"),
    ("my friend's config uses sgd with momentum", "optimizer"),
])
def test_others_settings_are_not_read(text: str, name: str) -> None:
    assert obs(text).get(name) is None


@pytest.mark.parametrize("text, expected", [
    ("I train without warmup and the loss explodes", {"warmup": False}),
    ("I fine-tune their model with lr 1e-3 and the loss goes nan", {"learning_rate": 0.001}),
    ("my colleague's run had no warmup, mine has no warmup either and the loss explodes", {"warmup": False}),
    ("the paper's config uses adamw but I use sgd", {"optimizer": "sgd"}),
])
def test_own_settings_beside_others_are_read(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text", ["his loss goes nan", "her model overfits after 3 epochs"])
def test_third_person_trouble_is_theirs(text: str) -> None:
    got = obs(text)
    assert got.get("symptom") is None and got.get("loss_behavior") is None, got


@pytest.mark.parametrize("text", ["his loss goes nan and mine too", "I showed her my loss curve, the loss goes nan"])
def test_own_trouble_beside_a_third_person_is_read(text: str) -> None:
    assert_reads(text, {"loss_behavior": "nan_or_inf"})


# --- a share of GPU use during validation is no validation score --------------------------------------------------


@pytest.mark.parametrize("text", [
    "my GPU usage goes down to 30% during validation",
    "gpu utilisation drops to 30% during validation",
    "during validation the gpu sits at 25% utilization",
])
def test_gpu_share_during_validation_is_no_metric(text: str) -> None:
    got = obs(text)
    assert got.get("val_metric") is None and got.get("gpu_utilization_pct") is not None, got


@pytest.mark.parametrize("text, val", [
    ("100% on the training data but 60% on validation", 0.6),
    ("during validation it drops to 30%", 0.3),
])
def test_split_shares_still_read(text: str, val: float) -> None:
    assert_reads(text, {"val_metric": val})


# --- hardware that lacks bf16 is no run in bf16 -------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "my rtx 6000 can't use bf16",
    "my card doesn't support bf16",
    "bf16 is not available on my 2080 ti",
    "my quadro doesn't support bfloat16 so I use fp16",
])
def test_hardware_without_bf16(text: str) -> None:
    got = obs(text)
    assert got.get("bf16_supported") is False and got.get("mixed_precision") != "bf16", got


@pytest.mark.parametrize("text", ["I use bf16 on my rtx 6000", "we train in bf16 on an a100"])
def test_bf16_on_hardware_is_the_setting(text: str) -> None:
    got = obs(text)
    assert got.get("mixed_precision") == "bf16" and got.get("bf16_supported") is None, got


# --- class sizes said as counts ---------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "900 negatives and 100 positives",
    "only 12 samples of class 3 out of 5000",
    "class 0 has 4500 images, class 1 has 300",
    "my dataset has 10,000 normal transactions and 50 fraud cases, accuracy is 99%",
    "roughly 20k images, 19.5k of them label 0",
])
def test_counted_imbalance(text: str) -> None:
    got = obs(text)
    assert got.get("class_imbalance") is True, got
    assert got.get("dataset_size") not in (12, 4500), got  # a class's count is not the data's size


@pytest.mark.parametrize("text", [
    "500 positives and 450 negatives",
    "class 0 has 400 images and class 1 has 350",
    "I have 50000 training images and 5000 validation images",
    "trained for 100 epochs out of 5000 steps",
    "I have 1000 samples, 550 are class 1",
])
def test_balanced_or_unrelated_counts(text: str) -> None:
    assert obs(text).get("class_imbalance") is None


# --- a logged training loss that collapses to exactly 0 --------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "{'loss': 2.3012, 'learning_rate': 4.9e-05, 'epoch': 0.1} {'loss': 0.0, 'learning_rate': 4.5e-05, 'epoch': 0.5} "
    "{'loss': 0.0, 'learning_rate': 4e-05, 'epoch': 1.0}",
    "loss: 2.31, loss: 0.0, loss: 0.0",
    "{'loss': 1.05, 'epoch': 0.25}\n{'loss': 0.74, 'epoch': 0.5}\n{'loss': 0.0, 'epoch': 0.75}\n"
    "{'loss': 0.0, 'epoch': 1.0}",
])
def test_logged_loss_collapse(text: str) -> None:
    assert_reads(text, {"loss_collapses_zero": True})


@pytest.mark.parametrize("text", [
    "{'loss': 0.69, 'epoch': 0.2}\n{'loss': 0.41, 'epoch': 0.4}\n{'loss': 0.0012, 'epoch': 0.6}",
    "{'loss': 0.0, 'epoch': 0.2} {'loss': 0.0, 'epoch': 0.4}",
    "{'loss': 0.5, 'epoch': 1} {'eval_loss': 0.0, 'epoch': 1}",
    "{'loss': 0.9, 'epoch': 1} {'loss': 0.0, 'epoch': 2} {'loss': 0.4, 'epoch': 3}",
])
def test_logged_loss_without_collapse(text: str) -> None:
    assert obs(text).get("loss_collapses_zero") is None


# --- a metric averaged over batches -----------------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "metrics averaged per batch",
    "I average accuracy over batches and the last batch is smaller",
    "my validation accuracy is the mean of the per-batch accuracies",
    "the loss is averaged over batches but the last batch is smaller",
    "our f-score metric is computed for each batch and then averaged",
])
def test_metric_averaged_over_batches(text: str) -> None:
    assert_reads(text, {"metric_batch_averaged": True, "symptom": "metrics_wrong"})


@pytest.mark.parametrize("text", [
    "I average the loss over batches",
    "the loss is averaged over the batch",
    "accuracy is computed over the whole validation set",
    "I don't average accuracy over batches, I count correct predictions",
])
def test_no_batch_averaged_metric(text: str) -> None:
    assert obs(text).get("metric_batch_averaged") is None
