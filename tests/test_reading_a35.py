"""Readings of issue 17's general gaps (a35): other metrics' figures and direction, a split said after the curve's
movement, and an optimizer built before FSDP wrapped the model. Each reading is tested both ways."""

from __future__ import annotations

import pytest

from tests.reading import assert_reads, obs

# --- a split's figure of another higher-is-better metric is its score: the gap reads as an accuracy's -----------

GAP = {"metric_kind": "score", "symptom": "overfitting"}


@pytest.mark.parametrize(("text", "train", "val"), [
    ("f1 of 0.2 on val while train f1 0.95", 0.95, 0.2),
    ("train f1 is 0.95 but val f1 is 0.2", 0.95, 0.2),
    ("train mAP 0.98 val mAP 0.55", 0.98, 0.55),
    ("mIoU on val is 0.4 while train mIoU is 0.9", 0.9, 0.4),
    ("dice score on validation is stuck at 0.3 while training dice is 0.9", 0.9, 0.3),
    ("train AUC 0.98 val AUC 0.55", 0.98, 0.55),
])
def test_a_gap_in_another_score_is_overfitting(text: str, train: float, val: float) -> None:
    assert_reads(text, {**GAP, "train_metric": train, "val_metric": val})


@pytest.mark.parametrize("text", [
    "val f1 is 0.8 and train f1 is 0.82",          # no gap: the figures, no overfitting
    "training mAP 0.9 and validation mAP 0.85",
])
def test_close_scores_are_no_gap(text: str) -> None:
    got = obs(text)
    assert got.get("metric_kind") == "score" and got.get("symptom") is None, got


@pytest.mark.parametrize("text", [
    "train accuracy 0.9, val F1 0.4",   # two metrics: no gap between them
    "val WER 0.3 and train WER 0.1",    # lower is better: no score
    "my F1 score is 0.0",               # no split
])
def test_no_score_gap_from_other_figures(text: str) -> None:
    got = obs(text)
    assert got.get("metric_kind") != "score" and got.get("symptom") != "overfitting", got


def test_a_score_gap_derives_the_generalization_gap_and_validation_above_training() -> None:
    from expert import Consultation

    c = Consultation()
    c.observe(train_metric=0.95, val_metric=0.2, metric_kind="score", symptom="overfitting")
    d = c.run()
    assert "DV-GAP-01" in str(c.trace), d.plan
    c = Consultation()
    c.observe(train_metric=0.6, val_metric=0.93, metric_kind="score", symptom="metrics_wrong")
    c.run()
    assert "DV-GAP-05" in str(c.trace)


def test_a_loss_pair_is_no_score_gap() -> None:
    """Lower is better for a loss: a validation loss above the training loss is no validation scoring better."""
    from expert import Consultation

    c = Consultation()
    c.observe(train_metric=0.2, val_metric=0.95, metric_kind="loss", symptom="metrics_wrong")
    c.run()
    assert "DV-GAP-05" not in str(c.trace) and "DV-GAP-01" not in str(c.trace)


@pytest.mark.parametrize("metric", ["f1", "mAP", "AUC", "IoU", "dice", "BLEU"])
def test_another_metric_reads_as_accuracy_does(metric: str) -> None:
    assert_reads(f"val {metric} keeps dropping while train {metric} keeps rising", {"symptom": "overfitting"})
    assert_reads(f"the {metric} on the validation set goes down", {"symptom": "overfitting"})
    assert_reads(f"train {metric} 0.98 val {metric} 0.55", {"symptom": "overfitting"})
    assert_reads(f"val {metric} is higher than train {metric}", {"val_better_than_train": True})


def test_the_dice_loss_is_a_loss() -> None:
    assert_reads("the dice loss keeps going up", {"loss_fn": "dice", "loss_behavior": "diverging"})
    assert obs("dice or focal loss for segmentation?").get("metric_kind") is None


# --- a number after "epoch"/"step" is a moment, no figure ---------------------------------------------------------

@pytest.mark.parametrize("text", ["val accuracy drops after epoch 10", "val f1 drops after epoch 10",
                                  "validation accuracy falls from step 500"])
def test_a_numbered_epoch_is_no_metric(text: str) -> None:
    assert "val_metric" not in obs(text)


def test_a_figure_beside_an_epoch_is_still_read() -> None:
    assert_reads("at epoch 10 val accuracy is 0.6 and train accuracy 0.99", {"val_metric": 0.6, "train_metric": 0.99})


# --- a split said after the movement says whose curve moved -----------------------------------------------------

@pytest.mark.parametrize("text", [
    "perplexity keeps going up on val",
    "the loss increases on the validation set",
    "loss goes up on val but down on train",
    "the training loss goes down but the loss goes up on the validation set",
])
def test_a_trailing_validation_split_is_the_validation_curve(text: str) -> None:
    assert_reads(text, {"val_loss_rising": True, "symptom": "overfitting", "loss_behavior": None})


@pytest.mark.parametrize(("text", "expected"), [
    ("the loss goes up on the training set", {"loss_behavior": "diverging", "val_loss_rising": None}),
    ("the loss keeps going up", {"loss_behavior": "diverging", "val_loss_rising": None}),
    ("loss goes up in eval", {"val_loss_rising": None}),
    ("accuracy is higher on the test set than on the training set", {"val_better_than_train": True}),
    ("the loss is lower on val than on train", {"val_better_than_train": True}),
    ("perplexity goes down on val", {"val_loss_rising": None, "symptom": None}),
])
def test_a_trailing_split_near_miss(text: str, expected: dict) -> None:
    assert_reads(text, expected)


def test_spikes_on_validation_are_no_training_instability() -> None:
    assert obs("loss spikes on the validation set").get("loss_behavior") != "spiking"


# --- the optimizer built before FSDP wrapped the model --------------------------------------------------------------

STALE = {"optimizer_params": "stale", "multi_gpu": True}


@pytest.mark.parametrize("text", [
    "I created the optimizer before FSDP",
    "the optimizer is created before the model is wrapped in FSDP",
    "I built the optimizer before wrapping the model with FSDP",
    "with FSDP through accelerate, the optimizer is defined before accelerator.prepare",
    "optimizer defined before accelerator.prepare when using FSDP",
    "I wrap the model in FSDP after creating the optimizer",
])
def test_an_optimizer_built_before_fsdp_is_stale(text: str) -> None:
    assert_reads(text, STALE)


@pytest.mark.parametrize("text", [
    "optimizer defined before accelerator.prepare",            # the usual accelerate order, no FSDP
    "the optimizer is created after the model is wrapped in FSDP",
    "should I create the optimizer before FSDP wrapping?",
    "is it a problem that the optimizer is created before FSDP?",
    "I did not create the optimizer before FSDP",
    "I create the optimizer before the training loop",
    "with deepspeed the optimizer is created before deepspeed.initialize",  # DeepSpeed takes a client optimizer
    "with FSDP I create the optimizer after accelerator.prepare(model)",
])
def test_an_optimizer_order_near_miss_is_not_stale(text: str) -> None:
    assert obs(text).get("optimizer_params") is None


def test_the_stated_order_reaches_the_sharding_cause() -> None:
    from expert import Consultation

    c = Consultation()
    c.complain("I created the optimizer before wrapping the model in FSDP and the loss does not decrease")
    d = c.run()
    assert "LP-OPT-04" in [f["id"] if isinstance(f, dict) else f.id for f in d.findings], d.findings


def test_a_figure_past_a_numbered_epoch_is_still_in_reach() -> None:
    assert_reads("val acc peaked at epoch 5 with 80% and train acc is 99%",
                 {"val_metric": 0.8, "train_metric": 0.99, "symptom": "overfitting"})
